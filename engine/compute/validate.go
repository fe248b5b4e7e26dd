package compute

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// AddInput asks for a new instance group.
type AddInput struct {
	ClusterID string `json:"clusterId"`
	GroupSpec
}

// labelKeyPattern is a Kubernetes label or taint key: an optional DNS
// prefix and a name of up to 63 characters.
var labelKeyPattern = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)

// labelValuePattern is a Kubernetes label value.
var labelValuePattern = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)

var taintEffects = []string{"NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"}

// SpecContext says which request asks for a group: the rules differ in two
// places only.
type SpecContext int

const (
	// AddingGroup is addInstanceGroup: any capacity type, and the minimum
	// count defaults to the count.
	AddingGroup SpecContext = iota
	// CreatingCluster is a group of createCluster: no training plan yet
	// (a plan's capacity is added to a cluster that exists), and no
	// minimum count unless one is given.
	CreatingCluster
)

// NormalizeSpec fills defaults into g and checks what can be checked
// without AWS: the one normalizer of an instance group, for every request
// that asks for one. field names a field of g in the request's terms.
func NormalizeSpec(g *GroupSpec, field func(string) string, in SpecContext) errs.List {
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
		g.CapacityType = OnDemand
	}
	switch g.CapacityType {
	case OnDemand:
	case Spot:
		if g.Flexible() {
			bad = append(bad, errs.New(errs.Precondition, "a flexible group (several instance types) cannot use Spot capacity: choose ON_DEMAND, or one instance type for Spot").WithField(field("capacityType")))
		}
	case TrainingPlan:
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
	if g.CapacityType != TrainingPlan && g.TrainingPlanArn != "" {
		bad = append(bad, errs.Field(field("trainingPlanArn"), "a training plan ARN needs capacityType TRAINING_PLAN"))
	}
	if g.InterfaceMode == "" {
		g.InterfaceMode = InterfaceStandard
	}
	if g.InterfaceMode != InterfaceStandard && g.InterfaceMode != InterfaceEFAOnly {
		bad = append(bad, errs.Field(field("networkInterfaceMode"), "network interface mode %q is not one of STANDARD, EFA_ONLY", g.InterfaceMode))
	}
	first := ""
	if len(g.InstanceTypes) > 0 {
		first = g.InstanceTypes[0]
	}
	if g.ThreadsPerCore == 0 {
		g.ThreadsPerCore = capacity.DefaultThreadsPerCore(first, g.CapacityType == TrainingPlan)
	}
	if g.VolumeSizeGB == 0 {
		g.VolumeSizeGB = capacity.DefaultVolumeSizeGB
	}
	if g.MinCount == 0 && in == AddingGroup {
		g.MinCount = g.Count
	}
	bad = append(bad, capacity.CheckGroupShape(capacity.GroupShape{Name: g.Name, InstanceTypes: g.InstanceTypes, Count: g.Count, MinCount: g.MinCount,
		ThreadsPerCore: g.ThreadsPerCore, VolumeSizeGB: g.VolumeSizeGB, DeepHealthChecks: g.DeepHealthChecks}, field)...)
	return append(bad, checkKubernetesConfig(g.Labels, g.Taints, field)...)
}

// checkKubernetesConfig checks label and taint keys, values and effects.
func checkKubernetesConfig(labels []Label, taints []Taint, field func(string) string) errs.List {
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

// plan is a training plan as a group needs it.
type plan struct {
	InstanceType string
	Zone         string
	Available    int
}

// trainingPlan reads the plan arn and checks the group against it: the plan
// fixes the instance type and zone, and bounds the count.
func trainingPlan(ctx context.Context, p *cloud.Provider, arn string) (*plan, error) {
	name := arn
	if i := strings.LastIndex(arn, "/"); i >= 0 {
		name = arn[i+1:]
	}
	out, err := p.SageMaker.DescribeTrainingPlan(ctx, &sagemaker.DescribeTrainingPlanInput{TrainingPlanName: aws.String(name)})
	if errs.IsNotFound(err) {
		return nil, errs.New(errs.Precondition, "training plan %s does not exist in %s: list the region's plans with the trainingPlans query", arn, p.Region).WithField("input.trainingPlanArn")
	}
	if err != nil {
		return nil, errs.FromUpstream(err, "read training plan "+arn)
	}
	if aws.ToString(out.TrainingPlanArn) != arn {
		return nil, errs.New(errs.Precondition, "training plan %s does not exist in %s (a plan of that name has ARN %s)", arn, p.Region, aws.ToString(out.TrainingPlanArn)).WithField("input.trainingPlanArn")
	}
	if string(out.Status) != "Active" && string(out.Status) != "Scheduled" {
		return nil, errs.New(errs.Precondition, "training plan %s is %s: only an Active or Scheduled plan can take instance groups", arn, out.Status).WithField("input.trainingPlanArn")
	}
	pl := &plan{Available: int(aws.ToInt32(out.AvailableInstanceCount))}
	for _, r := range out.ReservedCapacitySummaries {
		if pl.InstanceType == "" {
			pl.InstanceType = string(r.InstanceType)
			pl.Zone = aws.ToString(r.AvailabilityZone)
		}
	}
	return pl, nil
}

// checkPlacement settles the group's zone and checks it, the instance types
// offered there, the training plan, and the quota. extra is how many more
// instances the request adds.
func (s *Service) checkPlacement(ctx context.Context, p *cloud.Provider, c *Cluster, g *GroupSpec, extra int) error {
	if g.CapacityType == TrainingPlan {
		pl, err := trainingPlan(ctx, p, g.TrainingPlanArn)
		if err != nil {
			return err
		}
		if g.Zone != "" && pl.Zone != "" && g.Zone != pl.Zone {
			return errs.New(errs.Precondition, "training plan %s reserves capacity in %s, not %s: leave the zone out or use %s", g.TrainingPlanArn, pl.Zone, g.Zone, pl.Zone).WithField("input.zone")
		}
		if pl.InstanceType != "" && g.InstanceTypes[0] != pl.InstanceType {
			return errs.New(errs.Precondition, "training plan %s reserves %s, not %s: use the plan's instance type", g.TrainingPlanArn, pl.InstanceType, g.InstanceTypes[0]).WithField("input.instanceType")
		}
		if extra > pl.Available {
			return errs.New(errs.Precondition, "training plan %s has %d instances left, and this asks for %d: lower the count or use another plan", g.TrainingPlanArn, pl.Available, extra).WithField("input.count")
		}
		g.Zone = pl.Zone
	}
	if g.Zone == "" && len(c.Zones) > 0 {
		g.Zone = c.Zones[0]
	}
	if !slices.Contains(c.Zones, g.Zone) {
		return errs.New(errs.Precondition, "zone %q is not one of cluster %s's zones (%s): choose one of those", g.Zone, c.Name, strings.Join(c.Zones, ", ")).WithField("input.zone")
	}
	var demands []capacity.Demand
	for i, t := range g.InstanceTypes {
		d := capacity.Demand{Field: "input", Group: g.Name, InstanceType: t, Zone: g.Zone}
		if i == 0 {
			d.Count = extra // a flexible group runs its first type when it can
		}
		demands = append(demands, d)
	}
	if err := capacity.CheckOfferings(ctx, p, demands); err != nil {
		return err
	}
	if g.CapacityType == TrainingPlan || extra <= 0 {
		return nil // the plan's capacity is reserved, not drawn from the quota
	}
	inUse, err := capacity.Usage(ctx, p)
	if err != nil {
		return err
	}
	return capacity.CheckQuotas(ctx, p, demands[:1], inUse)
}

// immutable refuses a sent value of the field name that differs from the
// group's actual one.
func immutable(group, name string, sent *string, actual string) error {
	if sent == nil || *sent == actual {
		return nil
	}
	return errs.New(errs.ImmutableField, "the %s of instance group %s is %s and cannot change for the group's lifetime; to use %s, add a new group and delete this one",
		name, group, actualOr(actual), *sent).WithField("input." + name)
}

func actualOr(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}
