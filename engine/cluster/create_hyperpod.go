package cluster

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// hyperPod makes the HyperPod cluster: EKS orchestrator, automatic node
// recovery, continuous node provisioning, and the requested groups.
type hyperPod struct {
	p      *cloud.Provider
	name   string
	groups []InstanceGroupSpec
	tags   map[string]string
	// replaceWait bounds how long Apply waits for a failed cluster to go.
	replaceWait time.Duration
	poll        time.Duration
}

func (h *hyperPod) observe(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	out, err := h.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(h.name)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Absent}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	o := map[string]string{"arn": aws.ToString(out.ClusterArn), "status": string(out.ClusterStatus),
		"nodeRecovery": string(out.NodeRecovery), "nodeProvisioningMode": string(out.NodeProvisioningMode)}
	msg := "HyperPod cluster " + h.name + " is " + string(out.ClusterStatus)
	switch out.ClusterStatus {
	case smtypes.ClusterStatusInservice:
		return ops.Observation{State: ops.Done, Message: msg, Outputs: o}, nil
	case smtypes.ClusterStatusFailed, smtypes.ClusterStatusRollingback:
		failure := aws.ToString(out.FailureMessage)
		o["failureMessage"] = failure
		if !run.Applied {
			// Left by an earlier attempt: Apply replaces it.
			return ops.Observation{State: ops.Absent, Message: "replacing the failed HyperPod cluster: " + failure, Outputs: o}, nil
		}
		code, _, _ := strings.Cut(failure, ":")
		if strings.ContainsAny(code, " ") {
			code = "ClusterFailed"
		}
		return ops.Observation{State: ops.Broken, Outputs: o, Err: &errs.Error{Code: errs.Upstream, UpstreamCode: code, Retryable: true,
			Message: "HyperPod cluster " + h.name + " failed: " + failure + "; fix the cause (for capacity, another zone or instance type, or try later), then retry the operation"}}, nil
	case smtypes.ClusterStatusDeleting:
		return ops.Observation{State: ops.Pending, Message: "waiting for the earlier HyperPod cluster to finish deleting", Outputs: o}, nil
	}
	return ops.Observation{State: ops.Pending, Message: msg, Outputs: o}, nil
}

func (h *hyperPod) apply(ctx context.Context, run *ops.Run) (map[string]string, error) {
	if err := h.removeFailed(ctx); err != nil {
		return nil, err
	}
	var groups []smtypes.ClusterInstanceGroupSpecification
	var compute []Subnet
	_ = json.Unmarshal([]byte(run.Output("compute-subnet", "subnets")), &compute)
	sg := run.Output("subnets", "securityGroupId")
	var vpcSubnets []string
	for _, s := range compute {
		vpcSubnets = append(vpcSubnets, s.ID)
	}
	for _, g := range h.groups {
		spec := smtypes.ClusterInstanceGroupSpecification{
			InstanceGroupName: aws.String(g.Name), InstanceType: smtypes.ClusterInstanceType(g.InstanceType),
			InstanceCount: aws.Int32(int32(g.Count)), ExecutionRole: aws.String(run.Output("iam-roles", "executionRoleArn")),
			ThreadsPerCore: aws.Int32(int32(g.ThreadsPerCore)),
			InstanceStorageConfigs: []smtypes.ClusterInstanceStorageConfig{&smtypes.ClusterInstanceStorageConfigMemberEbsVolumeConfig{
				Value: smtypes.ClusterEbsVolumeConfig{VolumeSizeInGB: aws.Int32(int32(g.VolumeSizeGB))}}},
		}
		if g.MinCount > 0 {
			spec.MinInstanceCount = aws.Int32(int32(g.MinCount))
		}
		for _, c := range g.DeepHealthChecks {
			spec.OnStartDeepHealthChecks = append(spec.OnStartDeepHealthChecks, smtypes.DeepHealthCheckType(c))
		}
		if g.CapacityType == Spot {
			spec.CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
		}
		for _, s := range compute {
			if s.Zone == g.Zone {
				spec.OverrideVpcConfig = &smtypes.VpcConfig{Subnets: []string{s.ID}, SecurityGroupIds: []string{sg}}
			}
		}
		groups = append(groups, spec)
	}
	var tags []smtypes.Tag
	for k, v := range h.tags {
		tags = append(tags, smtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := h.p.SageMaker.CreateCluster(ctx, &sagemaker.CreateClusterInput{
		ClusterName:          aws.String(h.name),
		Orchestrator:         &smtypes.ClusterOrchestrator{Eks: &smtypes.ClusterOrchestratorEksConfig{ClusterArn: aws.String(run.Output("eks-cluster", "arn"))}},
		NodeRecovery:         smtypes.ClusterNodeRecoveryAutomatic,
		NodeProvisioningMode: smtypes.ClusterNodeProvisioningModeContinuous,
		InstanceGroups:       groups,
		VpcConfig:            &smtypes.VpcConfig{Subnets: vpcSubnets, SecurityGroupIds: []string{sg}},
		Tags:                 tags,
	})
	if err != nil {
		return nil, err
	}
	return map[string]string{"arn": aws.ToString(out.ClusterArn)}, nil
}

// removeFailed deletes a Failed HyperPod cluster of the same name left by an
// earlier attempt, and waits until it is gone so the name is free.
func (h *hyperPod) removeFailed(ctx context.Context) error {
	deadline := time.Now().Add(h.replaceWait)
	deleted := false
	for {
		out, err := h.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(h.name)})
		if errs.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		switch out.ClusterStatus {
		case smtypes.ClusterStatusFailed, smtypes.ClusterStatusRollingback:
			if !deleted {
				if _, err := h.p.SageMaker.DeleteCluster(ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String(h.name)}); err != nil && !errs.IsNotFound(err) {
					return err
				}
				deleted = true
			}
		case smtypes.ClusterStatusDeleting:
		default:
			return nil // someone else's live cluster: CreateCluster reports the conflict
		}
		if time.Now().After(deadline) {
			e := errs.New(errs.Timeout, "the failed HyperPod cluster %s is still being deleted; retry the operation once it is gone", h.name)
			e.Retryable = true
			return e
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(h.poll):
		}
	}
}
