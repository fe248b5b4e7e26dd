import type { JobDetailFragment } from "../gql/graphql";
import { ErrorBanner } from "../ui/feedback";
import { terminalJobStatuses } from "./jobWords";
import { LineChart } from "./LineChart";
import { useJobMetrics } from "./useJobMetrics";

/** The loss and throughput of a job's MLflow run, read again while it runs. */
export function MetricsCard({ job }: { job: JobDetailFragment }) {
  const running = !terminalJobStatuses.has(job.status);
  const { metrics, error, stopped } = useJobMetrics(job.id, job.mlflow !== null, running, job.updatedAt);
  const series = (name: string) => metrics?.series.find((s) => s.name === name)?.points ?? [];
  return (
    <section className="card" aria-label="Metrics">
      <div className="section-head">
        <h2>Metrics</h2>
        {job.mlflow && (
          <span className="muted">
            MLflow run <code>{job.mlflow.runName}</code> in <code>{job.mlflow.experiment}</code>
            {metrics?.runStatus && ` · ${metrics.runStatus}`}
          </span>
        )}
      </div>
      {job.mlflow === null ? (
        <p className="muted">This job reports no metrics: the cluster's MLFLOW feature was off when it was submitted.</p>
      ) : (
        <>
          {error && <ErrorBanner title={stopped ? "The metrics could not be read" : "The metrics could not be read: trying again"} messages={error} />}
          {metrics && !metrics.runId && <p className="muted">The run starts when training does.</p>}
          <div className="charts">
            <LineChart title="Loss" points={series("loss")} />
            <LineChart title="Throughput" unit="tokens/s" points={series("tokens_per_sec")} />
          </div>
        </>
      )}
    </section>
  );
}
