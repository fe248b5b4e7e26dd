// The feature table is read live from AWS and Kubernetes, so no event
// carries it. What events do carry are the operations on the cluster: the
// Features tab keeps those current (one running holds the toggles) and
// reads the table again when a feature operation of the cluster changes.
import { eventChanges, type Versioned } from "../api/liveRecords";
import { operationRunning } from "../instanceGroups/words";
import { compareTimes } from "../ui/time";

/** The operation kind of updateClusterFeatures. */
export const featuresOperationKind = "UpdateClusterFeatures";

interface OperationLike extends Versioned {
  kind: string;
  status: string;
  createdAt: string;
  target: { kind: string; id: string };
}

interface OperationEvent<T extends OperationLike> {
  action: string;
  target: { id: string };
  operation: T | null | undefined;
}

function onCluster(op: OperationLike | null | undefined, clusterId: string): boolean {
  return op != null && op.target.kind === "CLUSTER" && op.target.id === clusterId;
}

/** The changes that events make to the operations on cluster clusterId. */
export function clusterOperationChanges<T extends OperationLike>(events: readonly OperationEvent<T>[], clusterId: string): { id: string; record: T | null }[] {
  return eventChanges(
    events.filter((e) => onCluster(e.operation, clusterId)),
    (e) => e.operation,
  );
}

/** Whether events change a feature operation of cluster clusterId, so that the table may have changed. */
export function touchesFeatures(events: readonly OperationEvent<OperationLike>[], clusterId: string): boolean {
  return events.some((e) => onCluster(e.operation, clusterId) && e.operation!.kind === featuresOperationKind);
}

/** The newest operation still running among ops, or null. */
export function runningOperation<T extends OperationLike>(ops: readonly T[]): T | null {
  let out: T | null = null;
  for (const op of ops) if (operationRunning(op) && (!out || compareTimes(op.createdAt, out.createdAt) > 0)) out = op;
  return out;
}
