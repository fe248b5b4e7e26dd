import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from "react";
import { useMutation, useQuery } from "urql";
import { applyChanges, eventChanges, isNewer, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { Link, navigate } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { InstanceGroupEventsSubscription as GroupEvent, InstanceGroupRowFragment, OperationSummaryFragment } from "../gql/graphql";
import { OperationStarted } from "../operations/OperationStarted";
import { OperationsTable } from "../operations/OperationsTable";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { Field, FormErrors, useFocusFirstError } from "../ui/Field";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { LiveIndicator, describeStreamError } from "../ui/LiveIndicator";
import { StatusBadge } from "../ui/StatusBadge";
import { compareTimes, formatTime } from "../ui/time";
import { deepHealthCheckNames } from "./addGroupForm";
import { DeleteGroupDialog } from "./DeleteGroupDialog";
import { InstanceGroupClusterQuery, InstanceGroupEventsSubscription, InstanceGroupPageQuery, UpdateInstanceGroupMutation } from "./documents";
import {
  changesAnything,
  editDiff,
  editDraftOf,
  editPaths,
  editServerErrors,
  minCountFollows,
  rebaseDraft,
  validateEditDraft,
  type EditGroupDraft,
} from "./editGroupForm";
import { DeepHealthChecksField, LabelsEditor, TaintsEditor } from "./KubernetesConfigEditor";
import { taintEffectWords } from "./kubernetesConfig";
import { ScaleGroupDialog } from "./ScaleGroupDialog";
import { capacityWords, fixedReason, groupChangeDenied, interfaceWords, planNameOf } from "./words";

/**
 * One instance group: its counts and state live, the settings fixed for its
 * lifetime (read-only, with why), a form that changes the others, scale,
 * delete, and its operations.
 */
export function InstanceGroupPage({ clusterId, id }: { clusterId: string; id: string }) {
  const { me } = useSession();
  const [{ data, fetching, error }, reload] = useQuery({ query: InstanceGroupPageQuery, variables: { id, clusterId } });
  const [liveGroup, setLiveGroup] = useState<InstanceGroupRowFragment | null>(null);
  const [liveOps, setLiveOps] = useState<ReadonlyMap<string, OperationSummaryFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<"scale" | "delete" | null>(null);
  const [started, setStarted] = useState<{ what: string; id: string } | null>(null);

  const filter = useMemo(() => ({ kinds: ["INSTANCE_GROUP"], ids: [id] }), [id]);
  const onEvents = useCallback((events: GroupEvent["events"][]) => {
    setStreamError(null);
    setLiveGroup((current) => {
      let out = current;
      for (const e of events) if (e.instanceGroup && (!out || isNewer(e.instanceGroup, out))) out = e.instanceGroup;
      return out;
    });
    setLiveOps((current) => applyChanges(current, eventChanges(events, (e) => e.instanceGroup?.lastOperation)));
  }, []);
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(InstanceGroupEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, null);

  const loaded = data?.instanceGroup;
  const group = loaded && liveGroup && isNewer(liveGroup, loaded) ? liveGroup : (loaded ?? liveGroup);
  const operations = useMemo(() => {
    const ops = mergeRecords(loaded?.operations.edges.map((e) => e.node) ?? [], liveOps);
    return ops.sort((a, b) => compareTimes(b.createdAt, a.createdAt));
  }, [loaded, liveOps]);

  const cluster = data?.cluster;
  if (!group || !cluster) {
    if (error) {
      return (
        <ErrorBanner title="The instance group could not be loaded" messages={errorMessages(error)}>
          <p>
            <Link to={`/clusters/${encodeURIComponent(clusterId)}/instance-groups`}>Back to the cluster's groups</Link>{" "}
            <button className="button" type="button" onClick={() => reload({ requestPolicy: "network-only" })}>
              Try again
            </button>
          </p>
        </ErrorBanner>
      );
    }
    return fetching ? <Loading what="the instance group" /> : <EmptyState title="No such instance group" />;
  }

  const denied = deniedReason(me.role, "OPERATOR") ?? groupChangeDenied(cluster, group);
  const clusterPath = `/clusters/${encodeURIComponent(cluster.id)}`;

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> / <Link to={clusterPath}>{cluster.name}</Link> / <Link to={`${clusterPath}/instance-groups`}>Instance groups</Link> /
          </p>
          <h1>{group.name}</h1>
          <p className="head-status">
            <StatusBadge status={group.status} />
            {!group.managed && <span className="tag">found in HyperPod</span>}
            <span className="muted">
              {group.currentCount} of {group.targetCount} instances
            </span>
            <LiveIndicator error={streamError} />
          </p>
          {group.statusMessage && <p className="muted">{group.statusMessage}</p>}
        </div>
        <div className="actions">
          <GuardedButton className="button" deniedReason={denied} onClick={() => setDialog("scale")}>
            Scale
          </GuardedButton>
          <GuardedButton className="button button-danger" deniedReason={denied} onClick={() => setDialog("delete")}>
            Delete group
          </GuardedButton>
        </div>
      </div>

      {started && <OperationStarted what={started.what} operationId={started.id} onDismiss={() => setStarted(null)} />}
      {dialog === "scale" && (
        <ScaleGroupDialog
          group={group}
          region={cluster.region}
          onClose={() => setDialog(null)}
          onStarted={(op, count) => {
            setDialog(null);
            setStarted({ what: `Scaling to ${count}`, id: op.id });
          }}
        />
      )}
      {dialog === "delete" && (
        <DeleteGroupDialog
          group={group}
          onClose={() => setDialog(null)}
          onStarted={(op) => {
            setDialog(null);
            setStarted({ what: `Deleting ${group.name}`, id: op.id });
          }}
        />
      )}

      <section className="card">
        <h2>Fixed for the group's lifetime</h2>
        <p className="hint">{fixedReason}</p>
        <dl className="meta">
          <Item label="Capacity">{capacityWords[group.capacityType]}</Item>
          {group.trainingPlanArn && (
            <Item label="Training plan">
              {planNameOf(group.trainingPlanArn)} <code className="wrap muted">{group.trainingPlanArn}</code>
            </Item>
          )}
          <Item label="Availability zone">{group.zone}</Item>
          <Item label={group.flexible ? "Instance types, first choice first" : "Instance type"}>
            {group.flexible ? (
              <ol className="type-list">
                {group.instanceTypes.map((t) => (
                  <li key={t}>
                    <code>{t}</code>
                  </li>
                ))}
              </ol>
            ) : (
              <code>{group.instanceType}</code>
            )}
          </Item>
          <Item label="Network interfaces">{interfaceWords[group.networkInterfaceMode]}</Item>
        </dl>
        <h3>Set when the group was added</h3>
        <p className="hint">These are not part of an update; a group with other values is a new group.</p>
        <dl className="meta">
          <Item label="Threads per core">{group.threadsPerCore}</Item>
          <Item label="Volume per instance">{group.volumeSizeGb} GiB</Item>
          <Item label="Compute subnet">{loaded?.subnetId ? <code>{loaded.subnetId}</code> : "—"}</Item>
          <Item label="Created">{formatTime(group.createdAt)}</Item>
          <Item label="Updated">{formatTime(group.updatedAt)}</Item>
          <Item label="Group id">
            <code>{group.id}</code>
          </Item>
        </dl>
      </section>

      {group.status === "DELETED" ? (
        <p className="muted">The group was deleted; its record and operations stay for history.</p>
      ) : (
        <EditGroupForm group={group} denied={denied} />
      )}

      <section className="card">
        <div className="section-head">
          <h2>Operations</h2>
          <Link to={`/operations?targetId=${encodeURIComponent(group.id)}`}>All operations of this group</Link>
        </div>
        {operations.length === 0 ? <p className="muted">No operations yet.</p> : <OperationsTable operations={operations} showTarget={false} />}
      </section>
    </>
  );
}

/**
 * The settings an update can change. It sends only what the user changed,
 * compared with the group as it is now (which events keep current).
 */
function EditGroupForm({ group, denied }: { group: InstanceGroupRowFragment; denied: string | undefined }) {
  const [draft, setDraft] = useState<EditGroupDraft>(() => editDraftOf(group));
  // The group the draft was last aligned with; when events bring a newer
  // state, untouched fields follow it (rebaseDraft).
  const [base, setBase] = useState(group);
  if (base !== group) {
    setBase(group);
    setDraft((d) => rebaseDraft(base, group, d));
  }
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const formRef = useFocusFirstError(attempt);
  const idempotencyKey = useRef<string | null>(null);
  const [{ fetching: saving }, update] = useMutation(UpdateInstanceGroupMutation);

  const diff = editDiff(group, draft);
  const changed = changesAnything(diff);
  const follows = minCountFollows(group, draft);

  const change = (patch: Partial<EditGroupDraft>, touched: string) => {
    idempotencyKey.current = null;
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => clearField(clearField(e, generalKey), touched));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateEditDraft(group, draft);
    if (hasErrors(found)) {
      setErrors(found);
      setAttempt((n) => n + 1);
      return;
    }
    if (!changed) return;
    idempotencyKey.current ??= newIdempotencyKey();
    const result = await update({ id: group.id, input: diff, idempotencyKey: idempotencyKey.current });
    if (result.data) {
      navigate(`/operations/${encodeURIComponent(result.data.updateInstanceGroup.id)}`);
      return;
    }
    if (result.error) {
      setErrors(result.error.graphQLErrors.length > 0 ? editServerErrors(result.error.graphQLErrors) : { [generalKey]: errorMessages(result.error) });
      setAttempt((n) => n + 1);
    }
  };

  return (
    <form ref={formRef} className="card form-section edit-form" onSubmit={submit} noValidate aria-busy={saving}>
      <h2>Change settings</h2>
      <p className="hint">Only what you change is sent; everything else stays as it is.</p>
      <FormErrors title="The group was not changed" messages={errors[generalKey]} />
      <div className="group-grid">
        <Field path={editPaths.count} label="Target count" errors={errors} hint={`0 to 1000; now ${group.targetCount}, of which ${group.currentCount} run.`}>
          {(props) => (
            <input {...props} type="number" inputMode="numeric" min={0} max={1000} step={1} value={draft.count} onChange={(e) => change({ count: e.target.value }, editPaths.count)} />
          )}
        </Field>
        <Field
          path={editPaths.minCount}
          label="Minimum count"
          errors={errors}
          hint={follows !== null ? `Drops to ${follows} with the count.` : "How many must run for the group to be InService; at most the count."}
        >
          {(props) => (
            <input {...props} type="number" inputMode="numeric" min={0} max={1000} step={1} value={draft.minCount} onChange={(e) => change({ minCount: e.target.value }, editPaths.minCount)} />
          )}
        </Field>
      </div>
      <DeepHealthChecksField
        path={editPaths.deepHealthChecks}
        names={deepHealthCheckNames}
        chosen={draft.deepHealthChecks}
        errors={errors[editPaths.deepHealthChecks]}
        onChange={(deepHealthChecks) => change({ deepHealthChecks }, editPaths.deepHealthChecks)}
      />
      <LabelsEditor path={editPaths.labels} rows={draft.labels} errors={errors[editPaths.labels]} onChange={(labels) => change({ labels }, editPaths.labels)} />
      <TaintsEditor path={editPaths.taints} rows={draft.taints} errors={errors[editPaths.taints]} onChange={(taints) => change({ taints }, editPaths.taints)} />
      <ChangeSummary group={group} draft={draft} />
      <div className="form-actions">
        <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={saving || !changed}>
          {saving ? "Saving…" : "Save changes"}
        </GuardedButton>
        <button
          type="button"
          className="button button-quiet"
          disabled={!changed}
          onClick={() => {
            setDraft(editDraftOf(group));
            setErrors({});
          }}
        >
          Undo changes
        </button>
      </div>
    </form>
  );
}

/** What saving would send, in words. */
function ChangeSummary({ group, draft }: { group: InstanceGroupRowFragment; draft: EditGroupDraft }) {
  const diff = editDiff(group, draft);
  const lines: string[] = [];
  if (diff.count != null) lines.push(`Target count ${group.targetCount} → ${diff.count}`);
  if (diff.minCount != null) lines.push(`Minimum count ${group.minCount ?? 0} → ${diff.minCount}`);
  if (diff.deepHealthChecks) lines.push(`Deep health checks: ${diff.deepHealthChecks.join(", ") || "none"}`);
  if (diff.labels) lines.push(`Labels: ${diff.labels.map((l) => `${l.key}=${l.value}`).join(", ") || "none"}`);
  if (diff.taints) lines.push(`Taints: ${diff.taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${taintEffectWords[t.effect]}`).join(", ") || "none"}`);
  return (
    <div className="change-summary" aria-live="polite">
      {lines.length === 0 ? (
        <p className="muted">No changes yet.</p>
      ) : (
        <>
          <p className="strong">Saving changes:</p>
          <ul>
            {lines.map((l) => (
              <li key={l}>{l}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * The page of an instance group known only by id (an operation's target):
 * it looks up the group's cluster and goes to the group's page there.
 */
export function InstanceGroupRedirect({ id }: { id: string }) {
  const [{ data, error, fetching }] = useQuery({ query: InstanceGroupClusterQuery, variables: { id } });
  const clusterId = data?.instanceGroup.clusterId;
  useEffect(() => {
    if (clusterId) navigate(`/clusters/${encodeURIComponent(clusterId)}/instance-groups/${encodeURIComponent(id)}`, { replace: true });
  }, [clusterId, id]);
  if (error) return <ErrorBanner title="The instance group could not be loaded" messages={errorMessages(error)} />;
  return fetching || clusterId ? <Loading what="the instance group" /> : <EmptyState title="No such instance group" />;
}
