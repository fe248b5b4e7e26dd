import type { LiveList } from "../api/useLiveList";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { JobRowFragment } from "../gql/graphql";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { jobPath, recipeWords, restartsWords, shapeWords, submitJobPath } from "./jobWords";

interface Props {
  cluster: { id: string; name: string; status: string };
  jobs: LiveList<JobRowFragment>;
}

/**
 * The cluster's training jobs, newest first, a page at a time, each with
 * where it is, what it trains on how much, and how much of its recovery
 * budget it has spent. Kept live as the refresher reads their objects.
 */
export function JobsTab({ cluster, jobs }: Props) {
  const { me } = useSession();
  const denied = deniedReason(me.role, "OPERATOR") ?? (cluster.status === "ACTIVE" ? undefined : `The cluster is ${cluster.status}: jobs run only on an ACTIVE cluster.`);

  let body;
  if (jobs.error && !jobs.loaded) {
    body = (
      <ErrorBanner title="The jobs could not be listed" messages={errorMessages(jobs.error)}>
        <button className="button" type="button" onClick={jobs.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!jobs.loaded) {
    body = <Loading what="jobs" />;
  } else if (jobs.records.length === 0) {
    body = <p className="muted">{jobs.page > 1 ? "Nothing more." : "No jobs yet. Submit one: it trains a model of the shared bucket on a dataset of it."}</p>;
  } else {
    body = (
      <div className="table-wrap">
        <table className="table jobs">
          <caption className="sr-only">Training jobs</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Recipe</th>
              <th scope="col">Nodes × GPUs</th>
              <th scope="col">Restarts</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            {jobs.records.map((j) => (
              <JobRow key={j.id} job={j} />
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section aria-label="Jobs">
      <div className="toolbar">
        <p className="muted tab-intro">
          Training jobs on the cluster: HyperPodPyTorchJobs run by the HyperPod training operator, RayJobs by KubeRay. They read their model and
          dataset from the shared bucket and write outputs and checkpoints to it. Kept live as their objects change.
        </p>
        <div className="toolbar-end">
          {denied ? (
            <span className="guarded">
              <span className="button" aria-disabled="true">
                Submit a job
              </span>
              <span className="guarded-reason">{denied}</span>
            </span>
          ) : (
            <Link to={submitJobPath(cluster.id)} className="button button-primary">
              Submit a job
            </Link>
          )}
        </div>
      </div>
      <section className="card" aria-label="Jobs of the cluster">
        <div className="section-head">
          <h2>Jobs {jobs.loaded && <span className="tab-count">{jobs.totalCount}</span>}</h2>
          <button type="button" className="button" onClick={jobs.reload} disabled={!jobs.loaded}>
            Read again
          </button>
        </div>
        {jobs.error && jobs.loaded && <ErrorBanner title="The jobs could not be listed again: this is the last listing" messages={errorMessages(jobs.error)} />}
        {body}
        {jobs.loaded && (jobs.hasNextPage || jobs.page > 1) && (
          <div className="table-foot">
            <span className="muted">Page {jobs.page}</span>
            {jobs.page > 1 && (
              <button type="button" className="button" onClick={jobs.firstPage}>
                First page
              </button>
            )}
            {jobs.hasNextPage && (
              <button type="button" className="button" onClick={jobs.nextPage}>
                Next page
              </button>
            )}
          </div>
        )}
      </section>
    </section>
  );
}

function JobRow({ job: j }: { job: JobRowFragment }) {
  return (
    <tr data-job={j.name} className={j.status === "FAILED" ? "row-failed" : undefined}>
      <td>
        <Link to={jobPath(j.clusterId, j.id)} className="strong">
          {j.name}
        </Link>
        {j.model && <div className="cell-note">{j.model}</div>}
      </td>
      <td>
        <StatusBadge status={j.status} />
        {j.statusMessage && <div className="cell-note cell-message">{j.statusMessage}</div>}
      </td>
      <td>{recipeWords[j.recipe] ?? j.recipe}</td>
      <td>
        {shapeWords(j.nodes, j.gpusPerNode)}
        <div className="cell-note">
          {j.instanceGroup} · {j.instanceType}
        </div>
      </td>
      <td>
        <span className={j.budget.exhausted ? "budget-spent" : undefined} title="Restarts used of those allowed">
          {restartsWords(j.budget)}
        </span>
        {j.budget.exhausted && <div className="cell-note">budget spent</div>}
      </td>
      <td>{formatTime(j.startedAt)}</td>
      <td>{formatTime(j.finishedAt)}</td>
    </tr>
  );
}
