// Reads a cluster's jobs a page at a time and keeps them current with no
// polling: the refresher writes a job's record on every change of its
// object, and each change is a JOB event carrying the record, merged in.
import { useCallback, useMemo, useRef, useState } from "react";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { applyChanges, listedNewestFirst } from "../api/liveRecords";
import { useEvents } from "../api/useEvents";
import { clusterChanges } from "../clusters/clusterCompute";
import type { JobEventsSubscription as JobEvent, JobRowFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { ClusterJobsQuery, JobEventsSubscription } from "./documents";
import { jobEventKind } from "./jobList";

/** How many jobs a page lists. */
const pageSize = 50;

export interface ClusterJobs {
  /** The jobs of the page, newest first. */
  jobs: JobRowFragment[];
  /** How many jobs the cluster has, as the page said. */
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

const filter = { kinds: [jobEventKind] };

/**
 * The jobs of cluster clusterId. Nothing is read until active is first
 * true (the tab is opened); from then on they stay live, so switching tabs
 * loses nothing. The stream starts at the first page's event cursor.
 */
export function useClusterJobs(clusterId: string, active: boolean): ClusterJobs {
  const opened = useRef(active);
  if (active) opened.current = true;
  const [start, setStart] = useState<{ after: string | null; page: number }>({ after: null, page: 1 });
  const [list, reexecute] = useQuery({
    query: ClusterJobsQuery,
    variables: { clusterId, first: pageSize, after: start.after },
    pause: !opened.current,
    requestPolicy: "cache-and-network",
  });
  const [live, setLive] = useState<ReadonlyMap<string, JobRowFragment | null>>(new Map());
  const [streamError, setStreamError] = useState<string | null>(null);

  const onEvents = useCallback(
    (events: JobEvent["events"][]) => {
      setStreamError(null);
      setLive((current) => applyChanges(current, clusterChanges(events, jobEventKind, clusterId, (e) => e.job)));
    },
    [clusterId],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(JobEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, list.data?.jobs.eventCursor);

  const jobs = useMemo(() => listedNewestFirst(list.data?.jobs.edges.map((e) => e.node) ?? [], live, start.page), [list.data, live, start.page]);
  const pageInfo = list.data?.jobs.pageInfo;
  const nextPage = useCallback(() => {
    if (pageInfo?.hasNextPage && pageInfo.endCursor) setStart((s) => ({ after: pageInfo.endCursor!, page: s.page + 1 }));
  }, [pageInfo]);
  const firstPage = useCallback(() => setStart({ after: null, page: 1 }), []);
  const reload = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  return {
    jobs,
    totalCount: list.data?.jobs.totalCount ?? 0,
    loaded: list.data != null,
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
