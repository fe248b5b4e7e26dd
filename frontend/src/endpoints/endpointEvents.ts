// An endpoint's record changes with every step of its operations and each
// time the refresher reads its objects (status, replicas, pods, address),
// so the events about endpoints say when to read the list again. Events
// carry no Endpoint of the schema's and name no cluster: an endpoint's
// payload (its record as stored) does.

interface EndpointEvent {
  target: { kind: string; id: string };
  payload?: unknown;
}

/** The kind of events' targets that are endpoints. */
export const endpointEventKind = "ENDPOINT";

function payloadCluster(payload: unknown): string | null {
  if (typeof payload !== "object" || payload === null) return null;
  const id = (payload as { clusterId?: unknown }).clusterId;
  return typeof id === "string" ? id : null;
}

/** Whether events change an endpoint of cluster clusterId: one of known (the listed endpoints' ids) or a new one. */
export function touchesEndpoints(events: readonly EndpointEvent[], clusterId: string, known: ReadonlySet<string>): boolean {
  return events.some((e) => e.target.kind === endpointEventKind && (known.has(e.target.id) || payloadCluster(e.payload) === clusterId));
}
