package cluster

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// hyperPod makes the HyperPod cluster: EKS orchestrator, automatic node
// recovery, continuous node provisioning, and the requested groups.
type hyperPod struct {
	p      *cloud.Provider
	name   string
	groups []hyperpod.GroupSpec
	tags   map[string]string
}

func (h *hyperPod) observe(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	out, err := h.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(h.name)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Absent}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	o := hyperPodOutput{Arn: aws.ToString(out.ClusterArn), Status: string(out.ClusterStatus),
		NodeRecovery: string(out.NodeRecovery), NodeProvisioningMode: string(out.NodeProvisioningMode)}
	msg := "HyperPod cluster " + h.name + " is " + string(out.ClusterStatus)
	switch out.ClusterStatus {
	case smtypes.ClusterStatusInservice:
		return ops.Observation{State: ops.Done, Message: msg, Output: o}, nil
	case smtypes.ClusterStatusFailed, smtypes.ClusterStatusRollingback:
		failure := aws.ToString(out.FailureMessage)
		o.FailureMessage = failure
		if !run.Applied {
			// Not this attempt's: phaseReplaceHyperPod removes it when the
			// operation is retried.
			return ops.Observation{State: ops.Broken, Output: o, Err: &errs.Error{Code: errs.Upstream, UpstreamCode: "ClusterFailed", Retryable: true,
				Message: "a failed HyperPod cluster " + h.name + " is in the way (" + failure + "); retry the operation to replace it"}}, nil
		}
		code, _, _ := strings.Cut(failure, ":")
		if strings.ContainsAny(code, " ") {
			code = "ClusterFailed"
		}
		return ops.Observation{State: ops.Broken, Output: o, Err: &errs.Error{Code: errs.Upstream, UpstreamCode: code, Retryable: true,
			Message: "HyperPod cluster " + h.name + " failed: " + failure + "; fix the cause (for capacity, another zone or instance type, or try later), then retry the operation"}}, nil
	case smtypes.ClusterStatusDeleting:
		return ops.Observation{State: ops.Pending, Message: "waiting for the earlier HyperPod cluster to finish deleting", Output: o}, nil
	}
	return ops.Observation{State: ops.Pending, Message: msg, Output: o}, nil
}

func (h *hyperPod) apply(ctx context.Context, run *ops.Run) (any, error) {
	computeOut, err := outputOf[subnetsOutput](run, phaseComputeSubnet)
	if err != nil {
		return nil, err
	}
	controlPlane, err := outputOf[subnetsOutput](run, phaseSubnets)
	if err != nil {
		return nil, err
	}
	roles, err := outputOf[iamOutput](run, phaseIAMRoles)
	if err != nil {
		return nil, err
	}
	eksCluster, err := outputOf[eksOutput](run, phaseEKS)
	if err != nil {
		return nil, err
	}
	var groups []smtypes.ClusterInstanceGroupSpecification
	computeSubnets, sg := computeOut.Subnets, controlPlane.SecurityGroupID
	var vpcSubnets []string
	for _, s := range computeSubnets {
		vpcSubnets = append(vpcSubnets, s.ID)
	}
	for i := range h.groups {
		g := &h.groups[i]
		subnet := ""
		for _, s := range computeSubnets {
			if s.Zone == g.Zone {
				subnet = s.ID
			}
		}
		groups = append(groups, groupspec.Specification(g, roles.ExecutionRoleArn, subnet, sg))
	}
	var tags []smtypes.Tag
	for k, v := range h.tags {
		tags = append(tags, smtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := h.p.SageMaker.CreateCluster(ctx, &sagemaker.CreateClusterInput{
		ClusterName:          aws.String(h.name),
		Orchestrator:         &smtypes.ClusterOrchestrator{Eks: &smtypes.ClusterOrchestratorEksConfig{ClusterArn: aws.String(eksCluster.Arn)}},
		NodeRecovery:         smtypes.ClusterNodeRecoveryAutomatic,
		NodeProvisioningMode: smtypes.ClusterNodeProvisioningModeContinuous,
		InstanceGroups:       groups,
		VpcConfig:            &smtypes.VpcConfig{Subnets: vpcSubnets, SecurityGroupIds: []string{sg}},
		Tags:                 tags,
	})
	if err != nil {
		return nil, err
	}
	return hyperPodOutput{Arn: aws.ToString(out.ClusterArn)}, nil
}

// replace-failed-hyperpod: no Failed HyperPod cluster of the cluster's name,
// left by an earlier attempt, holds the name. Apply deletes it; Observe
// waits, as for any phase, until it is gone. The phase runs again on every
// retry (ops.Step.Recheck): a retry is how a failed creation is replaced.
func (h *hyperPod) observeReplaced(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	out, err := h.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(h.name)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Done, Message: "no HyperPod cluster " + h.name + " in the way"}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	o := hyperPodOutput{Arn: aws.ToString(out.ClusterArn), Status: string(out.ClusterStatus), FailureMessage: aws.ToString(out.FailureMessage)}
	switch out.ClusterStatus {
	case smtypes.ClusterStatusFailed, smtypes.ClusterStatusRollingback:
		return ops.Observation{State: ops.Absent, Message: "replacing the failed HyperPod cluster: " + o.FailureMessage, Output: o}, nil
	case smtypes.ClusterStatusDeleting:
		return ops.Observation{State: ops.Pending, Message: "waiting for the failed HyperPod cluster " + h.name + " to finish deleting", Output: o}, nil
	}
	// A live cluster: this operation's own (phaseHyperPod follows it), or
	// someone else's, which CreateCluster reports.
	return ops.Observation{State: ops.Done, Message: "HyperPod cluster " + h.name + " is " + o.Status, Output: o}, nil
}

func (h *hyperPod) deleteFailed(ctx context.Context, _ *ops.Run) (any, error) {
	_, err := h.p.SageMaker.DeleteCluster(ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String(h.name)})
	if errs.IsNotFound(err) {
		return nil, nil
	}
	return nil, err
}
