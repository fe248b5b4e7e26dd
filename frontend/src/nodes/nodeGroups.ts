// The nodes of a cluster as the Nodes tab shows them: in sections by
// instance group, with how many carry each health label, so that a fault
// shows at a glance.
import type { NodeHealth } from "../gql/graphql";
import { compareTimes } from "../ui/time";

/** The health labels, healthy first, then by how far recovery has to go. */
export const healthOrder: readonly NodeHealth[] = [
  "SCHEDULABLE",
  "UNSCHEDULABLE_PENDING_REBOOT",
  "UNSCHEDULABLE_PENDING_REPLACEMENT",
  "UNSCHEDULABLE",
  "UNKNOWN",
];

/** The words for a health label. */
export const healthWords: Record<NodeHealth, string> = {
  SCHEDULABLE: "schedulable",
  UNSCHEDULABLE_PENDING_REBOOT: "pending reboot",
  UNSCHEDULABLE_PENDING_REPLACEMENT: "pending replacement",
  UNSCHEDULABLE: "unschedulable",
  UNKNOWN: "unknown",
};

export interface HealthCount {
  health: NodeHealth;
  count: number;
}

/** How many nodes carry each health label, in healthOrder, leaving out labels no node has. */
export function healthCounts(nodes: readonly { health: NodeHealth }[]): HealthCount[] {
  const counts = new Map<NodeHealth, number>();
  for (const n of nodes) counts.set(n.health, (counts.get(n.health) ?? 0) + 1);
  return healthOrder.filter((h) => counts.has(h)).map((health) => ({ health, count: counts.get(health)! }));
}

interface GroupLike {
  id: string;
  name: string;
}

interface NodeLike {
  id: string;
  instanceGroupId: string;
  instanceGroupName: string;
  launchTime: string | null;
  health: NodeHealth;
}

export interface NodeSection<G, N> {
  /** The instance group's id. */
  id: string;
  name: string;
  /** The group's record; null for nodes of a group not (or no longer) listed. */
  group: G | null;
  /** Oldest first; nodes with no launch time yet last. */
  nodes: N[];
  health: HealthCount[];
}

/**
 * One section per instance group, in the groups' order (a group with no
 * nodes yet has an empty section), then sections for nodes whose group is
 * not listed, by name.
 */
export function groupNodes<G extends GroupLike, N extends NodeLike>(groups: readonly G[], nodes: readonly N[]): NodeSection<G, N>[] {
  const byGroup = new Map<string, N[]>();
  for (const n of nodes) {
    const list = byGroup.get(n.instanceGroupId);
    if (list) list.push(n);
    else byGroup.set(n.instanceGroupId, [n]);
  }
  const section = (id: string, name: string, group: G | null): NodeSection<G, N> => {
    const members = (byGroup.get(id) ?? []).sort(byLaunch);
    return { id, name, group, nodes: members, health: healthCounts(members) };
  };
  const out = groups.map((g) => section(g.id, g.name, g));
  const listed = new Set(groups.map((g) => g.id));
  const others = [...byGroup.entries()]
    .filter(([id]) => !listed.has(id))
    .map(([id, members]) => section(id, members[0]!.instanceGroupName, null))
    .sort((a, b) => a.name.localeCompare(b.name));
  return [...out, ...others];
}

function byLaunch(a: NodeLike, b: NodeLike): number {
  if (a.launchTime && b.launchTime) return compareTimes(a.launchTime, b.launchTime) || a.id.localeCompare(b.id);
  if (a.launchTime) return -1;
  if (b.launchTime) return 1;
  return a.id.localeCompare(b.id);
}

/** The ids of selected that are still nodes of the list (a replaced node's id is gone). */
export function keepPresent(selected: ReadonlySet<string>, nodes: readonly { id: string }[]): ReadonlySet<string> {
  const present = new Set(nodes.map((n) => n.id));
  for (const id of selected) if (!present.has(id)) return new Set([...selected].filter((x) => present.has(x)));
  return selected;
}

/**
 * What deleting nodes does to their groups' target counts: each group
 * drops by as many of its nodes as are deleted.
 */
export function deleteEffects(
  nodes: readonly { instanceGroupId: string; instanceGroupName: string }[],
  groups: readonly { id: string; targetCount: number }[],
): { name: string; deleted: number; from: number | null; to: number | null }[] {
  const out = new Map<string, { name: string; deleted: number; from: number | null; to: number | null }>();
  for (const n of nodes) {
    const e = out.get(n.instanceGroupId);
    if (e) e.deleted++;
    else out.set(n.instanceGroupId, { name: n.instanceGroupName, deleted: 1, from: null, to: null });
  }
  for (const [id, e] of out) {
    const g = groups.find((x) => x.id === id);
    if (g) {
      e.from = g.targetCount;
      e.to = Math.max(0, g.targetCount - e.deleted);
    }
  }
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}
