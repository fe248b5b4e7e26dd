import { useCallback, useMemo, useState } from "react";
import { useQuery } from "urql";
import { applyChanges, eventChanges, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { Link, navigate } from "../app/router";
import type { OperationEventsSubscription as OperationEvent, OperationSummaryFragment } from "../gql/graphql";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { LiveIndicator, describeStreamError } from "../ui/LiveIndicator";
import { compareTimes } from "../ui/time";
import { OperationEventsSubscription, OperationsQuery } from "./documents";
import { OperationsTable } from "./OperationsTable";
import { formatFilter, matchesFilter, operationStatuses, parseFilter, toQueryFilter, type OperationListFilter } from "./operationFilter";

const operationEvents = { kinds: ["OPERATION"] };
const pageSize = 50;
const knownKinds = [
  "CreateCluster",
  "ImportCluster",
  "DeleteCluster",
  "AddInstanceGroup",
  "ScaleInstanceGroup",
  "UpdateInstanceGroup",
  "DeleteInstanceGroup",
  "RebootNodes",
  "ReplaceNodes",
  "DeleteNodes",
  "UpdateClusterFeatures",
];

/** Every operation, newest first, filterable, kept current by events. */
export function OperationsPage({ path }: { path: string }) {
  const search = path.includes("?") ? path.slice(path.indexOf("?")) : "";
  const filter = useMemo(() => parseFilter(search), [search]);
  const [first, setFirst] = useState(pageSize);
  const [{ data, fetching, error }, reload] = useQuery({
    query: OperationsQuery,
    variables: { filter: toQueryFilter(filter), first },
  });
  const [live, setLive] = useState<ReadonlyMap<string, OperationSummaryFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);

  const onEvents = useCallback((events: OperationEvent["events"][]) => {
    setStreamError(null);
    setLive((current) => applyChanges(current, eventChanges(events, (e) => e.operation)));
  }, []);
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(OperationEventsSubscription, operationEvents, (d) => d.events, onEvents, onStreamError, data?.operations.eventCursor);

  const rows = useMemo(() => {
    const loaded = data?.operations.edges.map((e) => e.node) ?? [];
    // Events replay older operations too: those beyond the loaded page
    // stay out until the page is extended.
    const oldest = data?.operations.pageInfo.hasNextPage ? loaded[loaded.length - 1]?.createdAt : undefined;
    const inWindow = (op: OperationSummaryFragment) => oldest === undefined || compareTimes(op.createdAt, oldest) >= 0;
    const merged = mergeRecords(loaded, live, (op) => matchesFilter(filter, op) && inWindow(op));
    // Newest first, as the server pages them; ids sort by creation time.
    return merged.sort((a, b) => compareTimes(b.createdAt, a.createdAt) || b.id.localeCompare(a.id));
  }, [data, live, filter]);

  const kinds = useMemo(() => {
    const all = new Set(knownKinds);
    for (const op of rows) all.add(op.kind);
    if (filter.kind) all.add(filter.kind);
    return [...all].sort();
  }, [rows, filter.kind]);

  const setFilter = (patch: Partial<OperationListFilter>) => {
    setFirst(pageSize);
    navigate(`/operations${formatFilter({ ...filter, ...patch })}`, { replace: true });
  };
  const filtered = Boolean(filter.kind || filter.status || filter.targetKind || filter.targetId || filter.clusterId);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Operations</h1>
          <p className="muted">Every change InstantStart made or is making, newest first. Open one to follow its phases.</p>
        </div>
      </div>

      <form className="toolbar filters" role="search" aria-label="Filter operations" onSubmit={(e) => e.preventDefault()}>
        <label>
          Kind
          <select value={filter.kind} onChange={(e) => setFilter({ kind: e.target.value })}>
            <option value="">Any kind</option>
            {kinds.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={filter.status} onChange={(e) => setFilter({ status: e.target.value as OperationListFilter["status"] })}>
            <option value="">Any status</option>
            {operationStatuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Target kind
          <select value={filter.targetKind} onChange={(e) => setFilter({ targetKind: e.target.value })}>
            <option value="">Any</option>
            <option value="CLUSTER">CLUSTER</option>
            <option value="INSTANCE_GROUP">INSTANCE_GROUP</option>
            <option value="CLUSTER_NODES">CLUSTER_NODES</option>
          </select>
        </label>
        <label>
          Target id
          <input
            type="search"
            placeholder="any"
            spellCheck={false}
            defaultValue={filter.targetId}
            key={filter.targetId}
            onBlur={(e) => e.target.value.trim() !== filter.targetId && setFilter({ targetId: e.target.value.trim() })}
            onKeyDown={(e) => {
              if (e.key === "Enter") setFilter({ targetId: e.currentTarget.value.trim() });
            }}
          />
        </label>
        <label>
          Cluster id
          <input
            type="search"
            placeholder="any"
            spellCheck={false}
            defaultValue={filter.clusterId}
            key={filter.clusterId}
            onBlur={(e) => e.target.value.trim() !== filter.clusterId && setFilter({ clusterId: e.target.value.trim() })}
            onKeyDown={(e) => {
              if (e.key === "Enter") setFilter({ clusterId: e.currentTarget.value.trim() });
            }}
          />
        </label>
        {filtered && (
          <button type="button" className="button button-quiet" onClick={() => navigate("/operations", { replace: true })}>
            Clear filters
          </button>
        )}
        <LiveIndicator error={streamError} />
      </form>

      {error && !data ? (
        <ErrorBanner title="The operations could not be loaded" messages={errorMessages(error)}>
          <button className="button" type="button" onClick={() => reload({ requestPolicy: "network-only" })}>
            Try again
          </button>
        </ErrorBanner>
      ) : fetching && !data ? (
        <Loading what="operations" />
      ) : rows.length === 0 ? (
        <EmptyState title={filtered ? "No operation matches" : "No operations yet"}>
          {filtered ? (
            <p>
              Nothing matches these filters. <Link to="/operations">Show every operation</Link>.
            </p>
          ) : (
            <p>
              Operations appear here when something changes: <Link to="/clusters/new">create a cluster</Link> to start one.
            </p>
          )}
        </EmptyState>
      ) : (
        <>
          <OperationsTable operations={rows} />
          <p className="table-foot muted">
            Showing {rows.length} of {Math.max(data?.operations.totalCount ?? 0, rows.length)}.{" "}
            {data?.operations.pageInfo.hasNextPage && first < 200 && (
              <button type="button" className="button button-quiet" onClick={() => setFirst((n) => Math.min(200, n + pageSize))}>
                Show more
              </button>
            )}
          </p>
        </>
      )}
    </>
  );
}
