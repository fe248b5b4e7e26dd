// The connection to the API: GraphQL over HTTP for queries and mutations,
// and one WebSocket (graphql-transport-ws) for subscriptions. Both carry the
// browser's session cookie; the server checks it on every request and on
// the WebSocket upgrade.
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from "urql";
import { createClient as createWsClient, type Client as WsClient } from "graphql-ws";

/** The WebSocket URL of the API on the page's own origin. */
export function graphqlWsUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/graphql`;
}

/** How long to wait before reconnecting: 1, 2, 4, 8 s, then 10 s, with jitter. */
export function reconnectDelayMs(retries: number): number {
  return Math.min(10_000, 1000 * 2 ** retries) + Math.floor(Math.random() * 500);
}

export interface Api {
  client: Client;
  ws: WsClient;
  /** Whether the WebSocket is down and being re-opened. */
  connection: ConnectionState;
  dispose(): void;
}

/**
 * Whether live updates flow: the WebSocket is "down" from an abnormal
 * close until it connects again. A socket closed because no subscription
 * needs it (code 1000) is not down.
 */
export class ConnectionState {
  private down = false;
  private readonly listeners = new Set<() => void>();

  get isDown(): boolean {
    return this.down;
  }

  set(down: boolean): void {
    if (down === this.down) return;
    this.down = down;
    for (const l of this.listeners) l();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

/**
 * Makes the clients of one signed-in session. onUnauthenticated is called
 * when the server answers 401: the session ended or was revoked.
 */
export function createApi(onUnauthenticated: () => void): Api {
  const connection = new ConnectionState();
  const ws = createWsClient({
    url: graphqlWsUrl(window.location),
    // The server restarts, the laptop sleeps, the port-forward drops: keep
    // trying. Subscriptions are sent again on the new connection (events
    // subscriptions with their latest cursor; see reconnectingStream.ts).
    retryAttempts: Number.POSITIVE_INFINITY,
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, reconnectDelayMs(retries))),
    shouldRetry: () => true,
    on: {
      // A connection the server refuses before acknowledging it is most
      // likely a session that ended: ask over HTTP, which says so with 401.
      closed: (event) => {
        const code = (event as CloseEvent | undefined)?.code;
        if (code === undefined || code === 1000) return;
        connection.set(true);
        void checkSession(onUnauthenticated);
      },
      connected: () => connection.set(false),
    },
  });

  const fetchWith401: typeof fetch = async (input, init) => {
    const res = await fetch(input, { ...init, credentials: "same-origin" });
    if (res.status === 401) onUnauthenticated();
    return res;
  };

  const client = new Client({
    url: "/graphql",
    fetch: fetchWith401,
    preferGetMethod: false,
    requestPolicy: "cache-and-network",
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const payload = { ...request, query: request.query ?? "" };
          return {
            subscribe(sink) {
              return { unsubscribe: ws.subscribe(payload, sink) };
            },
          };
        },
      }),
    ],
  });

  return { client, ws, connection, dispose: () => void ws.dispose() };
}

let checking = false;

/** Asks the server who we are; a 401 means the session is gone. */
async function checkSession(onUnauthenticated: () => void): Promise<void> {
  if (checking) return;
  checking = true;
  try {
    const res = await fetch("/graphql", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ me { tokenId } }" }),
    });
    if (res.status === 401) onUnauthenticated();
  } catch {
    // The server is unreachable; the WebSocket keeps retrying.
  } finally {
    checking = false;
  }
}
