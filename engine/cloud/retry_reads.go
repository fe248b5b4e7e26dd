package cloud

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// RetryFunc runs read, and runs it again while it fails with an error worth
// retrying (throttling, a server fault) and its bound allows; it returns
// read's last error. ops.ReadRetry.Do is one.
type RetryFunc func(ctx context.Context, read func(context.Context) error) error

// RetryReads returns a copy of p whose reads (every Describe, List, Get and Head
// call, and Helm's Release) go through retry, for the reads a request
// makes while it is checked: one throttled read must not fail the request.
// Calls that change something pass straight through, once each, as do the
// Kubernetes clients, and the AWS ports of a provider whose SDK clients
// retry on their own (Provider.SDKRetries). Phases need no such wrapper: the runner already
// polls Observe again after a retryable error.
func RetryReads(p *Provider, retry RetryFunc) *Provider {
	out := *p
	if p.Helm != nil {
		out.Helm = retryingHelm{p.Helm, retry}
	}
	if p.SDKRetries {
		return &out
	}
	// A port the provider lacks stays nil.
	if p.SageMaker != nil {
		out.SageMaker = retryingSageMaker{p.SageMaker, retry}
	}
	if p.EKS != nil {
		out.EKS = retryingEKS{p.EKS, retry}
	}
	if p.EC2 != nil {
		out.EC2 = retryingEC2{p.EC2, retry}
	}
	if p.IAM != nil {
		out.IAM = retryingIAM{p.IAM, retry}
	}
	if p.STS != nil {
		out.STS = retryingSTS{p.STS, retry}
	}
	if p.ServiceQuotas != nil {
		out.ServiceQuotas = retryingServiceQuotas{p.ServiceQuotas, retry}
	}
	if p.S3 != nil {
		out.S3 = retryingS3{p.S3, retry}
	}
	if p.FSx != nil {
		out.FSx = retryingFSx{p.FSx, retry}
	}
	return &out
}

// read runs call through retry and returns its last output.
func read[O any](ctx context.Context, retry RetryFunc, call func(context.Context) (*O, error)) (*O, error) {
	var out *O
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		out, err = call(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// retryingHelm retries Release; Install and Uninstall pass through.
type retryingHelm struct {
	Helm
	retry RetryFunc
}

func (h retryingHelm) Release(ctx context.Context, eksCluster, namespace, name string) (*HelmRelease, error) {
	return read(ctx, h.retry, func(ctx context.Context) (*HelmRelease, error) {
		return h.Helm.Release(ctx, eksCluster, namespace, name)
	})
}

// retryingSageMaker retries the reads of SageMaker; its other calls pass through.
type retryingSageMaker struct {
	SageMaker
	retry RetryFunc
}

func (c retryingSageMaker) DescribeCluster(ctx context.Context, in *sagemaker.DescribeClusterInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.DescribeClusterOutput, error) {
		return c.SageMaker.DescribeCluster(ctx, in, opts...)
	})
}

func (c retryingSageMaker) ListClusters(ctx context.Context, in *sagemaker.ListClustersInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListClustersOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.ListClustersOutput, error) {
		return c.SageMaker.ListClusters(ctx, in, opts...)
	})
}

func (c retryingSageMaker) ListClusterNodes(ctx context.Context, in *sagemaker.ListClusterNodesInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListClusterNodesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.ListClusterNodesOutput, error) {
		return c.SageMaker.ListClusterNodes(ctx, in, opts...)
	})
}

func (c retryingSageMaker) DescribeClusterNode(ctx context.Context, in *sagemaker.DescribeClusterNodeInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterNodeOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.DescribeClusterNodeOutput, error) {
		return c.SageMaker.DescribeClusterNode(ctx, in, opts...)
	})
}

func (c retryingSageMaker) ListClusterEvents(ctx context.Context, in *sagemaker.ListClusterEventsInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListClusterEventsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.ListClusterEventsOutput, error) {
		return c.SageMaker.ListClusterEvents(ctx, in, opts...)
	})
}

func (c retryingSageMaker) DescribeClusterEvent(ctx context.Context, in *sagemaker.DescribeClusterEventInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterEventOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.DescribeClusterEventOutput, error) {
		return c.SageMaker.DescribeClusterEvent(ctx, in, opts...)
	})
}

func (c retryingSageMaker) ListTrainingPlans(ctx context.Context, in *sagemaker.ListTrainingPlansInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListTrainingPlansOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.ListTrainingPlansOutput, error) {
		return c.SageMaker.ListTrainingPlans(ctx, in, opts...)
	})
}

func (c retryingSageMaker) DescribeTrainingPlan(ctx context.Context, in *sagemaker.DescribeTrainingPlanInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeTrainingPlanOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.DescribeTrainingPlanOutput, error) {
		return c.SageMaker.DescribeTrainingPlan(ctx, in, opts...)
	})
}

func (c retryingSageMaker) DescribeMlflowTrackingServer(ctx context.Context, in *sagemaker.DescribeMlflowTrackingServerInput, opts ...func(*sagemaker.Options)) (*sagemaker.DescribeMlflowTrackingServerOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.DescribeMlflowTrackingServerOutput, error) {
		return c.SageMaker.DescribeMlflowTrackingServer(ctx, in, opts...)
	})
}

func (c retryingSageMaker) ListMlflowTrackingServers(ctx context.Context, in *sagemaker.ListMlflowTrackingServersInput, opts ...func(*sagemaker.Options)) (*sagemaker.ListMlflowTrackingServersOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sagemaker.ListMlflowTrackingServersOutput, error) {
		return c.SageMaker.ListMlflowTrackingServers(ctx, in, opts...)
	})
}

// retryingEKS retries the reads of EKS; its other calls pass through.
type retryingEKS struct {
	EKS
	retry RetryFunc
}

func (c retryingEKS) DescribeCluster(ctx context.Context, in *eks.DescribeClusterInput, opts ...func(*eks.Options)) (*eks.DescribeClusterOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.DescribeClusterOutput, error) {
		return c.EKS.DescribeCluster(ctx, in, opts...)
	})
}

func (c retryingEKS) ListClusters(ctx context.Context, in *eks.ListClustersInput, opts ...func(*eks.Options)) (*eks.ListClustersOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.ListClustersOutput, error) {
		return c.EKS.ListClusters(ctx, in, opts...)
	})
}

func (c retryingEKS) DescribeAddon(ctx context.Context, in *eks.DescribeAddonInput, opts ...func(*eks.Options)) (*eks.DescribeAddonOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.DescribeAddonOutput, error) {
		return c.EKS.DescribeAddon(ctx, in, opts...)
	})
}

func (c retryingEKS) ListAddons(ctx context.Context, in *eks.ListAddonsInput, opts ...func(*eks.Options)) (*eks.ListAddonsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.ListAddonsOutput, error) { return c.EKS.ListAddons(ctx, in, opts...) })
}

func (c retryingEKS) DescribeAccessEntry(ctx context.Context, in *eks.DescribeAccessEntryInput, opts ...func(*eks.Options)) (*eks.DescribeAccessEntryOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.DescribeAccessEntryOutput, error) {
		return c.EKS.DescribeAccessEntry(ctx, in, opts...)
	})
}

func (c retryingEKS) ListAssociatedAccessPolicies(ctx context.Context, in *eks.ListAssociatedAccessPoliciesInput, opts ...func(*eks.Options)) (*eks.ListAssociatedAccessPoliciesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.ListAssociatedAccessPoliciesOutput, error) {
		return c.EKS.ListAssociatedAccessPolicies(ctx, in, opts...)
	})
}

func (c retryingEKS) ListAccessEntries(ctx context.Context, in *eks.ListAccessEntriesInput, opts ...func(*eks.Options)) (*eks.ListAccessEntriesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.ListAccessEntriesOutput, error) {
		return c.EKS.ListAccessEntries(ctx, in, opts...)
	})
}

func (c retryingEKS) ListPodIdentityAssociations(ctx context.Context, in *eks.ListPodIdentityAssociationsInput, opts ...func(*eks.Options)) (*eks.ListPodIdentityAssociationsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.ListPodIdentityAssociationsOutput, error) {
		return c.EKS.ListPodIdentityAssociations(ctx, in, opts...)
	})
}

// retryingEC2 retries the reads of EC2; its other calls pass through.
type retryingEC2 struct {
	EC2
	retry RetryFunc
}

func (c retryingEC2) DescribeRegions(ctx context.Context, in *ec2.DescribeRegionsInput, opts ...func(*ec2.Options)) (*ec2.DescribeRegionsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeRegionsOutput, error) {
		return c.EC2.DescribeRegions(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeAvailabilityZones(ctx context.Context, in *ec2.DescribeAvailabilityZonesInput, opts ...func(*ec2.Options)) (*ec2.DescribeAvailabilityZonesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeAvailabilityZonesOutput, error) {
		return c.EC2.DescribeAvailabilityZones(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeInstanceTypesOutput, error) {
		return c.EC2.DescribeInstanceTypes(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeInstanceTypeOfferings(ctx context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
		return c.EC2.DescribeInstanceTypeOfferings(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, opts ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeVpcsOutput, error) {
		return c.EC2.DescribeVpcs(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeSubnetsOutput, error) {
		return c.EC2.DescribeSubnets(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeInternetGateways(ctx context.Context, in *ec2.DescribeInternetGatewaysInput, opts ...func(*ec2.Options)) (*ec2.DescribeInternetGatewaysOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeInternetGatewaysOutput, error) {
		return c.EC2.DescribeInternetGateways(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeAddresses(ctx context.Context, in *ec2.DescribeAddressesInput, opts ...func(*ec2.Options)) (*ec2.DescribeAddressesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeAddressesOutput, error) {
		return c.EC2.DescribeAddresses(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeNatGateways(ctx context.Context, in *ec2.DescribeNatGatewaysInput, opts ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeNatGatewaysOutput, error) {
		return c.EC2.DescribeNatGateways(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, opts ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeRouteTablesOutput, error) {
		return c.EC2.DescribeRouteTables(ctx, in, opts...)
	})
}

func (c retryingEC2) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, opts ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*ec2.DescribeSecurityGroupsOutput, error) {
		return c.EC2.DescribeSecurityGroups(ctx, in, opts...)
	})
}

// retryingIAM retries the reads of IAM; its other calls pass through.
type retryingIAM struct {
	IAM
	retry RetryFunc
}

func (c retryingIAM) GetRole(ctx context.Context, in *iam.GetRoleInput, opts ...func(*iam.Options)) (*iam.GetRoleOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.GetRoleOutput, error) { return c.IAM.GetRole(ctx, in, opts...) })
}

func (c retryingIAM) ListRoles(ctx context.Context, in *iam.ListRolesInput, opts ...func(*iam.Options)) (*iam.ListRolesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.ListRolesOutput, error) { return c.IAM.ListRoles(ctx, in, opts...) })
}

func (c retryingIAM) ListAttachedRolePolicies(ctx context.Context, in *iam.ListAttachedRolePoliciesInput, opts ...func(*iam.Options)) (*iam.ListAttachedRolePoliciesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.ListAttachedRolePoliciesOutput, error) {
		return c.IAM.ListAttachedRolePolicies(ctx, in, opts...)
	})
}

func (c retryingIAM) ListRolePolicies(ctx context.Context, in *iam.ListRolePoliciesInput, opts ...func(*iam.Options)) (*iam.ListRolePoliciesOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.ListRolePoliciesOutput, error) {
		return c.IAM.ListRolePolicies(ctx, in, opts...)
	})
}

func (c retryingIAM) GetOpenIDConnectProvider(ctx context.Context, in *iam.GetOpenIDConnectProviderInput, opts ...func(*iam.Options)) (*iam.GetOpenIDConnectProviderOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.GetOpenIDConnectProviderOutput, error) {
		return c.IAM.GetOpenIDConnectProvider(ctx, in, opts...)
	})
}

func (c retryingIAM) ListOpenIDConnectProviders(ctx context.Context, in *iam.ListOpenIDConnectProvidersInput, opts ...func(*iam.Options)) (*iam.ListOpenIDConnectProvidersOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.ListOpenIDConnectProvidersOutput, error) {
		return c.IAM.ListOpenIDConnectProviders(ctx, in, opts...)
	})
}

func (c retryingIAM) GetPolicy(ctx context.Context, in *iam.GetPolicyInput, opts ...func(*iam.Options)) (*iam.GetPolicyOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.GetPolicyOutput, error) { return c.IAM.GetPolicy(ctx, in, opts...) })
}

func (c retryingIAM) GetPolicyVersion(ctx context.Context, in *iam.GetPolicyVersionInput, opts ...func(*iam.Options)) (*iam.GetPolicyVersionOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.GetPolicyVersionOutput, error) {
		return c.IAM.GetPolicyVersion(ctx, in, opts...)
	})
}

func (c retryingIAM) ListPolicyVersions(ctx context.Context, in *iam.ListPolicyVersionsInput, opts ...func(*iam.Options)) (*iam.ListPolicyVersionsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*iam.ListPolicyVersionsOutput, error) {
		return c.IAM.ListPolicyVersions(ctx, in, opts...)
	})
}

// retryingSTS retries the reads of STS; its other calls pass through.
type retryingSTS struct {
	STS
	retry RetryFunc
}

func (c retryingSTS) GetCallerIdentity(ctx context.Context, in *sts.GetCallerIdentityInput, opts ...func(*sts.Options)) (*sts.GetCallerIdentityOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*sts.GetCallerIdentityOutput, error) {
		return c.STS.GetCallerIdentity(ctx, in, opts...)
	})
}

// retryingServiceQuotas retries the reads of ServiceQuotas; its other calls pass through.
type retryingServiceQuotas struct {
	ServiceQuotas
	retry RetryFunc
}

func (c retryingServiceQuotas) ListServiceQuotas(ctx context.Context, in *servicequotas.ListServiceQuotasInput, opts ...func(*servicequotas.Options)) (*servicequotas.ListServiceQuotasOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*servicequotas.ListServiceQuotasOutput, error) {
		return c.ServiceQuotas.ListServiceQuotas(ctx, in, opts...)
	})
}

// retryingS3 retries the reads of S3; its other calls pass through.
type retryingS3 struct {
	S3
	retry RetryFunc
}

func (c retryingS3) HeadBucket(ctx context.Context, in *s3.HeadBucketInput, opts ...func(*s3.Options)) (*s3.HeadBucketOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.HeadBucketOutput, error) {
		return c.S3.HeadBucket(ctx, in, opts...)
	})
}

func (c retryingS3) GetBucketLocation(ctx context.Context, in *s3.GetBucketLocationInput, opts ...func(*s3.Options)) (*s3.GetBucketLocationOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.GetBucketLocationOutput, error) {
		return c.S3.GetBucketLocation(ctx, in, opts...)
	})
}

func (c retryingS3) ListBuckets(ctx context.Context, in *s3.ListBucketsInput, opts ...func(*s3.Options)) (*s3.ListBucketsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.ListBucketsOutput, error) {
		return c.S3.ListBuckets(ctx, in, opts...)
	})
}

func (c retryingS3) GetBucketTagging(ctx context.Context, in *s3.GetBucketTaggingInput, opts ...func(*s3.Options)) (*s3.GetBucketTaggingOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.GetBucketTaggingOutput, error) {
		return c.S3.GetBucketTagging(ctx, in, opts...)
	})
}

func (c retryingS3) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.ListObjectsV2Output, error) {
		return c.S3.ListObjectsV2(ctx, in, opts...)
	})
}

func (c retryingS3) HeadObject(ctx context.Context, in *s3.HeadObjectInput, opts ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.HeadObjectOutput, error) {
		return c.S3.HeadObject(ctx, in, opts...)
	})
}

func (c retryingS3) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.GetObjectOutput, error) {
		return c.S3.GetObject(ctx, in, opts...)
	})
}

func (c retryingS3) GetBucketCors(ctx context.Context, in *s3.GetBucketCorsInput, opts ...func(*s3.Options)) (*s3.GetBucketCorsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.GetBucketCorsOutput, error) {
		return c.S3.GetBucketCors(ctx, in, opts...)
	})
}

func (c retryingS3) ListParts(ctx context.Context, in *s3.ListPartsInput, opts ...func(*s3.Options)) (*s3.ListPartsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*s3.ListPartsOutput, error) {
		return c.S3.ListParts(ctx, in, opts...)
	})
}

// retryingFSx retries the reads of FSx; its other calls pass through.
type retryingFSx struct {
	FSx
	retry RetryFunc
}

func (c retryingFSx) DescribeFileSystems(ctx context.Context, in *fsx.DescribeFileSystemsInput, opts ...func(*fsx.Options)) (*fsx.DescribeFileSystemsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*fsx.DescribeFileSystemsOutput, error) {
		return c.FSx.DescribeFileSystems(ctx, in, opts...)
	})
}

func (c retryingFSx) DescribeDataRepositoryAssociations(ctx context.Context, in *fsx.DescribeDataRepositoryAssociationsInput, opts ...func(*fsx.Options)) (*fsx.DescribeDataRepositoryAssociationsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*fsx.DescribeDataRepositoryAssociationsOutput, error) {
		return c.FSx.DescribeDataRepositoryAssociations(ctx, in, opts...)
	})
}

func (c retryingEKS) DescribeNodegroup(ctx context.Context, in *eks.DescribeNodegroupInput, opts ...func(*eks.Options)) (*eks.DescribeNodegroupOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.DescribeNodegroupOutput, error) {
		return c.EKS.DescribeNodegroup(ctx, in, opts...)
	})
}

func (c retryingEKS) ListNodegroups(ctx context.Context, in *eks.ListNodegroupsInput, opts ...func(*eks.Options)) (*eks.ListNodegroupsOutput, error) {
	return read(ctx, c.retry, func(ctx context.Context) (*eks.ListNodegroupsOutput, error) {
		return c.EKS.ListNodegroups(ctx, in, opts...)
	})
}
