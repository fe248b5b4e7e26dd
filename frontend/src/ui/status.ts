// One map from every status the API reports to the tone it is drawn in, so
// that a colour means the same on every page: green done and healthy, blue
// in progress, red failed, grey ended or gone, neutral not started.

export type Tone = "ok" | "progress" | "bad" | "ended" | "neutral";

const tones: Record<string, Tone> = {
  // done, healthy
  SUCCEEDED: "ok",
  ACTIVE: "ok",
  INSERVICE: "ok",
  // in progress
  RUNNING: "progress",
  WAITING: "progress",
  CREATING: "progress",
  IMPORTING: "progress",
  DELETING: "progress",
  UPDATING: "progress",
  SYSTEMUPDATING: "progress",
  ROLLINGBACK: "progress",
  // failed
  FAILED: "bad",
  // ended or gone
  CANCELLED: "ended",
  DELETED: "ended",
  SKIPPED: "ended",
  // not started
  PENDING: "neutral",
  QUEUED: "neutral",
};

/**
 * The tone of a status, whatever its spelling: the API's enums are
 * UPPER_SNAKE_CASE, HyperPod's own statuses are PascalCase (InService).
 */
export function statusTone(status: string | null | undefined): Tone {
  if (!status) return "neutral";
  return tones[status.replace(/[_\s-]/g, "").toUpperCase()] ?? "neutral";
}

/** Whether a status means the thing is still changing. */
export function inProgress(status: string | null | undefined): boolean {
  return statusTone(status) === "progress" || status === "QUEUED";
}
