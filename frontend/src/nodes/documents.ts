import { graphql } from "../gql";

export const NodeRowFragment = graphql(`
  fragment NodeRow on Node {
    id
    instanceId
    clusterId
    instanceGroupId
    instanceGroupName
    logicalId
    instanceType
    status
    statusMessage
    health
    deepHealthCheck
    capacityType
    zone
    privateDnsHostname
    kubernetesNodeName
    imageVersion
    imageVersionStatus
    launchTime
    updatedAt
  }
`);

export const NodesPageQuery = graphql(`
  query NodesPage($clusterId: ID!, $first: Int!, $after: String) {
    nodes(clusterId: $clusterId, first: $first, after: $after) {
      eventCursor
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...NodeRow
        }
      }
    }
  }
`);

export const NodeDiagnosisQuery = graphql(`
  query NodeDiagnosis($id: ID!) {
    nodeDiagnosis(id: $id) {
      node {
        ...NodeRow
      }
      autoRecovery
      failedChecks
      recentEvents {
        time
        level
        description
      }
      findings
      nextStep
      reason
    }
  }
`);

export const RebootNodesMutation = graphql(`
  mutation RebootNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {
    rebootNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const ReplaceNodesMutation = graphql(`
  mutation ReplaceNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {
    replaceNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);

export const DeleteNodesMutation = graphql(`
  mutation DeleteNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {
    deleteNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {
      ...OperationSummary
    }
  }
`);
