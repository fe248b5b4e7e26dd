// The arithmetic of the small line charts on the job page: a metric's
// points (step, value) mapped onto an SVG box, with round ticks on each
// axis. No chart library: a few dozen lines draw what a job needs.

export interface Point {
  step: number;
  value: number;
}

export interface Box {
  width: number;
  height: number;
  /** Room left of the plot for the value ticks, and below it for the step ticks. */
  left: number;
  bottom: number;
  /** Room above and right of the plot. */
  top: number;
  right: number;
}

export interface Tick {
  value: number;
  /** Its position along the axis, in the box's units. */
  at: number;
  label: string;
}

export interface ChartLayout {
  /** The SVG path of the line ("" with no points). */
  path: string;
  xTicks: Tick[];
  yTicks: Tick[];
  /** The newest point, where it is drawn. */
  last: { x: number; y: number; point: Point } | null;
  /** The plot's edges. */
  plot: { x0: number; x1: number; y0: number; y1: number };
}

/** A linear map from [d0, d1] onto [r0, r1]; a domain of one value maps to the middle. */
export function linearScale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  if (d1 === d0) return () => (r0 + r1) / 2;
  const k = (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/** The smallest and largest of values, or null for none (NaN and infinities left out). */
export function extent(values: Iterable<number>): [number, number] | null {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? [lo, hi] : null;
}

/** A round step near span/count: 1, 2 or 5 times a power of ten. */
export function niceStep(span: number, count: number): number {
  if (span <= 0 || count <= 0) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

/**
 * Round bounds around [lo, hi] and the ticks between, about count of them.
 * A flat series gets room around its value, so its line is not on an edge.
 */
export function niceDomain(lo: number, hi: number, count: number): { lo: number; hi: number; ticks: number[] } {
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const step = niceStep(hi - lo, count);
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  // Multiplying, not adding, keeps 0.1 + 0.2 from drifting.
  for (let i = 0; start + i * step <= end + step / 1e6; i++) ticks.push(round(start + i * step, step));
  return { lo: start, hi: end, ticks };
}

function round(v: number, step: number): number {
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  return Number(v.toFixed(Math.min(20, digits)));
}

/** A tick's label: short, with k and M for large numbers. */
export function tickLabel(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e4) return `${trim(v / 1e3)}k`;
  if (a !== 0 && a < 1e-3) return v.toExponential(0);
  return trim(v);
}

function trim(v: number): string {
  return String(Number(v.toPrecision(3)));
}

/** Lays points out in box: the line, the ticks of both axes, and the newest point. */
export function layoutChart(points: readonly Point[], box: Box, ticks = 4): ChartLayout {
  const plot = { x0: box.left, x1: box.width - box.right, y0: box.height - box.bottom, y1: box.top };
  const steps = extent(points.map((p) => p.step));
  const values = extent(points.map((p) => p.value));
  if (!steps || !values) return { path: "", xTicks: [], yTicks: [], last: null, plot };
  const xd = steps[0] === steps[1] ? { lo: steps[0] - 1, hi: steps[1] + 1, ticks: [steps[0]] } : { lo: steps[0], hi: steps[1], ticks: niceDomain(steps[0], steps[1], ticks).ticks };
  const yd = niceDomain(values[0], values[1], ticks);
  const x = linearScale(xd.lo, xd.hi, plot.x0, plot.x1);
  const y = linearScale(yd.lo, yd.hi, plot.y0, plot.y1);
  let path = "";
  let last: ChartLayout["last"] = null;
  for (const p of points) {
    if (!Number.isFinite(p.step) || !Number.isFinite(p.value)) continue;
    const px = x(p.step);
    const py = y(p.value);
    path += `${path === "" ? "M" : "L"}${px.toFixed(1)},${py.toFixed(1)}`;
    last = { x: px, y: py, point: p };
  }
  return {
    path,
    xTicks: xd.ticks.filter((t) => t >= xd.lo && t <= xd.hi).map((t) => ({ value: t, at: x(t), label: tickLabel(t) })),
    yTicks: yd.ticks.map((t) => ({ value: t, at: y(t), label: tickLabel(t) })),
    last,
    plot,
  };
}
