// The model records of a cluster change with every step of their
// downloads (each one writes the record: its status, the files and bytes
// there), so the events about them say when to read the models again.
// Events name no cluster: a model's payload (its record) does, as a
// storage's does (see storage/storageEvents.ts).

interface ModelEvent {
  target: { kind: string; id: string };
  payload?: unknown;
}

/** The model kind of events' targets. */
export const modelEventKind = "MODEL";

function payloadCluster(payload: unknown): string | null {
  if (typeof payload !== "object" || payload === null) return null;
  const id = (payload as { clusterId?: unknown }).clusterId;
  return typeof id === "string" ? id : null;
}

/** Whether events change a model of cluster clusterId: one of known (its models' ids) or a new one. */
export function touchesModels(events: readonly ModelEvent[], clusterId: string, known: ReadonlySet<string>): boolean {
  return events.some((e) => e.target.kind === modelEventKind && (known.has(e.target.id) || payloadCluster(e.payload) === clusterId));
}
