/** The page of an operation's or event's target, when the UI has one. */
export function targetPath(target: { kind: string; id: string }): string | null {
  const id = encodeURIComponent(target.id);
  switch (target.kind) {
    case "CLUSTER":
      return `/clusters/${id}`;
    case "OPERATION":
      return `/operations/${id}`;
    case "INSTANCE_GROUP":
      // The group's page lives under its cluster, which this page looks up.
      return `/instance-groups/${id}`;
    case "ENDPOINT":
      // The endpoint's page lives under its cluster, which this page looks up.
      return `/endpoints/${id}`;
    case "CLUSTER_NODES":
      // Node operations name the cluster whose nodes they act on.
      return `/clusters/${id}/nodes`;
    default:
      return null;
  }
}
