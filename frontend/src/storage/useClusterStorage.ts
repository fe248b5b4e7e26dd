// Reads a cluster's storages and keeps them current with no polling: every
// step of an operation on a storage writes its record, and each event about
// a storage of the cluster reads the storages again.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { useEvents } from "../api/useEvents";
import { useRereads } from "../api/useRereads";
import type { StorageEventsSubscription as StorageEvent, StorageRowFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { ClusterStoragesQuery, StorageEventsSubscription } from "./documents";
import { fileSystems } from "./fileSystems";
import { sharedBucket } from "./sharedBucket";
import { storageEventKind, touchesStorages } from "./storageEvents";

export interface ClusterStorage {
  /** The cluster's shared bucket, or null when it has none. */
  shared: StorageRowFragment | null;
  /** The cluster's FSx for Lustre file systems, oldest first (none DELETED). */
  fileSystems: StorageRowFragment[];
  /**
   * The event log position the storages' reading reflects, undefined
   * until the first answers: what is read after it (the models in the
   * shared bucket) is followed by the events from there.
   */
  eventCursor: string | undefined;
  loaded: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  /** Reads the storages again now. */
  reload: () => void;
}

const filter = { kinds: [storageEventKind] };

/**
 * The storages of cluster clusterId. Nothing is read until active is first
 * true (the tab is opened); from then on they stay live, so switching tabs
 * loses nothing. The stream starts at the list's event cursor, so every
 * change after the list is either in it or arrives as an event.
 */
export function useClusterStorage(clusterId: string, active: boolean): ClusterStorage {
  const opened = useRef(active);
  if (active) opened.current = true;
  const [list, reexecute] = useQuery({ query: ClusterStoragesQuery, variables: { clusterId }, pause: !opened.current, requestPolicy: "cache-and-network" });
  const [streamError, setStreamError] = useState<string | null>(null);
  const loaded = list.data != null;
  const { changed } = useRereads(loaded, list.fetching, reexecute);

  const storages = useMemo(() => list.data?.storages.edges.map((e) => e.node) ?? [], [list.data]);
  const known = useRef<ReadonlySet<string>>(new Set());
  useEffect(() => {
    known.current = new Set(storages.map((s) => s.id));
  }, [storages]);

  const onEvents = useCallback(
    (events: StorageEvent["events"][]) => {
      setStreamError(null);
      if (touchesStorages(events, clusterId, known.current)) changed();
    },
    [clusterId, changed],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(StorageEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, list.data?.storages.eventCursor);

  const reload = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  const shared = useMemo(() => sharedBucket(storages), [storages]);
  const systems = useMemo(() => fileSystems(storages), [storages]);
  return {
    shared,
    fileSystems: systems,
    eventCursor: list.data?.storages.eventCursor,
    loaded,
    fetching: list.fetching,
    error: list.error,
    streamError,
    reload,
  };
}
