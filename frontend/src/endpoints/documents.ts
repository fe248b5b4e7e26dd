import { graphql } from "../gql";

export const EndpointRowFragment = graphql(`
  fragment EndpointRow on Endpoint {
    id
    clusterId
    name
    namespace
    path
    engine
    serviceForm
    pool
    model
    modelSource
    instanceType
    replicas
    readyReplicas
    status
    statusMessage
    operatorState
    address {
      kind
      host
      port
      service
    }
    createdAt
    updatedAt
    lastOperationId
  }
`);

export const EndpointDetailFragment = graphql(`
  fragment EndpointDetail on Endpoint {
    ...EndpointRow
    image
    tensorParallelSize
    gpusPerReplica
    object
    pods {
      name
      uid
      phase
      ready
      node
      business
      message
      containerRestarts
      startedAt
    }
    kvCache {
      l1
      l2
      l2Backend
      l2Url
    }
    intelligentRouting {
      enabled
      strategy
    }
    router {
      name
      policy
      readyReplicas
    }
    autoscaling {
      minReplicas
      maxReplicas
      trigger
      target
      query
      ready
      active
    }
  }
`);

export const ClusterEndpointsQuery = graphql(`
  query ClusterEndpoints($clusterId: ID!, $first: Int!, $after: String) {
    endpoints(clusterId: $clusterId, first: $first, after: $after) {
      eventCursor
      totalCount
      edges {
        node {
          ...EndpointRow
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const EndpointEventsSubscription = graphql(`
  subscription EndpointEvents($since: String, $filter: EventFilter) {
    events(since: $since, filter: $filter) {
      cursor
      action
      target {
        kind
        id
      }
      endpoint {
        ...EndpointRow
      }
    }
  }
`);

export const EndpointPageQuery = graphql(`
  query EndpointPage($id: ID!, $clusterId: ID!) {
    endpoint(id: $id) {
      ...EndpointDetail
    }
    cluster(id: $clusterId) {
      id
      name
      status
    }
  }
`);

export const EndpointClusterQuery = graphql(`
  query EndpointCluster($id: ID!) {
    endpoint(id: $id) {
      id
      clusterId
    }
  }
`);

export const EndpointUpdatedSubscription = graphql(`
  subscription EndpointUpdated($id: ID!) {
    endpointUpdated(id: $id) {
      ...EndpointDetail
    }
  }
`);

export const DeployEndpointFormQuery = graphql(`
  query DeployEndpointForm($clusterId: ID!) {
    cluster(id: $clusterId) {
      id
      name
      region
      status
    }
    instanceGroups(clusterId: $clusterId, first: 200) {
      edges {
        node {
          id
          name
          instanceType
          zone
          status
          currentCount
          targetCount
        }
      }
    }
    models(clusterId: $clusterId, first: 200) {
      edges {
        node {
          id
          name
          status
          modelId
        }
      }
    }
    storages(clusterId: $clusterId, first: 50) {
      edges {
        node {
          id
          kind
          status
          mountPath
          fsx {
            name
            fileSystemId
          }
        }
      }
    }
  }
`);

export const DeployEndpointMutation = graphql(`
  mutation DeployEndpoint($input: DeployEndpointInput!, $idempotencyKey: String) {
    deployEndpoint(input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const UpdateEndpointMutation = graphql(`
  mutation UpdateEndpoint($id: ID!, $input: UpdateEndpointInput!, $idempotencyKey: String) {
    updateEndpoint(id: $id, input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const DeleteEndpointMutation = graphql(`
  mutation DeleteEndpoint($id: ID!, $idempotencyKey: String) {
    deleteEndpoint(id: $id, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const AssignPoolWorkerMutation = graphql(`
  mutation AssignPoolWorker($endpointId: ID!, $pod: String!, $business: String!, $idempotencyKey: String) {
    assignPoolWorker(endpointId: $endpointId, pod: $pod, business: $business, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const DeployRouterMutation = graphql(`
  mutation DeployRouter($endpointId: ID!, $policy: RouterPolicy!, $idempotencyKey: String) {
    deployRouter(endpointId: $endpointId, policy: $policy, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const SetEndpointAutoscalingMutation = graphql(`
  mutation SetEndpointAutoscaling($endpointId: ID!, $input: EndpointAutoscalingInput!, $idempotencyKey: String) {
    setEndpointAutoscaling(endpointId: $endpointId, input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const InvokeEndpointMutation = graphql(`
  mutation InvokeEndpoint($endpointId: ID!, $request: ChatRequestInput!, $business: String) {
    invokeEndpoint(endpointId: $endpointId, request: $request, business: $business) {
      text
      finishReason
      model
      promptTokens
      completionTokens
      totalTokens
      latencyMs
      target
    }
  }
`);

export const EndpointMetricsQuery = graphql(`
  query EndpointMetrics($endpointId: ID!, $rangeMinutes: Int) {
    endpointMetrics(endpointId: $endpointId, rangeMinutes: $rangeMinutes) {
      workspaceId
      start
      end
      stepSeconds
      series {
        metric
        query
        points {
          time
          value
        }
      }
    }
  }
`);
