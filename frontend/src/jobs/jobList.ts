// The jobs tab's list: a page of the cluster's jobs, newest first, kept
// current by JOB events, each carrying the job's record as stored
// (listedNewestFirst merges them in).
import type { LiveListSpec } from "../api/useLiveList";
import type { ClusterJobsQuery as ListData, JobEventsSubscription as JobEvent, JobRowFragment } from "../gql/graphql";
import { ClusterJobsQuery, JobEventsSubscription } from "./documents";

/** The kind of events' targets that are jobs. */
export const jobEventKind = "JOB";

export const jobList: LiveListSpec<ListData, JobRowFragment, JobEvent["events"]> = {
  query: ClusterJobsQuery,
  page: (data) => data.jobs,
  events: JobEventsSubscription,
  kind: jobEventKind,
  record: (event) => event.job,
};
