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
    "\n  fragment ClusterRowGroup on InstanceGroup {\n    id\n    clusterId\n    name\n    targetCount\n    currentCount\n    status\n    createdAt\n    updatedAt\n  }\n": typeof types.ClusterRowGroupFragmentDoc,
    "\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      ...ClusterRowGroup\n    }\n  }\n": typeof types.ClusterRowFragmentDoc,
    "\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n": typeof types.ClustersDocument,
    "\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n      instanceGroup {\n        ...ClusterRowGroup\n      }\n    }\n  }\n": typeof types.ClusterEventsDocument,
    "\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    dependencies {\n      name\n      version\n      status\n      kind\n      message\n    }\n  }\n": typeof types.ClusterDetailFragmentDoc,
    "\n  query Cluster($id: ID!) {\n    cluster(id: $id) {\n      ...ClusterDetail\n      operations(first: 50) {\n        totalCount\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n  }\n": typeof types.ClusterDocument,
    "\n  subscription ClusterDetailEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterDetail\n        lastOperation {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": typeof types.ClusterDetailEventsDocument,
    "\n  mutation DeleteCluster($id: ID!, $idempotencyKey: String) {\n    deleteCluster(id: $id, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": typeof types.DeleteClusterDocument,
    "\n  query PreflightRegions {\n    regions\n  }\n": typeof types.PreflightRegionsDocument,
    "\n  query PreflightZones($region: String) {\n    availabilityZones(region: $region) {\n      name\n      zoneId\n    }\n  }\n": typeof types.PreflightZonesDocument,
    "\n  query PreflightInstanceTypes($region: String, $zone: String!) {\n    instanceTypeOfferings(region: $region, zone: $zone) {\n      instanceType\n      zone\n      acceleratorCount\n      acceleratorName\n      acceleratorMemoryGiB\n      vcpus\n      memoryGiB\n    }\n  }\n": typeof types.PreflightInstanceTypesDocument,
    "\n  mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {\n    createCluster(input: $input, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": typeof types.CreateClusterDocument,
    "\n  query ClusterCompute($clusterId: ID!, $nodesFirst: Int!) {\n    instanceGroups(clusterId: $clusterId, first: 200) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...InstanceGroupRow\n        }\n      }\n    }\n    nodes(clusterId: $clusterId, first: $nodesFirst) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n": typeof types.ClusterComputeDocument,
    "\n  subscription ClusterComputeEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n      node {\n        ...NodeRow\n      }\n    }\n  }\n": typeof types.ClusterComputeEventsDocument,
    "\n  mutation UpdateClusterSoftware($clusterId: ID!, $instanceGroups: [String!], $rollingUpdate: RollingUpdateInput!, $idempotencyKey: String) {\n    updateClusterSoftware(clusterId: $clusterId, instanceGroups: $instanceGroups, rollingUpdate: $rollingUpdate, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.UpdateClusterSoftwareDocument,
    "\n  mutation RepairClusterDependencies($clusterId: ID!, $idempotencyKey: String) {\n    repairClusterDependencies(clusterId: $clusterId, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.RepairClusterDependenciesDocument,
    "\n  fragment FeatureRow on Feature {\n    name\n    title\n    description\n    status\n    message\n    dependsOn\n    resources {\n      kind\n      ref\n      shared\n      detail\n    }\n    tieredCheckpointing {\n      bucket\n      memoryPercentage\n      namespace\n      serviceAccount\n    }\n    karpenter {\n      instanceGroups\n    }\n    deepHealthChecks {\n      instanceGroups\n      checks\n    }\n    inferenceOperator {\n      tlsCertificateBucket\n    }\n    observability {\n      prometheusWorkspaceArn\n    }\n    s3CsiDriver {\n      buckets\n    }\n    lastOperation {\n      ...OperationSummary\n    }\n  }\n": typeof types.FeatureRowFragmentDoc,
    "\n  query ClusterFeatures($clusterId: ID!) {\n    clusterFeatures(clusterId: $clusterId) {\n      ...FeatureRow\n    }\n  }\n": typeof types.ClusterFeaturesDocument,
    "\n  query ClusterTargetOperations($clusterId: ID!) {\n    operations(filter: { targetKind: \"CLUSTER\", targetId: $clusterId }, first: 20) {\n      eventCursor\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": typeof types.ClusterTargetOperationsDocument,
    "\n  subscription FeatureOperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n": typeof types.FeatureOperationEventsDocument,
    "\n  mutation UpdateClusterFeatures($clusterId: ID!, $input: UpdateClusterFeaturesInput!, $idempotencyKey: String) {\n    updateClusterFeatures(clusterId: $clusterId, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": typeof types.UpdateClusterFeaturesDocument,
    "\n  fragment InstanceGroupRow on InstanceGroup {\n    id\n    clusterId\n    name\n    instanceType\n    instanceTypes\n    flexible\n    capacityType\n    trainingPlanArn\n    zone\n    networkInterfaceMode\n    threadsPerCore\n    volumeSizeGb\n    deepHealthChecks\n    labels {\n      key\n      value\n    }\n    taints {\n      key\n      value\n      effect\n    }\n    targetCount\n    minCount\n    currentCount\n    status\n    statusMessage\n    software {\n      imageVersion\n      targetImageVersion\n      imageVersionStatus\n      updateStatus\n    }\n    managed\n    lastOperation {\n      ...OperationSummary\n    }\n    createdAt\n    updatedAt\n  }\n": typeof types.InstanceGroupRowFragmentDoc,
    "\n  query InstanceGroupPage($id: ID!, $clusterId: ID!) {\n    instanceGroup(id: $id) {\n      ...InstanceGroupRow\n      subnetId\n      operations(first: 50) {\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      status\n    }\n  }\n": typeof types.InstanceGroupPageDocument,
    "\n  query InstanceGroupCluster($id: ID!) {\n    instanceGroup(id: $id) {\n      id\n      clusterId\n    }\n  }\n": typeof types.InstanceGroupClusterDocument,
    "\n  subscription InstanceGroupEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n    }\n  }\n": typeof types.InstanceGroupEventsDocument,
    "\n  query AddInstanceGroupForm($clusterId: ID!) {\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      zones\n      status\n      instanceGroups {\n        id\n        name\n      }\n    }\n  }\n": typeof types.AddInstanceGroupFormDocument,
    "\n  query TrainingPlans($region: String) {\n    trainingPlans(region: $region) {\n      arn\n      name\n      status\n      instanceType\n      zone\n      totalCount\n      availableCount\n      startTime\n      endTime\n    }\n  }\n": typeof types.TrainingPlansDocument,
    "\n  query InstanceQuota($region: String, $instanceType: String!) {\n    instanceQuota(region: $region, instanceType: $instanceType) {\n      instanceType\n      quotaName\n      limit\n      inUse\n      available\n    }\n  }\n": typeof types.InstanceQuotaDocument,
    "\n  mutation AddInstanceGroup($input: AddInstanceGroupInput!, $idempotencyKey: String) {\n    addInstanceGroup(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.AddInstanceGroupDocument,
    "\n  mutation ScaleInstanceGroup($id: ID!, $count: Int!, $idempotencyKey: String) {\n    scaleInstanceGroup(id: $id, count: $count, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.ScaleInstanceGroupDocument,
    "\n  mutation UpdateInstanceGroup($id: ID!, $input: UpdateInstanceGroupInput!, $idempotencyKey: String) {\n    updateInstanceGroup(id: $id, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.UpdateInstanceGroupDocument,
    "\n  mutation DeleteInstanceGroup($id: ID!, $idempotencyKey: String) {\n    deleteInstanceGroup(id: $id, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.DeleteInstanceGroupDocument,
    "\n  fragment ModelRow on Model {\n    id\n    clusterId\n    name\n    source\n    modelId\n    revision\n    commit\n    status\n    statusMessage\n    filesTotal\n    filesDone\n    bytesTotal\n    bytesDone\n    bucket\n    path\n    jobName\n    namespace\n    lastOperationId\n    createdAt\n    updatedAt\n    readyAt\n  }\n": typeof types.ModelRowFragmentDoc,
    "\n  query ClusterModels($clusterId: ID!, $first: Int!, $after: String) {\n    models(clusterId: $clusterId, first: $first, after: $after) {\n      edges {\n        node {\n          ...ModelRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.ClusterModelsDocument,
    "\n  query Model($id: ID!) {\n    model(id: $id) {\n      ...ModelRow\n    }\n  }\n": typeof types.ModelDocument,
    "\n  subscription ModelEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n": typeof types.ModelEventsDocument,
    "\n  mutation DownloadModel($input: DownloadModelInput!, $idempotencyKey: String) {\n    downloadModel(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": typeof types.DownloadModelDocument,
    "\n  fragment NodeRow on Node {\n    id\n    instanceId\n    clusterId\n    instanceGroupId\n    instanceGroupName\n    logicalId\n    instanceType\n    status\n    statusMessage\n    health\n    deepHealthCheck\n    capacityType\n    zone\n    privateDnsHostname\n    kubernetesNodeName\n    imageVersion\n    imageVersionStatus\n    launchTime\n    updatedAt\n  }\n": typeof types.NodeRowFragmentDoc,
    "\n  query NodesPage($clusterId: ID!, $first: Int!, $after: String) {\n    nodes(clusterId: $clusterId, first: $first, after: $after) {\n      eventCursor\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n": typeof types.NodesPageDocument,
    "\n  query NodeDiagnosis($id: ID!) {\n    nodeDiagnosis(id: $id) {\n      node {\n        ...NodeRow\n      }\n      autoRecovery\n      failedChecks\n      recentEvents {\n        time\n        level\n        description\n      }\n      findings\n      nextStep\n      reason\n    }\n  }\n": typeof types.NodeDiagnosisDocument,
    "\n  mutation RebootNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    rebootNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.RebootNodesDocument,
    "\n  mutation ReplaceNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    replaceNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.ReplaceNodesDocument,
    "\n  mutation DeleteNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    deleteNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": typeof types.DeleteNodesDocument,
    "\n  fragment OperationErrorFields on OperationError {\n    code\n    message\n    retryable\n    upstreamCode\n  }\n": typeof types.OperationErrorFieldsFragmentDoc,
    "\n  fragment OperationSummary on Operation {\n    id\n    kind\n    status\n    noop\n    cancelRequested\n    requestedBy\n    target {\n      kind\n      id\n      name\n    }\n    error {\n      ...OperationErrorFields\n    }\n    createdAt\n    updatedAt\n    startedAt\n    finishedAt\n  }\n": typeof types.OperationSummaryFragmentDoc,
    "\n  fragment OperationDetail on Operation {\n    ...OperationSummary\n    statusQuery\n    idempotencyKey\n    phases {\n      name\n      title\n      dependsOn\n      status\n      attempt\n      message\n      error {\n        ...OperationErrorFields\n      }\n      startedAt\n      finishedAt\n      outputs {\n        key\n        value\n      }\n    }\n  }\n": typeof types.OperationDetailFragmentDoc,
    "\n  query Operation($id: ID!) {\n    operation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.OperationDocument,
    "\n  subscription OperationUpdated($id: ID!) {\n    operationUpdated(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.OperationUpdatedDocument,
    "\n  query Operations($filter: OperationFilter, $first: Int) {\n    operations(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": typeof types.OperationsDocument,
    "\n  subscription OperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n": typeof types.OperationEventsDocument,
    "\n  mutation RetryOperation($id: ID!) {\n    retryOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.RetryOperationDocument,
    "\n  mutation CancelOperation($id: ID!) {\n    cancelOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": typeof types.CancelOperationDocument,
    "\n  fragment StorageRow on Storage {\n    id\n    clusterId\n    kind\n    status\n    statusMessage\n    namespace\n    volumeName\n    claimName\n    mountPath\n    s3 {\n      name\n      region\n      arn\n      createdByInstantStart\n    }\n    fsx {\n      name\n      deploymentType\n      storageCapacityGiB\n      throughputPerTiB\n      subnetId\n      zone\n      securityGroupId\n      fileSystemId\n      arn\n      dnsName\n      mountName\n      lifecycle\n      dataRepositoryPath\n      dataRepositoryAssociationId\n    }\n    lastOperationId\n    createdAt\n    updatedAt\n  }\n": typeof types.StorageRowFragmentDoc,
    "\n  query ClusterStorages($clusterId: ID!) {\n    storages(clusterId: $clusterId, first: 50) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...StorageRow\n        }\n      }\n    }\n  }\n": typeof types.ClusterStoragesDocument,
    "\n  subscription StorageEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n": typeof types.StorageEventsDocument,
    "\n  query S3Objects($clusterId: ID!, $prefix: String!, $first: Int!, $after: String) {\n    s3Objects(clusterId: $clusterId, prefix: $prefix, first: $first, after: $after) {\n      bucket\n      prefix\n      edges {\n        cursor\n        node {\n          key\n          folder\n          size\n          lastModified\n          storageClass\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.S3ObjectsDocument,
    "\n  mutation AddStorage($input: AddStorageInput!, $idempotencyKey: String) {\n    addStorage(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": typeof types.AddStorageDocument,
    "\n  mutation RemoveStorage($id: ID!, $deleteBucket: Boolean, $idempotencyKey: String) {\n    removeStorage(id: $id, deleteBucket: $deleteBucket, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": typeof types.RemoveStorageDocument,
};
const documents: Documents = {
    "\n  query Me {\n    me {\n      name\n      role\n      tokenId\n      via\n    }\n  }\n": types.MeDocument,
    "\n  fragment ClusterRowGroup on InstanceGroup {\n    id\n    clusterId\n    name\n    targetCount\n    currentCount\n    status\n    createdAt\n    updatedAt\n  }\n": types.ClusterRowGroupFragmentDoc,
    "\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      ...ClusterRowGroup\n    }\n  }\n": types.ClusterRowFragmentDoc,
    "\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n": types.ClustersDocument,
    "\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n      instanceGroup {\n        ...ClusterRowGroup\n      }\n    }\n  }\n": types.ClusterEventsDocument,
    "\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    dependencies {\n      name\n      version\n      status\n      kind\n      message\n    }\n  }\n": types.ClusterDetailFragmentDoc,
    "\n  query Cluster($id: ID!) {\n    cluster(id: $id) {\n      ...ClusterDetail\n      operations(first: 50) {\n        totalCount\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n  }\n": types.ClusterDocument,
    "\n  subscription ClusterDetailEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterDetail\n        lastOperation {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": types.ClusterDetailEventsDocument,
    "\n  mutation DeleteCluster($id: ID!, $idempotencyKey: String) {\n    deleteCluster(id: $id, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": types.DeleteClusterDocument,
    "\n  query PreflightRegions {\n    regions\n  }\n": types.PreflightRegionsDocument,
    "\n  query PreflightZones($region: String) {\n    availabilityZones(region: $region) {\n      name\n      zoneId\n    }\n  }\n": types.PreflightZonesDocument,
    "\n  query PreflightInstanceTypes($region: String, $zone: String!) {\n    instanceTypeOfferings(region: $region, zone: $zone) {\n      instanceType\n      zone\n      acceleratorCount\n      acceleratorName\n      acceleratorMemoryGiB\n      vcpus\n      memoryGiB\n    }\n  }\n": types.PreflightInstanceTypesDocument,
    "\n  mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {\n    createCluster(input: $input, idempotencyKey: $idempotencyKey) {\n      id\n    }\n  }\n": types.CreateClusterDocument,
    "\n  query ClusterCompute($clusterId: ID!, $nodesFirst: Int!) {\n    instanceGroups(clusterId: $clusterId, first: 200) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...InstanceGroupRow\n        }\n      }\n    }\n    nodes(clusterId: $clusterId, first: $nodesFirst) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n": types.ClusterComputeDocument,
    "\n  subscription ClusterComputeEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n      node {\n        ...NodeRow\n      }\n    }\n  }\n": types.ClusterComputeEventsDocument,
    "\n  mutation UpdateClusterSoftware($clusterId: ID!, $instanceGroups: [String!], $rollingUpdate: RollingUpdateInput!, $idempotencyKey: String) {\n    updateClusterSoftware(clusterId: $clusterId, instanceGroups: $instanceGroups, rollingUpdate: $rollingUpdate, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.UpdateClusterSoftwareDocument,
    "\n  mutation RepairClusterDependencies($clusterId: ID!, $idempotencyKey: String) {\n    repairClusterDependencies(clusterId: $clusterId, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.RepairClusterDependenciesDocument,
    "\n  fragment FeatureRow on Feature {\n    name\n    title\n    description\n    status\n    message\n    dependsOn\n    resources {\n      kind\n      ref\n      shared\n      detail\n    }\n    tieredCheckpointing {\n      bucket\n      memoryPercentage\n      namespace\n      serviceAccount\n    }\n    karpenter {\n      instanceGroups\n    }\n    deepHealthChecks {\n      instanceGroups\n      checks\n    }\n    inferenceOperator {\n      tlsCertificateBucket\n    }\n    observability {\n      prometheusWorkspaceArn\n    }\n    s3CsiDriver {\n      buckets\n    }\n    lastOperation {\n      ...OperationSummary\n    }\n  }\n": types.FeatureRowFragmentDoc,
    "\n  query ClusterFeatures($clusterId: ID!) {\n    clusterFeatures(clusterId: $clusterId) {\n      ...FeatureRow\n    }\n  }\n": types.ClusterFeaturesDocument,
    "\n  query ClusterTargetOperations($clusterId: ID!) {\n    operations(filter: { targetKind: \"CLUSTER\", targetId: $clusterId }, first: 20) {\n      eventCursor\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": types.ClusterTargetOperationsDocument,
    "\n  subscription FeatureOperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n": types.FeatureOperationEventsDocument,
    "\n  mutation UpdateClusterFeatures($clusterId: ID!, $input: UpdateClusterFeaturesInput!, $idempotencyKey: String) {\n    updateClusterFeatures(clusterId: $clusterId, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": types.UpdateClusterFeaturesDocument,
    "\n  fragment InstanceGroupRow on InstanceGroup {\n    id\n    clusterId\n    name\n    instanceType\n    instanceTypes\n    flexible\n    capacityType\n    trainingPlanArn\n    zone\n    networkInterfaceMode\n    threadsPerCore\n    volumeSizeGb\n    deepHealthChecks\n    labels {\n      key\n      value\n    }\n    taints {\n      key\n      value\n      effect\n    }\n    targetCount\n    minCount\n    currentCount\n    status\n    statusMessage\n    software {\n      imageVersion\n      targetImageVersion\n      imageVersionStatus\n      updateStatus\n    }\n    managed\n    lastOperation {\n      ...OperationSummary\n    }\n    createdAt\n    updatedAt\n  }\n": types.InstanceGroupRowFragmentDoc,
    "\n  query InstanceGroupPage($id: ID!, $clusterId: ID!) {\n    instanceGroup(id: $id) {\n      ...InstanceGroupRow\n      subnetId\n      operations(first: 50) {\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      status\n    }\n  }\n": types.InstanceGroupPageDocument,
    "\n  query InstanceGroupCluster($id: ID!) {\n    instanceGroup(id: $id) {\n      id\n      clusterId\n    }\n  }\n": types.InstanceGroupClusterDocument,
    "\n  subscription InstanceGroupEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n    }\n  }\n": types.InstanceGroupEventsDocument,
    "\n  query AddInstanceGroupForm($clusterId: ID!) {\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      zones\n      status\n      instanceGroups {\n        id\n        name\n      }\n    }\n  }\n": types.AddInstanceGroupFormDocument,
    "\n  query TrainingPlans($region: String) {\n    trainingPlans(region: $region) {\n      arn\n      name\n      status\n      instanceType\n      zone\n      totalCount\n      availableCount\n      startTime\n      endTime\n    }\n  }\n": types.TrainingPlansDocument,
    "\n  query InstanceQuota($region: String, $instanceType: String!) {\n    instanceQuota(region: $region, instanceType: $instanceType) {\n      instanceType\n      quotaName\n      limit\n      inUse\n      available\n    }\n  }\n": types.InstanceQuotaDocument,
    "\n  mutation AddInstanceGroup($input: AddInstanceGroupInput!, $idempotencyKey: String) {\n    addInstanceGroup(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.AddInstanceGroupDocument,
    "\n  mutation ScaleInstanceGroup($id: ID!, $count: Int!, $idempotencyKey: String) {\n    scaleInstanceGroup(id: $id, count: $count, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.ScaleInstanceGroupDocument,
    "\n  mutation UpdateInstanceGroup($id: ID!, $input: UpdateInstanceGroupInput!, $idempotencyKey: String) {\n    updateInstanceGroup(id: $id, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.UpdateInstanceGroupDocument,
    "\n  mutation DeleteInstanceGroup($id: ID!, $idempotencyKey: String) {\n    deleteInstanceGroup(id: $id, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.DeleteInstanceGroupDocument,
    "\n  fragment ModelRow on Model {\n    id\n    clusterId\n    name\n    source\n    modelId\n    revision\n    commit\n    status\n    statusMessage\n    filesTotal\n    filesDone\n    bytesTotal\n    bytesDone\n    bucket\n    path\n    jobName\n    namespace\n    lastOperationId\n    createdAt\n    updatedAt\n    readyAt\n  }\n": types.ModelRowFragmentDoc,
    "\n  query ClusterModels($clusterId: ID!, $first: Int!, $after: String) {\n    models(clusterId: $clusterId, first: $first, after: $after) {\n      edges {\n        node {\n          ...ModelRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.ClusterModelsDocument,
    "\n  query Model($id: ID!) {\n    model(id: $id) {\n      ...ModelRow\n    }\n  }\n": types.ModelDocument,
    "\n  subscription ModelEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n": types.ModelEventsDocument,
    "\n  mutation DownloadModel($input: DownloadModelInput!, $idempotencyKey: String) {\n    downloadModel(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": types.DownloadModelDocument,
    "\n  fragment NodeRow on Node {\n    id\n    instanceId\n    clusterId\n    instanceGroupId\n    instanceGroupName\n    logicalId\n    instanceType\n    status\n    statusMessage\n    health\n    deepHealthCheck\n    capacityType\n    zone\n    privateDnsHostname\n    kubernetesNodeName\n    imageVersion\n    imageVersionStatus\n    launchTime\n    updatedAt\n  }\n": types.NodeRowFragmentDoc,
    "\n  query NodesPage($clusterId: ID!, $first: Int!, $after: String) {\n    nodes(clusterId: $clusterId, first: $first, after: $after) {\n      eventCursor\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n": types.NodesPageDocument,
    "\n  query NodeDiagnosis($id: ID!) {\n    nodeDiagnosis(id: $id) {\n      node {\n        ...NodeRow\n      }\n      autoRecovery\n      failedChecks\n      recentEvents {\n        time\n        level\n        description\n      }\n      findings\n      nextStep\n      reason\n    }\n  }\n": types.NodeDiagnosisDocument,
    "\n  mutation RebootNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    rebootNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.RebootNodesDocument,
    "\n  mutation ReplaceNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    replaceNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.ReplaceNodesDocument,
    "\n  mutation DeleteNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    deleteNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n": types.DeleteNodesDocument,
    "\n  fragment OperationErrorFields on OperationError {\n    code\n    message\n    retryable\n    upstreamCode\n  }\n": types.OperationErrorFieldsFragmentDoc,
    "\n  fragment OperationSummary on Operation {\n    id\n    kind\n    status\n    noop\n    cancelRequested\n    requestedBy\n    target {\n      kind\n      id\n      name\n    }\n    error {\n      ...OperationErrorFields\n    }\n    createdAt\n    updatedAt\n    startedAt\n    finishedAt\n  }\n": types.OperationSummaryFragmentDoc,
    "\n  fragment OperationDetail on Operation {\n    ...OperationSummary\n    statusQuery\n    idempotencyKey\n    phases {\n      name\n      title\n      dependsOn\n      status\n      attempt\n      message\n      error {\n        ...OperationErrorFields\n      }\n      startedAt\n      finishedAt\n      outputs {\n        key\n        value\n      }\n    }\n  }\n": types.OperationDetailFragmentDoc,
    "\n  query Operation($id: ID!) {\n    operation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.OperationDocument,
    "\n  subscription OperationUpdated($id: ID!) {\n    operationUpdated(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.OperationUpdatedDocument,
    "\n  query Operations($filter: OperationFilter, $first: Int) {\n    operations(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n": types.OperationsDocument,
    "\n  subscription OperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n": types.OperationEventsDocument,
    "\n  mutation RetryOperation($id: ID!) {\n    retryOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.RetryOperationDocument,
    "\n  mutation CancelOperation($id: ID!) {\n    cancelOperation(id: $id) {\n      ...OperationDetail\n    }\n  }\n": types.CancelOperationDocument,
    "\n  fragment StorageRow on Storage {\n    id\n    clusterId\n    kind\n    status\n    statusMessage\n    namespace\n    volumeName\n    claimName\n    mountPath\n    s3 {\n      name\n      region\n      arn\n      createdByInstantStart\n    }\n    fsx {\n      name\n      deploymentType\n      storageCapacityGiB\n      throughputPerTiB\n      subnetId\n      zone\n      securityGroupId\n      fileSystemId\n      arn\n      dnsName\n      mountName\n      lifecycle\n      dataRepositoryPath\n      dataRepositoryAssociationId\n    }\n    lastOperationId\n    createdAt\n    updatedAt\n  }\n": types.StorageRowFragmentDoc,
    "\n  query ClusterStorages($clusterId: ID!) {\n    storages(clusterId: $clusterId, first: 50) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...StorageRow\n        }\n      }\n    }\n  }\n": types.ClusterStoragesDocument,
    "\n  subscription StorageEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n": types.StorageEventsDocument,
    "\n  query S3Objects($clusterId: ID!, $prefix: String!, $first: Int!, $after: String) {\n    s3Objects(clusterId: $clusterId, prefix: $prefix, first: $first, after: $after) {\n      bucket\n      prefix\n      edges {\n        cursor\n        node {\n          key\n          folder\n          size\n          lastModified\n          storageClass\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.S3ObjectsDocument,
    "\n  mutation AddStorage($input: AddStorageInput!, $idempotencyKey: String) {\n    addStorage(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": types.AddStorageDocument,
    "\n  mutation RemoveStorage($id: ID!, $deleteBucket: Boolean, $idempotencyKey: String) {\n    removeStorage(id: $id, deleteBucket: $deleteBucket, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n": types.RemoveStorageDocument,
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
export function graphql(source: "\n  fragment ClusterRowGroup on InstanceGroup {\n    id\n    clusterId\n    name\n    targetCount\n    currentCount\n    status\n    createdAt\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment ClusterRowGroup on InstanceGroup {\n    id\n    clusterId\n    name\n    targetCount\n    currentCount\n    status\n    createdAt\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      ...ClusterRowGroup\n    }\n  }\n"): (typeof documents)["\n  fragment ClusterRow on Cluster {\n    id\n    name\n    region\n    kubernetesVersion\n    zones\n    status\n    statusMessage\n    imported\n    createdAt\n    updatedAt\n    nodesReady\n    nodesTotal\n    instanceGroups {\n      ...ClusterRowGroup\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Clusters($filter: ClusterFilter, $first: Int) {\n    clusters(filter: $filter, first: $first) {\n      totalCount\n      eventCursor\n      edges {\n        node {\n          ...ClusterRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n      instanceGroup {\n        ...ClusterRowGroup\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ClusterEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      cluster {\n        ...ClusterRow\n      }\n      instanceGroup {\n        ...ClusterRowGroup\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    dependencies {\n      name\n      version\n      status\n      kind\n      message\n    }\n  }\n"): (typeof documents)["\n  fragment ClusterDetail on Cluster {\n    ...ClusterRow\n    network {\n      vpcId\n      cidr\n      securityGroupId\n      natGatewayId\n      internetGatewayId\n      owned\n      subnets {\n        id\n        zone\n        cidr\n        role\n      }\n    }\n    eks {\n      name\n      arn\n      status\n      version\n      endpoint\n      oidcIssuer\n      oidcProviderArn\n      authenticationMode\n      addons\n    }\n    hyperPod {\n      name\n      arn\n      status\n      failureMessage\n      nodeRecovery\n      nodeProvisioningMode\n    }\n    eksClusterRoleArn\n    executionRoleArn\n    dependencies {\n      name\n      version\n      status\n      kind\n      message\n    }\n  }\n"];
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
export function graphql(source: "\n  query ClusterCompute($clusterId: ID!, $nodesFirst: Int!) {\n    instanceGroups(clusterId: $clusterId, first: 200) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...InstanceGroupRow\n        }\n      }\n    }\n    nodes(clusterId: $clusterId, first: $nodesFirst) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClusterCompute($clusterId: ID!, $nodesFirst: Int!) {\n    instanceGroups(clusterId: $clusterId, first: 200) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...InstanceGroupRow\n        }\n      }\n    }\n    nodes(clusterId: $clusterId, first: $nodesFirst) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClusterComputeEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n      node {\n        ...NodeRow\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ClusterComputeEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n      node {\n        ...NodeRow\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateClusterSoftware($clusterId: ID!, $instanceGroups: [String!], $rollingUpdate: RollingUpdateInput!, $idempotencyKey: String) {\n    updateClusterSoftware(clusterId: $clusterId, instanceGroups: $instanceGroups, rollingUpdate: $rollingUpdate, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateClusterSoftware($clusterId: ID!, $instanceGroups: [String!], $rollingUpdate: RollingUpdateInput!, $idempotencyKey: String) {\n    updateClusterSoftware(clusterId: $clusterId, instanceGroups: $instanceGroups, rollingUpdate: $rollingUpdate, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RepairClusterDependencies($clusterId: ID!, $idempotencyKey: String) {\n    repairClusterDependencies(clusterId: $clusterId, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation RepairClusterDependencies($clusterId: ID!, $idempotencyKey: String) {\n    repairClusterDependencies(clusterId: $clusterId, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment FeatureRow on Feature {\n    name\n    title\n    description\n    status\n    message\n    dependsOn\n    resources {\n      kind\n      ref\n      shared\n      detail\n    }\n    tieredCheckpointing {\n      bucket\n      memoryPercentage\n      namespace\n      serviceAccount\n    }\n    karpenter {\n      instanceGroups\n    }\n    deepHealthChecks {\n      instanceGroups\n      checks\n    }\n    inferenceOperator {\n      tlsCertificateBucket\n    }\n    observability {\n      prometheusWorkspaceArn\n    }\n    s3CsiDriver {\n      buckets\n    }\n    lastOperation {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  fragment FeatureRow on Feature {\n    name\n    title\n    description\n    status\n    message\n    dependsOn\n    resources {\n      kind\n      ref\n      shared\n      detail\n    }\n    tieredCheckpointing {\n      bucket\n      memoryPercentage\n      namespace\n      serviceAccount\n    }\n    karpenter {\n      instanceGroups\n    }\n    deepHealthChecks {\n      instanceGroups\n      checks\n    }\n    inferenceOperator {\n      tlsCertificateBucket\n    }\n    observability {\n      prometheusWorkspaceArn\n    }\n    s3CsiDriver {\n      buckets\n    }\n    lastOperation {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClusterFeatures($clusterId: ID!) {\n    clusterFeatures(clusterId: $clusterId) {\n      ...FeatureRow\n    }\n  }\n"): (typeof documents)["\n  query ClusterFeatures($clusterId: ID!) {\n    clusterFeatures(clusterId: $clusterId) {\n      ...FeatureRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClusterTargetOperations($clusterId: ID!) {\n    operations(filter: { targetKind: \"CLUSTER\", targetId: $clusterId }, first: 20) {\n      eventCursor\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClusterTargetOperations($clusterId: ID!) {\n    operations(filter: { targetKind: \"CLUSTER\", targetId: $clusterId }, first: 20) {\n      eventCursor\n      edges {\n        node {\n          ...OperationSummary\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription FeatureOperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription FeatureOperationEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      operation {\n        ...OperationSummary\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateClusterFeatures($clusterId: ID!, $input: UpdateClusterFeaturesInput!, $idempotencyKey: String) {\n    updateClusterFeatures(clusterId: $clusterId, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateClusterFeatures($clusterId: ID!, $input: UpdateClusterFeaturesInput!, $idempotencyKey: String) {\n    updateClusterFeatures(clusterId: $clusterId, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment InstanceGroupRow on InstanceGroup {\n    id\n    clusterId\n    name\n    instanceType\n    instanceTypes\n    flexible\n    capacityType\n    trainingPlanArn\n    zone\n    networkInterfaceMode\n    threadsPerCore\n    volumeSizeGb\n    deepHealthChecks\n    labels {\n      key\n      value\n    }\n    taints {\n      key\n      value\n      effect\n    }\n    targetCount\n    minCount\n    currentCount\n    status\n    statusMessage\n    software {\n      imageVersion\n      targetImageVersion\n      imageVersionStatus\n      updateStatus\n    }\n    managed\n    lastOperation {\n      ...OperationSummary\n    }\n    createdAt\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment InstanceGroupRow on InstanceGroup {\n    id\n    clusterId\n    name\n    instanceType\n    instanceTypes\n    flexible\n    capacityType\n    trainingPlanArn\n    zone\n    networkInterfaceMode\n    threadsPerCore\n    volumeSizeGb\n    deepHealthChecks\n    labels {\n      key\n      value\n    }\n    taints {\n      key\n      value\n      effect\n    }\n    targetCount\n    minCount\n    currentCount\n    status\n    statusMessage\n    software {\n      imageVersion\n      targetImageVersion\n      imageVersionStatus\n      updateStatus\n    }\n    managed\n    lastOperation {\n      ...OperationSummary\n    }\n    createdAt\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InstanceGroupPage($id: ID!, $clusterId: ID!) {\n    instanceGroup(id: $id) {\n      ...InstanceGroupRow\n      subnetId\n      operations(first: 50) {\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      status\n    }\n  }\n"): (typeof documents)["\n  query InstanceGroupPage($id: ID!, $clusterId: ID!) {\n    instanceGroup(id: $id) {\n      ...InstanceGroupRow\n      subnetId\n      operations(first: 50) {\n        edges {\n          node {\n            ...OperationSummary\n          }\n        }\n      }\n    }\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InstanceGroupCluster($id: ID!) {\n    instanceGroup(id: $id) {\n      id\n      clusterId\n    }\n  }\n"): (typeof documents)["\n  query InstanceGroupCluster($id: ID!) {\n    instanceGroup(id: $id) {\n      id\n      clusterId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription InstanceGroupEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription InstanceGroupEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      instanceGroup {\n        ...InstanceGroupRow\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AddInstanceGroupForm($clusterId: ID!) {\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      zones\n      status\n      instanceGroups {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query AddInstanceGroupForm($clusterId: ID!) {\n    cluster(id: $clusterId) {\n      id\n      name\n      region\n      zones\n      status\n      instanceGroups {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TrainingPlans($region: String) {\n    trainingPlans(region: $region) {\n      arn\n      name\n      status\n      instanceType\n      zone\n      totalCount\n      availableCount\n      startTime\n      endTime\n    }\n  }\n"): (typeof documents)["\n  query TrainingPlans($region: String) {\n    trainingPlans(region: $region) {\n      arn\n      name\n      status\n      instanceType\n      zone\n      totalCount\n      availableCount\n      startTime\n      endTime\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query InstanceQuota($region: String, $instanceType: String!) {\n    instanceQuota(region: $region, instanceType: $instanceType) {\n      instanceType\n      quotaName\n      limit\n      inUse\n      available\n    }\n  }\n"): (typeof documents)["\n  query InstanceQuota($region: String, $instanceType: String!) {\n    instanceQuota(region: $region, instanceType: $instanceType) {\n      instanceType\n      quotaName\n      limit\n      inUse\n      available\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AddInstanceGroup($input: AddInstanceGroupInput!, $idempotencyKey: String) {\n    addInstanceGroup(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation AddInstanceGroup($input: AddInstanceGroupInput!, $idempotencyKey: String) {\n    addInstanceGroup(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ScaleInstanceGroup($id: ID!, $count: Int!, $idempotencyKey: String) {\n    scaleInstanceGroup(id: $id, count: $count, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation ScaleInstanceGroup($id: ID!, $count: Int!, $idempotencyKey: String) {\n    scaleInstanceGroup(id: $id, count: $count, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateInstanceGroup($id: ID!, $input: UpdateInstanceGroupInput!, $idempotencyKey: String) {\n    updateInstanceGroup(id: $id, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateInstanceGroup($id: ID!, $input: UpdateInstanceGroupInput!, $idempotencyKey: String) {\n    updateInstanceGroup(id: $id, input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteInstanceGroup($id: ID!, $idempotencyKey: String) {\n    deleteInstanceGroup(id: $id, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteInstanceGroup($id: ID!, $idempotencyKey: String) {\n    deleteInstanceGroup(id: $id, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ModelRow on Model {\n    id\n    clusterId\n    name\n    source\n    modelId\n    revision\n    commit\n    status\n    statusMessage\n    filesTotal\n    filesDone\n    bytesTotal\n    bytesDone\n    bucket\n    path\n    jobName\n    namespace\n    lastOperationId\n    createdAt\n    updatedAt\n    readyAt\n  }\n"): (typeof documents)["\n  fragment ModelRow on Model {\n    id\n    clusterId\n    name\n    source\n    modelId\n    revision\n    commit\n    status\n    statusMessage\n    filesTotal\n    filesDone\n    bytesTotal\n    bytesDone\n    bucket\n    path\n    jobName\n    namespace\n    lastOperationId\n    createdAt\n    updatedAt\n    readyAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClusterModels($clusterId: ID!, $first: Int!, $after: String) {\n    models(clusterId: $clusterId, first: $first, after: $after) {\n      edges {\n        node {\n          ...ModelRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClusterModels($clusterId: ID!, $first: Int!, $after: String) {\n    models(clusterId: $clusterId, first: $first, after: $after) {\n      edges {\n        node {\n          ...ModelRow\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Model($id: ID!) {\n    model(id: $id) {\n      ...ModelRow\n    }\n  }\n"): (typeof documents)["\n  query Model($id: ID!) {\n    model(id: $id) {\n      ...ModelRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ModelEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n"): (typeof documents)["\n  subscription ModelEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DownloadModel($input: DownloadModelInput!, $idempotencyKey: String) {\n    downloadModel(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  mutation DownloadModel($input: DownloadModelInput!, $idempotencyKey: String) {\n    downloadModel(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment NodeRow on Node {\n    id\n    instanceId\n    clusterId\n    instanceGroupId\n    instanceGroupName\n    logicalId\n    instanceType\n    status\n    statusMessage\n    health\n    deepHealthCheck\n    capacityType\n    zone\n    privateDnsHostname\n    kubernetesNodeName\n    imageVersion\n    imageVersionStatus\n    launchTime\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment NodeRow on Node {\n    id\n    instanceId\n    clusterId\n    instanceGroupId\n    instanceGroupName\n    logicalId\n    instanceType\n    status\n    statusMessage\n    health\n    deepHealthCheck\n    capacityType\n    zone\n    privateDnsHostname\n    kubernetesNodeName\n    imageVersion\n    imageVersionStatus\n    launchTime\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NodesPage($clusterId: ID!, $first: Int!, $after: String) {\n    nodes(clusterId: $clusterId, first: $first, after: $after) {\n      eventCursor\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query NodesPage($clusterId: ID!, $first: Int!, $after: String) {\n    nodes(clusterId: $clusterId, first: $first, after: $after) {\n      eventCursor\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          ...NodeRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NodeDiagnosis($id: ID!) {\n    nodeDiagnosis(id: $id) {\n      node {\n        ...NodeRow\n      }\n      autoRecovery\n      failedChecks\n      recentEvents {\n        time\n        level\n        description\n      }\n      findings\n      nextStep\n      reason\n    }\n  }\n"): (typeof documents)["\n  query NodeDiagnosis($id: ID!) {\n    nodeDiagnosis(id: $id) {\n      node {\n        ...NodeRow\n      }\n      autoRecovery\n      failedChecks\n      recentEvents {\n        time\n        level\n        description\n      }\n      findings\n      nextStep\n      reason\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RebootNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    rebootNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation RebootNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    rebootNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReplaceNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    replaceNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation ReplaceNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    replaceNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    deleteNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteNodes($clusterId: ID!, $nodeIds: [ID!]!, $idempotencyKey: String) {\n    deleteNodes(clusterId: $clusterId, nodeIds: $nodeIds, idempotencyKey: $idempotencyKey) {\n      ...OperationSummary\n    }\n  }\n"];
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
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment StorageRow on Storage {\n    id\n    clusterId\n    kind\n    status\n    statusMessage\n    namespace\n    volumeName\n    claimName\n    mountPath\n    s3 {\n      name\n      region\n      arn\n      createdByInstantStart\n    }\n    fsx {\n      name\n      deploymentType\n      storageCapacityGiB\n      throughputPerTiB\n      subnetId\n      zone\n      securityGroupId\n      fileSystemId\n      arn\n      dnsName\n      mountName\n      lifecycle\n      dataRepositoryPath\n      dataRepositoryAssociationId\n    }\n    lastOperationId\n    createdAt\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment StorageRow on Storage {\n    id\n    clusterId\n    kind\n    status\n    statusMessage\n    namespace\n    volumeName\n    claimName\n    mountPath\n    s3 {\n      name\n      region\n      arn\n      createdByInstantStart\n    }\n    fsx {\n      name\n      deploymentType\n      storageCapacityGiB\n      throughputPerTiB\n      subnetId\n      zone\n      securityGroupId\n      fileSystemId\n      arn\n      dnsName\n      mountName\n      lifecycle\n      dataRepositoryPath\n      dataRepositoryAssociationId\n    }\n    lastOperationId\n    createdAt\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClusterStorages($clusterId: ID!) {\n    storages(clusterId: $clusterId, first: 50) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...StorageRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClusterStorages($clusterId: ID!) {\n    storages(clusterId: $clusterId, first: 50) {\n      eventCursor\n      totalCount\n      edges {\n        node {\n          ...StorageRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription StorageEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n"): (typeof documents)["\n  subscription StorageEvents($since: String, $filter: EventFilter) {\n    events(since: $since, filter: $filter) {\n      cursor\n      action\n      target {\n        kind\n        id\n      }\n      payload\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query S3Objects($clusterId: ID!, $prefix: String!, $first: Int!, $after: String) {\n    s3Objects(clusterId: $clusterId, prefix: $prefix, first: $first, after: $after) {\n      bucket\n      prefix\n      edges {\n        cursor\n        node {\n          key\n          folder\n          size\n          lastModified\n          storageClass\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query S3Objects($clusterId: ID!, $prefix: String!, $first: Int!, $after: String) {\n    s3Objects(clusterId: $clusterId, prefix: $prefix, first: $first, after: $after) {\n      bucket\n      prefix\n      edges {\n        cursor\n        node {\n          key\n          folder\n          size\n          lastModified\n          storageClass\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AddStorage($input: AddStorageInput!, $idempotencyKey: String) {\n    addStorage(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  mutation AddStorage($input: AddStorageInput!, $idempotencyKey: String) {\n    addStorage(input: $input, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveStorage($id: ID!, $deleteBucket: Boolean, $idempotencyKey: String) {\n    removeStorage(id: $id, deleteBucket: $deleteBucket, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"): (typeof documents)["\n  mutation RemoveStorage($id: ID!, $deleteBucket: Boolean, $idempotencyKey: String) {\n    removeStorage(id: $id, deleteBucket: $deleteBucket, idempotencyKey: $idempotencyKey) {\n      ...OperationDetail\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;