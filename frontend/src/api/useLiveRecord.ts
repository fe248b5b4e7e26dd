// One record, as its page shows it: read once with the page's query, then
// followed over the record's own subscription, which sends the record now
// and then each change of it until it ends. A reconnect re-sends the
// subscription, and its first message is the record as it is then, so
// nothing in between is lost.
import { useEffect, useState } from "react";
import { useClient, useQuery } from "urql";
import type { CombinedError, TypedDocumentNode } from "@urql/core";
import { describeStreamError } from "../ui/LiveIndicator";
import { isNewer, type Versioned } from "./liveRecords";

/** What a kind of record is read and followed with; a module constant, so that the subscription lasts. */
export interface LiveRecordSpec<Q, S, T extends Versioned> {
  /** The page's query; it takes $id and $clusterId. */
  query: TypedDocumentNode<Q, { id: string; clusterId: string }>;
  /** The record in the query's answer. */
  loaded: (data: Q) => T | null;
  /** The record's subscription; it takes $id. */
  updates: TypedDocumentNode<S, { id: string }>;
  /** The record in one of the subscription's messages. */
  updated: (data: S) => T;
}

export interface LiveRecord<Q, T> {
  /** The newest state of the record known, or null while there is none. */
  record: T | null;
  /** The query's whole answer, for what the page shows besides the record. */
  data: Q | undefined;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  reload: () => void;
}

/** The record id of cluster clusterId, kept live. */
export function useLiveRecord<Q, S, T extends Versioned>(spec: LiveRecordSpec<Q, S, T>, clusterId: string, id: string): LiveRecord<Q, T> {
  const client = useClient();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: spec.query, variables: { id, clusterId } });
  const [latest, setLatest] = useState<T | null>(null);
  const [streamError, setStreamError] = useState<string | null>(null);
  useEffect(() => {
    const sub = client.subscription(spec.updates, { id }).subscribe((result) => {
      if (result.data) {
        setStreamError(null);
        const next = spec.updated(result.data);
        setLatest((current) => (current && !isNewer(next, current) ? current : next));
      } else if (result.error) {
        setStreamError(result.error.networkError ? describeStreamError(result.error.networkError) : result.error.graphQLErrors.map((e) => e.message).join("; "));
      }
    });
    return () => sub.unsubscribe();
  }, [client, spec, id]);
  const loaded = data ? spec.loaded(data) : null;
  const record = loaded && latest ? (isNewer(latest, loaded) ? latest : loaded) : (loaded ?? latest);
  return {
    record,
    data,
    fetching,
    error,
    streamError,
    reload: () => reexecute({ requestPolicy: "network-only" }),
  };
}
