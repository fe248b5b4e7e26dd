import { describe, expect, it } from "vitest";
import { ResumableEvents, step } from "./events";
import type { Sink, SubscribePayload } from "./reconnectingStream";

interface Ev {
  cursor: string;
  action: string;
  id?: string;
}

/** A fake graphql-ws subscribe that records each subscription. */
function fakeServer() {
  const subs: { payload: SubscribePayload; sent: unknown; sink: Sink; stopped: boolean }[] = [];
  const subscribe = (payload: SubscribePayload, sink: Sink) => {
    // What went over the wire: the variables as they were when sent.
    const sub = { payload, sent: structuredClone(payload.variables), sink, stopped: false };
    subs.push(sub);
    return () => {
      sub.stopped = true;
    };
  };
  const emit = (i: number, event: Ev) => subs[i]!.sink.next({ data: { events: event } });
  return { subs, subscribe, emit };
}

/** A wait that runs only when the test says so. */
function manualWait() {
  const waiting: { ms: number; then: () => void; cancelled: boolean }[] = [];
  const wait = (ms: number, then: () => void) => {
    const w = { ms, then, cancelled: false };
    waiting.push(w);
    return () => {
      w.cancelled = true;
    };
  };
  const fire = () => {
    const w = waiting.shift();
    if (w && !w.cancelled) w.then();
    return w?.ms;
  };
  return { waiting, wait, fire };
}

function setup(since: string | null = null) {
  const server = fakeServer();
  const timer = manualWait();
  const got: Ev[] = [];
  const errors: { error: unknown; retrying: boolean }[] = [];
  const stream = new ResumableEvents<Ev>({
    subscribe: server.subscribe,
    query: "subscription($since: String, $filter: EventFilter) { events(since: $since, filter: $filter) { cursor action } }",
    filter: { kinds: ["CLUSTER"] },
    pick: (data) => (data as { events: Ev }).events,
    onEvent: (e) => got.push(e),
    onError: (error, retrying) => errors.push({ error, retrying }),
    wait: timer.wait,
  });
  stream.start(since);
  return { ...server, ...timer, got, errors, stream };
}

describe("step", () => {
  it("delivers changes and moves the cursor", () => {
    expect(step({ cursor: "7", action: "UPDATED" })).toEqual({ cursor: "7", deliver: true, resubscribe: false });
  });
  it("resubscribes from a RESUBSCRIBE event's cursor without delivering it", () => {
    expect(step({ cursor: "9", action: "RESUBSCRIBE" })).toEqual({ cursor: "9", deliver: false, resubscribe: true });
  });
});

describe("ResumableEvents", () => {
  it("subscribes from the given cursor with the filter", () => {
    const t = setup("42");
    expect(t.subs).toHaveLength(1);
    expect(t.subs[0]!.sent).toEqual({ filter: { kinds: ["CLUSTER"] }, since: "42" });
  });

  it("starts from the beginning of the log without a cursor", () => {
    expect(setup().subs[0]!.sent).toEqual({ filter: { kinds: ["CLUSTER"] }, since: null });
  });

  it("delivers events in order and remembers the last cursor", () => {
    const t = setup();
    t.emit(0, { cursor: "1", action: "CREATED" });
    t.emit(0, { cursor: "2", action: "UPDATED" });
    expect(t.got.map((e) => e.cursor)).toEqual(["1", "2"]);
    expect(t.stream.lastCursor).toBe("2");
  });

  it("on RESUBSCRIBE, subscribes again with since = its cursor", () => {
    const t = setup();
    t.emit(0, { cursor: "1", action: "CREATED" });
    t.emit(0, { cursor: "5", action: "RESUBSCRIBE" });
    expect(t.subs[0]!.stopped).toBe(true);
    expect(t.subs).toHaveLength(2);
    expect(t.subs[1]!.sent).toEqual({ filter: { kinds: ["CLUSTER"] }, since: "5" });
    expect(t.got.map((e) => e.action)).toEqual(["CREATED"]); // RESUBSCRIBE is not a change
    t.emit(1, { cursor: "6", action: "UPDATED" });
    expect(t.got.map((e) => e.cursor)).toEqual(["1", "6"]);
  });

  it("ignores what the old stream says after resubscribing", () => {
    const t = setup();
    t.emit(0, { cursor: "5", action: "RESUBSCRIBE" });
    t.emit(0, { cursor: "6", action: "UPDATED" });
    t.subs[0]!.sink.complete();
    expect(t.got).toEqual([]);
    expect(t.subs).toHaveLength(2);
    expect(t.waiting).toHaveLength(0);
  });

  it("keeps the cursor in the payload, so a reconnect re-sends the subscription from there", () => {
    // graphql-ws re-sends the same payload object on a new connection.
    const t = setup("3");
    t.emit(0, { cursor: "4", action: "UPDATED" });
    t.emit(0, { cursor: "8", action: "UPDATED" });
    expect(t.subs[0]!.payload.variables.since).toBe("8");
  });

  it("when the server ends the stream, resubscribes from the last cursor after a pause", () => {
    const t = setup();
    t.emit(0, { cursor: "3", action: "UPDATED" });
    t.subs[0]!.sink.complete();
    expect(t.subs).toHaveLength(1);
    expect(t.fire()).toBeGreaterThan(0);
    expect(t.subs).toHaveLength(2);
    expect(t.subs[1]!.sent).toEqual({ filter: { kinds: ["CLUSTER"] }, since: "3" });
  });

  it("retries a dropped connection with growing pauses, from the last cursor", () => {
    const t = setup();
    t.emit(0, { cursor: "2", action: "UPDATED" });
    t.subs[0]!.sink.error({ code: 1006, reason: "" });
    const first = t.fire();
    t.subs[1]!.sink.error({ code: 1006, reason: "" });
    const second = t.fire();
    expect(second).toBeGreaterThan(first!);
    expect(t.subs[2]!.sent).toEqual({ filter: { kinds: ["CLUSTER"] }, since: "2" });
    expect(t.errors.every((e) => e.retrying)).toBe(true);
  });

  it("gives up on GraphQL errors, which retrying does not fix", () => {
    const t = setup("bogus");
    t.subs[0]!.sink.error([{ message: "cursor \"bogus\" is not one this server issued" }]);
    expect(t.errors).toEqual([{ error: [{ message: "cursor \"bogus\" is not one this server issued" }], retrying: false }]);
    expect(t.waiting).toHaveLength(0);
    expect(t.subs).toHaveLength(1);
  });

  it("gives up on errors in a result", () => {
    const t = setup();
    t.subs[0]!.sink.next({ errors: [{ message: "FORBIDDEN" }] });
    expect(t.errors[0]!.retrying).toBe(false);
    expect(t.subs[0]!.stopped).toBe(true);
  });

  it("delivers nothing after stop and does not come back", () => {
    const t = setup();
    t.subs[0]!.sink.complete(); // a retry is waiting
    t.stream.stop();
    expect(t.fire()).toBeDefined(); // the cancelled wait does nothing
    expect(t.subs).toHaveLength(1);
    t.emit(0, { cursor: "9", action: "UPDATED" });
    expect(t.got).toEqual([]);
  });
});
