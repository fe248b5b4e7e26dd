// Reads a cluster's feature table and keeps it current with no polling:
// the table is read again whenever a feature operation of the cluster
// changes, as the events after the cluster's operations list say.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { applyChanges, mergeRecords } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { useRereads } from "../api/useRereads";
import type { FeatureOperationEventsSubscription as FeatureEvent, FeatureRowFragment, OperationSummaryFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { ClusterFeaturesQuery, ClusterTargetOperationsQuery, FeatureOperationEventsSubscription } from "./documents";
import { clusterOperationChanges, runningOperation, touchesFeatures } from "./featureEvents";

export interface ClusterFeatures {
  features: FeatureRowFragment[];
  /** The operation running on the cluster, which holds the toggles, or null. */
  running: OperationSummaryFragment | null;
  loaded: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  /** Reads the table again now. */
  reload: () => void;
}

// Operation events name no cluster, so the stream takes them all and keeps
// those whose operation targets this cluster.
const filter = { kinds: ["OPERATION"] };

/**
 * The feature table of cluster clusterId. Nothing is read until active is
 * first true (the tab is opened: reading the table asks AWS and Kubernetes);
 * from then on it stays live, so switching tabs loses nothing.
 *
 * The operations list answers first, with its event cursor; the table is
 * read after that, so every change after the cursor is either in the table
 * already or arrives as an event that reads it again.
 */
export function useClusterFeatures(clusterId: string, clusterStatus: string | null, active: boolean): ClusterFeatures {
  const opened = useRef(active);
  if (active) opened.current = true;
  const [ops, reloadOps] = useQuery({ query: ClusterTargetOperationsQuery, variables: { clusterId }, pause: !opened.current, requestPolicy: "cache-and-network" });
  const cursor = ops.data?.operations.eventCursor;
  const [table, reexecute] = useQuery({ query: ClusterFeaturesQuery, variables: { clusterId }, pause: cursor === undefined, requestPolicy: "cache-and-network" });
  const [liveOps, setLiveOps] = useState<ReadonlyMap<string, OperationSummaryFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);
  const loaded = table.data != null;
  const { changed } = useRereads(loaded, table.fetching, reexecute);

  const onEvents = useCallback(
    (events: FeatureEvent["events"][]) => {
      setStreamError(null);
      setLiveOps((current) => applyChanges(current, clusterOperationChanges(events, clusterId)));
      if (touchesFeatures(events, clusterId)) changed();
    },
    [clusterId, changed],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(FeatureOperationEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, cursor);

  // A cluster that becomes ACTIVE (or leaves it) changes every row.
  const lastStatus = useRef(clusterStatus);
  useEffect(() => {
    if (clusterStatus === lastStatus.current) return;
    lastStatus.current = clusterStatus;
    changed();
  }, [clusterStatus, changed]);

  const running = useMemo(() => runningOperation(mergeRecords(ops.data?.operations.edges.map((e) => e.node) ?? [], liveOps)), [ops.data, liveOps]);
  const reload = useCallback(() => {
    if (ops.error && !ops.data) reloadOps({ requestPolicy: "network-only" });
    else reexecute({ requestPolicy: "network-only" });
  }, [ops.error, ops.data, reloadOps, reexecute]);

  return {
    features: table.data?.clusterFeatures ?? [],
    running,
    loaded,
    fetching: table.fetching || ops.fetching,
    error: table.error ?? ops.error,
    streamError,
    reload,
  };
}
