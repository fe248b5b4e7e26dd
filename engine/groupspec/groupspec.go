// Package groupspec is the one model of an instance group's settings
// (hyperpod.GroupSpec) against HyperPod: the rules a requested group must
// meet (Normalize), the form CreateCluster and UpdateCluster take
// (Specification), and the settings read back from DescribeCluster
// (Actual). Creating a cluster, adding or changing a group and the
// features that change a group's settings all go through it.
package groupspec

import (
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
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
func Specification(g *hyperpod.GroupSpec, executionRole, subnetID, securityGroup string) smtypes.ClusterInstanceGroupSpecification {
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
	case hyperpod.Spot:
		spec.CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
	case hyperpod.OnDemand:
		spec.CapacityRequirements = &smtypes.ClusterCapacityRequirements{OnDemand: &smtypes.ClusterOnDemandOptions{}}
	case hyperpod.TrainingPlan:
		spec.TrainingPlanArn = aws.String(g.TrainingPlanArn)
	}
	if g.InterfaceMode == hyperpod.InterfaceEFAOnly {
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

// Respec is the UpdateCluster form of a group as HyperPod reports it,
// with change made to its settings: the way to change one setting of a
// group and keep all the others (its placement, storage and life-cycle
// scripts as they are).
func Respec(d *smtypes.ClusterInstanceGroupDetails, change func(*hyperpod.GroupSpec)) smtypes.ClusterInstanceGroupSpecification {
	g := Actual(d)
	change(&g)
	spec := Specification(&g, aws.ToString(d.ExecutionRole), "", "")
	KeepPlacement(&spec, d)
	spec.LifeCycleConfig = d.LifeCycleConfig
	return spec
}

// KeepPlacement keeps the subnets and volumes of an existing group, which
// HyperPod does not change.
func KeepPlacement(spec *smtypes.ClusterInstanceGroupSpecification, d *smtypes.ClusterInstanceGroupDetails) {
	spec.OverrideVpcConfig = d.OverrideVpcConfig
	spec.InstanceStorageConfigs = d.InstanceStorageConfigs
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Actual reads the user-visible settings of a group as HyperPod reports
// them.
func Actual(d *smtypes.ClusterInstanceGroupDetails) hyperpod.GroupSpec {
	g := hyperpod.GroupSpec{
		Name:            aws.ToString(d.InstanceGroupName),
		Count:           int(aws.ToInt32(d.TargetCount)),
		MinCount:        int(aws.ToInt32(d.MinCount)),
		ThreadsPerCore:  int(aws.ToInt32(d.ThreadsPerCore)),
		TrainingPlanArn: aws.ToString(d.TrainingPlanArn),
		CapacityType:    hyperpod.OnDemand,
		InterfaceMode:   hyperpod.InterfaceStandard,
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
		g.CapacityType = hyperpod.TrainingPlan
	case d.CapacityRequirements != nil && d.CapacityRequirements.Spot != nil:
		g.CapacityType = hyperpod.Spot
	}
	if d.NetworkInterface != nil && d.NetworkInterface.InterfaceType == smtypes.ClusterInterfaceTypeEfaOnly {
		g.InterfaceMode = hyperpod.InterfaceEFAOnly
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
			g.Labels = append(g.Labels, hyperpod.Label{Key: k, Value: v})
		}
		slices.SortFunc(g.Labels, func(a, b hyperpod.Label) int { return strings.Compare(a.Key, b.Key) })
		for _, t := range taints {
			for name, e := range sdkEffects {
				if e == t.Effect {
					g.Taints = append(g.Taints, hyperpod.Taint{Key: aws.ToString(t.Key), Value: aws.ToString(t.Value), Effect: name})
				}
			}
		}
	}
	return g
}

// Find returns the group of the HyperPod cluster called name, or nil.
func Find(out *sagemaker.DescribeClusterOutput, name string) *smtypes.ClusterInstanceGroupDetails {
	for i := range out.InstanceGroups {
		if aws.ToString(out.InstanceGroups[i].InstanceGroupName) == name {
			return &out.InstanceGroups[i]
		}
	}
	return nil
}

// labelKeyPattern is a Kubernetes label or taint key: an optional DNS
// prefix and a name of up to 63 characters.
var labelKeyPattern = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)

// labelValuePattern is a Kubernetes label value.
var labelValuePattern = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)

var taintEffects = []string{"NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"}

// Context says which request asks for a group: the rules differ in two
// places only.
type Context int

const (
	// AddingGroup is addInstanceGroup: any capacity type, and the minimum
	// count defaults to the count.
	AddingGroup Context = iota
	// CreatingCluster is a group of createCluster: no training plan yet
	// (a plan's capacity is added to a cluster that exists), and no
	// minimum count unless one is given.
	CreatingCluster
)

// Normalize fills defaults into g and checks what can be checked
// without AWS: the one normalizer of an instance group, for every request
// that asks for one. field names a field of g in the request's terms.
func Normalize(g *hyperpod.GroupSpec, field func(string) string, in Context) errs.List {
	var bad errs.List
	g.Name = strings.TrimSpace(g.Name)
	switch {
	case len(g.InstanceTypes) == 0:
		bad = append(bad, errs.Field(field("instanceType"), "give the instance type (instanceType), or a prioritised list of types (instanceTypes) for a flexible group"))
	case len(g.InstanceTypes) > 10:
		bad = append(bad, errs.Field(field("instanceTypes"), "a flexible group takes at most 10 instance types, not %d", len(g.InstanceTypes)))
	}
	for i, t := range g.InstanceTypes {
		if slices.Index(g.InstanceTypes, t) != i {
			bad = append(bad, errs.Field(field("instanceTypes"), "instance type %s is listed twice: list each type once", t))
		}
	}
	if g.CapacityType == "" {
		g.CapacityType = hyperpod.OnDemand
	}
	switch g.CapacityType {
	case hyperpod.OnDemand:
	case hyperpod.Spot:
		if g.Flexible() {
			bad = append(bad, errs.New(errs.Precondition, "a flexible group (several instance types) cannot use Spot capacity: choose ON_DEMAND, or one instance type for Spot").WithField(field("capacityType")))
		}
	case hyperpod.TrainingPlan:
		if in == CreatingCluster {
			bad = append(bad, errs.Field(field("capacityType"), "instance groups on a training plan are added once the cluster exists: create the cluster without this group, then add it with addInstanceGroup and the plan's ARN"))
			break
		}
		if g.TrainingPlanArn == "" {
			bad = append(bad, errs.Field(field("trainingPlanArn"), "TRAINING_PLAN capacity needs the plan's ARN: list the region's plans with the trainingPlans query"))
		}
		if g.Flexible() {
			bad = append(bad, errs.New(errs.Precondition, "a training plan reserves one instance type: give the plan's type as instanceType, not a list").WithField(field("instanceTypes")))
		}
	default:
		types := "ON_DEMAND, SPOT, TRAINING_PLAN"
		if in == CreatingCluster {
			types = "ON_DEMAND, SPOT"
		}
		bad = append(bad, errs.Field(field("capacityType"), "capacity type %q is not one of %s", g.CapacityType, types))
	}
	if g.CapacityType != hyperpod.TrainingPlan && g.TrainingPlanArn != "" {
		bad = append(bad, errs.Field(field("trainingPlanArn"), "a training plan ARN needs capacityType TRAINING_PLAN"))
	}
	if g.InterfaceMode == "" {
		g.InterfaceMode = hyperpod.InterfaceStandard
	}
	if g.InterfaceMode != hyperpod.InterfaceStandard && g.InterfaceMode != hyperpod.InterfaceEFAOnly {
		bad = append(bad, errs.Field(field("networkInterfaceMode"), "network interface mode %q is not one of STANDARD, EFA_ONLY", g.InterfaceMode))
	}
	first := ""
	if len(g.InstanceTypes) > 0 {
		first = g.InstanceTypes[0]
	}
	if g.ThreadsPerCore == 0 {
		g.ThreadsPerCore = capacity.DefaultThreadsPerCore(first, g.CapacityType == hyperpod.TrainingPlan)
	}
	if g.VolumeSizeGB == 0 {
		g.VolumeSizeGB = capacity.DefaultVolumeSizeGB
	}
	if g.MinCount == 0 && in == AddingGroup {
		g.MinCount = g.Count
	}
	bad = append(bad, capacity.CheckGroupShape(capacity.GroupShape{Name: g.Name, InstanceTypes: g.InstanceTypes, Count: g.Count, MinCount: g.MinCount,
		ThreadsPerCore: g.ThreadsPerCore, VolumeSizeGB: g.VolumeSizeGB, DeepHealthChecks: g.DeepHealthChecks}, field)...)
	return append(bad, CheckKubernetesConfig(g.Labels, g.Taints, field)...)
}

// CheckKubernetesConfig checks label and taint keys, values and effects.
func CheckKubernetesConfig(labels []hyperpod.Label, taints []hyperpod.Taint, field func(string) string) errs.List {
	var bad errs.List
	seen := map[string]bool{}
	for _, l := range labels {
		if !labelKeyPattern.MatchString(l.Key) || strings.HasPrefix(l.Key, "sagemaker.amazonaws.com/") {
			bad = append(bad, errs.Field(field("labels"), "label key %q is not valid: use [prefix/]name, up to 63 letters, digits, '-', '_' or '.' in the name; the sagemaker.amazonaws.com/ prefix is HyperPod's", l.Key))
		}
		if !labelValuePattern.MatchString(l.Value) {
			bad = append(bad, errs.Field(field("labels"), "label value %q of %s is not valid: up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", l.Value, l.Key))
		}
		if seen[l.Key] {
			bad = append(bad, errs.Field(field("labels"), "label %s is given twice", l.Key))
		}
		seen[l.Key] = true
	}
	for _, t := range taints {
		if !labelKeyPattern.MatchString(t.Key) {
			bad = append(bad, errs.Field(field("taints"), "taint key %q is not valid: use [prefix/]name, up to 63 letters, digits, '-', '_' or '.'", t.Key))
		}
		if !labelValuePattern.MatchString(t.Value) {
			bad = append(bad, errs.Field(field("taints"), "taint value %q of %s is not valid", t.Value, t.Key))
		}
		if !slices.Contains(taintEffects, t.Effect) {
			bad = append(bad, errs.Field(field("taints"), "taint effect %q of %s is not one of %s", t.Effect, t.Key, strings.Join(taintEffects, ", ")))
		}
	}
	return bad
}
