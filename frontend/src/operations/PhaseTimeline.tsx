import { statusTone } from "../ui/status";
import { formatDuration } from "../ui/time";
import { layoutTimeline, type TimelinePhase } from "./timeline";

interface Props {
  phases: readonly (TimelinePhase & { title: string })[];
  now: number;
}

/** The phases as a Gantt chart: concurrent phases show side by side. */
export function PhaseTimeline({ phases, now }: Props) {
  const timeline = layoutTimeline(phases, now);
  if (timeline.startMs === null) {
    return <p className="muted">No phase has started yet.</p>;
  }
  return (
    <figure className="gantt" aria-label="Timeline of the phases">
      <div className="gantt-row gantt-axis" aria-hidden="true">
        <span className="gantt-label" />
        <span className="gantt-track">
          {timeline.ticks.map((t) => (
            <span key={t.offsetMs} className="gantt-tick" style={{ left: `${t.pct}%` }}>
              {formatOffset(t.offsetMs)}
            </span>
          ))}
        </span>
      </div>
      {timeline.bars.map((bar, i) => {
        const title = phases[i]?.title ?? bar.name;
        const summary = bar.durationMs === null ? `${title}: ${bar.status.toLowerCase()}` : `${title}: ${bar.status.toLowerCase()}, ${formatDuration(bar.durationMs)}`;
        return (
          <div key={bar.name} className="gantt-row">
            <span className="gantt-label" title={bar.name}>
              {title}
            </span>
            <span className="gantt-track">
              {timeline.ticks.map((t) => (
                <span key={t.offsetMs} className="gantt-grid" style={{ left: `${t.pct}%` }} aria-hidden="true" />
              ))}
              {bar.leftPct !== null && bar.widthPct !== null ? (
                <span
                  className={`gantt-bar tone-${statusTone(bar.status)}${bar.open ? " gantt-open" : ""}`}
                  style={{ left: `${bar.leftPct}%`, width: `${bar.widthPct}%` }}
                  role="img"
                  aria-label={summary}
                  title={summary}
                />
              ) : (
                <span className="gantt-pending">{bar.status.toLowerCase()}</span>
              )}
            </span>
          </div>
        );
      })}
    </figure>
  );
}

/** An offset on the axis as m:ss (or h:mm:ss). */
export function formatOffset(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
