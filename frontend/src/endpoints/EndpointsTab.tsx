import type { LiveList } from "../api/useLiveList";
import { Link } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { EndpointRowFragment } from "../gql/graphql";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { StatusBadge } from "../ui/StatusBadge";
import { addressWords, deployEndpointPath, endpointPath, endpointStatusWords, pathWords, replicasWords, servedBy, serviceFormWords } from "./endpointWords";

interface Props {
  cluster: { id: string; name: string; status: string };
  endpoints: LiveList<EndpointRowFragment>;
}

/**
 * The cluster's inference endpoints, newest first, a page at a time, each
 * with how it is served, where it is, how many replicas are ready and where
 * it is reached. Kept live as the refresher reads their objects.
 */
export function EndpointsTab({ cluster, endpoints }: Props) {
  const { me } = useSession();
  const denied = deniedReason(me.role, "OPERATOR") ?? (cluster.status === "ACTIVE" ? undefined : `The cluster is ${cluster.status}: endpoints are deployed only on an ACTIVE cluster.`);

  let body;
  if (endpoints.error && !endpoints.loaded) {
    body = (
      <ErrorBanner title="The endpoints could not be listed" messages={errorMessages(endpoints.error)}>
        <button className="button" type="button" onClick={endpoints.reload}>
          Try again
        </button>
      </ErrorBanner>
    );
  } else if (!endpoints.loaded) {
    body = <Loading what="endpoints" />;
  } else if (endpoints.records.length === 0) {
    body = <p className="muted">{endpoints.page > 1 ? "Nothing more." : "No endpoints yet. Deploy one: it serves a model of the shared bucket on the cluster's GPUs."}</p>;
  } else {
    body = (
      <div className="table-wrap">
        <table className="table endpoints">
          <caption className="sr-only">Inference endpoints</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Path</th>
              <th scope="col">Engine</th>
              <th scope="col">Service</th>
              <th scope="col">Status</th>
              <th scope="col">Replicas</th>
              <th scope="col">Address</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.records.map((e) => (
              <EndpointRow key={e.id} endpoint={e} />
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section aria-label="Endpoints">
      <div className="toolbar">
        <p className="muted tab-intro">
          Inference endpoints on the cluster: managed ones run by the HyperPod inference operator, self-managed ones as a Deployment of vLLM or
          SGLang with a Service. They load their model from the shared bucket (or FSx, or JumpStart). Kept live as their objects change.
        </p>
        <div className="toolbar-end">
          {denied ? (
            <span className="guarded">
              <span className="button" aria-disabled="true">
                Deploy an endpoint
              </span>
              <span className="guarded-reason">{denied}</span>
            </span>
          ) : (
            <Link to={deployEndpointPath(cluster.id)} className="button button-primary">
              Deploy an endpoint
            </Link>
          )}
        </div>
      </div>
      <section className="card" aria-label="Endpoints of the cluster">
        <div className="section-head">
          <h2>Endpoints {endpoints.loaded && <span className="tab-count">{endpoints.totalCount}</span>}</h2>
          <button type="button" className="button" onClick={endpoints.reload} disabled={!endpoints.loaded}>
            Read again
          </button>
        </div>
        {endpoints.error && endpoints.loaded && <ErrorBanner title="The endpoints could not be listed again: this is the last listing" messages={errorMessages(endpoints.error)} />}
        {body}
        {endpoints.loaded && (endpoints.hasNextPage || endpoints.page > 1) && (
          <div className="table-foot">
            <span className="muted">Page {endpoints.page}</span>
            {endpoints.page > 1 && (
              <button type="button" className="button" onClick={endpoints.firstPage}>
                First page
              </button>
            )}
            {endpoints.hasNextPage && (
              <button type="button" className="button" onClick={endpoints.nextPage}>
                Next page
              </button>
            )}
          </div>
        )}
      </section>
    </section>
  );
}

function EndpointRow({ endpoint: e }: { endpoint: EndpointRowFragment }) {
  return (
    <tr data-endpoint={e.name} className={e.status === "FAILED" ? "row-failed" : undefined}>
      <td>
        <Link to={endpointPath(e.clusterId, e.id)} className="strong">
          {e.name}
        </Link>
        <div className="cell-note">{e.model}</div>
      </td>
      <td>{pathWords[e.path] ?? e.path}</td>
      <td>{servedBy(e)}</td>
      <td>
        {e.serviceForm ? (serviceFormWords[e.serviceForm] ?? e.serviceForm) : e.path === "MANAGED" ? "The operator's" : "—"}
        {e.pool && <div className="cell-note">pool {e.pool}</div>}
      </td>
      <td>
        <StatusBadge status={e.status} title={endpointStatusWords[e.status]} />
        {e.statusMessage && <div className="cell-note cell-message">{e.statusMessage}</div>}
      </td>
      <td title="Replicas ready of those desired">{replicasWords(e)}</td>
      <td>
        {e.address?.host ? <code className="wrap">{addressWords(e.address)}</code> : <span className="muted">{addressWords(e.address)}</span>}
      </td>
    </tr>
  );
}
