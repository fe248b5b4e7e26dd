// Every node of a cluster for the Nodes tab: read a page at a time
// (nodePaging.ts), and kept current by NODE events from the first page's
// event cursor, with no polling and no re-reading of pages on a change.
import { useCallback, useEffect, useMemo, useState } from "react";
import { CombinedError } from "@urql/core";
import { applyChanges, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { useSession } from "../app/session";
import { clusterChanges } from "../clusters/clusterCompute";
import type { NodeEventsSubscription as NodeEvent, NodeRowFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { NodeEventsSubscription, NodesPageQuery } from "./documents";
import { addPage, nextPage, rewind, startPaging, type NodePaging } from "./nodePaging";

export interface ClusterNodes {
  /** Every node loaded, each at its latest state; null until the first page arrives. */
  nodes: NodeRowFragment[] | null;
  paging: NodePaging<NodeRowFragment>;
  /** Why the last page request failed; paging waits for retry. */
  error: CombinedError | undefined;
  streamError: string | null;
  /** Asks again for the page that failed, or starts a new pass after paging gave up. */
  retry: () => void;
}

const filter = { kinds: ["NODE"] };

interface State {
  clusterId: string;
  paging: NodePaging<NodeRowFragment>;
  /** The nodes seen in events, by id; null for a deleted one. */
  live: ReadonlyMap<string, NodeRowFragment | null>;
  error: CombinedError | undefined;
}

const initial = (clusterId: string): State => ({ clusterId, paging: startPaging(), live: new Map(), error: undefined });

export function useClusterNodes(clusterId: string): ClusterNodes {
  const { api } = useSession();
  const [stored, setState] = useState(() => initial(clusterId));
  // Another cluster: start over (a reset during render, as React documents it).
  const state = stored.clusterId === clusterId ? stored : initial(clusterId);
  if (state !== stored) setState(state);
  const [streamError, setStreamError] = useState<string | null>(null);

  // One request at a time, the next one once its answer is in. seq names
  // the request, so an answer for an older one (another cluster, or an
  // effect React ran twice) is dropped.
  const request = state.error ? null : nextPage(state.paging);
  const seq = request?.seq;
  useEffect(() => {
    if (!request) return;
    let current = true;
    void api.client
      .query(NodesPageQuery, { clusterId, first: request.first, after: request.after }, { requestPolicy: "network-only" })
      .toPromise()
      .then((result) => {
        if (!current) return;
        setState((s) => {
          if (s.clusterId !== clusterId || s.paging.requests !== request.seq) return s;
          if (!result.data) return { ...s, error: result.error ?? new CombinedError({ networkError: new Error("no data in the answer") }) };
          return { ...s, paging: addPage(s.paging, result.data.nodes) };
        });
      });
    return () => {
      current = false;
    };
    // request is a new object each render; seq (undefined while paging waits) says when it is another request.
  }, [api, clusterId, seq]);

  const onEvents = useCallback(
    (events: NodeEvent["events"][]) => {
      setStreamError(null);
      setState((s) => {
        if (s.clusterId !== clusterId) return s;
        const live = applyChanges(s.live, clusterChanges(events, "NODE", clusterId, (e) => e.node));
        return live === s.live ? s : { ...s, live };
      });
    },
    [clusterId],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates of the nodes paused: reconnecting…" : `Live updates of the nodes stopped: ${describeStreamError(err)}`);
  }, []);
  // undefined until the first page: the stream then starts at its cursor, before every later page.
  useEvents(NodeEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, state.paging.eventCursor ?? undefined);

  const { paging, live } = state;
  const nodes = useMemo(() => (paging.eventCursor === null ? null : mergeRecords(paging.nodes, live)), [paging, live]);
  const retry = useCallback(
    () => setState((s) => ({ ...s, error: undefined, paging: s.paging.end === "gaveUp" ? rewind(s.paging) : s.paging })),
    [],
  );

  return { nodes, paging, error: state.error, streamError, retry };
}
