// The events subscription, resumed from its cursor. The server replays the
// events after `since` and then follows live with no gap; when a reader falls
// behind it sends one RESUBSCRIBE event and ends the stream, and the reader
// subscribes again with since = that event's cursor.

/** The part of an event that the resume logic reads. */
export interface CursorEvent {
  cursor: string;
  action: string;
}

/** What to do with one event. */
export interface Step {
  /** The cursor to resume after, from now on. */
  cursor: string;
  /** True when the event is a change to show. */
  deliver: boolean;
  /** True when the stream ends here and must be subscribed again from cursor. */
  resubscribe: boolean;
}

/** Decides what an event means for the stream. */
export function step(event: CursorEvent): Step {
  if (event.action === "RESUBSCRIBE") return { cursor: event.cursor, deliver: false, resubscribe: true };
  return { cursor: event.cursor, deliver: true, resubscribe: false };
}

/** A GraphQL request as graphql-ws sends it. */
export interface SubscribePayload {
  query: string;
  variables: Record<string, unknown>;
}

/** The result sink of graphql-ws' Client.subscribe. */
export interface Sink {
  next(value: { data?: unknown; errors?: readonly unknown[] | null }): void;
  error(error: unknown): void;
  complete(): void;
}

/** graphql-ws' Client.subscribe: starts a subscription, returns its stop. */
export type SubscribeFn = (payload: SubscribePayload, sink: Sink) => () => void;

export interface ResumableOptions<E extends CursorEvent> {
  subscribe: SubscribeFn;
  /** The subscription document; it takes $since and $filter. */
  query: string;
  filter: unknown;
  /** Reads the event out of one result's data. */
  pick: (data: unknown) => E | null | undefined;
  onEvent: (event: E) => void;
  /** Called with an error the stream will retry after (or gave up on). */
  onError?: (error: unknown, retrying: boolean) => void;
  /** Waits before a retry; tests replace it. */
  wait?: (ms: number, then: () => void) => () => void;
}

/**
 * Follows the events subscription from a cursor and keeps following it:
 * after RESUBSCRIBE, after the server ends the stream, and after an error
 * it subscribes again with since = the last cursor it saw.
 *
 * graphql-ws itself re-sends a subscription on a new connection when the
 * old one dropped (a server restart). It sends the same payload object, so
 * the cursor is kept in that object's variables: the resent subscription
 * resumes where the stream stopped instead of where it began.
 */
export class ResumableEvents<E extends CursorEvent> {
  private cursor: string | null = null;
  private generation = 0;
  private stopCurrent: (() => void) | null = null;
  private cancelWait: (() => void) | null = null;
  private failures = 0;
  private stopped = true;
  private readonly opts: ResumableOptions<E>;

  constructor(opts: ResumableOptions<E>) {
    this.opts = opts;
  }

  /** The cursor of the last event received, to resume after. */
  get lastCursor(): string | null {
    return this.cursor;
  }

  /** Starts following after since (from the start of the log when null). */
  start(since: string | null = null): void {
    this.stopped = false;
    this.cursor = since;
    this.open();
  }

  /** Stops following; nothing is delivered afterwards. */
  stop(): void {
    this.stopped = true;
    this.generation++;
    this.cancelWait?.();
    this.cancelWait = null;
    const stop = this.stopCurrent;
    this.stopCurrent = null;
    stop?.();
  }

  private open(): void {
    const generation = ++this.generation;
    const payload: SubscribePayload = {
      query: this.opts.query,
      variables: { filter: this.opts.filter, since: this.cursor },
    };
    const current = () => generation === this.generation && !this.stopped;
    this.stopCurrent = this.opts.subscribe(payload, {
      next: (result) => {
        if (!current()) return;
        if (result.errors && result.errors.length > 0) {
          this.fail(result.errors, false);
          return;
        }
        const event = this.opts.pick(result.data);
        if (!event) return;
        this.failures = 0;
        const next = step(event);
        this.cursor = next.cursor;
        payload.variables.since = next.cursor;
        if (next.deliver) this.opts.onEvent(event);
        if (next.resubscribe) this.reopen(0);
      },
      error: (error) => {
        if (!current()) return;
        // GraphQL errors (a bad cursor, a missing role) will not go away by
        // themselves; a closed connection may.
        this.fail(error, !Array.isArray(error));
      },
      complete: () => {
        if (!current()) return;
        // The server ended the stream without RESUBSCRIBE (it is shutting
        // down, say): carry on from the cursor.
        this.reopen(this.backoffMs());
      },
    });
  }

  private fail(error: unknown, retry: boolean): void {
    this.opts.onError?.(error, retry);
    if (retry) this.reopen(this.backoffMs());
    else this.stop();
  }

  private backoffMs(): number {
    const ms = Math.min(10_000, 500 * 2 ** this.failures);
    this.failures++;
    return ms;
  }

  private reopen(delayMs: number): void {
    this.generation++; // ignore whatever the old stream still says
    const stop = this.stopCurrent;
    this.stopCurrent = null;
    stop?.();
    if (delayMs === 0) {
      this.open();
      return;
    }
    const wait = this.opts.wait ?? defaultWait;
    this.cancelWait = wait(delayMs, () => {
      this.cancelWait = null;
      if (!this.stopped) this.open();
    });
  }
}

function defaultWait(ms: number, then: () => void): () => void {
  const t = setTimeout(then, ms);
  return () => clearTimeout(t);
}
