package sim

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// nodeStatus is the status of every node of a cluster in status st: nodes
// are Pending until the cluster is InService, then Running, and shutting
// down while it is deleted. A Failed cluster has rolled its nodes back.
func nodeStatus(st smtypes.ClusterStatus) (smtypes.ClusterInstanceStatus, bool) {
	switch st {
	case smtypes.ClusterStatusCreating:
		return smtypes.ClusterInstanceStatusPending, true
	case smtypes.ClusterStatusInservice:
		return smtypes.ClusterInstanceStatusRunning, true
	case smtypes.ClusterStatusDeleting:
		return smtypes.ClusterInstanceStatusShuttingDown, true
	}
	return "", false
}

// ListClusterNodes lists the nodes of a cluster's instance groups.
func (a *sageMakerAPI) ListClusterNodes(ctx context.Context, in *sagemaker.ListClusterNodesInput, _ ...func(*sagemaker.Options)) (*sagemaker.ListClusterNodesOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "ListClusterNodes", func(t *txn) (*sagemaker.ListClusterNodesOutput, error) {
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
		status, ok := nodeStatus(c.status(t.now))
		var all []smtypes.ClusterNodeSummary
		launched := c.Life.CreatedAt
		if ok && (in.CreationTimeAfter == nil || launched.After(*in.CreationTimeAfter)) &&
			(in.CreationTimeBefore == nil || launched.Before(*in.CreationTimeBefore)) {
			for _, g := range c.Groups {
				if in.InstanceGroupNameContains != nil && !strings.Contains(g.Name, *in.InstanceGroupNameContains) {
					continue
				}
				for _, n := range g.Nodes {
					all = append(all, smtypes.ClusterNodeSummary{
						InstanceGroupName:  aws.String(g.Name),
						InstanceId:         aws.String(n.InstanceID),
						InstanceStatus:     &smtypes.ClusterInstanceStatusDetails{Status: status},
						InstanceType:       smtypes.ClusterInstanceType(g.InstanceType),
						LaunchTime:         aws.Time(launched),
						NodeLogicalId:      aws.String(n.LogicalID),
						PrivateDnsHostname: aws.String(fmt.Sprintf("ip-%s.%s.compute.internal", strings.ReplaceAll(n.PrivateIP, ".", "-"), t.region)),
					})
				}
			}
		}
		// Every node of a cluster launches together, so creation time ties
		// are broken by name, whatever the order.
		if in.SortBy == smtypes.ClusterSortByName || in.SortOrder == smtypes.SortOrderDescending {
			sort.SliceStable(all, func(i, j int) bool {
				a, b := all[i], all[j]
				if *a.InstanceGroupName != *b.InstanceGroupName {
					return *a.InstanceGroupName < *b.InstanceGroupName
				}
				return *a.InstanceId < *b.InstanceId
			})
			if in.SortOrder == smtypes.SortOrderDescending {
				for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
					all[i], all[j] = all[j], all[i]
				}
			}
		}
		items, next, err := page(all, in.NextToken, in.MaxResults, 100)
		if err != nil {
			return nil, sageMakerValidation("The NextToken %q is invalid.", aws.ToString(in.NextToken))
		}
		return &sagemaker.ListClusterNodesOutput{ClusterNodeSummaries: items, NextToken: next}, nil
	})
}
