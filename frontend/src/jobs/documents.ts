import { graphql } from "../gql";

export const JobRowFragment = graphql(`
  fragment JobRow on Job {
    id
    clusterId
    name
    namespace
    kind
    recipe
    status
    operatorState
    statusMessage
    model
    datasetPath
    instanceGroup
    instanceType
    nodes
    gpusPerNode
    budget {
      restartsUsed
      restartsAllowed
      exhausted
    }
    createdAt
    startedAt
    finishedAt
    updatedAt
    lastOperationId
  }
`);

export const JobDetailFragment = graphql(`
  fragment JobDetail on Job {
    ...JobRow
    script
    efaPerNode
    processesPerNode
    image
    settings {
      key
      value
    }
    outputPath
    checkpointPath
    checkpointing
    pods {
      name
      phase
      ready
      node
      instanceId
      message
      containerRestarts
      startedAt
    }
    budget {
      restartsUsed
      restartsAllowed
      fullJobRestartsUsed
      fullJobRestartsAllowed
      windowRestartsUsed
      restartsBeforeFullJobRestart
      windowSeconds
      windowEndsAt
      exhausted
    }
    restarts {
      time
      reason
      message
      operatorReason
      resumedFromTier
      resumedFromStep
      resumedAt
    }
    mlflow {
      trackingServerArn
      experiment
      runName
    }
    ray {
      entrypoint
      args
      pip
      envNames
      workerGroups {
        instanceGroup
        instanceType
        replicas
        gpusPerNode
      }
    }
  }
`);

export const ClusterJobsQuery = graphql(`
  query ClusterJobs($clusterId: ID!, $first: Int!, $after: String) {
    jobs(clusterId: $clusterId, first: $first, after: $after) {
      eventCursor
      totalCount
      edges {
        node {
          ...JobRow
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const JobEventsSubscription = graphql(`
  subscription JobEvents($since: String, $filter: EventFilter) {
    events(since: $since, filter: $filter) {
      cursor
      action
      target {
        kind
        id
      }
      job {
        ...JobRow
      }
    }
  }
`);

export const JobPageQuery = graphql(`
  query JobPage($id: ID!, $clusterId: ID!) {
    job(id: $id) {
      ...JobDetail
    }
    cluster(id: $clusterId) {
      id
      name
      status
    }
  }
`);

export const JobUpdatedSubscription = graphql(`
  subscription JobUpdated($id: ID!) {
    jobUpdated(id: $id) {
      ...JobDetail
    }
  }
`);

export const JobLogsSubscription = graphql(`
  subscription JobLogs($jobId: ID!, $pod: String, $tail: Int, $since: String, $follow: Boolean) {
    jobLogs(jobId: $jobId, pod: $pod, tail: $tail, since: $since, follow: $follow) {
      lines {
        pod
        time
        text
      }
      cursor
      end
    }
  }
`);

export const EndpointLogsSubscription = graphql(`
  subscription EndpointLogs($endpointId: ID!, $pod: String, $tail: Int, $since: String, $follow: Boolean) {
    endpointLogs(endpointId: $endpointId, pod: $pod, tail: $tail, since: $since, follow: $follow) {
      lines {
        pod
        time
        text
      }
      cursor
      end
    }
  }
`);

export const JobMetricsQuery = graphql(`
  query JobMetrics($jobId: ID!, $names: [String!]) {
    jobMetrics(jobId: $jobId, names: $names) {
      runId
      runStatus
      series {
        name
        points {
          step
          value
          time
        }
      }
    }
  }
`);

export const SubmitJobFormQuery = graphql(`
  query SubmitJobForm($clusterId: ID!) {
    cluster(id: $clusterId) {
      id
      name
      region
      status
    }
    clusterFeatures(clusterId: $clusterId) {
      name
      status
    }
    trainingRecipes {
      recipe
      kind
      image
      version
      needsModel
      settings {
        key
        description
        default
        allowed
        type
      }
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
  }
`);

export const GroupAcceleratorsQuery = graphql(`
  query GroupAccelerators($region: String, $zone: String!) {
    instanceTypeOfferings(region: $region, zone: $zone) {
      instanceType
      acceleratorCount
      acceleratorName
    }
  }
`);

export const SubmitTrainingJobMutation = graphql(`
  mutation SubmitTrainingJob($input: SubmitTrainingJobInput!, $idempotencyKey: String) {
    submitTrainingJob(input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const DeleteJobMutation = graphql(`
  mutation DeleteJob($id: ID!, $idempotencyKey: String) {
    deleteJob(id: $id, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);
