// The events subscription, resumed from its cursor. The server replays the
// events after `since` and then follows live with no gap; when a reader falls
// behind it sends one RESUBSCRIBE event and ends the stream, and the reader
// subscribes again with since = that event's cursor.
import { ReconnectingStream, type AfterMessage, type StreamLink } from "./reconnectingStream";

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

export interface ResumableOptions<E extends CursorEvent> extends StreamLink {
  filter: unknown;
  /** Reads the event out of one result's data. */
  pick: (data: unknown) => E | null | undefined;
  onEvent: (event: E) => void;
  /** Called with an error the stream will retry after (or gave up on). */
  onError?: (error: unknown, retrying: boolean) => void;
}

/**
 * Follows the events subscription from a cursor (from the start of the log
 * when null) and keeps following it: after RESUBSCRIBE, after the server
 * ends the stream, and after an error it subscribes again with since = the
 * last cursor it saw.
 */
export class ResumableEvents<E extends CursorEvent> extends ReconnectingStream<E> {
  private readonly opts: ResumableOptions<E>;

  constructor(opts: ResumableOptions<E>) {
    super(opts);
    this.opts = opts;
  }

  protected variables(): Record<string, unknown> {
    return { filter: this.opts.filter };
  }

  protected pick(data: unknown): E | null | undefined {
    return this.opts.pick(data);
  }

  protected receive(event: E): AfterMessage {
    const next = step(event);
    if (next.deliver) this.opts.onEvent(event);
    return next.resubscribe ? "resubscribe" : "more";
  }

  protected retrying(error: unknown): void {
    this.opts.onError?.(error, true);
  }

  protected failed(error: unknown): void {
    this.opts.onError?.(error, false);
  }
}
