// How the playground reaches the API: with the browser's session cookie,
// on the page's own origin. Queries and mutations go over HTTP (fetch with
// credentials "same-origin"); subscriptions over one graphql-ws WebSocket to
// the same origin, whose upgrade request carries the cookie too. Nothing
// here holds a token: the cookie is HttpOnly.
import { createGraphiQLFetcher, type Fetcher, type FetcherParams, type Observable } from "@graphiql/toolkit";
import { Kind, parse, type DocumentNode } from "graphql";
import { createClient as createWsClient, type Client as WsClient, type ExecutionResult } from "graphql-ws";
import { meQuery } from "./examples";

/** The WebSocket URL of the API on the page's own origin. */
export function graphqlWsUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/graphql`;
}

export interface Me {
  name: string;
  role: string;
}

/** What asking the server who we are found. */
export type SessionCheck =
  | { kind: "signed-in"; me: Me }
  | { kind: "signed-out" }
  | { kind: "error"; message: string };

interface GraphQLBody {
  data?: { me?: Me | null } | null;
  errors?: { message?: string; extensions?: { code?: string } }[];
}

/**
 * Asks `{ me { name role } }` with the session cookie. A 401, or an
 * UNAUTHENTICATED error, means there is no session (or it ended).
 */
export async function checkSession(fetchFn: typeof fetch = fetch): Promise<SessionCheck> {
  let res: Response;
  try {
    res = await fetchFn("/graphql", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: meQuery }),
    });
  } catch {
    return { kind: "error", message: "The server cannot be reached." };
  }
  if (res.status === 401) return { kind: "signed-out" };
  let body: GraphQLBody | undefined;
  try {
    body = (await res.json()) as GraphQLBody;
  } catch {
    body = undefined;
  }
  if (body?.errors?.some((e) => e.extensions?.code === "UNAUTHENTICATED")) return { kind: "signed-out" };
  const me = body?.data?.me;
  if (res.ok && me) return { kind: "signed-in", me };
  const message = body?.errors?.[0]?.message;
  return { kind: "error", message: message ?? `The server answered HTTP ${res.status}.` };
}

export interface Connection {
  fetcher: Fetcher;
  ws: WsClient;
  dispose(): void;
}

/**
 * Makes GraphiQL's fetcher. onUnauthenticated is called when the server
 * answers 401 (the session ended or was revoked), over HTTP or when a
 * refused WebSocket is followed up with a session check.
 */
export function createConnection(
  onUnauthenticated: () => void,
  location: { protocol: string; host: string } = window.location,
  fetchFn: typeof fetch = (input, init) => fetch(input, init),
): Connection {
  let signedOut = false;
  const ended = () => {
    signedOut = true;
    onUnauthenticated();
  };

  const sameOrigin: typeof fetch = async (input, init) => {
    const res = await fetchFn(input, { ...init, credentials: "same-origin" });
    if (res.status === 401) ended();
    return res;
  };

  // The server refuses a socket without a session in one of two ways: a
  // revoked session's upgrade is answered 401 (the browser sees an abnormal
  // close), and a socket with no session at all is closed normally before
  // connection_ack. graphql-ws reconnects at once after a normal close, so
  // the next attempt asks over HTTP first and gives up if signed out.
  let acknowledged = false;
  let closedBeforeAck = false;
  let refusals = 0; // sockets closed before connection_ack in a row
  const ws = createWsClient({
    url: graphqlWsUrl(location),
    // Opened by the first subscription, closed after the last one ends.
    lazy: true,
    // Throwing here makes graphql-ws close the socket with the message as
    // its reason and end the subscription with that error.
    connectionParams: async () => {
      if (signedOut || closedBeforeAck) {
        closedBeforeAck = false;
        if ((await checkSession(fetchFn)).kind === "signed-out") {
          ended();
          throw new Error("Not signed in: sign in at / and reload the playground");
        }
        signedOut = false;
        if (refusals >= 3) {
          refusals = 0;
          throw new Error("The server closed the WebSocket before accepting it, three times");
        }
      }
      return undefined; // the session cookie went with the upgrade
    },
    // Retry dropped sockets (a server restart), not the errors thrown above.
    shouldRetry: (event) => !signedOut && closeCode(event) !== undefined,
    on: {
      connected: () => {
        acknowledged = true;
        refusals = 0;
      },
      closed: (event) => {
        const wasAcknowledged = acknowledged;
        acknowledged = false;
        const code = closeCode(event);
        if (code === undefined || code === 1000) {
          // After an acknowledged socket, the lazy close of the last subscription.
          if (!wasAcknowledged) {
            closedBeforeAck = true;
            refusals++;
          }
          return;
        }
        if (code === 4005) return; // closed by connectionParams above
        void checkSession(fetchFn).then((s) => {
          if (s.kind === "signed-out") ended();
        });
      },
    },
  });

  const http = createGraphiQLFetcher({
    url: "/graphql",
    fetch: sameOrigin,
    // The server answers plain JSON; no multipart (@defer/@stream).
    enableIncrementalDelivery: false,
  });
  // Decided on the query being run, not on GraphiQL's documentAST, which
  // trails the editor by a debounce.
  const fetcher: Fetcher = (params, opts) => {
    const run = { ...params, operationName: resolveOperationName(params.query, params.operationName) };
    return isSubscription(run.query, run.operationName) ? subscription(ws, run) : http(run, opts);
  };

  return { fetcher, ws, dispose: () => void ws.dispose() };
}

/**
 * The operation name to send. Right after a tab switch GraphiQL can still
 * hold the previous tab's operation name; when the query has no operation
 * of that name but exactly one operation, that one is meant.
 */
export function resolveOperationName(query: string, operationName?: string | null): string | null | undefined {
  if (!operationName) return operationName;
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return operationName; // the server reports the syntax error
  }
  const ops = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (ops.some((d) => d.name?.value === operationName) || ops.length !== 1) return operationName;
  return ops[0]?.name?.value ?? null;
}

/** Whether the operation GraphiQL runs (by name, or the only one) is a subscription. */
export function isSubscription(query: string, operationName?: string | null): boolean {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return false; // sent over HTTP, where the server says what is wrong
  }
  const ops = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? ops.find((d) => d.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
  return op?.operation === "subscription";
}

/**
 * A subscription over the WebSocket, as the Observable GraphiQL runs (and
 * stops with unsubscribe). Errors reach GraphiQL's response pane: GraphQL
 * errors as the server sent them, a closed socket as a message saying so.
 */
function subscription(ws: WsClient, params: FetcherParams): Observable<ExecutionResult> {
  const subscribe = (
    observerOrNext?: { next: (v: ExecutionResult) => void; error: (e: unknown) => void; complete: () => void } | ((v: ExecutionResult) => void),
    error?: ((e: unknown) => void) | null,
    complete?: () => void,
  ) => {
    const o =
      typeof observerOrNext === "function" || observerOrNext === undefined
        ? { next: observerOrNext ?? (() => {}), error: error ?? (() => {}), complete: complete ?? (() => {}) }
        : observerOrNext;
    const unsubscribe = ws.subscribe(
      { query: params.query, variables: params.variables ?? null, operationName: params.operationName ?? null },
      {
        // What the server sent, as GraphiQL shows it (the types differ only in how errors are typed).
        next: (v) => o.next(v as ExecutionResult),
        error: (e) => o.error(subscriptionError(e)),
        complete: () => o.complete(),
      },
    );
    return { unsubscribe };
  };
  return { subscribe };
}

// Plain { message } objects: GraphiQL would print an Error's stack too.
function subscriptionError(e: unknown): unknown {
  if (Array.isArray(e)) return e; // the GraphQL errors the server sent
  if (e instanceof Error) return { message: e.message }; // ours, from connectionParams
  const code = closeCode(e);
  if (code !== undefined) {
    const reason = (e as { reason?: string }).reason;
    return { message: `The WebSocket closed (${code}${reason ? `: ${reason}` : ""}).` };
  }
  return { message: String(e) };
}

function closeCode(event: unknown): number | undefined {
  const code = (event as { code?: unknown } | undefined)?.code;
  return typeof code === "number" ? code : undefined;
}
