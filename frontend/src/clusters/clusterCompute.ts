// The compute of one cluster (its instance groups and nodes) as the cluster
// page shows it: loaded once with the list queries' event cursors, then kept
// current by INSTANCE_GROUP and NODE events.
import { eventChanges, type RecordEvent, type Versioned } from "../api/liveRecords";
import { compareTimes } from "../ui/time";

/** The event kinds that carry a cluster's compute. */
export const computeKinds = ["INSTANCE_GROUP", "NODE"] as const;

/**
 * The earlier of two event cursors (sequence numbers as strings), so that a
 * stream started there misses nothing either list has not seen; an event
 * replayed for the other list is older than what it holds and is ignored.
 * undefined while either is not known yet.
 */
export function earlierCursor(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return undefined;
  return BigInt(a) <= BigInt(b) ? a : b;
}

interface KindEvent extends RecordEvent {
  target: { id: string; kind: string };
}

/**
 * The changes that events of kind make to the records of cluster clusterId.
 * Deletions name only an id; an id of another cluster's record removes
 * nothing here.
 */
export function clusterChanges<E extends KindEvent, T extends Versioned & { clusterId: string }>(
  events: readonly E[],
  kind: string,
  clusterId: string,
  record: (event: E) => T | null | undefined,
): { id: string; record: T | null }[] {
  const mine = events.filter((e) => e.target.kind === kind);
  return eventChanges(mine, (e) => {
    const r = record(e);
    return r && r.clusterId === clusterId ? r : null;
  });
}

/** Groups as listed: oldest first, deleted ones left out. */
export function listedGroups<T extends { status: string; createdAt: string; name: string }>(groups: T[]): T[] {
  return groups.filter((g) => g.status !== "DELETED").sort((a, b) => compareTimes(a.createdAt, b.createdAt) || a.name.localeCompare(b.name));
}
