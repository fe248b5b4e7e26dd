// What each action on nodes does, in the words the confirmation uses, and
// the mutation it calls.
export type NodeAction = "reboot" | "replace" | "delete";

export const nodeActionWords: Record<NodeAction, { verb: string; doing: string; kind: string }> = {
  reboot: { verb: "Reboot", doing: "Rebooting", kind: "RebootNodes" },
  replace: { verb: "Replace", doing: "Replacing", kind: "ReplaceNodes" },
  delete: { verb: "Delete", doing: "Deleting", kind: "DeleteNodes" },
};

/** The most nodes one reboot, replace or delete takes (the mutations' nodeIds). */
export const maxNodesPerAction = 500;

/** "1 node", "3 nodes". */
export function nodesCount(n: number): string {
  return n === 1 ? "1 node" : `${n} nodes`;
}
