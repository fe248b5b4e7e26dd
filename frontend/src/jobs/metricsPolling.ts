// When to read a running job's metrics again. MLflow has no push, so the
// page asks: soon after a read that brought new points, less and less
// often while nothing changes or reads fail, and at once when the job
// itself changes (jobUpdated). Reads stop when the job has ended and its
// last points are in, and on an error that asking again will not fix.

/** The first and the longest wait between reads. */
export const firstDelayMs = 5_000;
export const maxDelayMs = 60_000;

/** What a read brought. */
export type ReadOutcome = "new" | "same" | "failed";

/** The wait after a read with outcome, when the wait before it was previous. */
export function nextDelayMs(previous: number, outcome: ReadOutcome): number {
  if (outcome === "new") return firstDelayMs;
  return Math.min(maxDelayMs, Math.max(firstDelayMs, previous * 2));
}

/** The error codes that another read would meet again: stop polling. */
const finalCodes: ReadonlySet<string> = new Set(["VALIDATION", "PRECONDITION", "NOT_FOUND", "FORBIDDEN", "UNAUTHENTICATED"]);

/** Whether errors (with extensions.code) will not pass by asking again. */
export function isFinalError(errors: readonly { extensions?: Record<string, unknown> }[]): boolean {
  return errors.some((e) => typeof e.extensions?.code === "string" && finalCodes.has(e.extensions.code));
}

/** A fingerprint of a metrics answer: how many points each series has and the newest step, to tell a read with new points. */
export function metricsMark(series: readonly { name: string; points: readonly { step: number }[] }[]): string {
  return series.map((s) => `${s.name}:${s.points.length}:${s.points.at(-1)?.step ?? ""}`).join("|");
}
