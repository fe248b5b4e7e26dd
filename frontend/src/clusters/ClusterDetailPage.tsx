import { useCallback, useMemo, useState, type ReactNode } from "react";
import { useQuery } from "urql";
import { applyChanges, eventChanges, isNewer, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { useLiveList } from "../api/useLiveList";
import { Link, navigate } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type {
  ClusterDetailEventsSubscription as ClusterDetailEvent,
  ClusterDetailFragment,
  InstanceGroupRowFragment,
  OperationSummaryFragment,
} from "../gql/graphql";
import { OperationsTable } from "../operations/OperationsTable";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { DeleteDialog } from "../ui/DeleteDialog";
import { GuardedButton } from "../ui/GuardedButton";
import { LiveIndicator, describeStreamError } from "../ui/LiveIndicator";
import { StatusBadge } from "../ui/StatusBadge";
import { compareTimes, formatTime } from "../ui/time";
import { InstanceGroupsTab } from "../instanceGroups/InstanceGroupsTab";
import { NodesTab } from "../nodes/NodesTab";
import { FeaturesTab } from "../features/FeaturesTab";
import { useClusterFeatures } from "../features/useClusterFeatures";
import { JobsTab } from "../jobs/JobsTab";
import { jobList } from "../jobs/jobList";
import { EndpointsTab } from "../endpoints/EndpointsTab";
import { endpointList } from "../endpoints/endpointList";
import { ModelsTab } from "../models/ModelsTab";
import { useClusterModels } from "../models/useClusterModels";
import { prefixQuery } from "../storage/bucketPaths";
import { StorageTab } from "../storage/StorageTab";
import { useClusterStorage } from "../storage/useClusterStorage";
import { ClusterDetailEventsSubscription, ClusterQuery, DeleteClusterMutation } from "./documents";
import { DependenciesCard } from "./DependenciesCard";
import { KubectlCard } from "./KubectlCard";
import { SystemNodesCard } from "./SystemNodesCard";
import { SoftwareCard } from "./SoftwareCard";
import { useClusterCompute } from "./useClusterCompute";

/** The tabs of the cluster page, each at its own path under /clusters/:id. */
export type ClusterTab = "overview" | "instance-groups" | "nodes" | "features" | "storage" | "models" | "jobs" | "endpoints";

export const clusterTabs: readonly ClusterTab[] = ["overview", "instance-groups", "nodes", "features", "storage", "models", "jobs", "endpoints"];

/** The path of a tab of the cluster page. */
export function clusterTabPath(id: string, tab: ClusterTab): string {
  const base = `/clusters/${encodeURIComponent(id)}`;
  return tab === "overview" ? base : `${base}/${tab}`;
}

/**
 * One cluster: the overview (network, EKS and HyperPod, its operations, and
 * delete), its instance groups, its nodes, its features, its storage, the
 * models in its shared bucket, its training jobs and its inference endpoints.
 * The tabs share the page, so switching tabs keeps every live stream and
 * what it has received.
 */
export function ClusterDetailPage({ id, tab }: { id: string; tab: ClusterTab }) {
  const { me } = useSession();
  const [{ data, fetching, error }, reload] = useQuery({ query: ClusterQuery, variables: { id } });
  const [liveCluster, setLiveCluster] = useState<ClusterDetailFragment | null>(null);
  const [liveOps, setLiveOps] = useState<ReadonlyMap<string, OperationSummaryFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [cascade, setCascade] = useState(false);
  const [deleteBucket, setDeleteBucket] = useState(false);

  const filter = useMemo(() => ({ kinds: ["CLUSTER"], ids: [id] }), [id]);
  const onEvents = useCallback((events: ClusterDetailEvent["events"][]) => {
    setStreamError(null);
    setLiveCluster((current) => {
      let out = current;
      for (const e of events) if (e.cluster && (!out || isNewer(e.cluster, out))) out = e.cluster;
      return out;
    });
    setLiveOps((current) => applyChanges(current, eventChanges(events, (e) => e.cluster?.lastOperation)));
  }, []);
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(ClusterDetailEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, null);
  const compute = useClusterCompute(id);

  const loaded = data?.cluster;
  const cluster = loaded && liveCluster && isNewer(liveCluster, loaded) ? liveCluster : (loaded ?? liveCluster);
  const features = useClusterFeatures(id, cluster?.status ?? null, tab === "features");
  // The Models tab reads the shared bucket's state first, and follows the
  // models from the storages' event cursor.
  const storage = useClusterStorage(id, tab === "storage" || tab === "models");
  const models = useClusterModels(id, storage.eventCursor, storage.shared?.status === "AVAILABLE", tab === "models");
  const jobs = useLiveList(jobList, id, tab === "jobs");
  const endpoints = useLiveList(endpointList, id, tab === "endpoints");
  const operations = useMemo(() => {
    const ops = mergeRecords(loaded?.operations.edges.map((e) => e.node) ?? [], liveOps);
    return ops.sort((a, b) => compareTimes(b.createdAt, a.createdAt));
  }, [loaded, liveOps]);

  if (!cluster) {
    if (error) {
      return (
        <ErrorBanner title="The cluster could not be loaded" messages={errorMessages(error)}>
          <p>
            <Link to="/clusters">Back to the clusters</Link>{" "}
            <button className="button" type="button" onClick={() => reload({ requestPolicy: "network-only" })}>
              Try again
            </button>
          </p>
        </ErrorBanner>
      );
    }
    return fetching ? <Loading what="the cluster" /> : <EmptyState title="No such cluster" />;
  }

  const storagePath = (prefix: string) => clusterTabPath(cluster.id, "storage") + prefixQuery(prefix);
  const deleteDenied =
    deniedReason(me.role, "ADMIN") ??
    (cluster.status === "DELETED" ? "The cluster is already deleted." : cluster.status === "DELETING" ? "The cluster is being deleted." : undefined);

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> /
          </p>
          <h1>{cluster.name}</h1>
          <p className="head-status">
            <StatusBadge status={cluster.status} />
            {cluster.imported && <span className="tag">imported</span>}
            <LiveIndicator error={streamError ?? compute.streamError ?? features.streamError ?? storage.streamError ?? models.streamError ?? jobs.streamError ?? endpoints.streamError} />
          </p>
          {cluster.statusMessage && <p className="muted">{cluster.statusMessage}</p>}
        </div>
        <div className="actions">
          <GuardedButton className="button button-danger" deniedReason={deleteDenied} onClick={() => setDeleting(true)}>
            Delete cluster
          </GuardedButton>
        </div>
      </div>

      {deleting && (
        <DeleteDialog
          title={`Delete ${cluster.name}?`}
          action="Delete cluster"
          mutation={DeleteClusterMutation}
          options={{ cascade, deleteBucket: cascade && deleteBucket }}
          id={cluster.id}
          started={(result) => result.deleteCluster}
          confirmName={cluster.name}
          cancel="Keep it"
          onClose={() => setDeleting(false)}
          onStarted={(op) => {
            setDeleting(false);
            navigate(`/operations/${encodeURIComponent(op.id)}`);
          }}
        >
          {cluster.imported ? (
            <p>
              This deletes the HyperPod cluster and the EKS control plane. The network and IAM roles were imported, so they are left in
              place.
            </p>
          ) : (
            <p>
              This deletes the HyperPod cluster and its instances, the EKS control plane, the OIDC provider, the VPC with its subnets and NAT
              gateway, and the IAM roles. Jobs and data on the cluster's instances are lost.
            </p>
          )}
          <p>
            A cluster that still has endpoints, jobs, models or storage is refused, naming them, unless they are deleted with it. The IAM
            roles and policies its features made go with it.
          </p>
          <label className="checkbox">
            <input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> Also delete its endpoints, jobs,
            model downloads and storage
          </label>
          {cascade && (
            <label className="checkbox">
              <input type="checkbox" checked={deleteBucket} onChange={(e) => setDeleteBucket(e.target.checked)} /> Also empty and delete the
              shared bucket (without this, the bucket and its objects stay)
            </label>
          )}
        </DeleteDialog>
      )}

      <nav className="tabs" aria-label="Cluster">
        <Link to={clusterTabPath(cluster.id, "overview")} aria-current={tab === "overview" ? "page" : undefined}>
          Overview
        </Link>
        <Link to={clusterTabPath(cluster.id, "instance-groups")} aria-current={tab === "instance-groups" ? "page" : undefined}>
          Instance groups {compute.loaded && <span className="tab-count">{compute.groups.length}</span>}
        </Link>
        <Link to={clusterTabPath(cluster.id, "nodes")} aria-current={tab === "nodes" ? "page" : undefined}>
          Nodes {compute.loaded && <span className="tab-count">{compute.nodeCount}</span>}
        </Link>
        <Link to={clusterTabPath(cluster.id, "features")} aria-current={tab === "features" ? "page" : undefined}>
          Features
        </Link>
        <Link to={clusterTabPath(cluster.id, "storage")} aria-current={tab === "storage" ? "page" : undefined}>
          Storage
        </Link>
        <Link to={clusterTabPath(cluster.id, "models")} aria-current={tab === "models" ? "page" : undefined}>
          Models
        </Link>
        <Link to={clusterTabPath(cluster.id, "jobs")} aria-current={tab === "jobs" ? "page" : undefined}>
          Jobs {jobs.loaded && <span className="tab-count">{jobs.totalCount}</span>}
        </Link>
        <Link to={clusterTabPath(cluster.id, "endpoints")} aria-current={tab === "endpoints" ? "page" : undefined}>
          Endpoints {endpoints.loaded && <span className="tab-count">{endpoints.totalCount}</span>}
        </Link>
      </nav>

      {tab === "instance-groups" && <InstanceGroupsTab cluster={cluster} compute={compute} />}
      {tab === "nodes" && <NodesTab cluster={cluster} compute={compute} />}
      {tab === "features" && <FeaturesTab cluster={cluster} features={features} groups={compute.groups} />}
      {tab === "storage" && <StorageTab cluster={cluster} computeZones={computeZones(cluster)} storage={storage} pathOf={storagePath} />}
      {tab === "models" && <ModelsTab cluster={cluster} storage={storage} models={models} storagePath={storagePath} />}
      {tab === "jobs" && <JobsTab cluster={cluster} jobs={jobs} />}
      {tab === "endpoints" && <EndpointsTab cluster={cluster} endpoints={endpoints} />}
      {tab === "overview" && <Overview cluster={cluster} operations={operations} groups={compute.loaded ? compute.groups : null} />}
    </>
  );
}

function Overview({
  cluster,
  operations,
  groups,
}: {
  cluster: ClusterDetailFragment;
  operations: OperationSummaryFragment[];
  groups: InstanceGroupRowFragment[] | null;
}) {
  const net = cluster.network;
  return (
    <>
      <section className="card">
        <h2>Overview</h2>
        <dl className="meta">
          <Item label="Region">{cluster.region}</Item>
          <Item label="Kubernetes">{cluster.kubernetesVersion}</Item>
          <Item label="Availability zones">{cluster.zones.join(", ") || "—"}</Item>
          <Item label="Created">{formatTime(cluster.createdAt)}</Item>
          <Item label="Updated">{formatTime(cluster.updatedAt)}</Item>
          <Item label="Cluster id">
            <code>{cluster.id}</code>
          </Item>
          <Item label="EKS cluster role">
            <Code value={cluster.eksClusterRoleArn} />
          </Item>
          <Item label="HyperPod execution role">
            <Code value={cluster.executionRoleArn} />
          </Item>
        </dl>
      </section>

      <div className="two-col">
        <section className="card">
          <h2>
            EKS control plane <StatusBadge status={cluster.eks.status} />
          </h2>
          <dl className="meta meta-stack">
            <Item label="Name">{cluster.eks.name}</Item>
            <Item label="Version">{cluster.eks.version ?? "—"}</Item>
            <Item label="Authentication mode">{cluster.eks.authenticationMode ?? "—"}</Item>
            <Item label="API endpoint">
              <Code value={cluster.eks.endpoint} />
            </Item>
            <Item label="OIDC issuer">
              <Code value={cluster.eks.oidcIssuer} />
            </Item>
            <Item label="Add-ons">{cluster.eks.addons.length > 0 ? cluster.eks.addons.join(", ") : "—"}</Item>
            <Item label="ARN">
              <Code value={cluster.eks.arn} />
            </Item>
          </dl>
        </section>
        <section className="card">
          <h2>
            HyperPod cluster <StatusBadge status={cluster.hyperPod.status} />
          </h2>
          {cluster.hyperPod.failureMessage && <p className="phase-error">{cluster.hyperPod.failureMessage}</p>}
          <dl className="meta meta-stack">
            <Item label="Name">{cluster.hyperPod.name}</Item>
            <Item label="Node recovery">{cluster.hyperPod.nodeRecovery ?? "—"}</Item>
            <Item label="Node provisioning">{cluster.hyperPod.nodeProvisioningMode ?? "—"}</Item>
            <Item label="ARN">
              <Code value={cluster.hyperPod.arn} />
            </Item>
          </dl>
        </section>
      </div>

      <SoftwareCard cluster={cluster} groups={groups} />

      <DependenciesCard cluster={cluster} />

      <KubectlCard cluster={cluster} />
      <SystemNodesCard cluster={cluster} refreshKey={operations[0] ? `${operations[0].id}/${operations[0].status}` : undefined} />

      <section className="card">
        <h2>Network</h2>
        <dl className="meta">
          <Item label="VPC">
            <Code value={net.vpcId} /> {net.cidr && <span className="muted">{net.cidr}</span>}
          </Item>
          <Item label="Internet gateway">
            <Code value={net.internetGatewayId} />
          </Item>
          <Item label="NAT gateway">
            <Code value={net.natGatewayId} />
          </Item>
          <Item label="Node security group">
            <Code value={net.securityGroupId} />
          </Item>
          <Item label="Owned">{net.owned ? "Yes: deleted with the cluster" : "No: imported, left in place on delete"}</Item>
        </dl>
        {net.subnets.length === 0 ? (
          <p className="muted">No subnets yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">Subnets</caption>
              <thead>
                <tr>
                  <th scope="col">Subnet</th>
                  <th scope="col">Zone</th>
                  <th scope="col">CIDR</th>
                  <th scope="col">Role</th>
                </tr>
              </thead>
              <tbody>
                {net.subnets.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <code>{s.id}</code>
                    </td>
                    <td>{s.zone}</td>
                    <td>
                      <code>{s.cidr}</code>
                    </td>
                    <td>{s.role.toLowerCase()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section className="card">
        <div className="section-head">
          <h2>Operations</h2>
          <Link to={`/operations?clusterId=${encodeURIComponent(cluster.id)}`}>All operations of this cluster</Link>
        </div>
        {operations.length === 0 ? <p className="muted">No operations yet.</p> : <OperationsTable operations={operations} showTarget={false} />}
      </section>
    </>
  );
}

/** The zones of a cluster's compute subnets, in the order of its subnets. */
function computeZones(cluster: ClusterDetailFragment): string[] {
  return [...new Set(cluster.network.subnets.filter((s) => s.role === "COMPUTE").map((s) => s.zone))];
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Code({ value }: { value: string | null }) {
  return value ? <code className="wrap">{value}</code> : <>—</>;
}
