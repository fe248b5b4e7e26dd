// The jobs tab's list: a page of the cluster's jobs, newest first, kept
// current by JOB events, each carrying the job's record as stored
// (listedNewestFirst merges them in).

/** The kind of events' targets that are jobs. */
export const jobEventKind = "JOB";
