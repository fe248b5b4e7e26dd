// One job, as its page shows it: read once, then followed over jobUpdated,
// which sends the job now and then each change of it until it ends. A
// reconnect re-sends the subscription, and its first message is the job
// as it is then, so nothing in between is lost.
import { useEffect, useState } from "react";
import { useClient, useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { isNewer } from "../api/liveRecords";
import type { JobDetailFragment, JobPageQuery as PageData } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { JobPageQuery, JobUpdatedSubscription } from "./documents";

export interface LiveJob {
  job: JobDetailFragment | null;
  cluster: PageData["cluster"] | null;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  reload: () => void;
}

export function useJob(clusterId: string, id: string): LiveJob {
  const client = useClient();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: JobPageQuery, variables: { id, clusterId } });
  const [latest, setLatest] = useState<JobDetailFragment | null>(null);
  const [streamError, setStreamError] = useState<string | null>(null);
  useEffect(() => {
    const sub = client.subscription(JobUpdatedSubscription, { id }).subscribe((result) => {
      if (result.data) {
        setStreamError(null);
        const next = result.data.jobUpdated;
        setLatest((current) => (current && !isNewer(next, current) ? current : next));
      } else if (result.error) {
        setStreamError(result.error.networkError ? describeStreamError(result.error.networkError) : result.error.graphQLErrors.map((e) => e.message).join("; "));
      }
    });
    return () => sub.unsubscribe();
  }, [client, id]);
  const loaded = data?.job ?? null;
  const job = loaded && latest ? (isNewer(latest, loaded) ? latest : loaded) : (loaded ?? latest);
  return {
    job,
    cluster: data?.cluster ?? null,
    fetching,
    error,
    streamError,
    reload: () => reexecute({ requestPolicy: "network-only" }),
  };
}
