import { graphql } from "../gql";

export const InstanceGroupRowFragment = graphql(`
  fragment InstanceGroupRow on InstanceGroup {
    id
    clusterId
    name
    instanceType
    instanceTypes
    flexible
    capacityType
    trainingPlanArn
    zone
    networkInterfaceMode
    threadsPerCore
    volumeSizeGb
    deepHealthChecks
    labels {
      key
      value
    }
    taints {
      key
      value
      effect
    }
    targetCount
    minCount
    currentCount
    status
    statusMessage
    software {
      imageVersion
      targetImageVersion
      imageVersionStatus
      updateStatus
    }
    managed
    lastOperation {
      ...OperationSummary
    }
    createdAt
    updatedAt
  }
`);

export const InstanceGroupPageQuery = graphql(`
  query InstanceGroupPage($id: ID!, $clusterId: ID!) {
    instanceGroup(id: $id) {
      ...InstanceGroupRow
      subnetId
      operations(first: 50) {
        edges {
          node {
            ...OperationSummary
          }
        }
      }
    }
    cluster(id: $clusterId) {
      id
      name
      region
      status
    }
  }
`);

export const InstanceGroupClusterQuery = graphql(`
  query InstanceGroupCluster($id: ID!) {
    instanceGroup(id: $id) {
      id
      clusterId
    }
  }
`);

export const InstanceGroupEventsSubscription = graphql(`
  subscription InstanceGroupEvents($since: String, $filter: EventFilter) {
    events(since: $since, filter: $filter) {
      cursor
      action
      target {
        kind
        id
      }
      instanceGroup {
        ...InstanceGroupRow
      }
    }
  }
`);

export const AddInstanceGroupFormQuery = graphql(`
  query AddInstanceGroupForm($clusterId: ID!) {
    cluster(id: $clusterId) {
      id
      name
      region
      zones
      status
      instanceGroups {
        id
        name
      }
    }
  }
`);

export const TrainingPlansQuery = graphql(`
  query TrainingPlans($region: String) {
    trainingPlans(region: $region) {
      arn
      name
      status
      instanceType
      zone
      totalCount
      availableCount
      startTime
      endTime
    }
  }
`);

export const InstanceQuotaQuery = graphql(`
  query InstanceQuota($region: String, $instanceType: String!) {
    instanceQuota(region: $region, instanceType: $instanceType) {
      instanceType
      quotaName
      limit
      inUse
      available
    }
  }
`);

export const AddInstanceGroupMutation = graphql(`
  mutation AddInstanceGroup($input: AddInstanceGroupInput!, $idempotencyKey: String) {
    addInstanceGroup(input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const ScaleInstanceGroupMutation = graphql(`
  mutation ScaleInstanceGroup($id: ID!, $count: Int!, $idempotencyKey: String) {
    scaleInstanceGroup(id: $id, count: $count, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const UpdateInstanceGroupMutation = graphql(`
  mutation UpdateInstanceGroup($id: ID!, $input: UpdateInstanceGroupInput!, $idempotencyKey: String) {
    updateInstanceGroup(id: $id, input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const DeleteInstanceGroupMutation = graphql(`
  mutation DeleteInstanceGroup($id: ID!, $idempotencyKey: String) {
    deleteInstanceGroup(id: $id, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);
