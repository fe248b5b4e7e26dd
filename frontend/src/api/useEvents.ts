// A hook over ResumableEvents for pages that keep a list live.
import { useEffect, useLayoutEffect, useRef } from "react";
import { stringifyDocument, type TypedDocumentNode } from "@urql/core";
import { useSession } from "../app/session";
import type { EventFilter } from "../gql/graphql";
import { ResumableEvents, type CursorEvent } from "./events";

// The last cursor seen per subscription, so that coming back to a page
// resumes the stream instead of replaying the whole log. Pages always
// reload their query too: the cursor only saves replaying old events.
const lastCursors = new Map<string, string>();

/** How long events are gathered before a page re-renders with them. */
const batchMs = 100;

/**
 * Follows the events subscription doc with filter, handing the events to
 * onEvents in batches (a replay of the log can be thousands of events).
 * pick reads the event out of one result. onError hears about errors;
 * the stream retries those that may pass. since is where to start: the
 * eventCursor of the list query the page shows, so only changes after it
 * arrive; null replays the log from its start; undefined waits (the query
 * has not answered yet). It has no default: a default would turn the
 * undefined of a query still loading into null, a replay of everything.
 */
export function useEvents<R, E extends CursorEvent>(
  doc: TypedDocumentNode<R, { since?: string | null | undefined; filter?: EventFilter | null | undefined }>,
  filter: EventFilter,
  pick: (data: R) => E | null | undefined,
  onEvents: (events: E[]) => void,
  onError: (error: unknown, retrying: boolean) => void,
  since: string | null | undefined,
): void {
  const { api } = useSession();
  const handlers = useRef({ pick, onEvents, onError });
  useLayoutEffect(() => {
    handlers.current = { pick, onEvents, onError };
  });
  const filterKey = JSON.stringify(filter);
  // The stream starts once, from the first cursor known; a later reload of
  // the query does not restart it (the stream already has everything since).
  const start = useRef(since);
  if (start.current === undefined) start.current = since;
  const ready = start.current !== undefined;

  useEffect(() => {
    if (!ready) return;
    const query = stringifyDocument(doc);
    const key = `${query}\n${filterKey}`;
    let pending: E[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const batch = pending;
      pending = [];
      if (batch.length > 0) handlers.current.onEvents(batch);
    };
    const stream = new ResumableEvents<E>({
      subscribe: (payload, sink) => api.ws.subscribe(payload, sink as Parameters<typeof api.ws.subscribe>[1]),
      query,
      filter: JSON.parse(filterKey) as EventFilter,
      pick: (data) => (data ? handlers.current.pick(data as R) : null),
      onEvent: (event) => {
        lastCursors.set(key, event.cursor);
        pending.push(event);
        timer ??= setTimeout(flush, batchMs);
      },
      onError: (error, retrying) => handlers.current.onError(error, retrying),
    });
    stream.start(later(lastCursors.get(key), start.current ?? null));
    return () => {
      stream.stop();
      if (timer) clearTimeout(timer);
      if (stream.lastCursor) lastCursors.set(key, stream.lastCursor);
    };
  }, [api, doc, filterKey, ready]);
}

/** later is the later of two cursors (sequence numbers as strings). */
function later(a: string | undefined, b: string | null): string | null {
  if (a === undefined) return b;
  if (b === null) return a;
  return BigInt(a) > BigInt(b) ? a : b;
}
