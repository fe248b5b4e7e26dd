// The jobLogs subscription, resumed from its cursor. Every chunk carries
// the cursor after its lines; a subscription with since = that cursor
// continues with no gap and no line twice. The stream subscribes again
// from there when the server ends it with SLOW_VIEWER (the viewer fell
// behind the shared buffer), when it ends without saying why (it is
// shutting down), and after a dropped connection. It stops at ENDED (the
// pods' containers ended) and DONE (not following: every line was sent).
import { ReconnectingStream, type AfterMessage, type StreamLink } from "../api/reconnectingStream";
import type { LogLine } from "./logBuffer";

/** One message of jobLogs. */
export interface LogChunk {
  lines: LogLine[];
  cursor: string;
  end: string | null;
}

/** Why a stream stopped for good: the server's end, or an error that will not pass by itself. */
export type LogStreamEnd = "ENDED" | "DONE" | "ERROR";

export interface LogStreamOptions extends StreamLink {
  /** The job whose log it is (the jobLogs document). */
  jobId?: string;
  /** The endpoint whose log it is (the endpointLogs document). */
  endpointId?: string;
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
 * Follows a job's (or an endpoint's) log from a cursor (or from the newest tail lines when
 * there is none) and keeps following it across re-subscriptions. Its query
 * is the jobLogs document, which takes $jobId, $pod, $tail, $since and
 * $follow, or the endpointLogs one, which takes $endpointId instead.
 */
export class ResumableLogs extends ReconnectingStream<LogChunk> {
  private readonly opts: LogStreamOptions;

  constructor(opts: LogStreamOptions) {
    super(opts);
    this.opts = opts;
  }

  protected variables(): Record<string, unknown> {
    const o = this.opts;
    const target = o.endpointId !== undefined ? { endpointId: o.endpointId } : { jobId: o.jobId };
    return { ...target, pod: o.pod, tail: o.tail, follow: o.follow };
  }

  protected pick(data: unknown): LogChunk | null | undefined {
    const d = data as { jobLogs?: LogChunk | null; endpointLogs?: LogChunk | null } | undefined;
    return d?.jobLogs ?? d?.endpointLogs;
  }

  protected receive(chunk: LogChunk): AfterMessage {
    this.opts.onChunk(chunk);
    const next = logStep(chunk);
    if (next.kind === "end") {
      this.stop();
      this.opts.onEnd(next.end);
    }
    return next.kind === "resubscribe" ? "resubscribe" : "more";
  }

  protected retrying(error: unknown): void {
    this.opts.onRetry?.(error);
  }

  protected failed(error: unknown): void {
    this.opts.onEnd("ERROR", error);
  }
}
