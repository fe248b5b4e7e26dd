// The jobLogs subscription, resumed from its cursor. Every chunk carries
// the cursor after its lines; a subscription with since = that cursor
// continues with no gap and no line twice. The stream subscribes again
// from there when the server ends it with SLOW_VIEWER (the viewer fell
// behind the shared buffer), when it ends without saying why (it is
// shutting down), and after a dropped connection. It stops at ENDED (the
// pods' containers ended) and DONE (not following: every line was sent).
import type { SubscribeFn, SubscribePayload } from "../api/events";
import type { LogLine } from "./logBuffer";

/** One message of jobLogs. */
export interface LogChunk {
  lines: LogLine[];
  cursor: string;
  end: string | null;
}

/** Why a stream stopped for good: the server's end, or an error that will not pass by itself. */
export type LogStreamEnd = "ENDED" | "DONE" | "ERROR";

export interface LogStreamOptions {
  subscribe: SubscribeFn;
  /** The jobLogs document; it takes $jobId, $pod, $tail, $since and $follow. */
  query: string;
  jobId: string;
  /** Only this pod's lines; null for every pod of the job. */
  pod: string | null;
  /** How many of the newest lines to start with (ignored once there is a cursor). */
  tail: number;
  /** Keep following new lines. */
  follow: boolean;
  onChunk: (chunk: LogChunk) => void;
  /** The stream stopped: why, and for an error, what it said. */
  onEnd: (end: LogStreamEnd, error?: unknown) => void;
  /** The stream is re-subscribing after an error it expects to pass. */
  onRetry?: (error: unknown) => void;
  /** Waits before a retry; tests replace it. */
  wait?: (ms: number, then: () => void) => () => void;
}

/** What one message means for the stream. */
export type LogStep = { kind: "chunk" } | { kind: "resubscribe" } | { kind: "end"; end: "ENDED" | "DONE" };

/** Decides what the end of a chunk means: go on, subscribe again from its cursor, or stop. */
export function logStep(chunk: { end: string | null }): LogStep {
  switch (chunk.end) {
    case null:
      return { kind: "chunk" };
    case "SLOW_VIEWER":
      return { kind: "resubscribe" };
    case "DONE":
      return { kind: "end", end: "DONE" };
    default:
      // ENDED, and any end this version does not know: there is no more to read.
      return { kind: "end", end: "ENDED" };
  }
}

/**
 * Follows a job's log from a cursor (or from the newest tail lines when
 * there is none) and keeps following it across re-subscriptions.
 *
 * graphql-ws re-sends a subscription on a new connection with the same
 * payload object, so the cursor is kept in that object's variables: the
 * re-sent subscription resumes after the last chunk instead of starting
 * again from the tail.
 */
export class ResumableLogs {
  private cursor: string | null = null;
  private generation = 0;
  private stopCurrent: (() => void) | null = null;
  private cancelWait: (() => void) | null = null;
  private failures = 0;
  private stopped = true;
  private readonly opts: LogStreamOptions;

  constructor(opts: LogStreamOptions) {
    this.opts = opts;
  }

  /** The cursor of the last chunk received, to resume after. */
  get lastCursor(): string | null {
    return this.cursor;
  }

  /** Starts after since, or from the newest tail lines when since is null. */
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

  private variables(): Record<string, unknown> {
    const o = this.opts;
    return { jobId: o.jobId, pod: o.pod, tail: o.tail, since: this.cursor, follow: o.follow };
  }

  private open(): void {
    const generation = ++this.generation;
    const payload: SubscribePayload = { query: this.opts.query, variables: this.variables() };
    const current = () => generation === this.generation && !this.stopped;
    this.stopCurrent = this.opts.subscribe(payload, {
      next: (result) => {
        if (!current()) return;
        if (result.errors && result.errors.length > 0) {
          this.finish("ERROR", result.errors);
          return;
        }
        const chunk = (result.data as { jobLogs?: LogChunk | null } | undefined)?.jobLogs;
        if (!chunk) return;
        this.failures = 0;
        this.cursor = chunk.cursor;
        payload.variables.since = chunk.cursor;
        this.opts.onChunk(chunk);
        const next = logStep(chunk);
        if (next.kind === "resubscribe") this.reopen(0);
        else if (next.kind === "end") this.finish(next.end);
      },
      error: (error) => {
        if (!current()) return;
        // GraphQL errors (no such job, a bad cursor) will not go away by
        // themselves; a closed connection may.
        if (Array.isArray(error)) {
          this.finish("ERROR", error);
          return;
        }
        this.opts.onRetry?.(error);
        this.reopen(this.backoffMs());
      },
      complete: () => {
        if (!current()) return;
        // Ended with no end given (the server is shutting down): carry on from the cursor.
        this.reopen(this.backoffMs());
      },
    });
  }

  private finish(end: LogStreamEnd, error?: unknown): void {
    this.stop();
    this.opts.onEnd(end, error);
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
