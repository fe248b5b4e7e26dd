import type { JobDetailFragment } from "../gql/graphql";
import { useNow } from "../ui/useNow";
import { budgetView, type Meter } from "./budget";
import { terminalJobStatuses } from "./jobWords";

/**
 * How much recovery a job has left: restarts used of those allowed, full
 * job restarts of this window, and how long the window has left, counting
 * down. Spent, it says that one more fault fails the job.
 */
export function BudgetGauge({ job }: { job: JobDetailFragment }) {
  const finished = terminalJobStatuses.has(job.status);
  const counting = !finished && job.budget.windowEndsAt !== null;
  const now = useNow(counting);
  const v = budgetView(job.budget, now, finished);
  return (
    <section className="card budget" aria-label="Recovery budget">
      <div className="section-head">
        <h2>Recovery budget</h2>
      </div>
      {v.warning && (
        <p className={`banner ${v.exhausted ? "banner-error" : "banner-info"}`} role="status">
          {v.warning}
        </p>
      )}
      <div className="budget-meters">
        <MeterRow label="Restarts" meter={v.restarts} note="restarts used of those allowed in all" />
        <MeterRow label="Full job restarts" meter={v.fullRestarts} note="in this window, of those allowed per window" />
        <MeterRow label="Restarts this window" meter={v.windowRestarts} note="before the next fault restarts the whole job" />
      </div>
      <p className="budget-window">
        <span className="muted">Window: </span>
        <span data-testid="budget-window" aria-live="off">
          {v.window}
        </span>
      </p>
    </section>
  );
}

function MeterRow({ label, meter: m, note }: { label: string; meter: Meter; note: string }) {
  return (
    <div className="budget-meter">
      <div className="budget-meter-head">
        <span className="strong">{label}</span>
        <span className="budget-count" aria-hidden="true">
          {m.text}
        </span>
      </div>
      <div
        className={`progress tone-${m.tone}`}
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={m.allowed}
        aria-valuenow={Math.min(m.used, m.allowed)}
        aria-valuetext={`${m.text}: ${note}`}
      >
        <span className="progress-fill" style={{ width: `${m.fraction * 100}%` }} />
      </div>
      <span className="cell-note">{note}</span>
    </div>
  );
}
