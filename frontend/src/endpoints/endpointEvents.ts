// The endpoints tab's list: a page of the cluster's endpoints, newest
// first, kept current by ENDPOINT events. An endpoint's record changes with
// every step of its operations and each time the refresher reads its
// objects (status, replicas, pods, address); each change is an event
// carrying the record as stored, merged in (listedNewestFirst). Only an
// endpoint the page does not hold yet needs the page read again: its place
// and the cluster's count are the server's to say.

/** The kind of events' targets that are endpoints. */
export const endpointEventKind = "ENDPOINT";

/**
 * Whether changes (the cluster's endpoints' records, from clusterChanges)
 * bring an endpoint known does not hold (known: the ids listed and those
 * events brought before), so the page is read again. A deletion only
 * removes a row.
 */
export function bringsNewEndpoint(changes: readonly { id: string; record: unknown }[], known: ReadonlySet<string>): boolean {
  return changes.some((c) => c.record !== null && !known.has(c.id));
}
