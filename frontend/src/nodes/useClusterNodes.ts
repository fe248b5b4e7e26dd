// Every node of a cluster for the Nodes tab: read a page at a time
// (nodePaging.ts), and kept current by the NODE events the cluster page
// already follows (useClusterCompute, from a cursor before any page was
// read), with no polling, no second subscription and no re-reading of
// pages on a change.
import { useCallback, useEffect, useMemo, useState } from "react";
import { CombinedError } from "@urql/core";
import { mergeRecords } from "../api/liveRecords";
import { useSession } from "../app/session";
import type { NodeRowFragment } from "../gql/graphql";
import { NodesPageQuery } from "./documents";
import { addPage, nextPage, startPaging, type NodePaging } from "./nodePaging";

export interface ClusterNodes {
  /** Every node loaded, each at its latest state; null until the first page arrives. */
  nodes: NodeRowFragment[] | null;
  paging: NodePaging<NodeRowFragment>;
  /** Why the last page request failed; paging waits for retry. */
  error: CombinedError | undefined;
  /** Asks again for the page that failed. */
  retry: () => void;
}

interface State {
  clusterId: string;
  paging: NodePaging<NodeRowFragment>;
  error: CombinedError | undefined;
}

const initial = (clusterId: string): State => ({ clusterId, paging: startPaging(), error: undefined });

/**
 * live are the nodes the cluster page has seen in events (by id, null for a
 * deleted one), from a cursor older than any page this reads: the newest
 * event of a node is its state now, so it wins over the page's.
 */
export function useClusterNodes(clusterId: string, live: ReadonlyMap<string, NodeRowFragment | null>): ClusterNodes {
  const { api } = useSession();
  const [stored, setState] = useState(() => initial(clusterId));
  // Another cluster: start over (a reset during render, as React documents it).
  const state = stored.clusterId === clusterId ? stored : initial(clusterId);
  if (state !== stored) setState(state);

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

  const { paging } = state;
  const nodes = useMemo(() => (paging.eventCursor === null ? null : mergeRecords(paging.nodes, live)), [paging, live]);
  const retry = useCallback(() => setState((s) => ({ ...s, error: undefined })), []);

  return { nodes, paging, error: state.error, retry };
}
