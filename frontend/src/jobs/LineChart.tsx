import { useId } from "react";
import { layoutChart, tickLabel, type Box, type Point } from "./chartScale";

const box: Box = { width: 480, height: 180, left: 48, bottom: 24, top: 10, right: 12 };

interface Props {
  title: string;
  /** What the values are in, for the axis and the newest value: "tokens/s". */
  unit?: string;
  points: readonly Point[];
  /** What the x axis counts, in words: "step" (the default), "minute". */
  xWord?: string;
}

/**
 * A small line chart of one metric by step, drawn as inline SVG, with the
 * newest value in words beside the title (the chart itself is an image to
 * a screen reader, described by that value and the range).
 */
export function LineChart({ title, unit, points, xWord = "step" }: Props) {
  const titleId = useId();
  const l = layoutChart(points, box);
  const last = l.last?.point;
  const description = last
    ? `${points.length} points from ${xWord} ${tickLabel(points[0]!.step)} to ${tickLabel(last.step)}; the newest is ${tickLabel(last.value)}${unit ? ` ${unit}` : ""}.`
    : "No points yet.";
  return (
    <figure className="chart" aria-labelledby={titleId}>
      <figcaption id={titleId}>
        <span className="strong">{title}</span>{" "}
        {last && (
          <span className="muted">
            {tickLabel(last.value)}
            {unit ? ` ${unit}` : ""} at {xWord} {tickLabel(last.step)}
          </span>
        )}
      </figcaption>
      {l.path === "" ? (
        <p className="muted chart-empty">No points yet.</p>
      ) : (
        <svg viewBox={`0 0 ${box.width} ${box.height}`} role="img" aria-label={`${title}: ${description}`} preserveAspectRatio="none">
          {l.yTicks.map((t) => (
            <g key={`y${t.value}`} className="chart-grid">
              <line x1={l.plot.x0} x2={l.plot.x1} y1={t.at} y2={t.at} />
              <text x={l.plot.x0 - 6} y={t.at} textAnchor="end" dominantBaseline="middle">
                {t.label}
              </text>
            </g>
          ))}
          {l.xTicks.map((t) => (
            <text key={`x${t.value}`} className="chart-tick" x={t.at} y={box.height - 6} textAnchor="middle">
              {t.label}
            </text>
          ))}
          <path className="chart-line" d={l.path} fill="none" vectorEffect="non-scaling-stroke" />
          {l.last && <circle className="chart-last" cx={l.last.x} cy={l.last.y} r={3} />}
        </svg>
      )}
    </figure>
  );
}
