/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Me {\n    me {\n      name\n      role\n      tokenId\n      via\n    }\n  }\n": typeof types.MeDocument,
    "\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      name\n      count\n    }\n  }\n": typeof types.ClusterRowFragmentDoc,
    "\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n": typeof types.ClustersDocument,
    "\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n    }\n  }\n": typeof types.ClusterEventsDocument,
    "\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    instanceGroups {\n      name\n      instanceType\n      count\n      minCount\n      zone\n      capacityType\n      threadsPerCore\n      volumeSizeGb\n      deepHealthChecks\n    }\n  }\n": typeof types.ClusterDetailFragmentDoc,
    "\n  query Cluster($id: ID!) {\n    cluster(id: $id) {\n      ...ClusterDetail\n      operations(first: 50) {\n        totalCount\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n  }\n": typeof types.ClusterDocument,
    "\n  subscription ClusterDetailEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterDetail\n        lastOperation {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": typeof types.ClusterDetailEventsDocument,
    "\n  mutation DeleteCluster($id: ID!, $idempotencyKey: String) {\n    deleteCluster(id: $id, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": typeof types.DeleteClusterDocument,
    "\n  query PreflightRegions {\n    regions\n  }\n": typeof types.PreflightRegionsDocument,
    "\n  query PreflightZones($region: String) {\n    availabilityZones(region: $region) {\n      name\n      zoneId\n    }\n  }\n": typeof types.PreflightZonesDocument,
    "\n  query PreflightInstanceTypes($region: String, $zone: String!) {\n    instanceTypeOfferings(region: $region, zone: $zone) {\n      instanceType\n      zone\n      acceleratorCount\n      acceleratorName\n      acceleratorMemoryGiB\n      vcpus\n      memoryGiB\n    }\n  }\n": typeof types.PreflightInstanceTypesDocument,
    "\n  mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {\n    createCluster(input: $input, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": typeof types.CreateClusterDocument,
    "\n  fragment OperationErrorFields on OperationError {\n    code\n    message\n    retryable\n    upstreamCode\n  }\n": typeof types.OperationErrorFieldsFragmentDoc,
    "\n  fragment OperationSummary on Operation {\n    id\n    kind\n    status\n    noop\n    cancelRequested\n    requestedBy\n    target {\n      kind\n      id\n      name\n    }\n    error {\n      ...OperationErrorFields\n    }\n    createdAt\n    updatedAt\n    startedAt\n    finishedAt\n  }\n": typeof types.OperationSummaryFragmentDoc,
    "\n  fragment OperationDetail on Operation {\n    ...OperationSummary\n    statusQuery\n    idempotencyKey\n    phases {\n      name\n      title\n      dependsOn\n      status\n      attempt\n      message\n      error {\n        ...OperationErrorFields\n      }\n      startedAt\n      finishedAt\n      outputs {\n        key\n        value\n      }\n    }\n  }\n": typeof types.OperationDetailFragmentDoc,
    "\n  query Operation($id: ID!) {\n    operation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.OperationDocument,
    "\n  subscription OperationUpdated($id: ID!) {\n    operationUpdated(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.OperationUpdatedDocument,
    "\n  query Operations($filter: OperationFilter, $first: Int) {\n    operations(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": typeof types.OperationsDocument,
    "\n  subscription OperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n": typeof types.OperationEventsDocument,
    "\n  mutation RetryOperation($id: ID!) {\n    retryOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.RetryOperationDocument,
    "\n  mutation CancelOperation($id: ID!) {\n    cancelOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.CancelOperationDocument,
};
const documents: Documents = {
    "\n  query Me {\n    me {\n      name\n      role\n      tokenId\n      via\n    }\n  }\n": types.MeDocument,
    "\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      name\n      count\n    }\n  }\n": types.ClusterRowFragmentDoc,
    "\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n": types.ClustersDocument,
    "\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n    }\n  }\n": types.ClusterEventsDocument,
    "\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    instanceGroups {\n      name\n      instanceType\n      count\n      minCount\n      zone\n      capacityType\n      threadsPerCore\n      volumeSizeGb\n      deepHealthChecks\n    }\n  }\n": types.ClusterDetailFragmentDoc,
    "\n  query Cluster($id: ID!) {\n    cluster(id: $id) {\n      ...ClusterDetail\n      operations(first: 50) {\n        totalCount\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n  }\n": types.ClusterDocument,
    "\n  subscription ClusterDetailEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterDetail\n        lastOperation {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": types.ClusterDetailEventsDocument,
    "\n  mutation DeleteCluster($id: ID!, $idempotencyKey: String) {\n    deleteCluster(id: $id, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": types.DeleteClusterDocument,
    "\n  query PreflightRegions {\n    regions\n  }\n": types.PreflightRegionsDocument,
    "\n  query PreflightZones($region: String) {\n    availabilityZones(region: $region) {\n      name\n      zoneId\n    }\n  }\n": types.PreflightZonesDocument,
    "\n  query PreflightInstanceTypes($region: String, $zone: String!) {\n    instanceTypeOfferings(region: $region, zone: $zone) {\n      instanceType\n      zone\n      acceleratorCount\n      acceleratorName\n      acceleratorMemoryGiB\n      vcpus\n      memoryGiB\n    }\n  }\n": types.PreflightInstanceTypesDocument,
    "\n  mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {\n    createCluster(input: $input, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": types.CreateClusterDocument,
    "\n  fragment OperationErrorFields on OperationError {\n    code\n    message\n    retryable\n    upstreamCode\n  }\n": types.OperationErrorFieldsFragmentDoc,
    "\n  fragment OperationSummary on Operation {\n    id\n    kind\n    status\n    noop\n    cancelRequested\n    requestedBy\n    target {\n      kind\n      id\n      name\n    }\n    error {\n      ...OperationErrorFields\n    }\n    createdAt\n    updatedAt\n    startedAt\n    finishedAt\n  }\n": types.OperationSummaryFragmentDoc,
    "\n  fragment OperationDetail on Operation {\n    ...OperationSummary\n    statusQuery\n    idempotencyKey\n    phases {\n      name\n      title\n      dependsOn\n      status\n      attempt\n      message\n      error {\n        ...OperationErrorFields\n      }\n      startedAt\n      finishedAt\n      outputs {\n        key\n        value\n      }\n    }\n  }\n": types.OperationDetailFragmentDoc,
    "\n  query Operation($id: ID!) {\n    operation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.OperationDocument,
    "\n  subscription OperationUpdated($id: ID!) {\n    operationUpdated(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.OperationUpdatedDocument,
    "\n  query Operations($filter: OperationFilter, $first: Int) {\n    operations(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": types.OperationsDocument,
    "\n  subscription OperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n": types.OperationEventsDocument,
    "\n  mutation RetryOperation($id: ID!) {\n    retryOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.RetryOperationDocument,
    "\n  mutation CancelOperation($id: ID!) {\n    cancelOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.CancelOperationDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Me {\n    me {\n      name\n      role\n      tokenId\n      via\n    }\n  }\n"): (typeof documents)["\n  query Me {\n    me {\n      name\n      role\n      tokenId\n      via\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      name\n      count\n    }\n  }\n"): (typeof documents)["\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      name\n      count\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    instanceGroups {\n      name\n      instanceType\n      count\n      minCount\n      zone\n      capacityType\n      threadsPerCore\n      volumeSizeGb\n      deepHealthChecks\n    }\n  }\n"): (typeof documents)["\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    instanceGroups {\n      name\n      instanceType\n      count\n      minCount\n      zone\n      capacityType\n      threadsPerCore\n      volumeSizeGb\n      deepHealthChecks\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Cluster($id: ID!) {\n    cluster(id: $id) {\n      ...ClusterDetail\n      operations(first: 50) {\n        totalCount\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Cluster($id: ID!) {\n    cluster(id: $id) {\n      ...ClusterDetail\n      operations(first: 50) {\n        totalCount\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClusterDetailEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterDetail\n        lastOperation {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ClusterDetailEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterDetail\n        lastOperation {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteCluster($id: ID!, $idempotencyKey: String) {\n    deleteCluster(id: $id, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteCluster($id: ID!, $idempotencyKey: String) {\n    deleteCluster(id: $id, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PreflightRegions {\n    regions\n  }\n"): (typeof documents)["\n  query PreflightRegions {\n    regions\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PreflightZones($region: String) {\n    availabilityZones(region: $region) {\n      name\n      zoneId\n    }\n  }\n"): (typeof documents)["\n  query PreflightZones($region: String) {\n    availabilityZones(region: $region) {\n      name\n      zoneId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PreflightInstanceTypes($region: String, $zone: String!) {\n    instanceTypeOfferings(region: $region, zone: $zone) {\n      instanceType\n      zone\n      acceleratorCount\n      acceleratorName\n      acceleratorMemoryGiB\n      vcpus\n      memoryGiB\n    }\n  }\n"): (typeof documents)["\n  query PreflightInstanceTypes($region: String, $zone: String!) {\n    instanceTypeOfferings(region: $region, zone: $zone) {\n      instanceType\n      zone\n      acceleratorCount\n      acceleratorName\n      acceleratorMemoryGiB\n      vcpus\n      memoryGiB\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {\n    createCluster(input: $input, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {\n    createCluster(input: $input, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment OperationErrorFields on OperationError {\n    code\n    message\n    retryable\n    upstreamCode\n  }\n"): (typeof documents)["\n  fragment OperationErrorFields on OperationError {\n    code\n    message\n    retryable\n    upstreamCode\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment OperationSummary on Operation {\n    id\n    kind\n    status\n    noop\n    cancelRequested\n    requestedBy\n    target {\n      kind\n      id\n      name\n    }\n    error {\n      ...OperationErrorFields\n    }\n    createdAt\n    updatedAt\n    startedAt\n    finishedAt\n  }\n"): (typeof documents)["\n  fragment OperationSummary on Operation {\n    id\n    kind\n    status\n    noop\n    cancelRequested\n    requestedBy\n    target {\n      kind\n      id\n      name\n    }\n    error {\n      ...OperationErrorFields\n    }\n    createdAt\n    updatedAt\n    startedAt\n    finishedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment OperationDetail on Operation {\n    ...OperationSummary\n    statusQuery\n    idempotencyKey\n    phases {\n      name\n      title\n      dependsOn\n      status\n      attempt\n      message\n      error {\n        ...OperationErrorFields\n      }\n      startedAt\n      finishedAt\n      outputs {\n        key\n        value\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment OperationDetail on Operation {\n    ...OperationSummary\n    statusQuery\n    idempotencyKey\n    phases {\n      name\n      title\n      dependsOn\n      status\n      attempt\n      message\n      error {\n        ...OperationErrorFields\n      }\n      startedAt\n      finishedAt\n      outputs {\n        key\n        value\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Operation($id: ID!) {\n    operation(id: $id) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  query Operation($id: ID!) {\n    operation(id: $id) {\n      ...OperationDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription OperationUpdated($id: ID!) {\n    operationUpdated(id: $id) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  subscription OperationUpdated($id: ID!) {\n    operationUpdated(id: $id) {\n      ...OperationDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Operations($filter: OperationFilter, $first: Int) {\n    operations(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Operations($filter: OperationFilter, $first: Int) {\n    operations(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription OperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription OperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RetryOperation($id: ID!) {\n    retryOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  mutation RetryOperation($id: ID!) {\n    retryOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelOperation($id: ID!) {\n    cancelOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  mutation CancelOperation($id: ID!) {\n    cancelOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;