import { describe, expect, it } from "vitest";
import type { Sink, SubscribePayload } from "../api/reconnectingStream";
import { logStep, ResumableLogs, type LogChunk, type LogStreamEnd } from "./logStream";

function fakeServer() {
  const subs: { payload: SubscribePayload; sent: Record<string, unknown>; sink: Sink; stopped: boolean }[] = [];
  const subscribe = (payload: SubscribePayload, sink: Sink) => {
    const sub = { payload, sent: structuredClone(payload.variables), sink, stopped: false };
    subs.push(sub);
    return () => {
      sub.stopped = true;
    };
  };
  const chunk = (i: number, cursor: string, texts: string[], end: string | null = null) =>
    subs[i]!.sink.next({ data: { jobLogs: { cursor, end, lines: texts.map((text) => ({ pod: "p-0", time: "t", text })) } } });
  return { subs, subscribe, chunk };
}

function setup(follow = true, since: string | null = null) {
  const server = fakeServer();
  const waits: { ms: number; then: () => void }[] = [];
  const got: LogChunk[] = [];
  const ends: { end: LogStreamEnd; error?: unknown }[] = [];
  const retries: unknown[] = [];
  const stream = new ResumableLogs({
    subscribe: server.subscribe,
    query: "subscription JobLogs { jobLogs { cursor } }",
    jobId: "j1",
    pod: null,
    tail: 500,
    follow,
    onChunk: (c) => got.push(c),
    onEnd: (end, error) => ends.push({ end, error }),
    onRetry: (e) => retries.push(e),
    wait: (ms, then) => {
      waits.push({ ms, then });
      return () => undefined;
    },
  });
  stream.start(since);
  const texts = () => got.flatMap((c) => c.lines.map((l) => l.text));
  return { ...server, waits, got, ends, retries, stream, texts };
}

describe("logStep", () => {
  it.each([
    [null, "chunk"],
    ["SLOW_VIEWER", "resubscribe"],
    ["ENDED", "end"],
    ["DONE", "end"],
    ["SOMETHING_NEW", "end"],
  ])("%s: %s", (end, kind) => {
    expect(logStep({ end }).kind).toBe(kind);
  });
});

describe("ResumableLogs", () => {
  it("starts from the tail, then keeps the cursor of each chunk", () => {
    const s = setup();
    expect(s.subs[0]!.sent).toEqual({ jobId: "j1", pod: null, tail: 500, since: null, follow: true });
    s.chunk(0, "c1", ["a", "b"]);
    s.chunk(0, "c2", ["c"]);
    expect(s.texts()).toEqual(["a", "b", "c"]);
    expect(s.stream.lastCursor).toBe("c2");
  });

  it("resumes after a cursor it is given", () => {
    const s = setup(true, "c7");
    expect(s.subs[0]!.sent.since).toBe("c7");
  });

  it("subscribes again at once from the cursor when the server says SLOW_VIEWER", () => {
    const s = setup();
    s.chunk(0, "c1", ["a"]);
    s.chunk(0, "c2", ["b"], "SLOW_VIEWER");
    expect(s.subs).toHaveLength(2);
    expect(s.subs[0]!.stopped).toBe(true);
    expect(s.subs[1]!.sent.since).toBe("c2");
    s.chunk(1, "c3", ["c"]);
    expect(s.texts()).toEqual(["a", "b", "c"]);
    expect(s.ends).toEqual([]);
  });

  it("keeps the cursor in the payload, so graphql-ws' resend after a reconnect resumes after the last chunk", () => {
    const s = setup();
    s.chunk(0, "c4", ["a"]);
    expect(s.subs[0]!.payload.variables.since).toBe("c4");
  });

  it("after a dropped connection, waits and subscribes again from the cursor, backing off", () => {
    const s = setup();
    s.chunk(0, "c1", ["a"]);
    s.subs[0]!.sink.error(new Error("socket closed"));
    expect(s.retries).toHaveLength(1);
    expect(s.waits.map((w) => w.ms)).toEqual([500]);
    s.waits[0]!.then();
    expect(s.subs[1]!.sent.since).toBe("c1");
    s.subs[1]!.sink.error(new Error("socket closed"));
    expect(s.waits.map((w) => w.ms)).toEqual([500, 1000]);
  });

  it("carries on from the cursor when the server ends the stream without an end", () => {
    const s = setup();
    s.chunk(0, "c1", ["a"]);
    s.subs[0]!.sink.complete();
    s.waits[0]!.then();
    expect(s.subs[1]!.sent.since).toBe("c1");
  });

  it.each([["ENDED"], ["DONE"]] as const)("stops at %s, having delivered its lines", (end) => {
    const s = setup(end === "ENDED");
    s.chunk(0, "c1", ["last"], end);
    expect(s.texts()).toEqual(["last"]);
    expect(s.ends).toEqual([{ end, error: undefined }]);
    expect(s.subs).toHaveLength(1);
    expect(s.subs[0]!.stopped).toBe(true);
  });

  it("stops on GraphQL errors, which will not pass by themselves", () => {
    const s = setup();
    const errors = [{ message: "no job j1" }];
    s.subs[0]!.sink.next({ errors });
    expect(s.ends).toEqual([{ end: "ERROR", error: errors }]);
    expect(s.subs).toHaveLength(1);
  });

  it("delivers nothing once stopped", () => {
    const s = setup();
    s.stream.stop();
    s.chunk(0, "c1", ["late"]);
    expect(s.got).toEqual([]);
    expect(s.subs[0]!.stopped).toBe(true);
  });
});

describe("ResumableLogs of an endpoint", () => {
  it("sends endpointId, reads endpointLogs and continues from its cursor", () => {
    const server = fakeServer();
    const got: LogChunk[] = [];
    const stream = new ResumableLogs({
      subscribe: server.subscribe,
      query: "subscription EndpointLogs { endpointLogs { cursor } }",
      endpointId: "e1",
      pod: "vllm-chat-0",
      tail: 500,
      follow: true,
      onChunk: (c) => got.push(c),
      onEnd: () => undefined,
      wait: () => () => undefined,
    });
    stream.start(null);
    expect(server.subs[0]!.sent).toEqual({ endpointId: "e1", pod: "vllm-chat-0", tail: 500, since: null, follow: true });
    server.subs[0]!.sink.next({ data: { endpointLogs: { cursor: "c1", end: "SLOW_VIEWER", lines: [{ pod: "vllm-chat-0", time: "t", text: "Application startup complete." }] } } });
    expect(got.map((c) => c.lines.map((l) => l.text))).toEqual([["Application startup complete."]]);
    expect(server.subs[1]!.sent).toEqual({ endpointId: "e1", pod: "vllm-chat-0", tail: 500, since: "c1", follow: true });
  });
});
