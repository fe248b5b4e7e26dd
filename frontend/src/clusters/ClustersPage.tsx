import { useCallback, useMemo, useState } from "react";
import { useQuery } from "urql";
import { applyChanges, eventChanges, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterEventsSubscription as ClusterEvent, ClusterRowFragment, ClusterRowGroupFragment } from "../gql/graphql";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { LiveIndicator, describeStreamError } from "../ui/LiveIndicator";
import { GuardedButton } from "../ui/GuardedButton";
import { StatusBadge } from "../ui/StatusBadge";
import { formatAgo, formatTime } from "../ui/time";
import { useNow } from "../ui/useNow";
import { listedGroups } from "./clusterCompute";
import { ClusterEventsSubscription, ClustersQuery } from "./documents";

// Group events keep the instance groups column current between changes of
// the clusters themselves.
const clusterFilter = { kinds: ["CLUSTER", "INSTANCE_GROUP"] };

/** Every cluster, kept current by the events subscription. */
export function ClustersPage() {
  const { me } = useSession();
  const [showDeleted, setShowDeleted] = useState(false);
  const [{ data, fetching, error }, reload] = useQuery({
    query: ClustersQuery,
    variables: { first: 200, filter: { includeDeleted: showDeleted } },
  });
  const [live, setLive] = useState<ReadonlyMap<string, ClusterRowFragment | null>>(new Map());
  const [liveGroups, setLiveGroups] = useState<ReadonlyMap<string, ClusterRowGroupFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);
  const now = useNow(true, 15_000);

  const onEvents = useCallback((events: ClusterEvent["events"][]) => {
    setStreamError(null);
    setLive((current) => applyChanges(current, eventChanges(events.filter((e) => e.target.kind === "CLUSTER"), (e) => e.cluster)));
    setLiveGroups((current) => applyChanges(current, eventChanges(events.filter((e) => e.target.kind === "INSTANCE_GROUP"), (e) => e.instanceGroup)));
  }, []);
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(ClusterEventsSubscription, clusterFilter, (d) => d.events, onEvents, onStreamError, data?.clusters.eventCursor);

  const rows = useMemo(() => {
    const loaded = data?.clusters.edges.map((e) => e.node) ?? [];
    const merged = mergeRecords(loaded, live, (c) => showDeleted || c.status !== "DELETED");
    return merged
      .map((c) => ({ ...c, instanceGroups: groupsOf(c, liveGroups) }))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
  }, [data, live, liveGroups, showDeleted]);

  const createDenied = deniedReason(me.role, "OPERATOR");

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Clusters</h1>
          <p className="muted">SageMaker HyperPod clusters on EKS that this control plane created or imported.</p>
        </div>
        <div className="actions">
          {createDenied ? (
            <GuardedButton className="button button-primary" deniedReason={createDenied}>
              Create cluster
            </GuardedButton>
          ) : (
            <Link to="/clusters/new" className="button button-primary">
              Create cluster
            </Link>
          )}
        </div>
      </div>

      <div className="toolbar">
        <label className="check">
          <input type="checkbox" checked={showDeleted} onChange={(e) => setShowDeleted(e.target.checked)} /> Show deleted clusters
        </label>
        <LiveIndicator error={streamError} />
      </div>

      {error && !data ? (
        <ErrorBanner title="The clusters could not be loaded" messages={errorMessages(error)}>
          <button className="button" type="button" onClick={() => reload({ requestPolicy: "network-only" })}>
            Try again
          </button>
        </ErrorBanner>
      ) : fetching && !data ? (
        <Loading what="clusters" />
      ) : rows.length === 0 ? (
        <EmptyState title={showDeleted ? "No clusters yet" : "No live clusters"}>
          <p>
            A cluster is an EKS control plane with a HyperPod cluster and the network it needs. Choose a name, a region, two or more
            availability zones and, if you like, instance groups; InstantStart plans and creates the rest.
          </p>
          {createDenied ? (
            <p className="muted">{createDenied} Ask an operator to create one.</p>
          ) : (
            <Link to="/clusters/new" className="button button-primary">
              Create your first cluster
            </Link>
          )}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Region</th>
                <th scope="col">Kubernetes</th>
                <th scope="col" className="num">
                  Nodes ready
                </th>
                <th scope="col" className="num">
                  Instance groups
                </th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id}>
                  <td>
                    <Link to={`/clusters/${encodeURIComponent(c.id)}`} className="strong">
                      {c.name}
                    </Link>
                    {c.imported && <span className="tag">imported</span>}
                    {c.statusMessage && <div className="cell-note">{c.statusMessage}</div>}
                  </td>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>{c.region}</td>
                  <td>{c.kubernetesVersion}</td>
                  <td className="num" title={c.nodesTotal == null ? "Not read from AWS yet" : "HyperPod nodes Running / all, as last read from AWS"}>
                    {c.nodesTotal == null ? "—" : `${c.nodesReady}/${c.nodesTotal}`}
                  </td>
                  <td className="num" title={c.instanceGroups.map((g) => `${g.name}: ${g.currentCount} of ${g.targetCount} instances, ${g.status}`).join("\n")}>
                    {c.instanceGroups.length}
                  </td>
                  <td title={formatTime(c.createdAt)}>{formatAgo(c.createdAt, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** A cluster's live groups: those it was loaded with, updated by newer group events, plus new ones. */
function groupsOf(cluster: ClusterRowFragment, live: ReadonlyMap<string, ClusterRowGroupFragment | null>): ClusterRowGroupFragment[] {
  const mine = new Map([...live].filter(([id, g]) => (g ? g.clusterId === cluster.id : cluster.instanceGroups.some((x) => x.id === id))));
  return listedGroups(mergeRecords(cluster.instanceGroups, mine));
}
