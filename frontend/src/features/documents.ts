import { graphql } from "../gql";

export const FeatureRowFragment = graphql(`
  fragment FeatureRow on Feature {
    name
    title
    description
    status
    message
    dependsOn
    resources {
      kind
      ref
      shared
      detail
    }
    tieredCheckpointing {
      bucket
      memoryPercentage
      namespace
      serviceAccount
    }
    karpenter {
      instanceGroups
    }
    deepHealthChecks {
      instanceGroups
      checks
    }
    inferenceOperator {
      tlsCertificateBucket
    }
    observability {
      prometheusWorkspaceArn
    }
    s3CsiDriver {
      buckets
    }
    mlflow {
      trackingServerArn
      existing
      trackingServerName
      trackingServerSize
      artifactStoreUri
      namespace
      serviceAccount
    }
    lastOperation {
      ...OperationSummary
    }
  }
`);

export const ClusterFeaturesQuery = graphql(`
  query ClusterFeatures($clusterId: ID!) {
    clusterFeatures(clusterId: $clusterId) {
      ...FeatureRow
    }
  }
`);

export const ClusterTargetOperationsQuery = graphql(`
  query ClusterTargetOperations($clusterId: ID!) {
    operations(filter: { targetKind: "CLUSTER", targetId: $clusterId }, first: 20) {
      eventCursor
      edges {
        node {
          ...OperationSummary
        }
      }
    }
  }
`);

export const FeatureOperationEventsSubscription = graphql(`
  subscription FeatureOperationEvents($since: String, $filter: EventFilter) {
    events(since: $since, filter: $filter) {
      cursor
      action
      target {
        kind
        id
      }
      operation {
        ...OperationSummary
      }
    }
  }
`);

export const UpdateClusterFeaturesMutation = graphql(`
  mutation UpdateClusterFeatures($clusterId: ID!, $input: UpdateClusterFeaturesInput!, $idempotencyKey: String) {
    updateClusterFeatures(clusterId: $clusterId, input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);
