import { afterEach, describe, expect, it, vi } from "vitest";
import type { Observable } from "@graphiql/toolkit";
import { checkSession, createConnection, graphqlWsUrl, isSubscription, resolveOperationName } from "./connection";

function respond(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

describe("graphqlWsUrl", () => {
  it("is the page's own origin, ws or wss as the page is http or https", () => {
    expect(graphqlWsUrl({ protocol: "http:", host: "127.0.0.1:3099" })).toBe("ws://127.0.0.1:3099/graphql");
    expect(graphqlWsUrl({ protocol: "https:", host: "example.test" })).toBe("wss://example.test/graphql");
  });
});

describe("resolveOperationName", () => {
  it("drops a stale name from the tab before when the query has one operation", () => {
    expect(resolveOperationName("subscription Events { events { cursor } }", "ListClusters")).toBe("Events");
    expect(resolveOperationName("{ clusters { totalCount } }", "ListClusters")).toBeNull();
  });
  it("keeps a name the query has, an ambiguous one, and no name", () => {
    const doc = "query Q { me { name } } subscription S { events { cursor } }";
    expect(resolveOperationName(doc, "S")).toBe("S");
    expect(resolveOperationName(doc, "X")).toBe("X"); // the server will say which are there
    expect(resolveOperationName(doc, undefined)).toBeUndefined();
    expect(resolveOperationName("subscription {", "S")).toBe("S");
  });
});

describe("isSubscription", () => {
  it("finds the operation GraphiQL runs, by name or as the only one", () => {
    const doc = "query Q { version } subscription S { events { cursor } }";
    expect(isSubscription(doc, "S")).toBe(true);
    expect(isSubscription(doc, "Q")).toBe(false);
    expect(isSubscription(doc, null)).toBe(false); // ambiguous: the server will say so
    expect(isSubscription("subscription { events { cursor } }", undefined)).toBe(true);
    expect(isSubscription("subscription {", "S")).toBe(false); // a syntax error: over HTTP, for the server's message
  });
});

describe("checkSession", () => {
  it("asks me over same-origin /graphql with the cookie", async () => {
    const fetchFn = vi.fn<typeof fetch>(async () => respond(200, { data: { me: { name: "admin", role: "ADMIN" } } }));
    expect(await checkSession(fetchFn)).toEqual({ kind: "signed-in", me: { name: "admin", role: "ADMIN" } });
    const [url, init] = fetchFn.mock.calls[0]!;
    expect(url).toBe("/graphql");
    expect(init?.credentials).toBe("same-origin");
    expect(JSON.parse(String(init?.body)).query).toContain("me { name role }");
  });

  it("is signed out on 401", async () => {
    const fetchFn = async () =>
      respond(401, { errors: [{ message: "no credential", extensions: { code: "UNAUTHENTICATED" } }] });
    expect(await checkSession(fetchFn)).toEqual({ kind: "signed-out" });
  });

  it("is signed out on an UNAUTHENTICATED error whatever the status", async () => {
    const fetchFn = async () => respond(200, { errors: [{ message: "x", extensions: { code: "UNAUTHENTICATED" } }] });
    expect(await checkSession(fetchFn)).toEqual({ kind: "signed-out" });
  });

  it("reports other failures with the server's message", async () => {
    const fetchFn = async () => respond(413, { errors: [{ message: "too big", extensions: { code: "LIMIT" } }] });
    expect(await checkSession(fetchFn)).toEqual({ kind: "error", message: "too big" });
    const down = async (): Promise<Response> => {
      throw new TypeError("Failed to fetch");
    };
    expect((await checkSession(down)).kind).toBe("error");
  });
});

describe("createConnection", () => {
  const location = { protocol: "http:", host: "127.0.0.1:3099" };
  // Node 20 has no WebSocket; the lazy client opens none until a subscription.
  if (typeof WebSocket === "undefined") vi.stubGlobal("WebSocket", class {});

  it("sends queries to same-origin /graphql with the cookie, and says when the session ended", async () => {
    const onUnauthenticated = vi.fn();
    const fetchFn = vi.fn<typeof fetch>(async () =>
      respond(401, { errors: [{ message: "no credential", extensions: { code: "UNAUTHENTICATED" } }] }),
    );
    const c = createConnection(onUnauthenticated, location, fetchFn);
    try {
      const result = await c.fetcher({ query: "{ version }", operationName: null });
      expect(result).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
      const [url, init] = fetchFn.mock.calls[0]!;
      expect(url).toBe("/graphql");
      expect(init?.credentials).toBe("same-origin");
      expect(onUnauthenticated).toHaveBeenCalledTimes(1);
    } finally {
      c.dispose();
    }
  });

  it("does not call onUnauthenticated when the server answers", async () => {
    const onUnauthenticated = vi.fn();
    const c = createConnection(onUnauthenticated, location, async () => respond(200, { data: { version: "dev" } }));
    try {
      expect(await c.fetcher({ query: "{ version }" })).toEqual({ data: { version: "dev" } });
      expect(onUnauthenticated).not.toHaveBeenCalled();
    } finally {
      c.dispose();
    }
  });
});

/**
 * A browser WebSocket driven by the test: the "server" sees each message
 * the client sends and answers through the socket.
 */
class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static sockets: FakeSocket[] = [];
  static server: (socket: FakeSocket, message: { type: string; id?: string; payload?: unknown }) => void = () => {};

  readyState = FakeSocket.CONNECTING;
  onopen: (() => void) | null = null;
  onclose: ((event: { code: number; reason: string; wasClean: boolean }) => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  closedWith?: { code: number; reason: string };

  constructor(
    readonly url: string,
    readonly protocol: string,
  ) {
    FakeSocket.sockets.push(this);
    setTimeout(() => {
      this.readyState = FakeSocket.OPEN;
      this.onopen?.();
    }, 0);
  }

  send(data: string) {
    const message = JSON.parse(data) as { type: string };
    setTimeout(() => FakeSocket.server(this, message), 0);
  }

  receive(message: object) {
    setTimeout(() => this.onmessage?.({ data: JSON.stringify(message) }), 0);
  }

  close(code = 1000, reason = "") {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.readyState = FakeSocket.CLOSED;
    this.closedWith = { code, reason };
    setTimeout(() => this.onclose?.({ code, reason, wasClean: true }), 0);
  }
}

/** Whether a subscription's error (an Error or a CloseEvent) says text. */
const says = (text: string) => (e: unknown) => {
  const { message, reason } = e as { message?: string; reason?: string };
  return String(message ?? reason).includes(text);
};

describe("createConnection's subscriptions", () => {
  const location = { protocol: "http:", host: "127.0.0.1:3099" };
  const query = "subscription S { events { cursor } }";

  afterEach(() => {
    vi.unstubAllGlobals();
    FakeSocket.sockets = [];
  });

  function setup(server: typeof FakeSocket.server, fetchFn: typeof fetch) {
    vi.stubGlobal("WebSocket", FakeSocket);
    FakeSocket.server = server;
    const onUnauthenticated = vi.fn();
    const c = createConnection(onUnauthenticated, location, fetchFn);
    const results = async () => {
      const observable = (await c.fetcher({ query, operationName: "S" })) as Observable<unknown>;
      return new Promise<unknown[]>((resolve, reject) => {
        const got: unknown[] = [];
        observable.subscribe({ next: (r) => got.push(r), error: reject, complete: () => resolve(got) });
      });
    };
    return { c, onUnauthenticated, results };
  }

  it("run over a same-origin WebSocket", async () => {
    const { c, onUnauthenticated, results } = setup(
      (socket, m) => {
        if (m.type === "connection_init") socket.receive({ type: "connection_ack" });
        if (m.type === "subscribe") {
          socket.receive({ type: "next", id: m.id, payload: { data: { events: { cursor: "7" } } } });
          socket.receive({ type: "complete", id: m.id });
        }
      },
      async () => respond(200, { data: { me: { name: "admin", role: "ADMIN" } } }),
    );
    try {
      expect(await results()).toEqual([{ data: { events: { cursor: "7" } } }]);
      expect(FakeSocket.sockets[0]!.url).toBe("ws://127.0.0.1:3099/graphql");
      expect(onUnauthenticated).not.toHaveBeenCalled();
    } finally {
      c.dispose();
    }
  });

  it("end with an error, not a reconnect loop, when the server refuses the socket for want of a session", async () => {
    const fetchFn = vi.fn<typeof fetch>(async () =>
      respond(401, { errors: [{ message: "no credential", extensions: { code: "UNAUTHENTICATED" } }] }),
    );
    // What the server does with a connection_init and no session: close
    // normally before connection_ack.
    const { c, onUnauthenticated, results } = setup((socket, m) => {
      if (m.type === "connection_init") socket.close(1000, "terminated");
    }, fetchFn);
    try {
      await expect(results()).rejects.toSatisfy(says("Not signed in"));
      expect(onUnauthenticated).toHaveBeenCalled();
      expect(FakeSocket.sockets.length).toBe(2);
      expect(fetchFn.mock.calls[0]![1]?.credentials).toBe("same-origin");
    } finally {
      c.dispose();
    }
  });

  it("give up after three refusals when the session is fine", async () => {
    const { c, onUnauthenticated, results } = setup(
      (socket, m) => {
        if (m.type === "connection_init") socket.close(1000, "terminated");
      },
      async () => respond(200, { data: { me: { name: "admin", role: "ADMIN" } } }),
    );
    try {
      await expect(results()).rejects.toSatisfy(says("three times"));
      expect(onUnauthenticated).not.toHaveBeenCalled();
      expect(FakeSocket.sockets.length).toBe(4);
    } finally {
      c.dispose();
    }
  });
});
