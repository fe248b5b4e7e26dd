/** The page of an operation's or event's target, when the UI has one. */
export function targetPath(target: { kind: string; id: string }): string | null {
  switch (target.kind) {
    case "CLUSTER":
      return `/clusters/${encodeURIComponent(target.id)}`;
    case "OPERATION":
      return `/operations/${encodeURIComponent(target.id)}`;
    default:
      return null;
  }
}
