// Package cloud defines the ports through which the engine reaches AWS: one
// small interface per service, shaped exactly like the aws-sdk-go-v2 client
// methods it uses (same input and output types). The real provider passes the
// SDK clients themselves (see package awscloud); the simulator in engine/sim
// implements the same interfaces.
package cloud

import (
	"context"
	"fmt"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// SageMaker is the part of the SageMaker API that manages HyperPod clusters:
// the clusters, their instance groups and nodes, their events, the
// training plans that reserve capacity for them, and the managed MLflow
// tracking servers their training jobs report to.
type SageMaker interface {
	CreateCluster(ctx context.Context, in *sagemaker.CreateClusterInput, opts ...func(*sagemaker.Options)) (*sagemaker.CreateClusterOutput, error)
	DescribeCluster(ctx context.Context, in *sagemaker.DescribeClusterInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterOutput, error)
	ListClusters(ctx context.Context, in *sagemaker.ListClustersInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListClustersOutput, error)
	DeleteCluster(ctx context.Context, in *sagemaker.DeleteClusterInput, opts ...func(*sagemaker.Options)) (*sagemaker.DeleteClusterOutput, error)
	ListClusterNodes(ctx context.Context, in *sagemaker.ListClusterNodesInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListClusterNodesOutput, error)
	UpdateCluster(ctx context.Context, in *sagemaker.UpdateClusterInput, opts ...func(*sagemaker.Options)) (*sagemaker.UpdateClusterOutput, error)
	UpdateClusterSoftware(ctx context.Context, in *sagemaker.UpdateClusterSoftwareInput, opts ...func(*sagemaker.Options)) (*sagemaker.UpdateClusterSoftwareOutput, error)
	DescribeClusterNode(ctx context.Context, in *sagemaker.DescribeClusterNodeInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterNodeOutput, error)

	BatchAddClusterNodes(ctx context.Context, in *sagemaker.BatchAddClusterNodesInput, opts ...func(*sagemaker.Options)) (*sagemaker.BatchAddClusterNodesOutput, error)
	BatchDeleteClusterNodes(ctx context.Context, in *sagemaker.BatchDeleteClusterNodesInput, opts ...func(*sagemaker.Options)) (*sagemaker.BatchDeleteClusterNodesOutput, error)
	BatchRebootClusterNodes(ctx context.Context, in *sagemaker.BatchRebootClusterNodesInput, opts ...func(*sagemaker.Options)) (*sagemaker.BatchRebootClusterNodesOutput, error)
	BatchReplaceClusterNodes(ctx context.Context, in *sagemaker.BatchReplaceClusterNodesInput, opts ...func(*sagemaker.Options)) (*sagemaker.BatchReplaceClusterNodesOutput, error)
	StartClusterHealthCheck(ctx context.Context, in *sagemaker.StartClusterHealthCheckInput, opts ...func(*sagemaker.Options)) (*sagemaker.StartClusterHealthCheckOutput, error)

	ListClusterEvents(ctx context.Context, in *sagemaker.ListClusterEventsInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListClusterEventsOutput, error)
	DescribeClusterEvent(ctx context.Context, in *sagemaker.DescribeClusterEventInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterEventOutput, error)

	ListTrainingPlans(ctx context.Context, in *sagemaker.ListTrainingPlansInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListTrainingPlansOutput, error)
	DescribeTrainingPlan(ctx context.Context, in *sagemaker.DescribeTrainingPlanInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeTrainingPlanOutput, error)

	CreateMlflowTrackingServer(ctx context.Context, in *sagemaker.CreateMlflowTrackingServerInput, opts ...func(*sagemaker.Options)) (*sagemaker.CreateMlflowTrackingServerOutput, error)
	DescribeMlflowTrackingServer(ctx context.Context, in *sagemaker.DescribeMlflowTrackingServerInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeMlflowTrackingServerOutput, error)
	ListMlflowTrackingServers(ctx context.Context, in *sagemaker.ListMlflowTrackingServersInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListMlflowTrackingServersOutput, error)
	DeleteMlflowTrackingServer(ctx context.Context, in *sagemaker.DeleteMlflowTrackingServerInput, opts ...func(*sagemaker.Options)) (*sagemaker.DeleteMlflowTrackingServerOutput, error)
}

// EKS is the part of the EKS API that manages control planes, add-ons,
// access entries, pod identity associations and managed node groups.
type EKS interface {
	CreateCluster(ctx context.Context, in *eks.CreateClusterInput, opts ...func(*eks.Options)) (*eks.CreateClusterOutput, error)
	DescribeCluster(ctx context.Context, in *eks.DescribeClusterInput, opts ...func(*eks.Options)) (*eks.DescribeClusterOutput, error)
	ListClusters(ctx context.Context, in *eks.ListClustersInput, opts ...func(*eks.Options)) (*eks.ListClustersOutput, error)
	DeleteCluster(ctx context.Context, in *eks.DeleteClusterInput, opts ...func(*eks.Options)) (*eks.DeleteClusterOutput, error)

	CreateAddon(ctx context.Context, in *eks.CreateAddonInput, opts ...func(*eks.Options)) (*eks.CreateAddonOutput, error)
	DescribeAddon(ctx context.Context, in *eks.DescribeAddonInput, opts ...func(*eks.Options)) (*eks.DescribeAddonOutput, error)
	ListAddons(ctx context.Context, in *eks.ListAddonsInput, opts ...func(*eks.Options)) (*eks.ListAddonsOutput, error)
	DeleteAddon(ctx context.Context, in *eks.DeleteAddonInput, opts ...func(*eks.Options)) (*eks.DeleteAddonOutput, error)
	UpdateAddon(ctx context.Context, in *eks.UpdateAddonInput, opts ...func(*eks.Options)) (*eks.UpdateAddonOutput, error)

	CreateAccessEntry(ctx context.Context, in *eks.CreateAccessEntryInput, opts ...func(*eks.Options)) (*eks.CreateAccessEntryOutput, error)
	DescribeAccessEntry(ctx context.Context, in *eks.DescribeAccessEntryInput, opts ...func(*eks.Options)) (*eks.DescribeAccessEntryOutput, error)
	DeleteAccessEntry(ctx context.Context, in *eks.DeleteAccessEntryInput, opts ...func(*eks.Options)) (*eks.DeleteAccessEntryOutput, error)
	AssociateAccessPolicy(ctx context.Context, in *eks.AssociateAccessPolicyInput, opts ...func(*eks.Options)) (*eks.AssociateAccessPolicyOutput, error)
	ListAssociatedAccessPolicies(ctx context.Context, in *eks.ListAssociatedAccessPoliciesInput, opts ...func(*eks.Options)) (*eks.ListAssociatedAccessPoliciesOutput, error)
	ListAccessEntries(ctx context.Context, in *eks.ListAccessEntriesInput, opts ...func(*eks.Options)) (*eks.ListAccessEntriesOutput, error)
	DisassociateAccessPolicy(ctx context.Context, in *eks.DisassociateAccessPolicyInput, opts ...func(*eks.Options)) (*eks.DisassociateAccessPolicyOutput, error)

	CreatePodIdentityAssociation(ctx context.Context, in *eks.CreatePodIdentityAssociationInput, opts ...func(*eks.Options)) (*eks.CreatePodIdentityAssociationOutput, error)
	ListPodIdentityAssociations(ctx context.Context, in *eks.ListPodIdentityAssociationsInput, opts ...func(*eks.Options)) (*eks.ListPodIdentityAssociationsOutput, error)
	DeletePodIdentityAssociation(ctx context.Context, in *eks.DeletePodIdentityAssociationInput, opts ...func(*eks.Options)) (*eks.DeletePodIdentityAssociationOutput, error)

	CreateNodegroup(ctx context.Context, in *eks.CreateNodegroupInput, opts ...func(*eks.Options)) (*eks.CreateNodegroupOutput, error)
	DescribeNodegroup(ctx context.Context, in *eks.DescribeNodegroupInput, opts ...func(*eks.Options)) (*eks.DescribeNodegroupOutput, error)
	ListNodegroups(ctx context.Context, in *eks.ListNodegroupsInput, opts ...func(*eks.Options)) (*eks.ListNodegroupsOutput, error)
	UpdateNodegroupConfig(ctx context.Context, in *eks.UpdateNodegroupConfigInput, opts ...func(*eks.Options)) (*eks.UpdateNodegroupConfigOutput, error)
	DeleteNodegroup(ctx context.Context, in *eks.DeleteNodegroupInput, opts ...func(*eks.Options)) (*eks.DeleteNodegroupOutput, error)
}

// EC2 is the part of the EC2 API that plans and builds cluster networks and
// answers which zones and instance types a region offers.
type EC2 interface {
	DescribeRegions(ctx context.Context, in *ec2.DescribeRegionsInput, opts ...func(*ec2.Options)) (*ec2.DescribeRegionsOutput, error)
	DescribeAvailabilityZones(ctx context.Context, in *ec2.DescribeAvailabilityZonesInput, opts ...func(*ec2.Options)) (*ec2.DescribeAvailabilityZonesOutput, error)
	DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error)
	DescribeInstanceTypeOfferings(ctx context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error)

	CreateVpc(ctx context.Context, in *ec2.CreateVpcInput, opts ...func(*ec2.Options)) (*ec2.CreateVpcOutput, error)
	DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
	ModifyVpcAttribute(ctx context.Context, in *ec2.ModifyVpcAttributeInput, opts ...func(*ec2.Options)) (*ec2.ModifyVpcAttributeOutput, error)
	DeleteVpc(ctx context.Context, in *ec2.DeleteVpcInput, opts ...func(*ec2.Options)) (*ec2.DeleteVpcOutput, error)

	CreateSubnet(ctx context.Context, in *ec2.CreateSubnetInput, opts ...func(*ec2.Options)) (*ec2.CreateSubnetOutput, error)
	DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	DeleteSubnet(ctx context.Context, in *ec2.DeleteSubnetInput, opts ...func(*ec2.Options)) (*ec2.DeleteSubnetOutput, error)

	CreateInternetGateway(ctx context.Context, in *ec2.CreateInternetGatewayInput, opts ...func(*ec2.Options)) (*ec2.CreateInternetGatewayOutput, error)
	AttachInternetGateway(ctx context.Context, in *ec2.AttachInternetGatewayInput, opts ...func(*ec2.Options)) (*ec2.AttachInternetGatewayOutput, error)
	DescribeInternetGateways(ctx context.Context, in *ec2.DescribeInternetGatewaysInput, opts ...func(*ec2.Options)) (*ec2.DescribeInternetGatewaysOutput, error)
	DetachInternetGateway(ctx context.Context, in *ec2.DetachInternetGatewayInput, opts ...func(*ec2.Options)) (*ec2.DetachInternetGatewayOutput, error)
	DeleteInternetGateway(ctx context.Context, in *ec2.DeleteInternetGatewayInput, opts ...func(*ec2.Options)) (*ec2.DeleteInternetGatewayOutput, error)

	AllocateAddress(ctx context.Context, in *ec2.AllocateAddressInput, opts ...func(*ec2.Options)) (*ec2.AllocateAddressOutput, error)
	DescribeAddresses(ctx context.Context, in *ec2.DescribeAddressesInput, opts ...func(*ec2.Options)) (*ec2.DescribeAddressesOutput, error)
	ReleaseAddress(ctx context.Context, in *ec2.ReleaseAddressInput, opts ...func(*ec2.Options)) (*ec2.ReleaseAddressOutput, error)

	CreateNatGateway(ctx context.Context, in *ec2.CreateNatGatewayInput, opts ...func(*ec2.Options)) (*ec2.CreateNatGatewayOutput, error)
	DescribeNatGateways(ctx context.Context, in *ec2.DescribeNatGatewaysInput, opts ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error)
	DeleteNatGateway(ctx context.Context, in *ec2.DeleteNatGatewayInput, opts ...func(*ec2.Options)) (*ec2.DeleteNatGatewayOutput, error)

	CreateRouteTable(ctx context.Context, in *ec2.CreateRouteTableInput, opts ...func(*ec2.Options)) (*ec2.CreateRouteTableOutput, error)
	DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, opts ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	CreateRoute(ctx context.Context, in *ec2.CreateRouteInput, opts ...func(*ec2.Options)) (*ec2.CreateRouteOutput, error)
	AssociateRouteTable(ctx context.Context, in *ec2.AssociateRouteTableInput, opts ...func(*ec2.Options)) (*ec2.AssociateRouteTableOutput, error)
	DisassociateRouteTable(ctx context.Context, in *ec2.DisassociateRouteTableInput, opts ...func(*ec2.Options)) (*ec2.DisassociateRouteTableOutput, error)
	DeleteRouteTable(ctx context.Context, in *ec2.DeleteRouteTableInput, opts ...func(*ec2.Options)) (*ec2.DeleteRouteTableOutput, error)

	CreateSecurityGroup(ctx context.Context, in *ec2.CreateSecurityGroupInput, opts ...func(*ec2.Options)) (*ec2.CreateSecurityGroupOutput, error)
	DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	AuthorizeSecurityGroupIngress(ctx context.Context, in *ec2.AuthorizeSecurityGroupIngressInput, opts ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error)
	DeleteSecurityGroup(ctx context.Context, in *ec2.DeleteSecurityGroupInput, opts ...func(*ec2.Options)) (*ec2.DeleteSecurityGroupOutput, error)

	CreateTags(ctx context.Context, in *ec2.CreateTagsInput, opts ...func(*ec2.Options)) (*ec2.CreateTagsOutput, error)
}

// IAM is the part of the IAM API that manages the roles and OIDC providers a
// cluster needs.
type IAM interface {
	CreateRole(ctx context.Context, in *iam.CreateRoleInput, opts ...func(*iam.Options)) (*iam.CreateRoleOutput, error)
	GetRole(ctx context.Context, in *iam.GetRoleInput, opts ...func(*iam.Options)) (*iam.GetRoleOutput, error)
	// ListRoles is not called by the engine: it serves tools that read the
	// simulated account on the wire (aws iam list-roles).
	ListRoles(ctx context.Context, in *iam.ListRolesInput, opts ...func(*iam.Options)) (*iam.ListRolesOutput, error)
	DeleteRole(ctx context.Context, in *iam.DeleteRoleInput, opts ...func(*iam.Options)) (*iam.DeleteRoleOutput, error)
	AttachRolePolicy(ctx context.Context, in *iam.AttachRolePolicyInput, opts ...func(*iam.Options)) (*iam.AttachRolePolicyOutput, error)
	DetachRolePolicy(ctx context.Context, in *iam.DetachRolePolicyInput, opts ...func(*iam.Options)) (*iam.DetachRolePolicyOutput, error)
	ListAttachedRolePolicies(ctx context.Context, in *iam.ListAttachedRolePoliciesInput, opts ...func(*iam.Options)) (*iam.ListAttachedRolePoliciesOutput, error)
	PutRolePolicy(ctx context.Context, in *iam.PutRolePolicyInput, opts ...func(*iam.Options)) (*iam.PutRolePolicyOutput, error)
	DeleteRolePolicy(ctx context.Context, in *iam.DeleteRolePolicyInput, opts ...func(*iam.Options)) (*iam.DeleteRolePolicyOutput, error)
	ListRolePolicies(ctx context.Context, in *iam.ListRolePoliciesInput, opts ...func(*iam.Options)) (*iam.ListRolePoliciesOutput, error)

	CreateOpenIDConnectProvider(ctx context.Context, in *iam.CreateOpenIDConnectProviderInput, opts ...func(*iam.Options)) (*iam.CreateOpenIDConnectProviderOutput, error)
	GetOpenIDConnectProvider(ctx context.Context, in *iam.GetOpenIDConnectProviderInput, opts ...func(*iam.Options)) (*iam.GetOpenIDConnectProviderOutput, error)
	ListOpenIDConnectProviders(ctx context.Context, in *iam.ListOpenIDConnectProvidersInput, opts ...func(*iam.Options)) (*iam.ListOpenIDConnectProvidersOutput, error)
	DeleteOpenIDConnectProvider(ctx context.Context, in *iam.DeleteOpenIDConnectProviderInput, opts ...func(*iam.Options)) (*iam.DeleteOpenIDConnectProviderOutput, error)
	CreatePolicy(ctx context.Context, in *iam.CreatePolicyInput, opts ...func(*iam.Options)) (*iam.CreatePolicyOutput, error)
	GetPolicy(ctx context.Context, in *iam.GetPolicyInput, opts ...func(*iam.Options)) (*iam.GetPolicyOutput, error)
	GetPolicyVersion(ctx context.Context, in *iam.GetPolicyVersionInput, opts ...func(*iam.Options)) (*iam.GetPolicyVersionOutput, error)
	DeletePolicy(ctx context.Context, in *iam.DeletePolicyInput, opts ...func(*iam.Options)) (*iam.DeletePolicyOutput, error)
	CreatePolicyVersion(ctx context.Context, in *iam.CreatePolicyVersionInput, opts ...func(*iam.Options)) (*iam.CreatePolicyVersionOutput, error)
	ListPolicyVersions(ctx context.Context, in *iam.ListPolicyVersionsInput, opts ...func(*iam.Options)) (*iam.ListPolicyVersionsOutput, error)
	DeletePolicyVersion(ctx context.Context, in *iam.DeletePolicyVersionInput, opts ...func(*iam.Options)) (*iam.DeletePolicyVersionOutput, error)
}

// STS tells the engine which principal it runs as.
type STS interface {
	GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, opts ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error)
}

// ServiceQuotas answers how many instances of a type the account may run in
// HyperPod clusters.
type ServiceQuotas interface {
	ListServiceQuotas(ctx context.Context, in *servicequotas.ListServiceQuotasInput, opts ...func(*servicequotas.Options)) (*servicequotas.ListServiceQuotasOutput, error)
}

// S3 is the part of the S3 API that keeps a cluster's shared bucket: the
// bucket itself, and the objects the engine lists, checks and writes (never
// the data of datasets or models, which moves between the cluster and S3).
type S3 interface {
	CreateBucket(ctx context.Context, in *s3.CreateBucketInput, opts ...func(*s3.Options)) (*s3.CreateBucketOutput, error)
	HeadBucket(ctx context.Context, in *s3.HeadBucketInput, opts ...func(*s3.Options)) (*s3.HeadBucketOutput, error)
	GetBucketLocation(ctx context.Context, in *s3.GetBucketLocationInput, opts ...func(*s3.Options)) (*s3.GetBucketLocationOutput, error)
	ListBuckets(ctx context.Context, in *s3.ListBucketsInput, opts ...func(*s3.Options)) (*s3.ListBucketsOutput, error)
	DeleteBucket(ctx context.Context, in *s3.DeleteBucketInput, opts ...func(*s3.Options)) (*s3.DeleteBucketOutput, error)
	PutBucketTagging(ctx context.Context, in *s3.PutBucketTaggingInput, opts ...func(*s3.Options)) (*s3.PutBucketTaggingOutput, error)
	GetBucketTagging(ctx context.Context, in *s3.GetBucketTaggingInput, opts ...func(*s3.Options)) (*s3.GetBucketTaggingOutput, error)
	PutPublicAccessBlock(ctx context.Context, in *s3.PutPublicAccessBlockInput, opts ...func(*s3.Options)) (*s3.PutPublicAccessBlockOutput, error)
	// The bucket's CORS rules: a browser's signed uploads need one.
	GetBucketCors(ctx context.Context, in *s3.GetBucketCorsInput, opts ...func(*s3.Options)) (*s3.GetBucketCorsOutput, error)
	PutBucketCors(ctx context.Context, in *s3.PutBucketCorsInput, opts ...func(*s3.Options)) (*s3.PutBucketCorsOutput, error)

	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
	HeadObject(ctx context.Context, in *s3.HeadObjectInput, opts ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, opts ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	DeleteObjects(ctx context.Context, in *s3.DeleteObjectsInput, opts ...func(*s3.Options)) (*s3.DeleteObjectsOutput, error)

	// A multipart upload: the engine starts, lists, completes and aborts
	// it for a browser, which sends the parts itself to URLs the engine
	// presigns (S3Presign). UploadPart is here for the simulator's wire
	// endpoint, which serves those presigned requests through this port.
	CreateMultipartUpload(ctx context.Context, in *s3.CreateMultipartUploadInput, opts ...func(*s3.Options)) (*s3.CreateMultipartUploadOutput, error)
	UploadPart(ctx context.Context, in *s3.UploadPartInput, opts ...func(*s3.Options)) (*s3.UploadPartOutput, error)
	ListParts(ctx context.Context, in *s3.ListPartsInput, opts ...func(*s3.Options)) (*s3.ListPartsOutput, error)
	CompleteMultipartUpload(ctx context.Context, in *s3.CompleteMultipartUploadInput, opts ...func(*s3.Options)) (*s3.CompleteMultipartUploadOutput, error)
	AbortMultipartUpload(ctx context.Context, in *s3.AbortMultipartUploadInput, opts ...func(*s3.Options)) (*s3.AbortMultipartUploadOutput, error)
}

// S3Presign signs S3 requests that someone else sends: a browser's upload
// of an object, or of one part of a multipart upload, straight to the
// bucket. Signing calls nothing; the URL carries the signer's rights until
// it expires. *s3.PresignClient has these methods.
type S3Presign interface {
	PresignPutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error)
	PresignUploadPart(ctx context.Context, in *s3.UploadPartInput, opts ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error)
}

// FSx is the part of the FSx API that makes Lustre file systems for a
// cluster and links them to its shared bucket.
type FSx interface {
	CreateFileSystem(ctx context.Context, in *fsx.CreateFileSystemInput, opts ...func(*fsx.Options)) (*fsx.CreateFileSystemOutput, error)
	DescribeFileSystems(ctx context.Context, in *fsx.DescribeFileSystemsInput, opts ...func(*fsx.Options)) (*fsx.DescribeFileSystemsOutput, error)
	DeleteFileSystem(ctx context.Context, in *fsx.DeleteFileSystemInput, opts ...func(*fsx.Options)) (*fsx.DeleteFileSystemOutput, error)
	CreateDataRepositoryAssociation(ctx context.Context, in *fsx.CreateDataRepositoryAssociationInput, opts ...func(*fsx.Options)) (*fsx.CreateDataRepositoryAssociationOutput, error)
	DescribeDataRepositoryAssociations(ctx context.Context, in *fsx.DescribeDataRepositoryAssociationsInput, opts ...func(*fsx.Options)) (*fsx.DescribeDataRepositoryAssociationsOutput, error)
	DeleteDataRepositoryAssociation(ctx context.Context, in *fsx.DeleteDataRepositoryAssociationInput, opts ...func(*fsx.Options)) (*fsx.DeleteDataRepositoryAssociationOutput, error)
}

// ModelHub is the model registry models are downloaded from: the Hugging
// Face Hub. The control plane only reads a model's metadata through it;
// the files move from the hub to the shared bucket inside the cluster.
type ModelHub interface {
	// Model returns model id's files at revision (a branch, a tag or a
	// commit), read with token ("" for none). A refusal is a *HubError.
	Model(ctx context.Context, id, revision, token string) (*HubModel, error)
}

// HubModel is a model at one revision.
type HubModel struct {
	ID       string
	Revision string
	// Commit is the commit the revision resolves to: what a download
	// fetches, so that a retry gets the same files.
	Commit string
	Gated  bool
	Files  []HubFile
}

// HubFile is one file of a model.
type HubFile struct {
	Path string
	Size int64
}

// HubError is the hub's refusal of a request.
type HubError struct {
	// Status is the HTTP status: 401 (no or a bad token), 403 (a gated
	// model the token is not granted), 404 (no such model or revision).
	Status  int
	Message string
}

func (e *HubError) Error() string { return fmt.Sprintf("model hub: %d %s", e.Status, e.Message) }

// Provider bundles the ports for one account and region.
type Provider struct {
	Name          string // "sim" or "aws"
	Region        string
	SageMaker     SageMaker
	EKS           EKS
	EC2           EC2
	IAM           IAM
	STS           STS
	ServiceQuotas ServiceQuotas
	S3            S3
	S3Presign     S3Presign
	FSx           FSx
	Hub           ModelHub
	// MLflow reads training metrics from MLflow tracking servers.
	MLflow MLflowTracking
	// Prometheus reads metrics from Amazon Managed Service for Prometheus
	// workspaces.
	Prometheus Prometheus
	Kubernetes Kubernetes
	Helm       Helm
	// SDKRetries says that the AWS ports retry throttled calls themselves
	// (the aws-sdk-go-v2 clients' standard retryer), so RetryReads leaves
	// them as they are rather than retrying each of the SDK's retries.
	SDKRetries bool
}

// Regions hands out the ports for each region the control plane works in.
type Regions interface {
	// DefaultRegion is the region used when a request names none.
	DefaultRegion() string
	// Provider returns the ports for region, or an error when the region is
	// unknown to the provider.
	Provider(region string) (*Provider, error)
}

// MLflowTracking reads the runs and metrics of SageMaker managed MLflow
// tracking servers through the MLflow REST API (SigV4-signed on the real
// provider, as the sagemaker-mlflow plugin signs it).
type MLflowTracking interface {
	// FindRun returns the newest run named runName in experiment on the
	// tracking server trackingServerArn, or nil when there is none (no
	// such experiment, or no such run yet).
	FindRun(ctx context.Context, trackingServerArn, experiment, runName string) (*MLflowRun, error)
	// MetricHistory returns the values of metric key logged to run runID,
	// in step order, at most limit of them (the newest when there are
	// more).
	MetricHistory(ctx context.Context, trackingServerArn, runID, key string, limit int) ([]MLflowMetric, error)
}

// MLflowServerServing reports whether a tracking server in SageMaker status
// serves the MLflow API: Created, or back to that after an update, a
// restart or maintenance. In every other status (Creating, Deleting,
// Stopped, a failure) its URL answers nothing.
func MLflowServerServing(status string) bool {
	switch status {
	case "Created", "Updated", "Started", "MaintenanceComplete":
		return true
	}
	return false
}

// MLflowRun is one MLflow run.
type MLflowRun struct {
	ID, Name, ExperimentID string
	// Status is MLflow's: RUNNING, SCHEDULED, FINISHED, FAILED, KILLED.
	Status     string
	Start, End time.Time
	// MetricKeys are the metrics the run logged, sorted.
	MetricKeys []string
}

// MLflowMetric is one logged value of a metric.
type MLflowMetric struct {
	Key       string
	Value     float64
	Step      int64
	Timestamp time.Time
}
