// The endpoints tab's list (endpointEvents.ts says how it stays current).
import type { LiveListSpec } from "../api/useLiveList";
import type { ClusterEndpointsQuery as ListData, EndpointEventsSubscription as EndpointEvent, EndpointRowFragment } from "../gql/graphql";
import { ClusterEndpointsQuery, EndpointEventsSubscription } from "./documents";
import { bringsNewEndpoint, endpointEventKind } from "./endpointEvents";

export const endpointList: LiveListSpec<ListData, EndpointRowFragment, EndpointEvent["events"]> = {
  query: ClusterEndpointsQuery,
  page: (data) => data.endpoints,
  events: EndpointEventsSubscription,
  kind: endpointEventKind,
  record: (event) => event.endpoint,
  rereads: bringsNewEndpoint,
};
