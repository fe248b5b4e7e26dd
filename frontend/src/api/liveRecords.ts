// Records that a query loaded once and events keep current. Events may
// replay changes older than the query's answer, so a record is replaced
// only by a state at least as new (updatedAt), never by an older one.
import { compareTimes } from "../ui/time";

export interface Versioned {
  id: string;
  updatedAt: string;
}

/** Whether candidate may replace current: it is at least as new. */
export function isNewer(candidate: Versioned, current: Versioned | undefined): boolean {
  return current === undefined || compareTimes(candidate.updatedAt, current.updatedAt) >= 0;
}

/**
 * Applies changes to live (the records seen in events, by id) and returns
 * a new map, or live itself when no change is newer than what it holds.
 * A null record removes the id (the resource itself was deleted).
 */
export function applyChanges<T extends Versioned>(
  live: ReadonlyMap<string, T | null>,
  changes: readonly { id: string; record: T | null }[],
): ReadonlyMap<string, T | null> {
  let out: Map<string, T | null> | null = null;
  for (const { id, record } of changes) {
    const map: ReadonlyMap<string, T | null> = out ?? live;
    const current = map.get(id);
    if (record !== null && current && !isNewer(record, current)) continue;
    out ??= new Map(live);
    out.set(id, record);
  }
  return out ?? live;
}

/**
 * The records to show: those loaded, each replaced by a newer state from
 * live, plus those only live has, minus those deleted, kept only when keep
 * says so (a filter the events do not apply).
 */
export function mergeRecords<T extends Versioned>(
  loaded: readonly T[],
  live: ReadonlyMap<string, T | null>,
  keep: (record: T) => boolean = () => true,
): T[] {
  const out: T[] = [];
  const seen = new Set<string>();
  for (const record of loaded) {
    seen.add(record.id);
    const change = live.get(record.id);
    if (change === null) continue;
    const current = change && isNewer(change, record) ? change : record;
    if (keep(current)) out.push(current);
  }
  for (const [id, record] of live) {
    if (seen.has(id) || record === null) continue;
    if (keep(record)) out.push(record);
  }
  return out;
}

/**
 * The records to show on page (from 1) of a list, newest first (by
 * createdAt): the page's records, each replaced by a newer state from
 * live. A record only live knows of (one just made) belongs on the first
 * page; a later page lists only its own.
 */
export function listedNewestFirst<T extends Versioned & { createdAt: string }>(loaded: readonly T[], live: ReadonlyMap<string, T | null>, page: number): T[] {
  const onPage = new Set(loaded.map((r) => r.id));
  const records = mergeRecords(loaded, live, (r) => page === 1 || onPage.has(r.id));
  return records.sort((a, b) => compareTimes(b.createdAt, a.createdAt) || a.id.localeCompare(b.id));
}

/** The part of an event that says which record changed and how. */
export interface RecordEvent {
  action: string;
  target: { id: string };
}

/**
 * The record changes that events carry: the record after the change, or
 * null when the record itself was removed. Events without the record (of
 * another kind) are skipped.
 */
export function eventChanges<E extends RecordEvent, T extends Versioned>(
  events: readonly E[],
  record: (event: E) => T | null | undefined,
): { id: string; record: T | null }[] {
  const out: { id: string; record: T | null }[] = [];
  for (const e of events) {
    if (e.action === "DELETED") {
      out.push({ id: e.target.id, record: null });
      continue;
    }
    const r = record(e);
    if (r) out.push({ id: r.id, record: r });
  }
  return out;
}
