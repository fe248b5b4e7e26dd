// The storage records of a cluster change with every step of their
// operations (each one writes the record), so the events about them say
// when to read the storages again. Events name no cluster: a storage's
// payload (its record) does.

interface StorageEvent {
  target: { kind: string; id: string };
  payload?: unknown;
}

/** The storage kind of events' targets. */
export const storageEventKind = "STORAGE";

function payloadCluster(payload: unknown): string | null {
  if (typeof payload !== "object" || payload === null) return null;
  const id = (payload as { clusterId?: unknown }).clusterId;
  return typeof id === "string" ? id : null;
}

/** Whether events change a storage of cluster clusterId: one of known (its storages' ids) or a new one. */
export function touchesStorages(events: readonly StorageEvent[], clusterId: string, known: ReadonlySet<string>): boolean {
  return events.some((e) => e.target.kind === storageEventKind && (known.has(e.target.id) || payloadCluster(e.payload) === clusterId));
}
