import { graphql } from "../gql";

export const ClusterRowGroupFragment = graphql(`
  fragment ClusterRowGroup on InstanceGroup {
    id
    clusterId
    name
    targetCount
    currentCount
    status
    createdAt
    updatedAt
  }
`);

export const ClusterRowFragment = graphql(`
  fragment ClusterRow on Cluster {
    id
    name
    region
    kubernetesVersion
    zones
    status
    statusMessage
    imported
    createdAt
    updatedAt
    nodesReady
    nodesTotal
    instanceGroups {
      ...ClusterRowGroup
    }
  }
`);

export const ClustersQuery = graphql(`
  query Clusters($filter: ClusterFilter, $first: Int) {
    clusters(filter: $filter, first: $first) {
      totalCount
      eventCursor
      edges {
        node {
          ...ClusterRow
        }
      }
    }
  }
`);

export const ClusterEventsSubscription = graphql(`
  subscription ClusterEvents($since: String, $filter: EventFilter) {
    events(since: $since, filter: $filter) {
      cursor
      action
      target {
        kind
        id
      }
      cluster {
        ...ClusterRow
      }
      instanceGroup {
        ...ClusterRowGroup
      }
    }
  }
`);

export const ClusterDetailFragment = graphql(`
  fragment ClusterDetail on Cluster {
    ...ClusterRow
    network {
      vpcId
      cidr
      securityGroupId
      natGatewayId
      internetGatewayId
      owned
      subnets {
        id
        zone
        cidr
        role
      }
    }
    eks {
      name
      arn
      status
      version
      endpoint
      oidcIssuer
      oidcProviderArn
      authenticationMode
      addons
    }
    hyperPod {
      name
      arn
      status
      failureMessage
      nodeRecovery
      nodeProvisioningMode
    }
    eksClusterRoleArn
    executionRoleArn
    dependencies {
      name
      version
      status
      kind
      message
    }
  }
`);

export const ClusterQuery = graphql(`
  query Cluster($id: ID!) {
    cluster(id: $id) {
      ...ClusterDetail
      operations(first: 50) {
        totalCount
        edges {
          node {
            ...OperationSummary
          }
        }
      }
    }
  }
`);

export const ClusterDetailEventsSubscription = graphql(`
  subscription ClusterDetailEvents($since: String, $filter: EventFilter) {
    events(since: $since, filter: $filter) {
      cursor
      action
      target {
        kind
        id
      }
      cluster {
        ...ClusterDetail
        lastOperation {
          ...OperationSummary
        }
      }
    }
  }
`);

export const DeleteClusterMutation = graphql(`
  mutation DeleteCluster($id: ID!, $cascade: Boolean, $deleteBucket: Boolean, $idempotencyKey: String) {
    deleteCluster(id: $id, cascade: $cascade, deleteBucket: $deleteBucket, idempotencyKey: $idempotencyKey) {
      id
    }
  }
`);

export const PreflightRegionsQuery = graphql(`
  query PreflightRegions {
    regions
  }
`);

export const PreflightZonesQuery = graphql(`
  query PreflightZones($region: String) {
    availabilityZones(region: $region) {
      name
      zoneId
    }
  }
`);

export const PreflightInstanceTypesQuery = graphql(`
  query PreflightInstanceTypes($region: String, $zone: String!) {
    instanceTypeOfferings(region: $region, zone: $zone) {
      instanceType
      zone
      acceleratorCount
      acceleratorName
      acceleratorMemoryGiB
      vcpus
      memoryGiB
    }
  }
`);

export const CreateClusterMutation = graphql(`
  mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {
    createCluster(input: $input, idempotencyKey: $idempotencyKey) {
      id
    }
  }
`);

export const ClusterComputeQuery = graphql(`
  query ClusterCompute($clusterId: ID!, $nodesFirst: Int!) {
    instanceGroups(clusterId: $clusterId, first: 200) {
      eventCursor
      totalCount
      edges {
        node {
          ...InstanceGroupRow
        }
      }
    }
    nodes(clusterId: $clusterId, first: $nodesFirst) {
      eventCursor
      totalCount
      edges {
        node {
          ...NodeRow
        }
      }
    }
  }
`);

export const ClusterComputeEventsSubscription = graphql(`
  subscription ClusterComputeEvents($since: String, $filter: EventFilter) {
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
      node {
        ...NodeRow
      }
    }
  }
`);

export const UpdateClusterSoftwareMutation = graphql(`
  mutation UpdateClusterSoftware($clusterId: ID!, $instanceGroups: [String!], $rollingUpdate: RollingUpdateInput!, $idempotencyKey: String) {
    updateClusterSoftware(clusterId: $clusterId, instanceGroups: $instanceGroups, rollingUpdate: $rollingUpdate, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const RepairClusterDependenciesMutation = graphql(`
  mutation RepairClusterDependencies($clusterId: ID!, $idempotencyKey: String) {
    repairClusterDependencies(clusterId: $clusterId, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const ClusterAccessQuery = graphql(`
  query ClusterAccess($id: ID!) {
    cluster(id: $id) {
      id
      accessEntries {
        principalArn
        type
        access
        namespaces
        policyArns
        origin
        grantedBy
        grantedAt
        createdAt
      }
    }
  }
`);

export const KubeconfigQuery = graphql(`
  query Kubeconfig($clusterId: ID!) {
    kubeconfig(clusterId: $clusterId)
  }
`);

export const GrantClusterAccessMutation = graphql(`
  mutation GrantClusterAccess($clusterId: ID!, $principalArn: String!, $access: ClusterAccess!, $namespaces: [String!], $idempotencyKey: String) {
    grantClusterAccess(clusterId: $clusterId, principalArn: $principalArn, access: $access, namespaces: $namespaces, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const RevokeClusterAccessMutation = graphql(`
  mutation RevokeClusterAccess($clusterId: ID!, $principalArn: String!, $idempotencyKey: String) {
    revokeClusterAccess(clusterId: $clusterId, principalArn: $principalArn, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const ClusterSystemNodesQuery = graphql(`
  query ClusterSystemNodes($id: ID!) {
    cluster(id: $id) {
      id
      systemNodes {
        name
        arn
        status
        instanceType
        desiredCount
        readyCount
        issues
      }
    }
  }
`);

export const ScaleSystemNodesMutation = graphql(`
  mutation ScaleSystemNodes($clusterId: ID!, $count: Int!, $instanceType: String, $idempotencyKey: String) {
    scaleSystemNodes(clusterId: $clusterId, count: $count, instanceType: $instanceType, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const DeleteSystemNodesMutation = graphql(`
  mutation DeleteSystemNodes($clusterId: ID!, $idempotencyKey: String) {
    deleteSystemNodes(clusterId: $clusterId, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);
