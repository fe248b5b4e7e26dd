// A graphql-ws subscription that resumes from a cursor. Each message carries
// the cursor after it, and a subscription with since = that cursor goes on
// with no gap; so the stream subscribes again from the last cursor when the
// server asks it to, when the server ends it without saying why (it is
// shutting down), and after a dropped connection, waiting longer after each
// failure in a row. Subclasses say what a message means.

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

/** Runs then after ms; returns what cancels it. */
export type WaitFn = (ms: number, then: () => void) => () => void;

export interface StreamLink {
  subscribe: SubscribeFn;
  /** The subscription document; it takes $since, and whatever variables() gives. */
  query: string;
  /** Waits before a retry; tests replace it. */
  wait?: WaitFn;
}

/** After a message: follow on, or subscribe again from its cursor at once. */
export type AfterMessage = "more" | "resubscribe";

/** The pause before the first retry; each failure in a row doubles it, up to maxRetryMs. */
const firstRetryMs = 500;
const maxRetryMs = 10_000;

/**
 * Follows a subscription from a cursor and keeps following it across
 * re-subscriptions, until stopped or until an error that will not pass by
 * itself (GraphQL errors: a bad cursor, a missing role).
 *
 * graphql-ws itself re-sends a subscription on a new connection when the
 * old one dropped (a server restart). It sends the same payload object, so
 * the cursor is kept in that object's variables: the re-sent subscription
 * resumes where the stream stopped instead of where it began.
 */
export abstract class ReconnectingStream<M extends { cursor: string }> {
  private cursor: string | null = null;
  private generation = 0;
  private stopCurrent: (() => void) | null = null;
  private cancelWait: (() => void) | null = null;
  private failures = 0;
  private stopped = true;
  private readonly link: StreamLink;

  constructor(link: StreamLink) {
    this.link = link;
  }

  /** The subscription's variables other than since. */
  protected abstract variables(): Record<string, unknown>;
  /** The message in one result's data, if it holds one. */
  protected abstract pick(data: unknown): M | null | undefined;
  /** Handles a message, once the cursor is past it; it may stop the stream. */
  protected abstract receive(message: M): AfterMessage;
  /** An error the stream will subscribe again after, once it has waited. */
  protected abstract retrying(error: unknown): void;
  /** An error the stream stopped at, for good. */
  protected abstract failed(error: unknown): void;

  /** The cursor of the last message received, to resume after. */
  get lastCursor(): string | null {
    return this.cursor;
  }

  /** Starts after since (null: where the subscription starts without one). */
  start(since: string | null = null): void {
    this.stopped = false;
    this.cursor = since;
    this.open();
  }

  /** Stops; nothing is delivered afterwards. */
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
    const payload: SubscribePayload = { query: this.link.query, variables: { ...this.variables(), since: this.cursor } };
    const current = () => generation === this.generation && !this.stopped;
    this.stopCurrent = this.link.subscribe(payload, {
      next: (result) => {
        if (!current()) return;
        if (result.errors && result.errors.length > 0) {
          this.fail(result.errors);
          return;
        }
        const message = this.pick(result.data);
        if (!message) return;
        this.failures = 0;
        this.cursor = message.cursor;
        payload.variables.since = message.cursor;
        if (this.receive(message) === "resubscribe" && current()) this.reopen(0);
      },
      error: (error) => {
        if (!current()) return;
        // graphql-ws gives GraphQL errors as an array; anything else is the
        // connection, which may come back.
        if (Array.isArray(error)) {
          this.fail(error);
          return;
        }
        this.retrying(error);
        this.reopen(this.backoffMs());
      },
      complete: () => {
        if (!current()) return;
        // Ended without a word (the server is shutting down): carry on from the cursor.
        this.reopen(this.backoffMs());
      },
    });
  }

  private fail(error: unknown): void {
    this.stop();
    this.failed(error);
  }

  private backoffMs(): number {
    const ms = Math.min(maxRetryMs, firstRetryMs * 2 ** this.failures);
    this.failures++;
    return ms;
  }

  private reopen(delayMs: number): void {
    this.generation++; // ignore whatever the old subscription still says
    const stop = this.stopCurrent;
    this.stopCurrent = null;
    stop?.();
    if (delayMs === 0) {
      this.open();
      return;
    }
    const wait = this.link.wait ?? defaultWait;
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
