import { statusTone } from "./status";

/** A status in the colour its tone has everywhere (see status.ts). */
export function StatusBadge({ status, title }: { status: string | null | undefined; title?: string }) {
  const tone = statusTone(status);
  return (
    <span className={`badge tone-${tone}`} title={title}>
      <span className="badge-dot" aria-hidden="true" />
      {status ?? "UNKNOWN"}
    </span>
  );
}
