package compute

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// sdkEffects maps taint effects between the schema and the SDK.
var sdkEffects = map[string]smtypes.ClusterKubernetesTaintEffect{
	"NO_SCHEDULE":        smtypes.ClusterKubernetesTaintEffectNoSchedule,
	"PREFER_NO_SCHEDULE": smtypes.ClusterKubernetesTaintEffectPreferNoSchedule,
	"NO_EXECUTE":         smtypes.ClusterKubernetesTaintEffectNoExecute,
}

// Specification is the HyperPod form of a group: what CreateCluster and
// UpdateCluster take, and the one mapping of a group to it. The group runs
// in subnetID (with securityGroup) when one is given, else in the
// cluster's subnets. A STANDARD network interface is left unset: HyperPod's
// default, which every instance type takes.
func Specification(g *GroupSpec, executionRole, subnetID, securityGroup string) smtypes.ClusterInstanceGroupSpecification {
	spec := smtypes.ClusterInstanceGroupSpecification{
		InstanceGroupName: aws.String(g.Name),
		InstanceCount:     aws.Int32(int32(g.Count)),
		ExecutionRole:     aws.String(executionRole),
		ThreadsPerCore:    aws.Int32(int32(g.ThreadsPerCore)),
		InstanceStorageConfigs: []smtypes.ClusterInstanceStorageConfig{&smtypes.ClusterInstanceStorageConfigMemberEbsVolumeConfig{
			Value: smtypes.ClusterEbsVolumeConfig{VolumeSizeInGB: aws.Int32(int32(g.VolumeSizeGB))}}},
	}
	if g.Flexible() {
		spec.InstanceRequirements = &smtypes.ClusterInstanceRequirements{}
		for _, t := range g.InstanceTypes {
			spec.InstanceRequirements.InstanceTypes = append(spec.InstanceRequirements.InstanceTypes, smtypes.ClusterInstanceType(t))
		}
	} else {
		spec.InstanceType = smtypes.ClusterInstanceType(g.InstanceTypes[0])
	}
	if g.MinCount > 0 {
		spec.MinInstanceCount = aws.Int32(int32(g.MinCount))
	}
	for _, c := range g.DeepHealthChecks {
		spec.OnStartDeepHealthChecks = append(spec.OnStartDeepHealthChecks, smtypes.DeepHealthCheckType(c))
	}
	switch g.CapacityType {
	case Spot:
		spec.CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
	case OnDemand:
		spec.CapacityRequirements = &smtypes.ClusterCapacityRequirements{OnDemand: &smtypes.ClusterOnDemandOptions{}}
	case TrainingPlan:
		spec.TrainingPlanArn = aws.String(g.TrainingPlanArn)
	}
	if g.InterfaceMode == InterfaceEFAOnly {
		spec.NetworkInterface = &smtypes.ClusterNetworkInterface{InterfaceType: smtypes.ClusterInterfaceTypeEfaOnly}
	}
	if subnetID != "" {
		vpc := &smtypes.VpcConfig{Subnets: []string{subnetID}}
		if securityGroup != "" {
			vpc.SecurityGroupIds = []string{securityGroup}
		}
		spec.OverrideVpcConfig = vpc
	}
	if len(g.Labels) > 0 || len(g.Taints) > 0 {
		kc := &smtypes.ClusterKubernetesConfig{Labels: map[string]string{}}
		for _, l := range g.Labels {
			kc.Labels[l.Key] = l.Value
		}
		for _, t := range g.Taints {
			kc.Taints = append(kc.Taints, smtypes.ClusterKubernetesTaint{Key: aws.String(t.Key), Value: optional(t.Value), Effect: sdkEffects[t.Effect]})
		}
		spec.KubernetesConfig = kc
	}
	return spec
}

// RespecGroup is the UpdateCluster form of a group as HyperPod reports it,
// with change made to its settings: the way to change one setting of a
// group and keep all the others (its placement, storage and life-cycle
// scripts as they are).
func RespecGroup(d *smtypes.ClusterInstanceGroupDetails, change func(*GroupSpec)) smtypes.ClusterInstanceGroupSpecification {
	g := ActualSpec(d)
	change(&g)
	spec := Specification(&g, aws.ToString(d.ExecutionRole), "", "")
	keepPlacement(&spec, d)
	spec.LifeCycleConfig = d.LifeCycleConfig
	return spec
}

// keepPlacement keeps the subnets and volumes of an existing group, which
// HyperPod does not change.
func keepPlacement(spec *smtypes.ClusterInstanceGroupSpecification, d *smtypes.ClusterInstanceGroupDetails) {
	spec.OverrideVpcConfig = d.OverrideVpcConfig
	spec.InstanceStorageConfigs = d.InstanceStorageConfigs
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ActualSpec reads the user-visible settings of a group as HyperPod reports
// them.
func ActualSpec(d *smtypes.ClusterInstanceGroupDetails) GroupSpec {
	g := GroupSpec{
		Name:            aws.ToString(d.InstanceGroupName),
		Count:           int(aws.ToInt32(d.TargetCount)),
		MinCount:        int(aws.ToInt32(d.MinCount)),
		ThreadsPerCore:  int(aws.ToInt32(d.ThreadsPerCore)),
		TrainingPlanArn: aws.ToString(d.TrainingPlanArn),
		CapacityType:    OnDemand,
		InterfaceMode:   InterfaceStandard,
	}
	if r := d.InstanceRequirements; r != nil && len(r.DesiredInstanceTypes)+len(r.CurrentInstanceTypes) > 0 {
		types := r.DesiredInstanceTypes
		if len(types) == 0 {
			types = r.CurrentInstanceTypes
		}
		for _, t := range types {
			g.InstanceTypes = append(g.InstanceTypes, string(t))
		}
	} else {
		g.InstanceTypes = []string{string(d.InstanceType)}
	}
	switch {
	case g.TrainingPlanArn != "":
		g.CapacityType = TrainingPlan
	case d.CapacityRequirements != nil && d.CapacityRequirements.Spot != nil:
		g.CapacityType = Spot
	}
	if d.NetworkInterface != nil && d.NetworkInterface.InterfaceType == smtypes.ClusterInterfaceTypeEfaOnly {
		g.InterfaceMode = InterfaceEFAOnly
	}
	for _, c := range d.OnStartDeepHealthChecks {
		g.DeepHealthChecks = append(g.DeepHealthChecks, string(c))
	}
	for _, sc := range d.InstanceStorageConfigs {
		if ebs, ok := sc.(*smtypes.ClusterInstanceStorageConfigMemberEbsVolumeConfig); ok && ebs.Value.RootVolume == nil {
			g.VolumeSizeGB = int(aws.ToInt32(ebs.Value.VolumeSizeInGB))
		}
	}
	if kc := d.KubernetesConfig; kc != nil {
		// What was last asked for, which HyperPod is applying or has applied.
		labels, taints := kc.DesiredLabels, kc.DesiredTaints
		if labels == nil && taints == nil {
			labels, taints = kc.CurrentLabels, kc.CurrentTaints
		}
		for k, v := range labels {
			g.Labels = append(g.Labels, Label{Key: k, Value: v})
		}
		slices.SortFunc(g.Labels, func(a, b Label) int { return strings.Compare(a.Key, b.Key) })
		for _, t := range taints {
			for name, e := range sdkEffects {
				if e == t.Effect {
					g.Taints = append(g.Taints, Taint{Key: aws.ToString(t.Key), Value: aws.ToString(t.Value), Effect: name})
				}
			}
		}
	}
	return g
}

// describe reads the HyperPod cluster.
func describe(ctx context.Context, p *cloud.Provider, hyperPod string) (*sagemaker.DescribeClusterOutput, error) {
	out, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(hyperPod)})
	if err != nil {
		return nil, errs.FromUpstream(err, "describe HyperPod cluster "+hyperPod)
	}
	return out, nil
}

// FindGroup returns the group of the HyperPod cluster called name, or nil.
func FindGroup(out *sagemaker.DescribeClusterOutput, name string) *smtypes.ClusterInstanceGroupDetails {
	for i := range out.InstanceGroups {
		if aws.ToString(out.InstanceGroups[i].InstanceGroupName) == name {
			return &out.InstanceGroups[i]
		}
	}
	return nil
}

// executionRole is the cluster's execution role, or that of one of its
// groups (for imported clusters).
func executionRole(c *Cluster, out *sagemaker.DescribeClusterOutput) string {
	if c.ExecutionRoleArn != "" {
		return c.ExecutionRoleArn
	}
	for _, g := range out.InstanceGroups {
		if r := aws.ToString(g.ExecutionRole); r != "" {
			return r
		}
	}
	return ""
}

// groupStatus maps HyperPod's group status to the schema's.
func groupStatus(s smtypes.InstanceGroupStatus) GroupStatus {
	switch s {
	case smtypes.InstanceGroupStatusInservice:
		return GroupInService
	case smtypes.InstanceGroupStatusCreating:
		return GroupCreating
	case smtypes.InstanceGroupStatusUpdating:
		return GroupUpdating
	case smtypes.InstanceGroupStatusDegraded:
		return GroupDegraded
	case smtypes.InstanceGroupStatusFailed:
		return GroupFailed
	case smtypes.InstanceGroupStatusSystemupdating:
		return GroupSystemUpdating
	case smtypes.InstanceGroupStatusDeleting:
		return GroupDeleting
	}
	return GroupPending
}

// settled reports whether a group is no longer changing.
func settled(s smtypes.InstanceGroupStatus) bool {
	return s == smtypes.InstanceGroupStatusInservice || s == smtypes.InstanceGroupStatusDegraded
}
