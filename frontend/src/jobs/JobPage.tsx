import { useState, type ReactNode } from "react";
import { useLiveRecord, type LiveRecordSpec } from "../api/useLiveRecord";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { JobDetailFragment, JobPageQuery as PageData, JobUpdatedSubscription as JobUpdate, OperationDetailFragment } from "../gql/graphql";
import { OperationProgress } from "../operations/OperationProgress";
import { CopyButton } from "../ui/CopyButton";
import { DeleteDialog } from "../ui/DeleteDialog";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { LiveIndicator } from "../ui/LiveIndicator";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { BudgetGauge } from "./BudgetGauge";
import { DeleteJobMutation, JobPageQuery, JobUpdatedSubscription } from "./documents";
import { jobStatusWords, recipeWords, shapeWords, terminalJobStatuses } from "./jobWords";
import { LogViewer } from "./LogViewer";
import { MetricsCard } from "./MetricsCard";
import { RestartTimeline } from "./RestartTimeline";

/** The job, followed over jobUpdated, which sends each change of it until it ends. */
const liveJob: LiveRecordSpec<PageData, JobUpdate, JobDetailFragment> = {
  query: JobPageQuery,
  loaded: (data) => data.job,
  updates: JobUpdatedSubscription,
  updated: (data) => data.jobUpdated,
};

/**
 * One training job, live: where it is and what the operator says, what it
 * runs with, its pods, how much recovery it has left and each restart so
 * far, its loss and throughput, and its log as the pods write it.
 */
export function JobPage({ clusterId, id }: { clusterId: string; id: string }) {
  const { me } = useSession();
  const { record: job, data, fetching, error, streamError, reload } = useLiveRecord(liveJob, clusterId, id);
  const [deleting, setDeleting] = useState(false);
  const [started, setStarted] = useState<OperationDetailFragment | null>(null);
  const clusterPath = `/clusters/${encodeURIComponent(clusterId)}`;

  if (!job) {
    if (error) {
      return (
        <ErrorBanner title="The job could not be loaded" messages={errorMessages(error)}>
          <p>
            <Link to={`${clusterPath}/jobs`}>Back to the cluster's jobs</Link>{" "}
            <button className="button" type="button" onClick={reload}>
              Try again
            </button>
          </p>
        </ErrorBanner>
      );
    }
    return fetching ? <Loading what="the job" /> : <EmptyState title="No such job" />;
  }

  const ended = terminalJobStatuses.has(job.status);
  const deleteDenied = deniedReason(me.role, "OPERATOR") ?? (job.status === "DELETED" ? "The job is deleted already." : undefined);
  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> / <Link to={clusterPath}>{data?.cluster?.name ?? clusterId}</Link> / <Link to={`${clusterPath}/jobs`}>Jobs</Link> /
          </p>
          <h1>{job.name}</h1>
          <p className="head-status">
            <StatusBadge status={job.status} title={jobStatusWords[job.status]} />
            {job.operatorState && <span className="tag" title="The operator's own state">{job.operatorState}</span>}
            {!ended && <LiveIndicator error={streamError} />}
          </p>
          <p className="muted">{job.statusMessage ?? jobStatusWords[job.status]}</p>
        </div>
        <div className="actions">
          <GuardedButton className="button button-danger" deniedReason={deleteDenied} onClick={() => setDeleting(true)}>
            Delete job
          </GuardedButton>
        </div>
      </div>

      {deleting && (
        <DeleteDialog
          title={`Delete the job ${job.name}?`}
          action="Delete job"
          mutation={DeleteJobMutation}
          id={job.id}
          started={(result) => result.deleteJob}
          onClose={() => setDeleting(false)}
          onStarted={(op) => {
            setDeleting(false);
            setStarted(op);
          }}
        >
          <p>
            This deletes the {job.kind === "RAY_JOB" ? "RayJob" : "HyperPodPyTorchJob"} <code>{job.name}</code> in <code>{job.namespace}</code> and its pods
            {job.status === "PENDING" || job.status === "RUNNING" || job.status === "RESTARTING" ? <strong>: training stops now</strong> : ""}.
          </p>
          <p>
            Its outputs in <code>{job.outputPath}</code> and checkpoints in <code>{job.checkpointPath}</code> stay in the bucket, and its record stays
            here, DELETED.
          </p>
        </DeleteDialog>
      )}
      {started && <OperationProgress key={started.id} what={`Deleting ${job.name}`} operation={started} noopMessage={`${job.name} is deleted already.`} onDismiss={() => setStarted(null)} />}

      <JobSummary job={job} />
      <div className="two-col">
        <BudgetGauge job={job} />
        <RestartTimeline job={job} />
      </div>
      <PodsCard job={job} />
      <MetricsCard job={job} />
      <LogViewer
        jobId={job.id}
        pods={job.pods.map((p) => p.name)}
        podsKey={job.pods.map((p) => `${p.name}:${p.phase}:${p.containerRestarts}`).join(",")}
        running={!ended}
      />
    </>
  );
}

function JobSummary({ job }: { job: JobDetailFragment }) {
  return (
    <section className="card" aria-label="The job">
      <h2>
        {recipeWords[job.recipe] ?? job.recipe} on {shapeWords(job.nodes, job.gpusPerNode)}
      </h2>
      <dl className="meta">
        <Item label="Recipe">
          {recipeWords[job.recipe] ?? job.recipe} · <code className="wrap">{job.image}</code>
        </Item>
        <Item label="Kind">
          {job.kind === "RAY_JOB" ? "RayJob" : "HyperPodPyTorchJob"} <code>{job.name}</code> in <code>{job.namespace}</code>
        </Item>
        {job.model && <Item label="Model">{job.model}</Item>}
        {job.script && (
          <Item label="Script">
            <code>{job.script}</code>
          </Item>
        )}
        <Item label="Dataset">
          <code className="wrap">{job.datasetPath}</code>
        </Item>
        {job.ray && (
          <>
            <Item label="Entrypoint">
              <code className="wrap">{job.ray.entrypoint}</code>
            </Item>
            {job.ray.pip.length > 0 && (
              <Item label="pip packages">
                <code className="wrap">{job.ray.pip.join(" ")}</code>
              </Item>
            )}
            {job.ray.envNames.length > 0 && (
              <Item label="Environment">
                <code className="wrap">{job.ray.envNames.join(", ")}</code>
              </Item>
            )}
            <Item label="Ray workers">
              {job.ray.workerGroups.length === 0
                ? "none: the head runs the program alone"
                : job.ray.workerGroups.map((w) => `${w.instanceGroup} (${w.instanceType}): ${w.replicas} × ${w.gpusPerNode} GPUs`).join("; ")}
            </Item>
          </>
        )}
        <Item label="Runs on">
          {job.instanceGroup} ({job.instanceType}): {job.nodes} {job.nodes === 1 ? "node" : "nodes"}, {job.gpusPerNode} GPUs, {job.processesPerNode} processes and{" "}
          {job.efaPerNode} EFA interfaces per node
        </Item>
        <Item label="Outputs">
          <Copyable text={job.outputPath} />
        </Item>
        <Item label="Checkpoints">
          <span data-checkpointing={job.checkpointing}>{job.checkpointing === "TIERED" ? "Tiered (memory, then S3): " : "S3: "}</span>
          <Copyable text={job.checkpointPath} />
        </Item>
        <Item label="Submitted">{formatTime(job.createdAt)}</Item>
        <Item label="Started">{formatTime(job.startedAt)}</Item>
        <Item label="Ended">{formatTime(job.finishedAt)}</Item>
        {job.lastOperationId && (
          <Item label="Last operation">
            <Link to={`/operations/${encodeURIComponent(job.lastOperationId)}`}>{job.lastOperationId}</Link>
          </Item>
        )}
      </dl>
      {job.settings.length > 0 && (
        <>
          <h3>Settings</h3>
          <dl className="meta settings">
            {job.settings.map((s) => (
              <Item key={s.key} label={s.key}>
                <code>{s.value}</code>
              </Item>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}

function PodsCard({ job }: { job: JobDetailFragment }) {
  return (
    <section className="card" aria-label="Pods">
      <h2>
        Pods <span className="tab-count">{job.pods.length}</span>
      </h2>
      {job.pods.length === 0 ? (
        <p className="muted">No pods yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">The job's pods</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Phase</th>
                <th scope="col">Node</th>
                <th scope="col">Restarts</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {job.pods.map((p) => (
                <tr key={p.name} data-pod={p.name} className={p.phase === "Failed" ? "row-failed" : undefined}>
                  <td>
                    <code>{p.name}</code>
                  </td>
                  <td>
                    <StatusBadge status={p.phase} kind="node" />
                    {!p.ready && p.phase === "Running" && <span className="cell-note"> not ready</span>}
                    {p.message && <div className="cell-note cell-message">{p.message}</div>}
                  </td>
                  <td>
                    {p.node ?? "—"}
                    {p.instanceId && <div className="cell-note">{p.instanceId}</div>}
                  </td>
                  <td>{p.containerRestarts}</td>
                  <td>{formatTime(p.startedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Copyable({ text }: { text: string }) {
  return (
    <span className="resource-ref">
      <code className="wrap">{text}</code>
      <CopyButton text={text} label={`Copy ${text}`} />
    </span>
  );
}
