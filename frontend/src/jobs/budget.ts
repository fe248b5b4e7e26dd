// A job's recovery budget as the gauge shows it: how much of each
// allowance is spent, how long the current evaluation window has left, and
// whether one more fault fails the job.
import { formatDuration, toMs } from "../ui/time";
import type { Tone } from "../ui/status";

/** The budget as the API sends it. */
export interface Budget {
  restartsUsed: number;
  restartsAllowed: number;
  fullJobRestartsUsed: number;
  fullJobRestartsAllowed: number;
  windowRestartsUsed: number;
  restartsBeforeFullJobRestart: number;
  windowSeconds: number;
  windowEndsAt: string | null;
  exhausted: boolean;
}

/** One allowance: so many of so many. */
export interface Meter {
  used: number;
  allowed: number;
  /** How full, 0 to 1 (1 when nothing is allowed). */
  fraction: number;
  /** "1/5". */
  text: string;
  tone: Tone;
}

export interface BudgetView {
  restarts: Meter;
  fullRestarts: Meter;
  /** Standard restarts in this window before the next fault makes a full job restart. */
  windowRestarts: Meter;
  /** What is left of the window: "2 h 14 min left", or why there is none. */
  window: string;
  /** The milliseconds left, null when no window is open. */
  windowLeftMs: number | null;
  /** The warning to show, when one more fault fails the job or it is near. */
  warning: string | null;
  exhausted: boolean;
}

export function meter(used: number, allowed: number): Meter {
  const fraction = allowed <= 0 ? (used > 0 ? 1 : 0) : Math.min(1, used / allowed);
  const tone: Tone = used >= allowed && allowed > 0 ? "bad" : fraction >= 0.6 ? "warn" : "ok";
  return { used, allowed, fraction, text: `${used}/${allowed}`, tone };
}

/** The gauge of budget at time now (ms since the epoch); finished jobs' windows no longer run. */
export function budgetView(b: Budget, now: number, finished: boolean): BudgetView {
  const ends = toMs(b.windowEndsAt);
  let windowLeftMs: number | null = null;
  let window: string;
  if (finished) window = "The job has ended: no window runs.";
  else if (ends === null) window = `No window open: the first fault opens one of ${formatDuration(b.windowSeconds * 1000)}.`;
  else {
    windowLeftMs = Math.max(0, ends - now);
    window = windowLeftMs === 0 ? "The window has ended: its count starts again at the next fault." : `${formatDuration(windowLeftMs)} left of ${formatDuration(b.windowSeconds * 1000)}`;
  }
  let warning: string | null = null;
  if (b.exhausted) warning = "The recovery budget is spent: one more fault fails the job.";
  else if (b.restartsAllowed > 0 && b.restartsAllowed - b.restartsUsed === 1) warning = "One restart left: a second fault fails the job.";
  return {
    restarts: meter(b.restartsUsed, b.restartsAllowed),
    fullRestarts: meter(b.fullJobRestartsUsed, b.fullJobRestartsAllowed),
    windowRestarts: meter(b.windowRestartsUsed, b.restartsBeforeFullJobRestart),
    window,
    windowLeftMs,
    warning,
    exhausted: b.exhausted,
  };
}
