import { describe, expect, it } from "vitest";
import { ReconnectingStream, type AfterMessage, type Sink, type SubscribePayload } from "./reconnectingStream";

interface Msg {
  cursor: string;
  text: string;
  /** What the receiver answers. */
  then?: AfterMessage;
  /** Whether the receiver stops the stream at it. */
  stop?: boolean;
}

/** A stream of Msg that records what it is told. */
class Recorder extends ReconnectingStream<Msg> {
  readonly got: string[] = [];
  readonly retried: unknown[] = [];
  readonly failedWith: unknown[] = [];

  protected variables(): Record<string, unknown> {
    return { topic: "t" };
  }

  protected pick(data: unknown): Msg | null | undefined {
    return (data as { msg?: Msg } | undefined)?.msg;
  }

  protected receive(m: Msg): AfterMessage {
    this.got.push(m.text);
    if (m.stop) this.stop();
    return m.then ?? "more";
  }

  protected retrying(error: unknown): void {
    this.retried.push(error);
  }

  protected failed(error: unknown): void {
    this.failedWith.push(error);
  }
}

/** A fake graphql-ws subscribe that records each subscription, and a wait that runs only when the test says so. */
function setup(since: string | null = null) {
  const subs: { payload: SubscribePayload; sent: Record<string, unknown>; sink: Sink; stopped: boolean }[] = [];
  const waits: { ms: number; then: () => void; cancelled: boolean; over: boolean }[] = [];
  const stream = new Recorder({
    query: "subscription($topic: String, $since: String) { msg(topic: $topic, since: $since) { cursor text } }",
    subscribe: (payload, sink) => {
      // What went over the wire: the variables as they were when sent.
      const sub = { payload, sent: structuredClone(payload.variables), sink, stopped: false };
      subs.push(sub);
      return () => {
        sub.stopped = true;
      };
    },
    wait: (ms, then) => {
      const w = { ms, then, cancelled: false, over: false };
      waits.push(w);
      return () => {
        w.cancelled = true;
      };
    },
  });
  stream.start(since);
  const send = (i: number, msg: Msg) => subs[i]!.sink.next({ data: { msg } });
  /** Ends the oldest wait as a timer would: what waits runs, unless it was cancelled. */
  const elapse = () => {
    const w = waits.find((x) => !x.over);
    if (!w) return;
    w.over = true;
    if (!w.cancelled) w.then();
  };
  return { stream, subs, waits, send, elapse };
}

/** Drops the connection of the newest subscription and lets the pause pass. */
function dropNewest(t: ReturnType<typeof setup>) {
  t.subs.at(-1)!.sink.error(new Error("socket closed"));
  t.elapse();
}

describe("ReconnectingStream", () => {
  it("subscribes with its variables and the cursor it starts after", () => {
    const t = setup("c7");
    expect(t.subs.map((s) => s.sent)).toEqual([{ topic: "t", since: "c7" }]);
  });

  it("delivers messages in order and keeps the last cursor, in the payload too", () => {
    const t = setup();
    t.send(0, { cursor: "c1", text: "a" });
    t.send(0, { cursor: "c2", text: "b" });
    expect(t.stream.got).toEqual(["a", "b"]);
    expect(t.stream.lastCursor).toBe("c2");
    // graphql-ws re-sends this same payload after a reconnect of its own.
    expect(t.subs[0]!.payload.variables).toEqual({ topic: "t", since: "c2" });
  });

  it("subscribes again at once from a message's cursor when it asks to, and ignores the old subscription", () => {
    const t = setup();
    t.send(0, { cursor: "c3", text: "a", then: "resubscribe" });
    expect(t.subs).toHaveLength(2);
    expect(t.subs[0]!.stopped).toBe(true);
    expect(t.subs[1]!.sent).toEqual({ topic: "t", since: "c3" });
    expect(t.waits).toEqual([]);
    t.send(0, { cursor: "c9", text: "stale" });
    t.subs[0]!.sink.complete();
    t.send(1, { cursor: "c4", text: "b" });
    expect(t.stream.got).toEqual(["a", "b"]);
    expect(t.subs).toHaveLength(2);
  });

  it("after a dropped connection, waits longer each time in a row, up to a bound, then resumes from the last cursor", () => {
    const t = setup();
    t.send(0, { cursor: "c1", text: "a" });
    for (let i = 0; i < 7; i++) dropNewest(t);
    expect(t.waits.map((w) => w.ms)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
    expect(t.stream.retried).toHaveLength(7);
    expect(t.subs).toHaveLength(8);
    expect(t.subs.slice(1).every((s) => s.sent.since === "c1")).toBe(true);
  });

  it("starts the pauses over once a message arrives", () => {
    const t = setup();
    dropNewest(t);
    dropNewest(t);
    t.send(2, { cursor: "c5", text: "a" });
    dropNewest(t);
    expect(t.waits.map((w) => w.ms)).toEqual([500, 1000, 500]);
    expect(t.subs[3]!.sent.since).toBe("c5");
  });

  it("subscribes again from the cursor, after a pause, when the server ends the subscription", () => {
    const t = setup();
    t.send(0, { cursor: "c2", text: "a" });
    t.subs[0]!.sink.complete();
    expect(t.subs).toHaveLength(1);
    t.elapse();
    expect(t.waits.map((w) => w.ms)).toEqual([500]);
    expect(t.subs[1]!.sent.since).toBe("c2");
    expect(t.stream.retried).toEqual([]);
  });

  it("stops for good at GraphQL errors, sent as a result or as the error", () => {
    const a = setup();
    a.subs[0]!.sink.next({ errors: [{ message: "FORBIDDEN" }] });
    const b = setup("bogus");
    b.subs[0]!.sink.error([{ message: "bad cursor" }]);
    for (const [t, error] of [
      [a, [{ message: "FORBIDDEN" }]],
      [b, [{ message: "bad cursor" }]],
    ] as const) {
      expect(t.stream.failedWith).toEqual([error]);
      expect(t.subs).toHaveLength(1);
      expect(t.subs[0]!.stopped).toBe(true);
      expect(t.waits).toEqual([]);
    }
  });

  it("once stopped, neither delivers nor subscribes again, even with a retry pending", () => {
    const t = setup();
    t.subs[0]!.sink.complete();
    t.stream.stop();
    t.elapse();
    expect(t.waits[0]!.cancelled).toBe(true);
    t.send(0, { cursor: "c1", text: "late" });
    expect(t.stream.got).toEqual([]);
    expect(t.subs).toHaveLength(1);
  });

  it("stops at a message whose receiver stops it, even one that asks to subscribe again", () => {
    const t = setup();
    t.send(0, { cursor: "c1", text: "last", stop: true, then: "resubscribe" });
    t.send(0, { cursor: "c2", text: "late" });
    expect(t.stream.got).toEqual(["last"]);
    expect(t.stream.lastCursor).toBe("c1");
    expect(t.subs).toHaveLength(1);
    expect(t.subs[0]!.stopped).toBe(true);
  });

  it("can start again after a stop, from the cursor it is given", () => {
    const t = setup();
    t.send(0, { cursor: "c1", text: "a" });
    t.stream.stop();
    t.stream.start(t.stream.lastCursor);
    t.send(1, { cursor: "c2", text: "b" });
    expect(t.subs[1]!.sent.since).toBe("c1");
    expect(t.stream.got).toEqual(["a", "b"]);
  });
});
