import type { JobDetailFragment } from "../gql/graphql";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { restartReasonWords } from "./jobWords";

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
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
