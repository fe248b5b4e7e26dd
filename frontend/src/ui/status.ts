// One map from every status the API reports to the tone it is drawn in, so
// that a colour means the same on every page: green done and healthy, blue
// in progress, amber working but needing attention (partly provisioned, a
// fault that recovery is handling), red failed, grey ended or gone, neutral
// not started, not known, or off.

export type Tone = "ok" | "progress" | "warn" | "bad" | "ended" | "neutral";

const tones: Record<string, Tone> = {
  // done, healthy
  SUCCEEDED: "ok",
  ACTIVE: "ok",
  INSERVICE: "ok",
  SCHEDULABLE: "ok",
  PASSED: "ok",
  ENABLED: "ok",
  AVAILABLE: "ok",
  READY: "ok",
  UPTODATE: "ok",
  // in progress
  RUNNING: "progress",
  WAITING: "progress",
  CREATING: "progress",
  IMPORTING: "progress",
  DELETING: "progress",
  UPDATING: "progress",
  SYSTEMUPDATING: "progress",
  ROLLINGBACK: "progress",
  ROLLBACKINPROGRESS: "progress",
  INPROGRESS: "progress",
  DEEPHEALTHCHECKINPROGRESS: "progress",
  SHUTTINGDOWN: "progress",
  ENABLING: "progress",
  DISABLING: "progress",
  DOWNLOADING: "progress",
  // an endpoint loading its model
  DEPLOYING: "progress",
  // working, but needs attention
  DEGRADED: "warn",
  UNSCHEDULABLEPENDINGREBOOT: "warn",
  UNSCHEDULABLEPENDINGREPLACEMENT: "warn",
  PARTIAL: "warn",
  UPDATEAVAILABLE: "warn",
  SECURITYUPDATEREQUIRED: "warn",
  ROLLBACKCOMPLETE: "warn",
  MISCONFIGURED: "warn",
  // a training job recovering from a fault
  RESTARTING: "warn",
  // asked to do nothing for now
  SCALEDTOZERO: "neutral",
  // failed
  FAILED: "bad",
  FAILURE: "bad",
  UNSCHEDULABLE: "bad",
  ENDOFLIFE: "bad",
  // ended or gone
  CANCELLED: "ended",
  DELETED: "ended",
  SKIPPED: "ended",
  NOTFOUND: "ended",
  // not started, not known
  PENDING: "neutral",
  QUEUED: "neutral",
  UNKNOWN: "neutral",
  NONE: "neutral",
  DISABLED: "neutral",
  // there as it was found: a model folder no download made
  PRESENT: "neutral",
};

/**
 * Where one word means different things: a node that is RUNNING is up and
 * well, where an operation that is RUNNING is still under way.
 */
const nodeTones: Record<string, Tone> = {
  RUNNING: "ok",
};

/** What a status is the status of, where that changes its tone. */
export type StatusKind = "node";

/**
 * The tone of a status, whatever its spelling: the API's enums are
 * UPPER_SNAKE_CASE, HyperPod's own statuses are PascalCase (InService).
 */
export function statusTone(status: string | null | undefined, kind?: StatusKind): Tone {
  if (!status) return "neutral";
  const key = status.replace(/[_\s-]/g, "").toUpperCase();
  return (kind === "node" ? nodeTones[key] : undefined) ?? tones[key] ?? "neutral";
}

/** Whether a status means the thing is still changing. */
export function inProgress(status: string | null | undefined): boolean {
  return statusTone(status) === "progress" || status === "QUEUED";
}
