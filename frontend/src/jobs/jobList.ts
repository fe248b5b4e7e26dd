// The jobs tab's list: a page of the cluster's jobs, newest first, kept
// current by JOB events, each carrying the job's record as stored.
import { mergeRecords, type Versioned } from "../api/liveRecords";
import { compareTimes } from "../ui/time";

/** The kind of events' targets that are jobs. */
export const jobEventKind = "JOB";

/**
 * The jobs to show on page (from 1): the page's records, each replaced by
 * a newer state from live, newest first. A job only live knows of (one
 * just submitted) belongs on the first page; a later page lists only its
 * own.
 */
export function listedJobs<T extends Versioned & { createdAt: string }>(loaded: readonly T[], live: ReadonlyMap<string, T | null>, page: number): T[] {
  const onPage = new Set(loaded.map((j) => j.id));
  const jobs = mergeRecords(loaded, live, (j) => page === 1 || onPage.has(j.id));
  return jobs.sort((a, b) => compareTimes(b.createdAt, a.createdAt) || a.id.localeCompare(b.id));
}
