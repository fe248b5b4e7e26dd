// Reads a cluster's models a page at a time and keeps the page current with
// no polling: every step of a download writes its model's record, and each
// event about a model of the cluster reads the page again.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { useEvents } from "../api/useEvents";
import type { ModelEventsSubscription as ModelEvent, ModelRowFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { ClusterModelsQuery, ModelEventsSubscription } from "./documents";
import { modelEventKind, touchesModels } from "./modelEvents";

/** How many models a page lists. */
const pageSize = 50;

export interface ClusterModels {
  /** The models of the page, by name. */
  models: ModelRowFragment[];
  loaded: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  /** Which page this is, from 1. */
  page: number;
  /** Whether a page follows this one. */
  hasNextPage: boolean;
  nextPage: () => void;
  firstPage: () => void;
  /**
   * How many changes to the cluster's models events have told of: a
   * model followed off the page (one just downloaded) reads itself again
   * when it grows.
   */
  changes: number;
  /** Reads the page again now. */
  reload: () => void;
}

const filter = { kinds: [modelEventKind] };

/**
 * The models of cluster clusterId. Nothing is read until active is first
 * true (the tab is opened), nor while the shared bucket they live in is
 * not ready; from then on they stay live, so switching tabs loses nothing.
 *
 * The model list has no event cursor of its own: since is the one of the
 * storages' list, read first, so every change after it is either in the
 * models read after it or arrives as an event.
 */
export function useClusterModels(clusterId: string, since: string | undefined, bucketReady: boolean, active: boolean): ClusterModels {
  const opened = useRef(active);
  if (active) opened.current = true;
  const [start, setStart] = useState<{ after: string | null; page: number }>({ after: null, page: 1 });
  const [list, reexecute] = useQuery({
    query: ClusterModelsQuery,
    variables: { clusterId, first: pageSize, after: start.after },
    pause: !opened.current || !bucketReady || since === undefined,
    requestPolicy: "cache-and-network",
  });
  const [streamError, setStreamError] = useState<string | null>(null);
  // Changes seen that the page may not show yet; asked is how many of them
  // the last read covers. Reads never overlap: changes during one make one
  // more read after it.
  const [changes, setChanges] = useState(0);
  const asked = useRef(0);

  const models = useMemo(() => list.data?.models.edges.map((e) => e.node) ?? [], [list.data]);
  const known = useRef<ReadonlySet<string>>(new Set());
  useEffect(() => {
    known.current = new Set(models.map((m) => m.id));
  }, [models]);

  const onEvents = useCallback(
    (events: ModelEvent["events"][]) => {
      setStreamError(null);
      if (touchesModels(events, clusterId, known.current)) setChanges((n) => n + 1);
    },
    [clusterId],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(ModelEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, opened.current ? since : undefined);

  const loaded = list.data != null;
  useEffect(() => {
    if (!loaded || list.fetching || changes <= asked.current) return;
    asked.current = changes;
    reexecute({ requestPolicy: "network-only" });
  }, [changes, loaded, list.fetching, reexecute]);

  const pageInfo = list.data?.models.pageInfo;
  const nextPage = useCallback(() => {
    if (pageInfo?.hasNextPage && pageInfo.endCursor) setStart((s) => ({ after: pageInfo.endCursor!, page: s.page + 1 }));
  }, [pageInfo]);
  const firstPage = useCallback(() => setStart({ after: null, page: 1 }), []);
  const reload = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  return {
    models,
    loaded,
    fetching: list.fetching,
    error: list.error,
    streamError,
    page: start.page,
    hasNextPage: pageInfo?.hasNextPage ?? false,
    nextPage,
    firstPage,
    changes,
    reload,
  };
}
