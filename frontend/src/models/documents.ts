import { graphql } from "../gql";

export const ModelRowFragment = graphql(`
  fragment ModelRow on Model {
    id
    clusterId
    name
    source
    modelId
    revision
    commit
    status
    statusMessage
    filesTotal
    filesDone
    bytesTotal
    bytesDone
    bucket
    path
    jobName
    namespace
    lastOperationId
    createdAt
    updatedAt
    readyAt
  }
`);

export const ClusterModelsQuery = graphql(`
  query ClusterModels($clusterId: ID!, $first: Int!, $after: String) {
    models(clusterId: $clusterId, first: $first, after: $after) {
      edges {
        node {
          ...ModelRow
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const ModelQuery = graphql(`
  query Model($id: ID!) {
    model(id: $id) {
      ...ModelRow
    }
  }
`);

export const ModelEventsSubscription = graphql(`
  subscription ModelEvents($since: String, $filter: EventFilter) {
    events(since: $since, filter: $filter) {
      cursor
      action
      target {
        kind
        id
      }
      payload
    }
  }
`);

export const DownloadModelMutation = graphql(`
  mutation DownloadModel($input: DownloadModelInput!, $idempotencyKey: String) {
    downloadModel(input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);
