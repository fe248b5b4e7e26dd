package compute

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// describe reads the HyperPod cluster.
func describe(ctx context.Context, p *cloud.Provider, hyperPod string) (*sagemaker.DescribeClusterOutput, error) {
	out, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(hyperPod)})
	if err != nil {
		return nil, errs.FromUpstream(err, "describe HyperPod cluster "+hyperPod)
	}
	return out, nil
}

// executionRole is the cluster's execution role, or that of one of its
// groups (for imported clusters).
func executionRole(c *hyperpod.Cluster, out *sagemaker.DescribeClusterOutput) string {
	if c.Roles.ExecutionRoleArn != "" {
		return c.Roles.ExecutionRoleArn
	}
	for _, g := range out.InstanceGroups {
		if r := aws.ToString(g.ExecutionRole); r != "" {
			return r
		}
	}
	return ""
}

// groupStatus maps HyperPod's group status to the schema's.
func groupStatus(s smtypes.InstanceGroupStatus) hyperpod.GroupStatus {
	switch s {
	case smtypes.InstanceGroupStatusInservice:
		return hyperpod.GroupInService
	case smtypes.InstanceGroupStatusCreating:
		return hyperpod.GroupCreating
	case smtypes.InstanceGroupStatusUpdating:
		return hyperpod.GroupUpdating
	case smtypes.InstanceGroupStatusDegraded:
		return hyperpod.GroupDegraded
	case smtypes.InstanceGroupStatusFailed:
		return hyperpod.GroupFailed
	case smtypes.InstanceGroupStatusSystemupdating:
		return hyperpod.GroupSystemUpdating
	case smtypes.InstanceGroupStatusDeleting:
		return hyperpod.GroupDeleting
	}
	return hyperpod.GroupPending
}

// settled reports whether a group is no longer changing.
func settled(s smtypes.InstanceGroupStatus) bool {
	return s == smtypes.InstanceGroupStatusInservice || s == smtypes.InstanceGroupStatusDegraded
}
