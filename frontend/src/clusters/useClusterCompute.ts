// Loads a cluster's instance groups and nodes and keeps them current from
// the events after the lists' own cursors, with no polling.
import { useCallback, useMemo, useState } from "react";
import { useQuery } from "urql";
import { applyChanges, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import type { ClusterComputeEventsSubscription as ComputeEvent, InstanceGroupRowFragment, NodeRowFragment } from "../gql/graphql";
import type { CombinedError } from "@urql/core";
import { describeStreamError } from "../ui/LiveIndicator";
import { clusterChanges, computeKinds, earlierCursor, listedGroups } from "./clusterCompute";
import { ClusterComputeEventsSubscription, ClusterComputeQuery } from "./documents";

export interface ClusterCompute {
  groups: InstanceGroupRowFragment[];
  nodes: NodeRowFragment[];
  /** The nodes seen in events since the first page was read, by id (null: deleted), for lists of more pages. */
  liveNodes: ReadonlyMap<string, NodeRowFragment | null>;
  /** True when the cluster has more nodes than the first nodesPage the list holds. */
  nodesTruncated: boolean;
  /** How many nodes the cluster has: the server's count when the first page does not hold them all. */
  nodeCount: number;
  loaded: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  reload: () => void;
}

const filter = { kinds: [...computeKinds] };

/** How many nodes the tab lists: the most one page of the nodes query holds. */
export const nodesPage = 200;

export function useClusterCompute(clusterId: string): ClusterCompute {
  const [{ data, fetching, error }, reexecute] = useQuery({ query: ClusterComputeQuery, variables: { clusterId, nodesFirst: nodesPage } });
  const [liveGroups, setLiveGroups] = useState<ReadonlyMap<string, InstanceGroupRowFragment | null>>(new Map());
  const [liveNodes, setLiveNodes] = useState<ReadonlyMap<string, NodeRowFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);

  const onEvents = useCallback(
    (events: ComputeEvent["events"][]) => {
      setStreamError(null);
      setLiveGroups((current) => applyChanges(current, clusterChanges(events, "INSTANCE_GROUP", clusterId, (e) => e.instanceGroup)));
      setLiveNodes((current) => applyChanges(current, clusterChanges(events, "NODE", clusterId, (e) => e.node)));
    },
    [clusterId],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  const since = earlierCursor(data?.instanceGroups.eventCursor, data?.nodes.eventCursor);
  useEvents(ClusterComputeEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, since);

  const groups = useMemo(() => listedGroups(mergeRecords(data?.instanceGroups.edges.map((e) => e.node) ?? [], liveGroups)), [data, liveGroups]);
  const nodes = useMemo(() => mergeRecords(data?.nodes.edges.map((e) => e.node) ?? [], liveNodes), [data, liveNodes]);
  const reload = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);

  return {
    groups,
    nodes,
    liveNodes,
    nodesTruncated: data != null && data.nodes.totalCount > data.nodes.edges.length,
    nodeCount: data != null && data.nodes.totalCount > data.nodes.edges.length ? data.nodes.totalCount : nodes.length,
    loaded: data != null,
    fetching,
    error,
    streamError,
    reload,
  };
}
