package groupspec_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

func field(name string) string { return "input." + name }

func TestNormalizeFillsTheDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   groupspec.Context
		g    hyperpod.GroupSpec
		want func(g hyperpod.GroupSpec) string // "" when g is as it should be
	}{
		{"an added p5 group", groupspec.AddingGroup, hyperpod.GroupSpec{Name: " gpu ", InstanceTypes: []string{"ml.p5.48xlarge"}, Count: 2}, func(g hyperpod.GroupSpec) string {
			if g.Name != "gpu" || g.CapacityType != hyperpod.OnDemand || g.InterfaceMode != hyperpod.InterfaceStandard || g.ThreadsPerCore != 2 || g.VolumeSizeGB != 500 || g.MinCount != 2 {
				return fmt.Sprintf("%+v", g)
			}
			return ""
		}},
		{"a group of createCluster keeps no minimum", groupspec.CreatingCluster, hyperpod.GroupSpec{Name: "cpu", InstanceTypes: []string{"ml.m5.xlarge"}, Count: 3}, func(g hyperpod.GroupSpec) string {
			if g.MinCount != 0 || g.ThreadsPerCore != 1 {
				return fmt.Sprintf("min %d threads %d", g.MinCount, g.ThreadsPerCore)
			}
			return ""
		}},
		{"what is given stays", groupspec.AddingGroup, hyperpod.GroupSpec{Name: "g", InstanceTypes: []string{"ml.g5.xlarge"}, Count: 2, MinCount: 1, ThreadsPerCore: 2, VolumeSizeGB: 900, CapacityType: hyperpod.Spot}, func(g hyperpod.GroupSpec) string {
			if g.MinCount != 1 || g.ThreadsPerCore != 2 || g.VolumeSizeGB != 900 || g.CapacityType != hyperpod.Spot {
				return fmt.Sprintf("%+v", g)
			}
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			if bad := groupspec.Normalize(&g, field, tc.in); len(bad) > 0 {
				t.Fatalf("refused: %v", bad)
			}
			if problem := tc.want(g); problem != "" {
				t.Fatalf("normalized to %s", problem)
			}
		})
	}
}

func TestNormalizeRefusesWhatHyperPodWould(t *testing.T) {
	ok := func() hyperpod.GroupSpec {
		return hyperpod.GroupSpec{Name: "gpu", InstanceTypes: []string{"ml.g5.xlarge"}, Count: 1}
	}
	for _, tc := range []struct {
		name   string
		in     groupspec.Context
		change func(*hyperpod.GroupSpec)
		code   errs.Code
		field  string
	}{
		{"no instance type", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) { g.InstanceTypes = nil }, errs.Validation, "input.instanceType"},
		{"a type twice", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) { g.InstanceTypes = []string{"ml.g5.xlarge", "ml.g5.xlarge"} }, errs.Validation, "input.instanceTypes"},
		{"a flexible Spot group", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) {
			g.InstanceTypes, g.CapacityType = []string{"ml.g5.xlarge", "ml.g5.2xlarge"}, hyperpod.Spot
		}, errs.Precondition, "input.capacityType"},
		{"a plan at creation", groupspec.CreatingCluster, func(g *hyperpod.GroupSpec) { g.CapacityType = hyperpod.TrainingPlan }, errs.Validation, "input.capacityType"},
		{"a plan without its ARN", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) { g.CapacityType = hyperpod.TrainingPlan }, errs.Validation, "input.trainingPlanArn"},
		{"an ARN without a plan", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) { g.TrainingPlanArn = "arn:aws:sagemaker:us-west-2:1:training-plan/p" }, errs.Validation, "input.trainingPlanArn"},
		{"an unknown capacity type", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) { g.CapacityType = "RESERVED" }, errs.Validation, "input.capacityType"},
		{"an unknown interface mode", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) { g.InterfaceMode = "FAST" }, errs.Validation, "input.networkInterfaceMode"},
		{"HyperPod's label prefix", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) {
			g.Labels = []hyperpod.Label{{Key: "sagemaker.amazonaws.com/node", Value: "x"}}
		}, errs.Validation, "input.labels"},
		{"a label twice", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) {
			g.Labels = []hyperpod.Label{{Key: "team", Value: "a"}, {Key: "team", Value: "b"}}
		}, errs.Validation, "input.labels"},
		{"an unknown taint effect", groupspec.AddingGroup, func(g *hyperpod.GroupSpec) { g.Taints = []hyperpod.Taint{{Key: "gpu", Effect: "NEVER"}} }, errs.Validation, "input.taints"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := ok()
			tc.change(&g)
			bad := groupspec.Normalize(&g, field, tc.in)
			if !slices.ContainsFunc(bad, func(e *errs.Error) bool { return e.Code == tc.code && e.Field == tc.field }) {
				t.Fatalf("errors %v; want %s on %s", bad, tc.code, tc.field)
			}
		})
	}
}

// A group sent as Specification and reported back by HyperPod reads as the
// same settings.
func TestActualReadsBackWhatSpecificationSent(t *testing.T) {
	g := hyperpod.GroupSpec{
		Name: "gpu", InstanceTypes: []string{"ml.p5.48xlarge"}, Count: 4, MinCount: 2, CapacityType: hyperpod.Spot,
		InterfaceMode: hyperpod.InterfaceEFAOnly, ThreadsPerCore: 2, VolumeSizeGB: 800, DeepHealthChecks: []string{"InstanceStress"},
		Labels: []hyperpod.Label{{Key: "b", Value: "2"}, {Key: "a", Value: "1"}},
		Taints: []hyperpod.Taint{{Key: "gpu", Value: "yes", Effect: "NO_SCHEDULE"}},
	}
	spec := groupspec.Specification(&g, "arn:aws:iam::1:role/exec", "subnet-1", "sg-1")
	if spec.OverrideVpcConfig == nil || !slices.Equal(spec.OverrideVpcConfig.Subnets, []string{"subnet-1"}) || !slices.Equal(spec.OverrideVpcConfig.SecurityGroupIds, []string{"sg-1"}) {
		t.Fatalf("placement %+v; want the subnet and security group given", spec.OverrideVpcConfig)
	}
	d := smtypes.ClusterInstanceGroupDetails{
		InstanceGroupName: spec.InstanceGroupName, TargetCount: spec.InstanceCount, MinCount: spec.MinInstanceCount,
		ThreadsPerCore: spec.ThreadsPerCore, InstanceType: spec.InstanceType, CapacityRequirements: spec.CapacityRequirements,
		NetworkInterface: &smtypes.ClusterNetworkInterfaceDetails{InterfaceType: spec.NetworkInterface.InterfaceType}, OnStartDeepHealthChecks: spec.OnStartDeepHealthChecks,
		InstanceStorageConfigs: spec.InstanceStorageConfigs, ExecutionRole: spec.ExecutionRole,
		KubernetesConfig: &smtypes.ClusterKubernetesConfigDetails{CurrentLabels: spec.KubernetesConfig.Labels, CurrentTaints: spec.KubernetesConfig.Taints},
	}
	got := groupspec.Actual(&d)
	want := g
	want.Labels = []hyperpod.Label{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}} // HyperPod reports labels as a map: read back in key order
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Fatalf("read back\n %+v\nwant\n %+v", got, want)
	}
}

// Respec changes one setting and keeps what HyperPod does not let change:
// the group's subnets, volumes and life-cycle scripts.
func TestRespecKeepsThePlacement(t *testing.T) {
	lifeCycle := &smtypes.ClusterLifeCycleConfig{SourceS3Uri: aws.String("s3://b/lc/"), OnCreate: aws.String("on_create.sh")}
	vpc := &smtypes.VpcConfig{Subnets: []string{"subnet-9"}, SecurityGroupIds: []string{"sg-9"}}
	d := &smtypes.ClusterInstanceGroupDetails{
		InstanceGroupName: aws.String("gpu"), TargetCount: aws.Int32(2), InstanceType: smtypes.ClusterInstanceTypeMlG5Xlarge,
		ExecutionRole: aws.String("arn:aws:iam::1:role/exec"), LifeCycleConfig: lifeCycle, OverrideVpcConfig: vpc, ThreadsPerCore: aws.Int32(1),
	}
	spec := groupspec.Respec(d, func(g *hyperpod.GroupSpec) { g.DeepHealthChecks = []string{"InstanceConnectivity"} })
	if spec.LifeCycleConfig != lifeCycle || spec.OverrideVpcConfig != vpc || aws.ToString(spec.ExecutionRole) != "arn:aws:iam::1:role/exec" {
		t.Fatalf("placement not kept: life cycle %+v, vpc %+v, role %s", spec.LifeCycleConfig, spec.OverrideVpcConfig, aws.ToString(spec.ExecutionRole))
	}
	if aws.ToInt32(spec.InstanceCount) != 2 || len(spec.OnStartDeepHealthChecks) != 1 || spec.OnStartDeepHealthChecks[0] != "InstanceConnectivity" {
		t.Fatalf("count %d checks %v; want 2 and the new check", aws.ToInt32(spec.InstanceCount), spec.OnStartDeepHealthChecks)
	}
}
