import { useEffect, useState, type ReactNode } from "react";
import { useQuery } from "urql";
import { useLiveRecord, type LiveRecordSpec } from "../api/useLiveRecord";
import { Link, navigate } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type {
  EndpointDetailFragment,
  EndpointPageQuery as PageData,
  EndpointUpdatedSubscription as EndpointUpdate,
  OperationDetailFragment,
} from "../gql/graphql";
import { OperationProgress } from "../operations/OperationProgress";
import { CopyButton } from "../ui/CopyButton";
import { DeleteDialog } from "../ui/DeleteDialog";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { LiveIndicator } from "../ui/LiveIndicator";
import { StatusBadge } from "../ui/StatusBadge";
import { formatTime } from "../ui/time";
import { AssignWorkerDialog } from "./AssignWorkerDialog";
import { AutoscalingCard } from "./AutoscalingCard";
import { LogViewer } from "../jobs/LogViewer";
import { ChatCard } from "./ChatCard";
import { EndpointChartsCard } from "./EndpointChartsCard";
import { DeleteEndpointMutation, EndpointClusterQuery, EndpointPageQuery, EndpointUpdatedSubscription } from "./documents";
import { unassigned, routerRefusal } from "./endpointActions";
import {
  addressWords,
  deletedObjectsWords,
  endpointPath,
  endpointStatusWords,
  goneStatuses,
  kvBackendShortWords,
  modelSourceWords,
  openAiBase,
  pathWords,
  replicasWords,
  routingStrategyWords,
  servedBy,
  serviceFormWords,
} from "./endpointWords";
import { RouterCard } from "./RouterCard";
import { UpdateEndpointCard } from "./UpdateEndpointCard";

/** The endpoint, followed over endpointUpdated, which sends each change of it until it is DELETED. */
const liveEndpoint: LiveRecordSpec<PageData, EndpointUpdate, EndpointDetailFragment> = {
  query: EndpointPageQuery,
  loaded: (data) => data.endpoint,
  updates: EndpointUpdatedSubscription,
  updated: (data) => data.endpointUpdated,
};

/** An operation started from the page, followed where it was started. */
export interface Started {
  what: string;
  op: OperationDetailFragment;
  noopMessage: string;
}

/**
 * One inference endpoint, live: where it is and why, how many replicas
 * serve, where it is reached, its pods (a pool's workers handed to
 * businesses here), the SGLang router, autoscaling, its replicas and image,
 * a chat with it, and delete.
 */
export function EndpointPage({ clusterId, id }: { clusterId: string; id: string }) {
  const { me } = useSession();
  const { record: endpoint, data, fetching, error, streamError, reload } = useLiveRecord(liveEndpoint, clusterId, id);
  const [deleting, setDeleting] = useState(false);
  const [assigning, setAssigning] = useState<EndpointDetailFragment["pods"][number] | null>(null);
  const [started, setStarted] = useState<Started | null>(null);
  const clusterPath = `/clusters/${encodeURIComponent(clusterId)}`;

  if (!endpoint) {
    if (error) {
      return (
        <ErrorBanner title="The endpoint could not be loaded" messages={errorMessages(error)}>
          <p>
            <Link to={`${clusterPath}/endpoints`}>Back to the cluster's endpoints</Link>{" "}
            <button className="button" type="button" onClick={reload}>
              Try again
            </button>
          </p>
        </ErrorBanner>
      );
    }
    return fetching ? <Loading what="the endpoint" /> : <EmptyState title="No such endpoint" />;
  }

  const gone = goneStatuses.has(endpoint.status);
  const changeDenied = deniedReason(me.role, "OPERATOR") ?? (gone ? `The endpoint is ${endpoint.status}.` : undefined);
  const onStarted = (s: Started) => setStarted(s);
  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> / <Link to={clusterPath}>{data?.cluster?.name ?? clusterId}</Link> / <Link to={`${clusterPath}/endpoints`}>Endpoints</Link> /
          </p>
          <h1>{endpoint.name}</h1>
          <p className="head-status">
            <StatusBadge status={endpoint.status} title={endpointStatusWords[endpoint.status]} />
            <span className="tag" title="Replicas ready of those desired">
              {replicasWords(endpoint)} ready
            </span>
            {endpoint.operatorState && (
              <span className="tag" title="The operator's own state">
                {endpoint.operatorState}
              </span>
            )}
            {endpoint.status !== "DELETED" && <LiveIndicator error={streamError} />}
          </p>
          <p className="muted">{endpoint.statusMessage ?? endpointStatusWords[endpoint.status]}</p>
        </div>
        <div className="actions">
          <GuardedButton className="button button-danger" deniedReason={changeDenied} onClick={() => setDeleting(true)}>
            Delete endpoint
          </GuardedButton>
        </div>
      </div>

      {deleting && (
        <DeleteDialog
          title={`Delete the endpoint ${endpoint.name}?`}
          action="Delete endpoint"
          mutation={DeleteEndpointMutation}
          id={endpoint.id}
          started={(result) => result.deleteEndpoint}
          onClose={() => setDeleting(false)}
          onStarted={(op) => {
            setDeleting(false);
            setStarted({ what: `Deleting ${endpoint.name}`, op, noopMessage: `${endpoint.name} is deleted already.` });
          }}
        >
          <p>
            This deletes {deletedObjectsWords(endpoint)} (<code>{endpoint.object}</code> in <code>{endpoint.namespace}</code>)
            {endpoint.readyReplicas > 0 ? <strong>: it stops serving now</strong> : ""}.
          </p>
          <p>The model stays where it is, and the endpoint's record stays here, DELETED.</p>
        </DeleteDialog>
      )}
      {assigning && (
        <AssignWorkerDialog
          endpoint={endpoint}
          pod={assigning}
          onClose={() => setAssigning(null)}
          onStarted={(op, business) => {
            setAssigning(null);
            setStarted({ what: `Handing ${assigning.name} to ${business}`, op, noopMessage: `${assigning.name} serves ${business} already.` });
          }}
        />
      )}
      {started && <OperationProgress key={started.op.id} what={started.what} operation={started.op} noopMessage={started.noopMessage} onDismiss={() => setStarted(null)} />}

      <EndpointSummary endpoint={endpoint} />
      <PodsCard endpoint={endpoint} assignDenied={changeDenied} onAssign={setAssigning} />
      <ChatCard endpoint={endpoint} />
      <EndpointChartsCard endpointId={endpoint.id} live={!goneStatuses.has(endpoint.status)} />
      <LogViewer
        endpointId={endpoint.id}
        pods={endpoint.pods.map((p) => p.name)}
        podsKey={endpoint.pods.map((p) => `${p.name}:${p.phase}:${p.containerRestarts}`).join(",")}
        running={!goneStatuses.has(endpoint.status)}
      />
      <div className="two-col">
        <UpdateEndpointCard endpoint={endpoint} denied={changeDenied} onStarted={onStarted} />
        <AutoscalingCard endpoint={endpoint} denied={changeDenied} onStarted={onStarted} />
      </div>
      {routerRefusal(endpoint) === null && <RouterCard endpoint={endpoint} denied={changeDenied} onStarted={onStarted} />}
    </>
  );
}

/** /endpoints/:id, where an operation's target leads: goes on to the endpoint's page under its cluster. */
export function EndpointRedirect({ id }: { id: string }) {
  const [{ data, error, fetching }] = useQuery({ query: EndpointClusterQuery, variables: { id } });
  const clusterId = data?.endpoint.clusterId;
  useEffect(() => {
    if (clusterId) navigate(endpointPath(clusterId, id), { replace: true });
  }, [clusterId, id]);
  if (error) return <ErrorBanner title="The endpoint could not be loaded" messages={errorMessages(error)} />;
  return fetching || clusterId ? <Loading what="the endpoint" /> : <EmptyState title="No such endpoint" />;
}

function EndpointSummary({ endpoint: e }: { endpoint: EndpointDetailFragment }) {
  const base = openAiBase(e.address);
  return (
    <section className="card" aria-label="The endpoint">
      <h2>
        {e.model} on {e.instanceType}
      </h2>
      <dl className="meta">
        <Item label="Path">
          {pathWords[e.path] ?? e.path} · {servedBy(e)}
        </Item>
        <Item label="Model">
          {e.model} <span className="muted">({modelSourceWords[e.modelSource] ?? e.modelSource})</span>
        </Item>
        {e.path === "SELF_MANAGED" && (
          <Item label="Service">
            {e.serviceForm ? (serviceFormWords[e.serviceForm] ?? e.serviceForm) : "—"}
            {e.pool && (
              <>
                {" "}
                · pool <code>{e.pool}</code>
              </>
            )}
          </Item>
        )}
        <Item label="Replicas">
          {e.readyReplicas} ready of {e.replicas}
        </Item>
        <Item label="Runs on">
          {e.instanceType}
          {e.gpusPerReplica != null && `, ${e.gpusPerReplica} ${e.gpusPerReplica === 1 ? "GPU" : "GPUs"} per replica`}
          {e.tensorParallelSize != null && `, tensor parallel ${e.tensorParallelSize}`}
        </Item>
        {e.image && (
          <Item label="Image">
            <code className="wrap">{e.image}</code>
          </Item>
        )}
        <Item label="Object">
          <code>{e.object}</code> in <code>{e.namespace}</code>
        </Item>
        <Item label="Deployed">{formatTime(e.createdAt)}</Item>
        <Item label="Updated">{formatTime(e.updatedAt)}</Item>
        {e.lastOperationId && (
          <Item label="Last operation">
            <Link to={`/operations/${encodeURIComponent(e.lastOperationId)}`}>{e.lastOperationId}</Link>
          </Item>
        )}
      </dl>
      <h3>Address</h3>
      <dl className="meta" aria-label="Address">
        <Item label="Where">
          {e.address?.host ? (
            <span className="resource-ref">
              <code className="wrap">{addressWords(e.address)}</code>
              <CopyButton text={addressWords(e.address)} label="Copy the address" />
            </span>
          ) : (
            <span className="muted">{addressWords(e.address)}</span>
          )}
        </Item>
        {e.address && <Item label="Kind">{e.address.kind}</Item>}
        {e.address?.service && (
          <Item label="Service">
            <code>{e.address.service}</code>
          </Item>
        )}
        {base && (
          <Item label="OpenAI-compatible base URL">
            <code className="wrap">{base}</code>
            {e.address?.kind !== "LOAD_BALANCER" && <div className="cell-note">Reachable inside the cluster; the chat below goes through the Kubernetes API.</div>}
          </Item>
        )}
      </dl>
      {e.path === "MANAGED" && (
        <>
          <h3>Inference operator</h3>
          <dl className="meta">
            <Item label="KV cache">
              {e.kvCache
                ? [e.kvCache.l1 ? "L1 in memory" : "no L1", e.kvCache.l2 ? `L2 on ${e.kvCache.l2Backend ? (kvBackendShortWords[e.kvCache.l2Backend] ?? e.kvCache.l2Backend) : "the default backend"}` : "no L2"].join(", ")
                : "—"}
              {e.kvCache?.l2Url && (
                <>
                  {" "}
                  <code>{e.kvCache.l2Url}</code>
                </>
              )}
            </Item>
            <Item label="Intelligent routing">
              {e.intelligentRouting?.enabled ? (e.intelligentRouting.strategy ? (routingStrategyWords[e.intelligentRouting.strategy] ?? e.intelligentRouting.strategy) : "on") : "off"}
              <div className="cell-note">Fixed for the endpoint's life.</div>
            </Item>
          </dl>
        </>
      )}
    </section>
  );
}

function PodsCard({
  endpoint: e,
  assignDenied,
  onAssign,
}: {
  endpoint: EndpointDetailFragment;
  assignDenied: string | undefined;
  onAssign: (pod: EndpointDetailFragment["pods"][number]) => void;
}) {
  const pool = e.serviceForm === "MODEL_POOL";
  return (
    <section className="card" aria-label="Pods">
      <h2>
        Pods <span className="tab-count">{e.pods.length}</span>
      </h2>
      {pool && <p className="muted">Warm workers of pool {e.pool}: hand one to a business and it serves that business's Service, with no restart (it keeps its uid).</p>}
      {e.pods.length === 0 ? (
        <p className="muted">No pods yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">The endpoint's pods</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Phase</th>
                <th scope="col">Ready</th>
                <th scope="col">Node</th>
                <th scope="col">UID</th>
                {pool && <th scope="col">Business</th>}
                <th scope="col">Restarts</th>
                <th scope="col">Started</th>
                {pool && (
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {e.pods.map((p) => (
                <tr key={p.name} data-pod={p.name} className={p.phase === "Failed" ? "row-failed" : undefined}>
                  <td>
                    <code>{p.name}</code>
                  </td>
                  <td>
                    <StatusBadge status={p.phase} kind="node" />
                    {p.message && <div className="cell-note cell-message">{p.message}</div>}
                  </td>
                  <td>{p.ready ? "Yes" : "No"}</td>
                  <td>{p.node ?? "—"}</td>
                  <td>
                    <code className="wrap">{p.uid}</code>
                  </td>
                  {pool && <td>{p.business && p.business !== unassigned ? <strong>{p.business}</strong> : <span className="muted">unassigned</span>}</td>}
                  <td>{p.containerRestarts}</td>
                  <td>{formatTime(p.startedAt)}</td>
                  {pool && (
                    <td className="row-actions">
                      <GuardedButton className="button" deniedReason={assignDenied} onClick={() => onAssign(p)} aria-label={`Assign ${p.name}`}>
                        Assign
                      </GuardedButton>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
