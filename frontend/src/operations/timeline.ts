// The layout of an operation's Gantt chart: one row per phase, each bar from
// the phase's start to its end (or to now while it runs), on one time axis,
// so that phases that ran at the same time sit side by side.
import { toMs } from "../ui/time";

export interface TimelinePhase {
  name: string;
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface TimelineBar {
  name: string;
  status: string;
  /** Position and length on the axis, in percent; null when not started. */
  leftPct: number | null;
  widthPct: number | null;
  /** The phase's duration so far, in ms; null when not started. */
  durationMs: number | null;
  /** True while the bar grows (the phase has not ended). */
  open: boolean;
}

export interface TimelineTick {
  pct: number;
  /** Offset from the start of the axis, in ms. */
  offsetMs: number;
}

export interface Timeline {
  startMs: number | null;
  spanMs: number;
  bars: TimelineBar[];
  ticks: TimelineTick[];
}

/** The narrowest bar drawn, so that instant phases still show. */
const minWidthPct = 0.6;

const tickSteps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400].map((s) => s * 1000);

/** Lays out phases (in planning order) on one axis ending at now for running phases. */
export function layoutTimeline(phases: readonly TimelinePhase[], now: number): Timeline {
  const spans = phases.map((p) => {
    const start = toMs(p.startedAt);
    const finish = toMs(p.finishedAt);
    const open = start !== null && finish === null;
    const end = start === null ? null : (finish ?? Math.max(now, start));
    return { p, start, end, open };
  });
  const starts = spans.flatMap((s) => (s.start === null ? [] : [s.start]));
  if (starts.length === 0) {
    return { startMs: null, spanMs: 0, ticks: [], bars: spans.map(({ p }) => emptyBar(p)) };
  }
  const t0 = Math.min(...starts);
  const t1 = Math.max(...spans.flatMap((s) => (s.end === null ? [] : [s.end])));
  const spanMs = Math.max(t1 - t0, 1000);
  const bars = spans.map(({ p, start, end, open }) => {
    if (start === null || end === null) return emptyBar(p);
    const leftPct = ((start - t0) / spanMs) * 100;
    const widthPct = Math.min(Math.max(((end - start) / spanMs) * 100, minWidthPct), 100 - Math.min(leftPct, 100 - minWidthPct));
    return { name: p.name, status: p.status, leftPct, widthPct, durationMs: end - start, open };
  });
  return { startMs: t0, spanMs, bars, ticks: ticks(spanMs) };
}

function emptyBar(p: TimelinePhase): TimelineBar {
  return { name: p.name, status: p.status, leftPct: null, widthPct: null, durationMs: null, open: false };
}

/** Round offsets along the axis: the smallest step giving at most 6 ticks. */
export function ticks(spanMs: number): TimelineTick[] {
  const step = tickSteps.find((s) => spanMs / s <= 6) ?? Math.ceil(spanMs / 6 / 3_600_000) * 3_600_000;
  const out: TimelineTick[] = [];
  for (let t = 0; t <= spanMs; t += step) out.push({ pct: (t / spanMs) * 100, offsetMs: t });
  return out;
}
