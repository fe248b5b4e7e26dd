// How instance group settings read on the page.
import type { CapacityType, NetworkInterfaceMode } from "../gql/graphql";

export const capacityWords: Record<CapacityType, string> = {
  ON_DEMAND: "On-demand",
  SPOT: "Spot",
  TRAINING_PLAN: "Training plan",
};

export const interfaceWords: Record<NetworkInterfaceMode, string> = {
  STANDARD: "EFA with ENA",
  EFA_ONLY: "EFA only",
};

/** The name at the end of a training plan's ARN. */
export function planNameOf(arn: string | null | undefined): string {
  if (!arn) return "";
  const i = arn.lastIndexOf("/");
  return i >= 0 ? arn.slice(i + 1) : arn;
}

/** Why fixed settings cannot change, and what to do instead. */
export const fixedReason = "Fixed for the group's lifetime: to change it, add a group with the new setting, then delete this one.";

/** Operation states that hold a group: the server takes one operation per group at a time. */
export function operationRunning(op: { status: string } | null | undefined): boolean {
  return op !== null && op !== undefined && (op.status === "QUEUED" || op.status === "RUNNING");
}

/**
 * Why a group cannot change now, or undefined when it can: the cluster must
 * be ACTIVE, the group live, and no operation running on it.
 */
export function groupChangeDenied(
  cluster: { status: string },
  group: { status: string; lastOperation: { status: string; kind: string } | null },
): string | undefined {
  if (cluster.status !== "ACTIVE") return `The cluster is ${cluster.status}; its groups can change only while it is ACTIVE.`;
  if (group.status === "DELETED") return "The group was deleted.";
  if (group.status === "DELETING") return "The group is being deleted.";
  if (operationRunning(group.lastOperation)) return `${group.lastOperation!.kind} is running on this group: wait for it to end.`;
  return undefined;
}
