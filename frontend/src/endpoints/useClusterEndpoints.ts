// Reads a cluster's endpoints a page at a time and keeps them current with
// no polling: every change of an endpoint's record is an ENDPOINT event
// carrying the record, merged in; only an endpoint the page does not hold
// yet reads the page again.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { applyChanges, listedNewestFirst } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { clusterChanges } from "../clusters/clusterCompute";
import type { EndpointEventsSubscription as EndpointEvent, EndpointRowFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { ClusterEndpointsQuery, EndpointEventsSubscription } from "./documents";
import { bringsNewEndpoint, endpointEventKind } from "./endpointEvents";

/** How many endpoints a page lists. */
const pageSize = 50;

export interface ClusterEndpoints {
  /** The endpoints of the page, newest first. */
  endpoints: EndpointRowFragment[];
  /** How many endpoints the cluster has, as the page said. */
  totalCount: number;
  loaded: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  /** Which page this is, from 1. */
  page: number;
  hasNextPage: boolean;
  nextPage: () => void;
  firstPage: () => void;
  reload: () => void;
}

const filter = { kinds: [endpointEventKind] };

/**
 * The endpoints of cluster clusterId. Nothing is read until active is first
 * true (the tab is opened); from then on they stay live, so switching tabs
 * loses nothing. The stream starts at the first page's event cursor, so
 * every change after it is either in the page or arrives as an event.
 */
export function useClusterEndpoints(clusterId: string, active: boolean): ClusterEndpoints {
  const opened = useRef(active);
  if (active) opened.current = true;
  const [start, setStart] = useState<{ after: string | null; page: number }>({ after: null, page: 1 });
  const [list, reexecute] = useQuery({
    query: ClusterEndpointsQuery,
    variables: { clusterId, first: pageSize, after: start.after },
    pause: !opened.current,
    requestPolicy: "cache-and-network",
  });
  const [live, setLive] = useState<ReadonlyMap<string, EndpointRowFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);
  // The ids listed or brought by events so far: an endpoint outside them
  // is new, and its place and the total count need the page read again.
  // unread counts such endpoints; asked is how many the last read covers.
  // Reads never overlap: one seen during a read makes one more after it.
  const known = useRef(new Set<string>());
  const [unread, setUnread] = useState(0);
  const asked = useRef(0);

  useEffect(() => {
    for (const e of list.data?.endpoints.edges ?? []) known.current.add(e.node.id);
  }, [list.data]);

  const onEvents = useCallback(
    (events: EndpointEvent["events"][]) => {
      setStreamError(null);
      const changes = clusterChanges(events, endpointEventKind, clusterId, (e) => e.endpoint);
      if (bringsNewEndpoint(changes, known.current)) setUnread((n) => n + 1);
      for (const c of changes) known.current.add(c.id);
      setLive((current) => applyChanges(current, changes));
    },
    [clusterId],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  // The first page's cursor starts the stream; a later page's read does not restart it.
  useEvents(EndpointEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, list.data?.endpoints.eventCursor);

  const loaded = list.data != null;
  useEffect(() => {
    if (!loaded || list.fetching || unread <= asked.current) return;
    asked.current = unread;
    reexecute({ requestPolicy: "network-only" });
  }, [unread, loaded, list.fetching, reexecute]);

  const endpoints = useMemo(
    () => listedNewestFirst(list.data?.endpoints.edges.map((e) => e.node) ?? [], live, start.page),
    [list.data, live, start.page],
  );
  const pageInfo = list.data?.endpoints.pageInfo;
  const nextPage = useCallback(() => {
    if (pageInfo?.hasNextPage && pageInfo.endCursor) setStart((s) => ({ after: pageInfo.endCursor!, page: s.page + 1 }));
  }, [pageInfo]);
  const firstPage = useCallback(() => setStart({ after: null, page: 1 }), []);
  const reload = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  return {
    endpoints,
    totalCount: list.data?.endpoints.totalCount ?? 0,
    loaded,
    fetching: list.fetching,
    error: list.error,
    streamError,
    page: start.page,
    hasNextPage: pageInfo?.hasNextPage ?? false,
    nextPage,
    firstPage,
    reload,
  };
}
