package sim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// hpNodeRef is a node with the group and cluster it belongs to.
type hpNodeRef struct {
	c *hpClusterRec
	g *hpGroupRec
	n *hpNodeRec
}

// nodeByInstance finds a node of c by instance id.
func (c *hpClusterRec) nodeByInstance(id string) (hpNodeRef, bool) {
	for _, g := range c.Groups {
		for _, n := range g.Nodes {
			if n.InstanceID != "" && n.InstanceID == id {
				return hpNodeRef{c, g, n}, true
			}
		}
	}
	return hpNodeRef{}, false
}

// nodeByLogicalID finds a node of c by logical id.
func (c *hpClusterRec) nodeByLogicalID(id string) (hpNodeRef, bool) {
	for _, g := range c.Groups {
		if n := g.node(id); n != nil {
			return hpNodeRef{c, g, n}, true
		}
	}
	return hpNodeRef{}, false
}

// ListClusterNodes lists the nodes of a cluster's instance groups, oldest
// first unless asked otherwise. Nodes that wait for an instance are listed
// only with IncludeNodeLogicalIds.
func (a *sageMakerAPI) ListClusterNodes(ctx context.Context, in *sagemaker.ListClusterNodesInput, _ ...func(*sagemaker.Options)) (*sagemaker.ListClusterNodesOutput, error) {
	return hpCall(ctx, a, "ListClusterNodes", func(t *txn) (*sagemaker.ListClusterNodesOutput, error) {
		in := orZero(in)
		if err := need("ListClusterNodesInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > 100) {
			return nil, sageMakerValidation("Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100", *in.MaxResults)
		}
		c, err := t.hpCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		var all []smtypes.ClusterNodeSummary
		for _, g := range c.Groups {
			if in.InstanceGroupNameContains != nil && !strings.Contains(g.Name, *in.InstanceGroupNameContains) {
				continue
			}
			for _, n := range g.Nodes {
				launched := n.LaunchedAt
				if (n.InstanceID == "" && !aws.ToBool(in.IncludeNodeLogicalIds)) ||
					(in.CreationTimeAfter != nil && !launched.After(*in.CreationTimeAfter)) ||
					(in.CreationTimeBefore != nil && !launched.Before(*in.CreationTimeBefore)) {
					continue
				}
				s := smtypes.ClusterNodeSummary{
					InstanceGroupName: aws.String(g.Name), InstanceId: optString(n.InstanceID),
					InstanceStatus: t.hpNodeStatusOut(c, n), InstanceType: smtypes.ClusterInstanceType(n.InstanceType),
					NodeLogicalId: aws.String(n.LogicalID), PrivateDnsHostname: optString(t.hpPrivateDNS(n.PrivateIP)),
					CurrentImageReleaseVersion: aws.String(n.imageVersion(g)), ImageVersionStatus: imageVersionStatus(n.imageVersion(g)),
				}
				if n.InstanceID != "" {
					s.LaunchTime = aws.Time(launched)
				}
				all = append(all, s)
			}
		}
		sortNodes(all, in.SortBy, in.SortOrder)
		items, next, err := page(all, in.NextToken, t.pageSize(svcSageMaker, "ListClusterNodes", in.MaxResults), 100)
		if err != nil {
			return nil, sageMakerValidation("The NextToken %q is invalid.", aws.ToString(in.NextToken))
		}
		return &sagemaker.ListClusterNodesOutput{ClusterNodeSummaries: items, NextToken: next}, nil
	})
}

// sortNodes orders node summaries by launch time (nodes that wait for an
// instance last) or by name (group, then instance id), ties broken by
// group, instance id and logical id.
func sortNodes(all []smtypes.ClusterNodeSummary, by smtypes.ClusterSortBy, order smtypes.SortOrder) {
	key := func(s smtypes.ClusterNodeSummary) string {
		return *s.InstanceGroupName + "/" + aws.ToString(s.InstanceId) + "/" + *s.NodeLogicalId
	}
	less := func(a, b smtypes.ClusterNodeSummary) bool {
		if by != smtypes.ClusterSortByName {
			switch {
			case a.LaunchTime == nil && b.LaunchTime != nil:
				return false
			case a.LaunchTime != nil && b.LaunchTime == nil:
				return true
			case a.LaunchTime != nil && !a.LaunchTime.Equal(*b.LaunchTime):
				return a.LaunchTime.Before(*b.LaunchTime)
			}
		}
		return key(a) < key(b)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if order == smtypes.SortOrderDescending {
			return less(all[j], all[i])
		}
		return less(all[i], all[j])
	})
}

// hpNodeStatusOut is a node's status and its message, if any.
func (t *txn) hpNodeStatusOut(c *hpClusterRec, n *hpNodeRec) *smtypes.ClusterInstanceStatusDetails {
	return &smtypes.ClusterInstanceStatusDetails{Status: t.hpInstanceStatus(c, n), Message: optString(n.Message)}
}

// DescribeClusterNode describes one node of a cluster, named by its
// instance id (NodeId) or its logical id (NodeLogicalId), which also names
// a node that waits for its instance.
func (a *sageMakerAPI) DescribeClusterNode(ctx context.Context, in *sagemaker.DescribeClusterNodeInput, _ ...func(*sagemaker.Options)) (*sagemaker.DescribeClusterNodeOutput, error) {
	return hpCall(ctx, a, "DescribeClusterNode", func(t *txn) (*sagemaker.DescribeClusterNodeOutput, error) {
		in := orZero(in)
		if err := need("DescribeClusterNodeInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		if (in.NodeId == nil) == (in.NodeLogicalId == nil) {
			return nil, sageMakerValidation("Specify either NodeId or NodeLogicalId, not both and not neither.")
		}
		c, err := t.hpCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		ref, found := c.nodeByLogicalID(aws.ToString(in.NodeLogicalId))
		id := aws.ToString(in.NodeLogicalId)
		if in.NodeId != nil {
			ref, found = c.nodeByInstance(*in.NodeId)
			id = *in.NodeId
		}
		if !found {
			return nil, &smtypes.ResourceNotFound{Message: aws.String(fmt.Sprintf(
				"Resource Not Found: Node %s not found in cluster %s. ListClusterNodes lists the cluster's nodes.", id, c.Name))}
		}
		return &sagemaker.DescribeClusterNodeOutput{NodeDetails: t.hpNodeDetails(ref)}, nil
	})
}

func (t *txn) hpNodeDetails(r hpNodeRef) *smtypes.ClusterNodeDetails {
	g, n := r.g, r.n
	zone, _ := t.w.catalog.zone(t.region, n.Zone)
	kube := g.kubeAt(t.now)
	d := &smtypes.ClusterNodeDetails{
		CapacityType: n.CapacityType, InstanceGroupName: aws.String(g.Name), InstanceId: optString(n.InstanceID),
		InstanceStatus: t.hpNodeStatusOut(r.c, n), InstanceStorageConfigs: storageOut(g.Storage),
		InstanceType: smtypes.ClusterInstanceType(n.InstanceType), NodeLogicalId: aws.String(n.LogicalID),
		Placement:          &smtypes.ClusterInstancePlacement{AvailabilityZone: aws.String(zone.Name), AvailabilityZoneId: aws.String(zone.ID)},
		PrivateDnsHostname: optString(t.hpPrivateDNS(n.PrivateIP)), PrivatePrimaryIp: optString(n.PrivateIP),
		ThreadsPerCore: aws.Int32(n.ThreadsPerCore), NetworkInterface: g.networkInterfaceOut(),
		CurrentImageReleaseVersion: aws.String(n.imageVersion(g)), DesiredImageReleaseVersion: aws.String(n.imageVersion(g)),
		ImageVersionStatus: imageVersionStatus(n.imageVersion(g)),
	}
	if n.InstanceID != "" {
		d.LaunchTime = aws.Time(n.LaunchedAt)
	}
	if !kube.empty() || !g.Kube.empty() {
		d.KubernetesConfig = &smtypes.ClusterKubernetesConfigNodeDetails{
			CurrentLabels: maps.Clone(kube.Labels), CurrentTaints: taintsOut(kube.Taints),
			DesiredLabels: maps.Clone(g.Kube.Labels), DesiredTaints: taintsOut(g.Kube.Taints),
		}
	}
	if lc := g.LifeCycle; lc != nil {
		d.LifeCycleConfig = &smtypes.ClusterLifeCycleConfig{SourceS3Uri: copyString(lc.SourceS3Uri), OnCreate: copyString(lc.OnCreate), OnInitComplete: copyString(lc.OnInitComplete)}
	}
	if g.OverrideSubnets != nil {
		d.OverrideVpcConfig = &smtypes.VpcConfig{Subnets: slices.Clone(g.OverrideSubnets), SecurityGroupIds: slices.Clone(g.OverrideSGs)}
	}
	return d
}
