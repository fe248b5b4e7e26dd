// Reads a cluster's records a page at a time, newest first, and keeps them
// current with no polling: every change of a record is an event carrying
// the record as stored, merged in (listedNewestFirst).
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { CombinedError, TypedDocumentNode } from "@urql/core";
import { clusterChanges } from "../clusters/clusterCompute";
import type { EventFilter } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import type { CursorEvent } from "./events";
import { applyChanges, listedNewestFirst, type Versioned } from "./liveRecords";
import { useEvents } from "./useEvents";
import { usePagedQuery, type Paging } from "./usePagedQuery";
import { useRereads } from "./useRereads";

/** A record of a cluster, as lists show it. */
export type ListedRecord = Versioned & { clusterId: string; createdAt: string };

/** An event that may carry a record. */
export type ListEvent = CursorEvent & { target: { id: string; kind: string } };

/** One page of a list query's answer. */
export interface ListPage<T> {
  eventCursor: string;
  totalCount: number;
  edges: readonly { node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** What a kind of record is listed and followed with (a module constant). */
export interface LiveListSpec<Q, T extends ListedRecord, E extends ListEvent> {
  /** The list's query; it takes $clusterId, $first and $after. */
  query: TypedDocumentNode<Q, { clusterId: string; first: number; after?: string | null }>;
  /** The page in the query's answer. */
  page: (data: Q) => ListPage<T>;
  /** The events subscription that carries the records; it takes $since and $filter. */
  events: TypedDocumentNode<{ events: E }, { since?: string | null; filter?: EventFilter | null }>;
  /** The kind of the events' targets that are these records. */
  kind: string;
  /** The record an event carries. */
  record: (event: E) => T | null | undefined;
  /**
   * Whether changes need the page read again, for what only the server can
   * say (a new record's place, the count); known holds the ids listed or
   * brought by events so far. Without it, changes are only merged in.
   */
  rereads?: (changes: readonly { id: string; record: T | null }[], known: ReadonlySet<string>) => boolean;
}

export interface LiveList<T> extends Paging {
  /** The records of the page, newest first. */
  records: T[];
  /** How many records the cluster has, as the page said. */
  totalCount: number;
  loaded: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  reload: () => void;
}

/**
 * The records of cluster clusterId that spec lists. Nothing is read until
 * active is first true (the tab is opened); from then on they stay live, so
 * switching tabs loses nothing. The stream starts at the first page's event
 * cursor, so every change after it is either in the page or arrives as an
 * event; a later page's read does not restart it.
 */
export function useLiveList<Q, T extends ListedRecord, E extends ListEvent>(spec: LiveListSpec<Q, T, E>, clusterId: string, active: boolean): LiveList<T> {
  const opened = useRef(active);
  if (active) opened.current = true;
  const { list, reexecute, ...paging } = usePagedQuery(spec.query, clusterId, !opened.current, (data) => spec.page(data).pageInfo);
  const listed = list.data ? spec.page(list.data) : undefined;
  const [live, setLive] = useState<ReadonlyMap<string, T | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);
  const loaded = listed !== undefined;
  const { changed } = useRereads(loaded, list.fetching, reexecute);
  const known = useRef(new Set<string>());

  useEffect(() => {
    for (const e of listed?.edges ?? []) known.current.add(e.node.id);
  }, [listed]);

  const onEvents = useCallback(
    (events: E[]) => {
      setStreamError(null);
      const changes = clusterChanges(events, spec.kind, clusterId, spec.record);
      if (spec.rereads?.(changes, known.current)) changed();
      for (const c of changes) known.current.add(c.id);
      setLive((current) => applyChanges(current, changes));
    },
    [spec, clusterId, changed],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(spec.events, { kinds: [spec.kind] }, (d) => d.events, onEvents, onStreamError, listed?.eventCursor);

  const page = paging.page;
  const records = useMemo(() => listedNewestFirst(listed?.edges.map((e) => e.node) ?? [], live, page), [listed, live, page]);
  return {
    ...paging,
    records,
    totalCount: listed?.totalCount ?? 0,
    loaded,
    fetching: list.fetching,
    error: list.error,
    streamError,
  };
}
