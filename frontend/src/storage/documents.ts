import { graphql } from "../gql";

export const StorageRowFragment = graphql(`
  fragment StorageRow on Storage {
    id
    clusterId
    kind
    status
    statusMessage
    namespace
    volumeName
    claimName
    mountPath
    s3 {
      name
      region
      arn
      createdByInstantStart
    }
    fsx {
      name
      deploymentType
      storageCapacityGiB
      throughputPerTiB
      subnetId
      zone
      securityGroupId
      fileSystemId
      arn
      dnsName
      mountName
      lifecycle
      dataRepositoryPath
      dataRepositoryAssociationId
    }
    lastOperationId
    createdAt
    updatedAt
  }
`);

export const ClusterStoragesQuery = graphql(`
  query ClusterStorages($clusterId: ID!) {
    storages(clusterId: $clusterId, first: 50) {
      eventCursor
      totalCount
      edges {
        node {
          ...StorageRow
        }
      }
    }
  }
`);

export const StorageEventsSubscription = graphql(`
  subscription StorageEvents($since: String, $filter: EventFilter) {
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

export const S3ObjectsQuery = graphql(`
  query S3Objects($clusterId: ID!, $prefix: String!, $first: Int!, $after: String) {
    s3Objects(clusterId: $clusterId, prefix: $prefix, first: $first, after: $after) {
      bucket
      prefix
      edges {
        cursor
        node {
          key
          folder
          size
          lastModified
          storageClass
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const AddStorageMutation = graphql(`
  mutation AddStorage($input: AddStorageInput!, $idempotencyKey: String) {
    addStorage(input: $input, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const RemoveStorageMutation = graphql(`
  mutation RemoveStorage($id: ID!, $deleteBucket: Boolean, $idempotencyKey: String) {
    removeStorage(id: $id, deleteBucket: $deleteBucket, idempotencyKey: $idempotencyKey) {
      ...OperationDetail
    }
  }
`);

export const CreateUploadUrlsMutation = graphql(`
  mutation CreateUploadUrls($clusterId: ID!, $keys: [String!]!) {
    createUploadUrls(clusterId: $clusterId, keys: $keys) {
      key
      url
      expiresAt
    }
  }
`);

export const CreateMultipartUploadMutation = graphql(`
  mutation CreateMultipartUpload($clusterId: ID!, $key: String!) {
    createMultipartUpload(clusterId: $clusterId, key: $key) {
      key
      uploadId
    }
  }
`);

export const UploadPartUrlsMutation = graphql(`
  mutation UploadPartUrls($clusterId: ID!, $key: String!, $uploadId: String!, $partNumbers: [Int!]!) {
    uploadPartUrls(clusterId: $clusterId, key: $key, uploadId: $uploadId, partNumbers: $partNumbers) {
      partNumber
      url
    }
  }
`);

export const UploadedPartsQuery = graphql(`
  query UploadedParts($clusterId: ID!, $key: String!, $uploadId: String!) {
    uploadedParts(clusterId: $clusterId, key: $key, uploadId: $uploadId) {
      partNumber
      etag
      size
    }
  }
`);

export const CompleteMultipartUploadMutation = graphql(`
  mutation CompleteMultipartUpload($clusterId: ID!, $key: String!, $uploadId: String!, $parts: [CompletedPartInput!]!) {
    completeMultipartUpload(clusterId: $clusterId, key: $key, uploadId: $uploadId, parts: $parts) {
      key
      size
    }
  }
`);
