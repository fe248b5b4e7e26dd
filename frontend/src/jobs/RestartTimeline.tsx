import type { JobDetailFragment } from "../gql/graphql";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { restartReasonWords } from "./jobWords";

type Restart = JobDetailFragment["restarts"][number];

/** Where a restart resumed from, once the job's log said: the tier, the step, and how long recovery took. */
function ResumedFrom({ restart: r }: { restart: Restart }) {
  if (!r.resumedFromTier) return <span className="cell-note resumed"> — its log has not said where it resumed from.</span>;
  const took = r.resumedAt ? resumeSeconds(r.time, r.resumedAt) : null;
  const after = took === null ? "" : `, ${took} s after the restart`;
  const words = r.resumedFromTier === "NONE" ? `no checkpoint yet: started over from step 0${after}` : `resumed from ${tierWords[r.resumedFromTier]} at step ${r.resumedFromStep ?? 0}${after}`;
  return (
    <span className="cell-note resumed" data-tier={r.resumedFromTier}>
      {" — "}
      {words}.
    </span>
  );
}

const tierWords: Record<string, string> = { MEMORY: "memory", S3: "S3" };

/** Seconds from a restart to its resume, rounded; null when the times do not read. */
export function resumeSeconds(restartAt: string, resumedAt: string): number | null {
  const d = Date.parse(resumedAt) - Date.parse(restartAt);
  return Number.isFinite(d) ? Math.max(0, Math.round(d / 1000)) : null;
}

/** A job's restarts, newest first: when, why, and what the operator said. */
export function RestartTimeline({ job }: { job: JobDetailFragment }) {
  const restarts = [...job.restarts].reverse();
  return (
    <section className="card" aria-label="Restarts">
      <div className="section-head">
        <h2>
          Restarts <span className="tab-count">{job.restarts.length}</span>
        </h2>
      </div>
      {restarts.length === 0 ? (
        <p className="muted">No restarts: no fault has hit the job.</p>
      ) : (
        <ol className="restart-timeline">
          {restarts.map((r, i) => (
            <li key={`${r.time}-${i}`} data-reason={r.reason}>
              <time dateTime={r.time}>{formatTime(r.time)}</time>
              <StatusBadge status={r.reason} label={r.reason} title={restartReasonWords[r.reason]} />
              <span>
                <span className="strong">{restartReasonWords[r.reason] ?? r.reason}</span>
                {r.message && <span className="cell-note cell-message"> {r.message}</span>}
                {r.operatorReason && <span className="cell-note"> ({r.operatorReason})</span>}
                <ResumedFrom restart={r} />
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
