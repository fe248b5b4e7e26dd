import { statusTone, type StatusKind } from "./status";

interface Props {
  status: string | null | undefined;
  title?: string;
  /** What the status is of, where that changes its tone (a node's RUNNING is healthy). */
  kind?: StatusKind;
  /** Text to show instead of the status itself, in the status's colour. */
  label?: string;
}

/** A status in the colour its tone has everywhere (see status.ts). */
export function StatusBadge({ status, title, kind, label }: Props) {
  const tone = statusTone(status, kind);
  return (
    <span className={`badge tone-${tone}`} title={title}>
      <span className="badge-dot" aria-hidden="true" />
      {label ?? status ?? "UNKNOWN"}
    </span>
  );
}
