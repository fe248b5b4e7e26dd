import { useSyncExternalStore } from "react";
import { useSession } from "../app/session";

/**
 * Says whether a page is following changes live, or why not: its own
 * stream's error, or the connection being down.
 */
export function LiveIndicator({ error }: { error: string | null }) {
  const { api } = useSession();
  const down = useSyncExternalStore(api.connection.subscribe, () => api.connection.isDown);
  if (down && !error) error = "Connection lost: reconnecting…";
  return error ? (
    <span className="live live-off" role="status">
      {error}
    </span>
  ) : (
    <span className="live" title="This page updates by itself as things change.">
      <span className="live-dot" aria-hidden="true" /> Live
    </span>
  );
}

/** A short description of a subscription error. */
export function describeStreamError(err: unknown): string {
  if (Array.isArray(err)) return err.map((e: { message?: string }) => e.message ?? String(e)).join("; ");
  if (err instanceof Error) return err.message;
  if (err && typeof err === "object" && "reason" in err) return String((err as { reason: unknown }).reason) || "the connection closed";
  return String(err);
}
