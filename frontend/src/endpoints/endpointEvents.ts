// The endpoints tab's list: a page of the cluster's endpoints, newest
// first, kept current by ENDPOINT events. An endpoint's record changes with
// every step of its operations and each time the refresher reads its
// objects (status, replicas, pods, address); each change is an event
// carrying the record as stored, merged in (listedNewestFirst).

/** The kind of events' targets that are endpoints. */
export const endpointEventKind = "ENDPOINT";
