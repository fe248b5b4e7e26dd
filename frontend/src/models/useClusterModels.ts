// Reads a cluster's models a page at a time and keeps the page current with
// no polling: every step of a download writes its model's record, and each
// event about a model of the cluster reads the page again.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { CombinedError } from "@urql/core";
import { useEvents } from "../api/useEvents";
import { usePagedQuery, type Paging } from "../api/usePagedQuery";
import { useRereads } from "../api/useRereads";
import type { ModelEventsSubscription as ModelEvent, ModelRowFragment } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { ClusterModelsQuery, ModelEventsSubscription } from "./documents";
import { modelEventKind, touchesModels } from "./modelEvents";

export interface ClusterModels extends Paging {
  /** The models of the page, by name. */
  models: ModelRowFragment[];
  loaded: boolean;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
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
  const { list, reexecute, ...paging } = usePagedQuery(ClusterModelsQuery, clusterId, !opened.current || !bucketReady || since === undefined, (data) => data.models.pageInfo);
  const [streamError, setStreamError] = useState<string | null>(null);
  const loaded = list.data != null;
  const { changes, changed } = useRereads(loaded, list.fetching, reexecute);

  const models = useMemo(() => list.data?.models.edges.map((e) => e.node) ?? [], [list.data]);
  const known = useRef<ReadonlySet<string>>(new Set());
  useEffect(() => {
    known.current = new Set(models.map((m) => m.id));
  }, [models]);

  const onEvents = useCallback(
    (events: ModelEvent["events"][]) => {
      setStreamError(null);
      if (touchesModels(events, clusterId, known.current)) changed();
    },
    [clusterId, changed],
  );
  const onStreamError = useCallback((err: unknown, retrying: boolean) => {
    setStreamError(retrying ? "Live updates paused: reconnecting…" : `Live updates stopped: ${describeStreamError(err)}`);
  }, []);
  useEvents(ModelEventsSubscription, filter, (d) => d.events, onEvents, onStreamError, opened.current ? since : undefined);

  return {
    ...paging,
    models,
    loaded,
    fetching: list.fetching,
    error: list.error,
    streamError,
    changes,
  };
}
