import { useCallback, useMemo, useState, type ReactNode } from "react";
import { useQuery } from "urql";
import { applyChanges, eventChanges, isNewer, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { ClusterDetailEventsSubscription as ClusterDetailEvent, ClusterDetailFragment, OperationSummaryFragment } from "../gql/graphql";
import { OperationsTable } from "../operations/OperationsTable";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { GuardedButton } from "../ui/GuardedButton";
import { LiveIndicator, describeStreamError } from "../ui/LiveIndicator";
import { StatusBadge } from "../ui/StatusBadge";
import { compareTimes, formatTime } from "../ui/time";
import { DeleteClusterDialog } from "./DeleteClusterDialog";
import { ClusterDetailEventsSubscription, ClusterQuery } from "./documents";

/** One cluster: overview, network, EKS and HyperPod, its operations, and delete. */
export function ClusterDetailPage({ id }: { id: string }) {
  const { me } = useSession();
  const [{ data, fetching, error }, reload] = useQuery({ query: ClusterQuery, variables: { id } });
  const [liveCluster, setLiveCluster] = useState<ClusterDetailFragment | null>(null);
  const [liveOps, setLiveOps] = useState<ReadonlyMap<string, OperationSummaryFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);

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

  const loaded = data?.cluster;
  const cluster = loaded && liveCluster && isNewer(liveCluster, loaded) ? liveCluster : (loaded ?? liveCluster);
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

  const deleteDenied =
    deniedReason(me.role, "ADMIN") ??
    (cluster.status === "DELETED" ? "The cluster is already deleted." : cluster.status === "DELETING" ? "The cluster is being deleted." : undefined);
  const net = cluster.network;

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
            <LiveIndicator error={streamError} />
          </p>
          {cluster.statusMessage && <p className="muted">{cluster.statusMessage}</p>}
        </div>
        <div className="actions">
          <GuardedButton className="button button-danger" deniedReason={deleteDenied} onClick={() => setDeleting(true)}>
            Delete cluster
          </GuardedButton>
        </div>
      </div>

      {deleting && <DeleteClusterDialog cluster={cluster} onClose={() => setDeleting(false)} />}

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
        <h2>Instance groups</h2>
        {cluster.instanceGroups.length === 0 ? (
          <p className="muted">None were requested with the cluster.</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Instance type</th>
                  <th scope="col" className="num">
                    Count
                  </th>
                  <th scope="col">Zone</th>
                  <th scope="col">Capacity</th>
                  <th scope="col" className="num">
                    Volume
                  </th>
                </tr>
              </thead>
              <tbody>
                {cluster.instanceGroups.map((g) => (
                  <tr key={g.name}>
                    <td className="strong">{g.name}</td>
                    <td>
                      <code>{g.instanceType}</code>
                    </td>
                    <td className="num">
                      {g.count}
                      {g.minCount !== null && g.minCount !== g.count && <span className="muted"> (min {g.minCount})</span>}
                    </td>
                    <td>{g.zone}</td>
                    <td>{g.capacityType === "SPOT" ? "Spot" : "On-demand"}</td>
                    <td className="num">{g.volumeSizeGb} GiB</td>
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
          <Link to={`/operations?targetId=${encodeURIComponent(cluster.id)}`}>All operations of this cluster</Link>
        </div>
        {operations.length === 0 ? <p className="muted">No operations yet.</p> : <OperationsTable operations={operations} showTarget={false} />}
      </section>
    </>
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

function Code({ value }: { value: string | null }) {
  return value ? <code className="wrap">{value}</code> : <>—</>;
}
