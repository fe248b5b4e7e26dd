import { useCallback, useRef, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterDetailFragment } from "../gql/graphql";
import { OperationProgress } from "../operations/OperationProgress";
import { OperationQuery } from "../operations/documents";
import { Field, FieldErrorList } from "../ui/Field";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { newIdempotencyKey } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { formatTime } from "../ui/time";
import { accessChoices, grantErrors, splitNamespaces, type AccessChoice } from "./clusterAccess";
import { ClusterAccessQuery, GrantClusterAccessMutation, KubeconfigQuery, RevokeClusterAccessMutation } from "./documents";

const originWords: Record<string, string> = {
  ENGINE: "InstantStart itself",
  INSTANTSTART: "granted here",
  FOUND: "made outside InstantStart",
};

/**
 * "Connect with kubectl": the cluster's kubeconfig to copy, who has access
 * to its Kubernetes API (its EKS access entries, read live), and the
 * grant and revoke that change it, each followed to its end.
 */
export function KubectlCard({ cluster }: { cluster: ClusterDetailFragment }) {
  const active = cluster.status === "ACTIVE";
  return (
    <section className="card" aria-label="Connect with kubectl">
      <h2>Connect with kubectl</h2>
      {active ? (
        <>
          <Kubeconfig clusterId={cluster.id} />
          <AccessEntries clusterId={cluster.id} />
        </>
      ) : (
        <p className="muted">Once the cluster is ACTIVE, its kubeconfig and who may use kubectl on it show here.</p>
      )}
    </section>
  );
}

function Kubeconfig({ clusterId }: { clusterId: string }) {
  const [{ data, error, fetching }] = useQuery({ query: KubeconfigQuery, variables: { clusterId } });
  const text = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<"idle" | "copied" | "selected">("idle");
  const copy = async () => {
    const value = data?.kubeconfig ?? "";
    try {
      await navigator.clipboard.writeText(value);
      setCopied("copied");
    } catch {
      // No clipboard (plain HTTP from another host, or refused): select the
      // text so that the user can copy it.
      text.current?.focus();
      text.current?.select();
      setCopied("selected");
    }
  };
  if (error) return <ErrorBanner title="The kubeconfig could not be read" messages={errorMessages(error)} />;
  if (fetching && !data) return <Loading what="the kubeconfig" />;
  if (!data) return null;
  return (
    <div className="kubeconfig">
      <div className="section-head">
        <h3>Kubeconfig</h3>
        <button type="button" className="button" onClick={() => void copy()}>
          Copy kubeconfig
        </button>
      </div>
      <p className="hint">
        Save it as <code>~/.kube/config</code>. kubectl runs <code>aws eks get-token</code>, so it acts as whoever runs it: that IAM
        principal needs access below.{" "}
        <span aria-live="polite" data-copy-state={copied}>
          {copied === "copied" ? "Copied to the clipboard." : copied === "selected" ? "The clipboard is not available: the text is selected, copy it with Ctrl+C." : ""}
        </span>
      </p>
      <textarea ref={text} className="code-block" aria-label="Kubeconfig" readOnly rows={8} value={data.kubeconfig} spellCheck={false} />
    </div>
  );
}

function AccessEntries({ clusterId }: { clusterId: string }) {
  const { me } = useSession();
  const [{ data, error, fetching }, reexecute] = useQuery({ query: ClusterAccessQuery, variables: { id: clusterId }, requestPolicy: "network-only" });
  const refresh = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  const [followed, setFollowed] = useState<{ id: string; what: string } | null>(null);
  const [revokeErrors, setRevokeErrors] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [{ fetching: revoking }, revoke] = useMutation(RevokeClusterAccessMutation);
  const revokeKey = useRef(newIdempotencyKey());
  const denied = deniedReason(me.role, "ADMIN");

  const doRevoke = async (principalArn: string) => {
    setRevokeErrors(null);
    const r = await revoke({ clusterId, principalArn, idempotencyKey: revokeKey.current });
    if (r.data) {
      revokeKey.current = newIdempotencyKey();
      setConfirming(null);
      setFollowed({ id: r.data.revokeClusterAccess.id, what: `Revoking the access of ${principalArn}` });
    } else if (r.error) setRevokeErrors(errorMessages(r.error));
  };

  const entries = data?.cluster.accessEntries ?? [];
  return (
    <div className="access-entries">
      <h3>Who has access</h3>
      {followed && <Followed key={followed.id} id={followed.id} what={followed.what} onDone={refresh} onDismiss={() => setFollowed(null)} />}
      <FieldErrorList messages={revokeErrors ?? undefined} />
      {error && <ErrorBanner title="The access entries could not be read" messages={errorMessages(error)} />}
      {fetching && !data ? (
        <Loading what="the access entries" />
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">The cluster's EKS access entries</caption>
            <thead>
              <tr>
                <th scope="col">Principal</th>
                <th scope="col">Access</th>
                <th scope="col">Scope</th>
                <th scope="col">Made by</th>
                <th scope="col">Granted</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.principalArn} data-principal={e.principalArn}>
                  <td>
                    <code>{e.principalArn}</code>
                    {e.type !== "STANDARD" && <div className="cell-note">{e.type} (a node's entry)</div>}
                  </td>
                  <td>
                    {e.access ?? <span className="muted">{e.policyArns.length > 0 ? e.policyArns.map((p) => p.split("/").pop()).join(", ") : "none"}</span>}
                  </td>
                  <td>{e.namespaces.length > 0 ? e.namespaces.join(", ") : "whole cluster"}</td>
                  <td>
                    {originWords[e.origin] ?? e.origin}
                    {e.grantedBy && <div className="cell-note">by {e.grantedBy}</div>}
                  </td>
                  <td>{formatTime(e.grantedAt ?? e.createdAt)}</td>
                  <td>
                    {e.origin === "ENGINE" ? (
                      <span className="muted">kept</span>
                    ) : confirming === e.principalArn ? (
                      <span className="row-actions">
                        <GuardedButton className="button button-danger" deniedReason={revoking ? "Revoking…" : denied} onClick={() => void doRevoke(e.principalArn)}>
                          Confirm revoke
                        </GuardedButton>
                        <button type="button" className="button button-quiet" onClick={() => setConfirming(null)}>
                          Cancel
                        </button>
                      </span>
                    ) : (
                      <GuardedButton className="button button-quiet" deniedReason={denied} onClick={() => setConfirming(e.principalArn)}>
                        Revoke
                      </GuardedButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <GrantForm clusterId={clusterId} denied={denied} onStarted={(id, what) => setFollowed({ id, what })} />
    </div>
  );
}

/** An operation of this card, followed live; onDone re-reads the entries. */
function Followed({ id, what, onDone, onDismiss }: { id: string; what: string; onDone: () => void; onDismiss: () => void }) {
  const [{ data }] = useQuery({ query: OperationQuery, variables: { id } });
  if (!data) return null;
  return <OperationProgress what={what} operation={data.operation} noopMessage="Nothing to change: the access is already so." onDismiss={onDismiss} onSucceeded={onDone} />;
}

function GrantForm({ clusterId, denied, onStarted }: { clusterId: string; denied: string | undefined; onStarted: (id: string, what: string) => void }) {
  const [principalArn, setPrincipalArn] = useState("");
  const [access, setAccess] = useState<AccessChoice>("VIEW");
  const [namespaces, setNamespaces] = useState("");
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [serverErrors, setServerErrors] = useState<string[] | null>(null);
  const [{ fetching }, grant] = useMutation(GrantClusterAccessMutation);
  const key = useRef(newIdempotencyKey());

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    setServerErrors(null);
    const ns = splitNamespaces(namespaces);
    const found = grantErrors(principalArn, access, ns);
    setErrors(Object.fromEntries(Object.entries(found).map(([k, v]) => [k, [v]])));
    if (Object.keys(found).length > 0) return;
    const arn = principalArn.trim();
    const r = await grant({ clusterId, principalArn: arn, access, namespaces: ns.length > 0 ? ns : null, idempotencyKey: key.current });
    if (r.data) {
      key.current = newIdempotencyKey();
      setPrincipalArn("");
      setNamespaces("");
      onStarted(r.data.grantClusterAccess.id, `Granting ${access} to ${arn}`);
    } else if (r.error) setServerErrors(errorMessages(r.error));
  };

  return (
    <form className="grant-form" aria-label="Grant kubectl access" onSubmit={(e) => void submit(e)} noValidate>
      <h3>Grant access</h3>
      <Field path="principalArn" label="IAM role or user ARN" errors={errors} hint="The principal whose AWS credentials run kubectl.">
        {(props) => (
          <input {...props} type="text" value={principalArn} placeholder="arn:aws:iam::123456789012:role/data-scientists" onChange={(e) => setPrincipalArn(e.target.value)} />
        )}
      </Field>
      <Field path="access" label="Access" errors={errors} hint={accessChoices.find((c) => c.value === access)?.hint}>
        {(props) => (
          <select {...props} value={access} onChange={(e) => setAccess(e.target.value as AccessChoice)}>
            {accessChoices.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field path="namespaces" label="Namespaces (optional)" errors={errors} hint="Limit View or Edit to these namespaces, separated by commas; empty for the whole cluster.">
        {(props) => <input {...props} type="text" value={namespaces} placeholder="team-a, team-b" onChange={(e) => setNamespaces(e.target.value)} />}
      </Field>
      <FieldErrorList messages={serverErrors ?? undefined} />
      <GuardedButton className="button" type="submit" deniedReason={fetching ? "Granting…" : denied}>
        Grant access
      </GuardedButton>
    </form>
  );
}
