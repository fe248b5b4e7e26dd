// One endpoint, as its page shows it: read once, then followed over
// endpointUpdated, which sends the endpoint now and then each change of it
// until it is DELETED. A reconnect re-sends the subscription, and its first
// message is the endpoint as it is then, so nothing in between is lost.
import { useEffect, useState } from "react";
import { useClient, useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { isNewer } from "../api/liveRecords";
import type { EndpointDetailFragment, EndpointPageQuery as PageData } from "../gql/graphql";
import { describeStreamError } from "../ui/LiveIndicator";
import { EndpointPageQuery, EndpointUpdatedSubscription } from "./documents";

export interface LiveEndpoint {
  endpoint: EndpointDetailFragment | null;
  cluster: PageData["cluster"] | null;
  fetching: boolean;
  error: CombinedError | undefined;
  streamError: string | null;
  reload: () => void;
}

export function useEndpoint(clusterId: string, id: string): LiveEndpoint {
  const client = useClient();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: EndpointPageQuery, variables: { id, clusterId } });
  const [latest, setLatest] = useState<EndpointDetailFragment | null>(null);
  const [streamError, setStreamError] = useState<string | null>(null);
  useEffect(() => {
    const sub = client.subscription(EndpointUpdatedSubscription, { id }).subscribe((result) => {
      if (result.data) {
        setStreamError(null);
        const next = result.data.endpointUpdated;
        setLatest((current) => (current && !isNewer(next, current) ? current : next));
      } else if (result.error) {
        setStreamError(result.error.networkError ? describeStreamError(result.error.networkError) : result.error.graphQLErrors.map((e) => e.message).join("; "));
      }
    });
    return () => sub.unsubscribe();
  }, [client, id]);
  const loaded = data?.endpoint ?? null;
  const endpoint = loaded && latest ? (isNewer(latest, loaded) ? latest : loaded) : (loaded ?? latest);
  return {
    endpoint,
    cluster: data?.cluster ?? null,
    fetching,
    error,
    streamError,
    reload: () => reexecute({ requestPolicy: "network-only" }),
  };
}
