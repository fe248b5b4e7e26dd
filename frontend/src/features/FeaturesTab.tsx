import { useState } from "react";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { FeatureRowFragment, OperationDetailFragment } from "../gql/graphql";
import { OperationProgress } from "../operations/OperationProgress";
import { CopyButton } from "../ui/CopyButton";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { FeatureToggleDialog, type GroupChoice } from "./FeatureToggleDialog";
import { actionWords, dependencyWords, disableBlocked, featureActions, featureChangeDenied, noopMessage, type FeatureAction } from "./featureToggle";
import { inSentence, resourceKindWords, sharedWords } from "./featureWords";
import type { ClusterFeatures } from "./useClusterFeatures";

interface Props {
  cluster: { id: string; name: string; status: string };
  features: ClusterFeatures;
  /** The cluster's instance groups, which Karpenter may be given to scale. */
  groups: readonly GroupChoice[];
}

type Open = { feature: FeatureRowFragment; action: FeatureAction } | null;

/**
 * The cluster's managed features as AWS and Kubernetes have them now: each
 * one's state, what it needs and what it consists of, with a toggle that
 * says what it will make or remove before it does.
 */
export function FeaturesTab({ cluster, features, groups }: Props) {
  const { me } = useSession();
  const [open, setOpen] = useState<Open>(null);
  const [started, setStarted] = useState<{ what: string; op: OperationDetailFragment; noop: string } | null>(null);
  const denied = deniedReason(me.role, "OPERATOR") ?? featureChangeDenied(cluster.status, features.running);

  let body;
  if (features.error && !features.loaded) {
    body = (
      <ErrorBanner title="The features could not be read" messages={errorMessages(features.error)}>
        <button className="button" type="button" onClick={features.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!features.loaded) {
    body = <Loading what="features" />;
  } else if (features.features.length === 0) {
    body = <EmptyState title="No features" />;
  } else {
    body = (
      <div className="table-wrap">
        <table className="table features">
          <caption className="sr-only">Features of {cluster.name}</caption>
          <thead>
            <tr>
              <th scope="col">Feature</th>
              <th scope="col">Status</th>
              <th scope="col">Resources</th>
              <th scope="col">Last operation</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {features.features.map((f) => (
              <FeatureRow key={f.name} feature={f} all={features.features} denied={denied} onAction={(action) => setOpen({ feature: f, action })} />
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section aria-label="Features">
      <div className="toolbar">
        <p className="muted tab-intro">
          Managed capabilities of the cluster, read from AWS and Kubernetes when the tab opens and again whenever a feature operation on the
          cluster changes. Turning one on makes its resources, prerequisites first; turning it off removes them in reverse and leaves shared
          prerequisites.
        </p>
        <div className="toolbar-end">
          {/* Changes made outside InstantStart send no event: this reads them. */}
          <button type="button" className="button" onClick={features.reload} disabled={!features.loaded}>
            Read again
          </button>
        </div>
      </div>
      {denied && features.loaded && <p className="muted">{denied}</p>}
      {features.error && features.loaded && <ErrorBanner title="The features could not be read again: this is the last reading" messages={errorMessages(features.error)} />}
      {started && <OperationProgress key={started.op.id} what={started.what} operation={started.op} noopMessage={started.noop} onDismiss={() => setStarted(null)} />}
      {body}
      {open && (
        <FeatureToggleDialog
          clusterId={cluster.id}
          feature={open.feature}
          action={open.action}
          groups={groups}
          onClose={() => setOpen(null)}
          onStarted={(op) => {
            setOpen(null);
            setStarted({ what: `${actionWords[open.action].doing} ${inSentence(open.feature.title)}`, op, noop: noopMessage(open.action) });
          }}
        />
      )}
    </section>
  );
}

interface RowProps {
  feature: FeatureRowFragment;
  /** Every feature of the cluster, for what depends on what. */
  all: readonly FeatureRowFragment[];
  denied: string | undefined;
  onAction: (action: FeatureAction) => void;
}

function FeatureRow({ feature: f, all, denied, onAction }: RowProps) {
  const [toggle, ...more] = featureActions(f.status, f.name);
  const on = toggle === "disable";
  const tc = f.tieredCheckpointing;
  // A feature another one needs cannot be turned off: said in the row, as
  // it concerns this row only.
  const blocked = [toggle, ...more].includes("disable") ? disableBlocked(f, all) : undefined;
  const deniedFor = (a: FeatureAction) => denied ?? (a === "disable" ? blocked : undefined);
  return (
    <tr className={f.status === "FAILED" ? "row-failed" : undefined} data-feature={f.name}>
      <td className="feature-cell">
        <div className="strong">{f.title}</div>
        <div className="cell-note">{f.description}</div>
        {f.dependsOn.length > 0 && <div className="cell-note">Needs {f.dependsOn.map((d) => dependencyWords(d, all)).join(", ")}</div>}
        {f.karpenter && <div className="cell-note">Scales {f.karpenter.instanceGroups.join(", ") || "no instance group"}</div>}
        {f.deepHealthChecks && f.deepHealthChecks.instanceGroups.length > 0 && (
          <div className="cell-note">
            {f.deepHealthChecks.checks.join(", ")} on {f.deepHealthChecks.instanceGroups.join(", ")}
          </div>
        )}
        {f.inferenceOperator && (
          <div className="cell-note">
            TLS certificates in <code>{f.inferenceOperator.tlsCertificateBucket}</code>
          </div>
        )}
        {f.observability && (
          <div className="cell-note">
            Writes to <code className="wrap">{f.observability.prometheusWorkspaceArn}</code>
          </div>
        )}
        {f.mlflow && (
          <div className="cell-note">
            Jobs report to <code className="wrap">{f.mlflow.trackingServerArn}</code>
            {f.mlflow.existing ? " (existing)" : f.mlflow.artifactStoreUri ? <> · artifacts in <code>{f.mlflow.artifactStoreUri}</code></> : null}
          </div>
        )}
        {f.s3CsiDriver && (
          <div className="cell-note">
            Mounts{" "}
            {f.s3CsiDriver.buckets.map((b, i) => (
              <span key={b}>
                {i > 0 && ", "}
                <code>{b}</code>
              </span>
            ))}
          </div>
        )}
        {tc && (
          <div className="cell-note">
            Bucket <code>{tc.bucket ?? "—"}</code> · memory {tc.memoryPercentage != null ? `${tc.memoryPercentage}%` : "HyperPod's default"} · service account{" "}
            <code>
              {tc.namespace}/{tc.serviceAccount}
            </code>
          </div>
        )}
      </td>
      <td>
        <StatusBadge status={f.status} />
        {f.message && <div className="cell-note cell-message">{f.message}</div>}
      </td>
      <td>
        {f.resources.length === 0 ? (
          <span className="muted">None</span>
        ) : (
          <ul className="resource-list" aria-label={`Resources of ${f.title}`}>
            {f.resources.map((r) => (
              <li key={`${r.kind} ${r.ref}`}>
                <div>
                  <code title={resourceKindWords[r.kind]}>{r.kind}</code>
                  {r.shared && (
                    <span className="tag" title={sharedWords}>
                      shared
                    </span>
                  )}
                  {r.detail && <span className="cell-note"> · {r.detail}</span>}
                </div>
                <div className="resource-ref">
                  <code className="wrap">{r.ref}</code>
                  <CopyButton text={r.ref} label={`Copy ${r.ref}`} />
                </div>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {f.lastOperation ? (
          <>
            <Link to={`/operations/${encodeURIComponent(f.lastOperation.id)}`}>{f.lastOperation.kind}</Link>
            <div>
              <StatusBadge status={f.lastOperation.status} />
            </div>
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td>
        <div className="row-actions feature-actions">
          {toggle && (
            <GuardedButton className="switch" role="switch" aria-checked={on} aria-label={f.title} deniedReason={deniedFor(toggle)} onClick={() => onAction(toggle)}>
              <span className="switch-track" aria-hidden="true">
                <span className="switch-knob" />
              </span>
              <span aria-hidden="true">{on ? "On" : "Off"}</span>
            </GuardedButton>
          )}
          {more.map((a) => (
            <GuardedButton
              key={a}
              className={a === "disable" ? "button button-danger" : "button"}
              deniedReason={deniedFor(a)}
              onClick={() => onAction(a)}
              aria-label={`${actionWords[a].verb} ${f.title}`}
            >
              {actionWords[a].verb}
            </GuardedButton>
          ))}
        </div>
        {!denied && blocked && <div className="cell-note feature-blocked">{blocked}</div>}
      </td>
    </tr>
  );
}
