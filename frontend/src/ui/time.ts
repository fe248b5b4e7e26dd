// Times as the API sends them (RFC 3339, up to nanoseconds) and as people
// read them.

/**
 * Orders two RFC 3339 times exactly, nanoseconds included (Date keeps only
 * milliseconds, and two changes can share one). Negative when a is earlier.
 */
export function compareTimes(a: string, b: string): number {
  const [as, an] = split(a);
  const [bs, bn] = split(b);
  return as !== bs ? as - bs : an - bn;
}

/** The whole seconds and the nanoseconds of an RFC 3339 time. */
function split(t: string): [number, number] {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/.exec(t);
  if (!m) return [Date.parse(t) / 1000, 0];
  const seconds = Date.parse(m[1]! + (m[3] ?? "")) / 1000;
  const nanos = Number((m[2] ?? "").padEnd(9, "0").slice(0, 9));
  return [seconds, nanos];
}

/** Milliseconds since the epoch, or null for a missing time. */
export function toMs(t: string | null | undefined): number | null {
  if (!t) return null;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : ms;
}

/** A duration as people say it: 850 ms, 42 s, 3 min 05 s, 1 h 02 min. */
export function formatDuration(ms: number): string {
  if (ms < 0) ms = 0;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, "0")} min`;
}

/** How long ago t was, relative to now: just now, 5 min ago, 3 h ago, 2 d ago. */
export function formatAgo(t: string | null | undefined, now: number = Date.now()): string {
  const ms = toMs(t);
  if (ms === null) return "—";
  const s = Math.round((now - ms) / 1000);
  if (s < 10) return "just now";
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** A time in the reader's locale, to the second. */
export function formatTime(t: string | null | undefined): string {
  const ms = toMs(t);
  if (ms === null) return "—";
  return new Date(ms).toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}
