import { graphql } from "../gql";

export const OperationErrorFragment = graphql(`
  fragment OperationErrorFields on OperationError {
    code
    message
    retryable
    upstreamCode
  }
`);

export const OperationSummaryFragment = graphql(`
  fragment OperationSummary on Operation {
    id
    kind
    status
    noop
    cancelRequested
    requestedBy
    target {
      kind
      id
      name
    }
    clusterId
    error {
      ...OperationErrorFields
    }
    createdAt
    updatedAt
    startedAt
    finishedAt
  }
`);

export const OperationDetailFragment = graphql(`
  fragment OperationDetail on Operation {
    ...OperationSummary
    statusQuery
    idempotencyKey
    phases {
      name
      title
      dependsOn
      status
      attempt
      message
      error {
        ...OperationErrorFields
      }
      startedAt
      finishedAt
      outputs {
        key
        value
      }
    }
  }
`);

export const OperationQuery = graphql(`
  query Operation($id: ID!) {
    operation(id: $id) {
      ...OperationDetail
    }
  }
`);

export const OperationUpdatedSubscription = graphql(`
  subscription OperationUpdated($id: ID!) {
    operationUpdated(id: $id) {
      ...OperationDetail
    }
  }
`);

export const OperationsQuery = graphql(`
  query Operations($filter: OperationFilter, $first: Int) {
    operations(filter: $filter, first: $first) {
      totalCount
      eventCursor
      pageInfo {
        hasNextPage
      }
      edges {
        node {
          ...OperationSummary
        }
      }
    }
  }
`);

export const OperationEventsSubscription = graphql(`
  subscription OperationEvents($since: String, $filter: EventFilter) {
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

export const RetryOperationMutation = graphql(`
  mutation RetryOperation($id: ID!) {
    retryOperation(id: $id) {
      ...OperationDetail
    }
  }
`);

export const CancelOperationMutation = graphql(`
  mutation CancelOperation($id: ID!) {
    cancelOperation(id: $id) {
      ...OperationDetail
    }
  }
`);
