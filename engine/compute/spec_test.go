package compute_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// TestCreateClusterAndAddInstanceGroupSpecifyAGroupAlike sends each group
// once with createCluster (a new cluster "twin") and once with
// addInstanceGroup (the fixture's cluster), and compares what HyperPod
// recorded of the two. The minimum count is given: it is the one rule that
// differs (addInstanceGroup defaults it to the count, createCluster leaves
// it unset).
func TestCreateClusterAndAddInstanceGroupSpecifyAGroupAlike(t *testing.T) {
	cases := []struct {
		name string
		spec hyperpod.GroupSpec
	}{
		{"defaults", hyperpod.GroupSpec{Name: "plain", InstanceTypes: []string{"ml.m5.xlarge"}, Count: 1, MinCount: 1, Zone: "us-west-2a"}},
		{"settings given", hyperpod.GroupSpec{Name: "tuned", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 1, MinCount: 1, Zone: "us-west-2b",
			ThreadsPerCore: 2, VolumeSizeGB: 200, DeepHealthChecks: []string{"InstanceStress"}}},
		{"spot", hyperpod.GroupSpec{Name: "spot", InstanceTypes: []string{"ml.m5.xlarge"}, Count: 1, MinCount: 1, Zone: "us-west-2a", CapacityType: hyperpod.Spot}},
		{"EFA only", hyperpod.GroupSpec{Name: "efa", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 1, MinCount: 1, Zone: "us-west-2a", InterfaceMode: hyperpod.InterfaceEFAOnly}},
	}
	f := newFixture(t)
	ctx := context.Background()
	twin := cluster.CreateInput{Name: "twin", Zones: []string{"us-west-2a", "us-west-2b"}}
	for _, c := range cases {
		twin.InstanceGroups = append(twin.InstanceGroups, c.spec)
		op, err := f.svc.Add(ctx, "tester", compute.AddInput{ClusterID: f.cluster.ID, GroupSpec: c.spec}, "")
		if err != nil {
			t.Fatalf("%s: add: %v", c.name, err)
		}
		f.succeeded(t, op)
	}
	op, err := f.clusters.Create(ctx, "tester", twin, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	p, err := f.world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	describe := func(name string) *sagemaker.DescribeClusterOutput {
		out, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	created, added := describe("twin"), describe(f.cluster.HyperPod.Name)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fromCreate, fromAdd := groupspec.Find(created, c.spec.Name), groupspec.Find(added, c.spec.Name)
			if fromCreate == nil || fromAdd == nil {
				t.Fatalf("group %s: created %v, added %v; want both", c.spec.Name, fromCreate != nil, fromAdd != nil)
			}
			a, b := groupspec.Actual(fromCreate), groupspec.Actual(fromAdd)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("createCluster gave %+v\naddInstanceGroup gave %+v", a, b)
			}
			if sent := c.spec; (sent.InterfaceMode != "" && a.InterfaceMode != sent.InterfaceMode) || (sent.CapacityType != "" && a.CapacityType != sent.CapacityType) {
				t.Errorf("HyperPod has interface %s and capacity %s; want what was sent, %s and %s", a.InterfaceMode, a.CapacityType, sent.InterfaceMode, sent.CapacityType)
			}
			for field, pair := range map[string][2]any{
				"NetworkInterface":       {fromCreate.NetworkInterface, fromAdd.NetworkInterface},
				"CapacityRequirements":   {fromCreate.CapacityRequirements, fromAdd.CapacityRequirements},
				"InstanceStorageConfigs": {fromCreate.InstanceStorageConfigs, fromAdd.InstanceStorageConfigs},
				"KubernetesConfig":       {fromCreate.KubernetesConfig, fromAdd.KubernetesConfig},
			} {
				if !reflect.DeepEqual(pair[0], pair[1]) {
					t.Errorf("%s: createCluster gave %+v, addInstanceGroup %+v", field, pair[0], pair[1])
				}
			}
			if v1, v2 := fromCreate.OverrideVpcConfig, fromAdd.OverrideVpcConfig; v1 == nil || v2 == nil || len(v1.Subnets) != 1 || len(v2.Subnets) != 1 ||
				len(v1.SecurityGroupIds) != len(v2.SecurityGroupIds) {
				t.Errorf("placement: createCluster gave %+v, addInstanceGroup %+v; want one subnet each and the same security groups", v1, v2)
			}
		})
	}
}
