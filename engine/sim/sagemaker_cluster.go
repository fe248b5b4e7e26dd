package sim

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

// sageMakerAPI is one region's view of the simulated SageMaker HyperPod.
type sageMakerAPI struct {
	w      *World
	region string
}

var _ cloud.SageMaker = (*sageMakerAPI)(nil)

// Real HyperPod latencies, divided by the world's speed.
const (
	hpCreateTime      = 8 * time.Minute // with instance groups to provision
	hpCreateEmptyTime = 4 * time.Minute // without
	hpDeleteTime      = 5 * time.Minute
)

// hpNamePattern is the pattern of cluster and instance group names.
var hpNamePattern = regexp.MustCompile(`^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$`)

// hpClusterRec is a HyperPod cluster orchestrated by an EKS cluster.
type hpClusterRec struct {
	Name             string
	Arn              string
	EKSArn           string
	Subnets          []string
	SecurityGroups   []string
	NodeRecovery     string
	ProvisioningMode string `json:",omitempty"`
	Groups           []*hpGroupRec
	Tags             map[string]string `json:",omitempty"`
	Life             lifecycle
}

// hpGroupRec is an instance group, placed in the zone of one of its
// subnets. A flexible group (InstanceRequirements) lists its types in
// priority order and runs the first one its zone offers.
type hpGroupRec struct {
	Name             string
	InstanceType     string   // the type it runs, e.g. "ml.p5.48xlarge"
	RequirementTypes []string `json:",omitempty"`
	Count            int32
	MinCount         *int32 `json:",omitempty"`
	ExecutionRole    string
	ThreadsPerCore   int32
	OverrideSubnets  []string      `json:",omitempty"`
	OverrideSGs      []string      `json:",omitempty"`
	LifeCycle        *lifeCycleRec `json:",omitempty"`
	SubnetID         string
	Zone             string
	Nodes            []hpNodeRec `json:",omitempty"`
}

// lifeCycleRec is an instance group's lifecycle configuration.
type lifeCycleRec struct {
	SourceS3Uri    *string `json:",omitempty"`
	OnCreate       *string `json:",omitempty"`
	OnInitComplete *string `json:",omitempty"`
}

type hpNodeRec struct {
	InstanceID string
	LogicalID  string
	PrivateIP  string
}

func (c *hpClusterRec) usesSubnet(id string) bool {
	for _, s := range c.Subnets {
		if s == id {
			return true
		}
	}
	for _, g := range c.Groups {
		for _, s := range g.OverrideSubnets {
			if s == id {
				return true
			}
		}
	}
	return false
}

func (c *hpClusterRec) usesSecurityGroup(id string) bool {
	for _, s := range c.SecurityGroups {
		if s == id {
			return true
		}
	}
	for _, g := range c.Groups {
		for _, s := range g.OverrideSGs {
			if s == id {
				return true
			}
		}
	}
	return false
}

func (c *hpClusterRec) status(now time.Time) smtypes.ClusterStatus {
	switch c.Life.phase(now) {
	case phaseCreating:
		return smtypes.ClusterStatusCreating
	case phaseFailed:
		return smtypes.ClusterStatusFailed
	case phaseDeleting, phaseGone:
		return smtypes.ClusterStatusDeleting
	}
	return smtypes.ClusterStatusInservice
}

// hpCluster finds a cluster by name or ARN.
func (t *txn) hpCluster(nameOrArn *string) (*hpClusterRec, error) {
	key := aws.ToString(nameOrArn)
	if c := t.rs.HyperPod[key]; c != nil {
		return c, nil
	}
	for _, c := range t.rs.HyperPod {
		if c.Arn == key {
			return c, nil
		}
	}
	return nil, &smtypes.ResourceNotFound{Message: aws.String(fmt.Sprintf("Resource Not Found: Cluster %s not found.", key))}
}

func (t *txn) hpClusterOut(c *hpClusterRec) *sagemaker.DescribeClusterOutput {
	status := c.status(t.now)
	out := &sagemaker.DescribeClusterOutput{
		ClusterArn: aws.String(c.Arn), ClusterName: aws.String(c.Name), ClusterStatus: status,
		CreationTime: aws.Time(c.Life.CreatedAt), NodeRecovery: smtypes.ClusterNodeRecovery(c.NodeRecovery),
		NodeProvisioningMode: smtypes.ClusterNodeProvisioningMode(c.ProvisioningMode),
		Orchestrator:         &smtypes.ClusterOrchestrator{Eks: &smtypes.ClusterOrchestratorEksConfig{ClusterArn: aws.String(c.EKSArn)}},
		VpcConfig:            &smtypes.VpcConfig{Subnets: slices.Clone(c.Subnets), SecurityGroupIds: slices.Clone(c.SecurityGroups)},
	}
	if status == smtypes.ClusterStatusFailed {
		out.FailureMessage = aws.String(c.Life.FailMessage)
	}
	for _, g := range c.Groups {
		out.InstanceGroups = append(out.InstanceGroups, t.hpGroupOut(g, status))
	}
	return out
}

func (t *txn) hpGroupOut(g *hpGroupRec, cluster smtypes.ClusterStatus) smtypes.ClusterInstanceGroupDetails {
	status, current := smtypes.InstanceGroupStatusCreating, int32(0)
	switch cluster {
	case smtypes.ClusterStatusInservice:
		status, current = smtypes.InstanceGroupStatusInservice, g.Count
	case smtypes.ClusterStatusFailed:
		status = smtypes.InstanceGroupStatusFailed
	case smtypes.ClusterStatusDeleting:
		status = smtypes.InstanceGroupStatusDeleting
	}
	out := smtypes.ClusterInstanceGroupDetails{
		InstanceGroupName: aws.String(g.Name), Status: status, CurrentCount: aws.Int32(current), TargetCount: aws.Int32(g.Count),
		MinCount: copyInt32(g.MinCount), ExecutionRole: aws.String(g.ExecutionRole), ThreadsPerCore: aws.Int32(g.ThreadsPerCore),
	}
	if lc := g.LifeCycle; lc != nil {
		out.LifeCycleConfig = &smtypes.ClusterLifeCycleConfig{
			SourceS3Uri: copyString(lc.SourceS3Uri), OnCreate: copyString(lc.OnCreate), OnInitComplete: copyString(lc.OnInitComplete),
		}
	}
	if g.RequirementTypes == nil {
		out.InstanceType = smtypes.ClusterInstanceType(g.InstanceType)
	} else {
		var types []smtypes.ClusterInstanceType
		for _, typ := range g.RequirementTypes {
			types = append(types, smtypes.ClusterInstanceType(typ))
		}
		out.InstanceRequirements = &smtypes.ClusterInstanceRequirementDetails{CurrentInstanceTypes: types, DesiredInstanceTypes: types}
		out.InstanceTypeDetails = []smtypes.ClusterInstanceTypeDetail{{
			InstanceType: smtypes.ClusterInstanceType(g.InstanceType), CurrentCount: aws.Int32(current), ThreadsPerCore: aws.Int32(g.ThreadsPerCore),
		}}
	}
	if g.OverrideSubnets != nil {
		out.OverrideVpcConfig = &smtypes.VpcConfig{Subnets: slices.Clone(g.OverrideSubnets), SecurityGroupIds: slices.Clone(g.OverrideSGs)}
	}
	return out
}

// DescribeCluster describes a cluster, named by name or ARN.
func (a *sageMakerAPI) DescribeCluster(ctx context.Context, in *sagemaker.DescribeClusterInput, _ ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "DescribeCluster", func(t *txn) (*sagemaker.DescribeClusterOutput, error) {
		in := orZero(in)
		if err := need("DescribeClusterInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, err := t.hpCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		return t.hpClusterOut(c), nil
	})
}

// ListClusters lists cluster summaries, newest first unless asked
// otherwise, filtered by NameContains and creation time.
func (a *sageMakerAPI) ListClusters(ctx context.Context, in *sagemaker.ListClustersInput, _ ...func(*sagemaker.Options)) (*sagemaker.ListClustersOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "ListClusters", func(t *txn) (*sagemaker.ListClustersOutput, error) {
		in := orZero(in)
		if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > 100) {
			return nil, sageMakerValidation("Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100", *in.MaxResults)
		}
		var clusters []*hpClusterRec
		for _, c := range t.rs.HyperPod {
			created := c.Life.CreatedAt
			if (in.NameContains != nil && !strings.Contains(c.Name, *in.NameContains)) || in.TrainingPlanArn != nil ||
				(in.CreationTimeAfter != nil && !created.After(*in.CreationTimeAfter)) ||
				(in.CreationTimeBefore != nil && !created.Before(*in.CreationTimeBefore)) {
				continue
			}
			clusters = append(clusters, c)
		}
		sortClusters(clusters, in.SortBy, in.SortOrder)
		var all []smtypes.ClusterSummary
		for _, c := range clusters {
			all = append(all, smtypes.ClusterSummary{
				ClusterArn: aws.String(c.Arn), ClusterName: aws.String(c.Name), ClusterStatus: c.status(t.now), CreationTime: aws.Time(c.Life.CreatedAt),
			})
		}
		items, next, err := page(all, in.NextToken, in.MaxResults, 100)
		if err != nil {
			return nil, sageMakerValidation("The NextToken %q is invalid.", aws.ToString(in.NextToken))
		}
		return &sagemaker.ListClustersOutput{ClusterSummaries: items, NextToken: next}, nil
	})
}

func sortClusters(cs []*hpClusterRec, by smtypes.ClusterSortBy, order smtypes.SortOrder) {
	less := func(a, b *hpClusterRec) bool {
		if by == smtypes.ClusterSortByName {
			return a.Name < b.Name
		}
		if !a.Life.CreatedAt.Equal(b.Life.CreatedAt) {
			return a.Life.CreatedAt.Before(b.Life.CreatedAt)
		}
		return a.Name < b.Name
	}
	sort.Slice(cs, func(i, j int) bool {
		if order == smtypes.SortOrderAscending {
			return less(cs[i], cs[j])
		}
		return less(cs[j], cs[i])
	})
}

// DeleteCluster starts deleting a cluster in any state but Deleting:
// Deleting for about five minutes (divided by the speed), then gone.
func (a *sageMakerAPI) DeleteCluster(ctx context.Context, in *sagemaker.DeleteClusterInput, _ ...func(*sagemaker.Options)) (*sagemaker.DeleteClusterOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "DeleteCluster", func(t *txn) (*sagemaker.DeleteClusterOutput, error) {
		in := orZero(in)
		if err := need("DeleteClusterInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, err := t.hpCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		if c.Life.DeletingAt != nil {
			return nil, &smtypes.ConflictException{Message: aws.String(fmt.Sprintf("Cluster %s is already being deleted.", c.Name))}
		}
		c.Life.startDeleting(t.now, t.after(hpDeleteTime))
		return &sagemaker.DeleteClusterOutput{ClusterArn: aws.String(c.Arn)}, nil
	})
}

// copyString and copyInt32 copy optional values between the world's records
// and what clients hold, so neither can change the other.
func copyString(p *string) *string {
	if p == nil {
		return nil
	}
	return aws.String(*p)
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	return aws.Int32(*p)
}
