import { useEffect, useRef, useState } from "react";
import { useMutation, useQuery } from "urql";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterDetailFragment } from "../gql/graphql";
import { OperationStarted } from "../operations/OperationStarted";
import { FieldErrorList } from "../ui/Field";
import { errorMessages } from "../ui/feedback";
import { newIdempotencyKey } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { ClusterSystemNodesQuery, DeleteSystemNodesMutation, ScaleSystemNodesMutation } from "./documents";

/** The bound of scaleSystemNodes' count. */
const maxSystemNodes = 10;

/**
 * The system node group, where CoreDNS, the operators and controllers run
 * whatever the HyperPod groups' size: its state read from EKS, and the
 * controls that scale it (creating it on a cluster made without) or
 * delete it.
 */
export function SystemNodesCard({ cluster, refreshKey }: { cluster: ClusterDetailFragment; refreshKey?: string }) {
  const { me } = useSession();
  const [{ data, fetching: reading, error: readError }, reread] = useQuery({
    query: ClusterSystemNodesQuery,
    variables: { id: cluster.id },
    requestPolicy: "network-only",
  });
  // Each change of the cluster's operations may have changed the group: read it again.
  useEffect(() => {
    if (refreshKey) reread({ requestPolicy: "network-only" });
  }, [refreshKey, cluster.status, reread]);
  const group = data?.cluster?.systemNodes ?? null;
  const [count, setCount] = useState("2");
  const [instanceType, setInstanceType] = useState("");
  const [started, setStarted] = useState<string | null>(null);
  const [errors, setErrors] = useState<string[] | null>(null);
  const [{ fetching: scaling }, scale] = useMutation(ScaleSystemNodesMutation);
  const [{ fetching: deleting }, remove] = useMutation(DeleteSystemNodesMutation);
  const scaleKey = useRef(newIdempotencyKey());
  const deleteKey = useRef(newIdempotencyKey());
  const n = Number(count);
  const badCount = !Number.isInteger(n) || n < 0 || n > maxSystemNodes ? `Give a count from 0 to ${maxSystemNodes}.` : undefined;
  const notActive = cluster.status !== "ACTIVE" ? `The cluster is ${cluster.status}; its system nodes can change once it is ACTIVE.` : undefined;
  const roleDenied = deniedReason(me.role, "OPERATOR");
  const onScale = async () => {
    setErrors(null);
    const r = await scale({ clusterId: cluster.id, count: n, instanceType: group ? undefined : instanceType.trim() || undefined, idempotencyKey: scaleKey.current });
    if (r.data) {
      setStarted(r.data.scaleSystemNodes.id);
      scaleKey.current = newIdempotencyKey();
    } else if (r.error) setErrors(errorMessages(r.error));
  };
  const onDelete = async () => {
    setErrors(null);
    const r = await remove({ clusterId: cluster.id, idempotencyKey: deleteKey.current });
    if (r.data) {
      setStarted(r.data.deleteSystemNodes.id);
      deleteKey.current = newIdempotencyKey();
    } else if (r.error) setErrors(errorMessages(r.error));
  };
  return (
    <section className="card" aria-label="System nodes">
      <div className="section-head">
        <h2>System nodes</h2>
        <GuardedButton className="button" deniedReason={roleDenied ?? notActive ?? (reading ? "Reading…" : undefined)} onClick={() => reread({ requestPolicy: "network-only" })}>
          Refresh
        </GuardedButton>
      </div>
      <p className="muted">
        An EKS managed node group where CoreDNS, the operators, KEDA, the load balancer controller and SGLang routers prefer to run, so that they keep
        running when every HyperPod group is at zero.
      </p>
      {started && <OperationStarted what="Changing the system nodes" operationId={started} onDismiss={() => setStarted(null)} />}
      <FieldErrorList messages={errors ?? (readError ? errorMessages(readError) : undefined)} />
      {group ? (
        <dl className="meta" data-system-nodes={group.name}>
          <dt>Node group</dt>
          <dd>
            <code>{group.name}</code>
          </dd>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={group.status} />
            {group.issues.map((i) => (
              <div className="cell-note" key={i}>
                {i}
              </div>
            ))}
          </dd>
          <dt>Instance type</dt>
          <dd>
            <code>{group.instanceType}</code>
          </dd>
          <dt>Nodes</dt>
          <dd data-system-nodes-count>
            {group.readyCount} ready of {group.desiredCount}
          </dd>
        </dl>
      ) : (
        <p className="muted">{reading ? "Reading…" : "This cluster has no system node group: its system pods run on the HyperPod nodes there are."}</p>
      )}
      <div className="actions">
        <label>
          Node count
          <input type="number" min={0} max={maxSystemNodes} value={count} onChange={(e) => setCount(e.target.value)} aria-label="System node count" />
        </label>
        {!group && (
          <label>
            Instance type
            <input type="text" maxLength={40} placeholder="m5.large" value={instanceType} onChange={(e) => setInstanceType(e.target.value)} aria-label="System node instance type" />
          </label>
        )}
        <GuardedButton className="button" deniedReason={roleDenied ?? notActive ?? badCount ?? (scaling ? "Starting…" : undefined)} onClick={onScale}>
          {group ? "Scale system nodes" : "Add system nodes"}
        </GuardedButton>
        <GuardedButton
          className="button button-danger"
          deniedReason={roleDenied ?? notActive ?? (group ? undefined : "There is no system node group.") ?? (deleting ? "Starting…" : undefined)}
          onClick={onDelete}
        >
          Delete system nodes
        </GuardedButton>
      </div>
    </section>
  );
}
