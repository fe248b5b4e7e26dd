// The operations page's filter: kept in the URL's query, sent to the
// operations query, and applied to operations that events bring in (the
// events subscription filters by resource kind only).
import type { OperationFilter, OperationStatus } from "../gql/graphql";

export interface OperationListFilter {
  kind: string;
  status: OperationStatus | "";
  targetKind: string;
  targetId: string;
  /** The cluster the operations are about (on it or on its resources). */
  clusterId: string;
}

export const operationStatuses: OperationStatus[] = ["QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"];

/** Reads the filter from a query string (?kind=&status=&targetKind=&targetId=&clusterId=). */
export function parseFilter(search: string): OperationListFilter {
  const q = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search);
  const status = (q.get("status") ?? "").toUpperCase();
  return {
    kind: q.get("kind") ?? "",
    status: (operationStatuses as string[]).includes(status) ? (status as OperationStatus) : "",
    targetKind: (q.get("targetKind") ?? "").toUpperCase(),
    targetId: q.get("targetId") ?? "",
    clusterId: q.get("clusterId") ?? "",
  };
}

/** The query string of a filter, without empty fields ("" when none). */
export function formatFilter(f: OperationListFilter): string {
  const q = new URLSearchParams();
  if (f.kind) q.set("kind", f.kind);
  if (f.status) q.set("status", f.status);
  if (f.targetKind) q.set("targetKind", f.targetKind);
  if (f.targetId) q.set("targetId", f.targetId);
  if (f.clusterId) q.set("clusterId", f.clusterId);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** The operations query's filter. */
export function toQueryFilter(f: OperationListFilter): OperationFilter {
  const out: OperationFilter = {};
  if (f.kind) out.kinds = [f.kind];
  if (f.status) out.statuses = [f.status];
  if (f.targetKind) out.targetKind = f.targetKind;
  if (f.targetId) out.targetId = f.targetId;
  if (f.clusterId) out.clusterId = f.clusterId;
  return out;
}

/** Whether an operation belongs in the filtered list, as the server decides. */
export function matchesFilter(
  f: OperationListFilter,
  op: { kind: string; status: string; target: { kind: string; id: string }; clusterId?: string | null },
): boolean {
  return (
    (!f.kind || op.kind === f.kind) &&
    (!f.status || op.status === f.status) &&
    (!f.targetKind || op.target.kind === f.targetKind) &&
    (!f.targetId || op.target.id === f.targetId) &&
    (!f.clusterId || op.clusterId === f.clusterId)
  );
}
