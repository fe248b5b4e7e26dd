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

// hpCall runs SageMaker operation op as call does, once the region's
// HyperPod clusters, and then the Kubernetes side of its EKS clusters (pods,
// managed Karpenter; see settleKube), are brought up to the moment of the
// call. Capacity the operation frees goes at once to nodes that wait for
// it, and the Kubernetes side reacts at once to what the operation did.
func hpCall[O any](ctx context.Context, a *sageMakerAPI, op string, fn func(t *txn) (*O, error)) (*O, error) {
	return call(ctx, a.w, svcSageMaker, a.region, op, func(t *txn) (*O, error) {
		t.advanceHyperPod()
		t.settleKube()
		out, err := fn(t)
		if err == nil {
			t.placeWaiting(t.now)
			t.settleKube()
		}
		return out, err
	})
}

// Real HyperPod latencies, divided by the world's speed. A cluster with
// instance groups sets up its cluster-level resources, then boots its nodes
// (see the node latencies in sagemaker_node_lifecycle.go).
const (
	hpSetupTime       = 3 * time.Minute
	hpCreateTime      = hpSetupTime + hpNodeBootTime // with instance groups to provision
	hpCreateEmptyTime = 4 * time.Minute              // without
	hpDeleteTime      = 5 * time.Minute
	hpUpdateTime      = 2 * time.Minute // a change that provisions no node
	hpAutoScalingTime = 3 * time.Minute // installing or removing the managed autoscaler
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
	ProvisioningMode string              `json:",omitempty"`
	AutoScaling      *hpAutoScalingRec   `json:",omitempty"`
	ClusterRole      string              `json:",omitempty"`
	TieredStorage    *hpTieredStorageRec `json:",omitempty"`
	Groups           []*hpGroupRec
	Tags             map[string]string `json:",omitempty"`
	Life             lifecycle
	// UpdatingUntil ends the Updating status an UpdateCluster started;
	// clusters with Continuous provisioning stay InService instead.
	UpdatingUntil *time.Time `json:",omitempty"`
	// Agenda holds the transitions still to come (see hpAction).
	Agenda    []hpAction   `json:",omitempty"`
	ActionSeq uint64       `json:",omitempty"`
	Events    []hpEventRec `json:",omitempty"`
	// AddRequests remembers BatchAddClusterNodes client tokens.
	AddRequests []hpAddRequestRec `json:",omitempty"`
}

// hpAutoScalingRec is the managed autoscaler of a cluster: installing
// (Creating) or removing (Deleting) for hpAutoScalingTime after Since.
type hpAutoScalingRec struct {
	Mode  string // Enable or Disable
	Type  string // Karpenter
	Since time.Time
}

// hpTieredStorageRec is the managed tiered checkpointing setting.
type hpTieredStorageRec struct {
	Mode       string // Enable or Disable
	Percentage *int32 `json:",omitempty"`
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
	if c.UpdatingUntil != nil && now.Before(*c.UpdatingUntil) {
		return smtypes.ClusterStatusUpdating
	}
	return smtypes.ClusterStatusInservice
}

// continuous tells whether the cluster provisions nodes continuously:
// partially, retrying until the target count is reached.
func (c *hpClusterRec) continuous() bool {
	return c.ProvisioningMode == string(smtypes.ClusterNodeProvisioningModeContinuous)
}

// automatic tells whether HyperPod reboots or replaces faulty nodes itself.
func (c *hpClusterRec) automatic() bool {
	return c.NodeRecovery == string(smtypes.ClusterNodeRecoveryAutomatic)
}

// alive tells whether the cluster runs nodes: not doomed to fail, not
// being deleted.
func (c *hpClusterRec) alive() bool {
	return c.Life.FailMessage == "" && c.Life.DeletingAt == nil
}

// group finds an instance group by name.
func (c *hpClusterRec) group(name string) *hpGroupRec {
	for _, g := range c.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
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

// hpClusterToChange finds a cluster for a call that changes it: the
// cluster must be InService or, with Continuous provisioning, which allows
// concurrent operations, Updating.
func (t *txn) hpClusterToChange(nameOrArn *string, op string) (*hpClusterRec, error) {
	c, err := t.hpCluster(nameOrArn)
	if err != nil {
		return nil, err
	}
	switch st := c.status(t.now); {
	case st == smtypes.ClusterStatusInservice, st == smtypes.ClusterStatusUpdating && c.continuous():
		return c, nil
	case st == smtypes.ClusterStatusFailed:
		return nil, sageMakerValidation("Cluster %s is Failed, so %s can not change it. Delete the cluster and create it again.", c.Name, op)
	default:
		return nil, &smtypes.ConflictException{Message: aws.String(fmt.Sprintf(
			"Cluster %s is %s; %s needs it InService. Wait until DescribeCluster shows InService, then retry.", c.Name, st, op))}
	}
}

func (t *txn) hpClusterOut(c *hpClusterRec) *sagemaker.DescribeClusterOutput {
	status := c.status(t.now)
	out := &sagemaker.DescribeClusterOutput{
		ClusterArn: aws.String(c.Arn), ClusterName: aws.String(c.Name), ClusterStatus: status,
		CreationTime: aws.Time(c.Life.CreatedAt), NodeRecovery: smtypes.ClusterNodeRecovery(c.NodeRecovery),
		NodeProvisioningMode: smtypes.ClusterNodeProvisioningMode(c.ProvisioningMode),
		Orchestrator:         &smtypes.ClusterOrchestrator{Eks: &smtypes.ClusterOrchestratorEksConfig{ClusterArn: aws.String(c.EKSArn)}},
		VpcConfig:            &smtypes.VpcConfig{Subnets: slices.Clone(c.Subnets), SecurityGroupIds: slices.Clone(c.SecurityGroups)},
		AutoScaling:          t.autoScalingOut(c.AutoScaling),
	}
	if c.ClusterRole != "" {
		out.ClusterRole = aws.String(c.ClusterRole)
	}
	if ts := c.TieredStorage; ts != nil {
		out.TieredStorageConfig = &smtypes.ClusterTieredStorageConfig{Mode: smtypes.ClusterConfigMode(ts.Mode), InstanceMemoryAllocationPercentage: copyInt32(ts.Percentage)}
	}
	if status == smtypes.ClusterStatusFailed {
		out.FailureMessage = aws.String(c.Life.FailMessage)
	}
	for _, g := range c.Groups {
		out.InstanceGroups = append(out.InstanceGroups, t.hpGroupOut(g, status))
	}
	return out
}

// autoScalingOut reports the autoscaler: Creating then InService once
// enabled, Deleting for a while once disabled.
func (t *txn) autoScalingOut(a *hpAutoScalingRec) *smtypes.ClusterAutoScalingConfigOutput {
	if a == nil {
		return nil
	}
	out := &smtypes.ClusterAutoScalingConfigOutput{Mode: smtypes.ClusterAutoScalingMode(a.Mode), AutoScalerType: smtypes.ClusterAutoScalerType(a.Type)}
	settling := t.now.Before(a.Since.Add(t.w.scale(hpAutoScalingTime)))
	switch {
	case a.Mode == string(smtypes.ClusterAutoScalingModeEnable) && settling:
		out.Status = smtypes.ClusterAutoScalingStatusCreating
	case a.Mode == string(smtypes.ClusterAutoScalingModeEnable):
		out.Status = smtypes.ClusterAutoScalingStatusInservice
	case settling:
		out.Status = smtypes.ClusterAutoScalingStatusDeleting
	}
	return out
}

// DescribeCluster describes a cluster, named by name or ARN.
func (a *sageMakerAPI) DescribeCluster(ctx context.Context, in *sagemaker.DescribeClusterInput, _ ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterOutput, error) {
	return hpCall(ctx, a, "DescribeCluster", func(t *txn) (*sagemaker.DescribeClusterOutput, error) {
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
	return hpCall(ctx, a, "ListClusters", func(t *txn) (*sagemaker.ListClustersOutput, error) {
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
		items, next, err := page(all, in.NextToken, t.pageSize(svcSageMaker, "ListClusters", in.MaxResults), 100)
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
	return hpCall(ctx, a, "DeleteCluster", func(t *txn) (*sagemaker.DeleteClusterOutput, error) {
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
