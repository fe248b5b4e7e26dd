package cluster_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// TestCreateSendsEveryGroupDecisionToHyperPod creates a cluster with an
// EFA-only group and a flexible group with labels and taints, and reads
// back what the simulated HyperPod recorded of each: the decisions
// createCluster shares with addInstanceGroup reach HyperPod unchanged.
func TestCreateSendsEveryGroupDecisionToHyperPod(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	efa := hyperpod.GroupSpec{Name: "efa", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 1, Zone: "us-west-2a", InterfaceMode: hyperpod.InterfaceEFAOnly}
	flex := hyperpod.GroupSpec{Name: "flex", InstanceTypes: []string{"ml.p4d.24xlarge", "ml.g5.48xlarge"}, Count: 1, Zone: "us-west-2b",
		Labels: []hyperpod.Label{{Key: "team", Value: "vision"}}, Taints: []hyperpod.Taint{{Key: "dedicated", Value: "training", Effect: "NO_SCHEDULE"}}}
	in := cluster.CreateInput{Name: "groups", Zones: []string{"us-west-2a", "us-west-2b"}, InstanceGroups: []hyperpod.GroupSpec{efa, flex}}
	op, err := f.svc.Create(ctx, "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)

	p, err := f.world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String("groups")})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []hyperpod.GroupSpec{efa, flex} {
		d := groupspec.Find(out, want.Name)
		if d == nil {
			t.Fatalf("HyperPod has no group %s", want.Name)
		}
		got := groupspec.Actual(d)
		wantMode := want.InterfaceMode
		if wantMode == "" {
			wantMode = hyperpod.InterfaceStandard
		}
		if got.InterfaceMode != wantMode || !reflect.DeepEqual(got.InstanceTypes, want.InstanceTypes) ||
			!reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.Taints, want.Taints) {
			t.Errorf("HyperPod recorded group %s as %s %v labels %v taints %v; want %s %v labels %v taints %v", want.Name,
				got.InterfaceMode, got.InstanceTypes, got.Labels, got.Taints, wantMode, want.InstanceTypes, want.Labels, want.Taints)
		}
	}

	// The cluster keeps the groups as they were asked for.
	c, err := f.svc.Get(op.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.InstanceGroups) != 2 || c.InstanceGroups[0].InterfaceMode != hyperpod.InterfaceEFAOnly ||
		c.InstanceGroups[1].InterfaceMode != hyperpod.InterfaceStandard || !reflect.DeepEqual(c.InstanceGroups[1].InstanceTypes, flex.InstanceTypes) {
		t.Fatalf("requested groups %+v", c.InstanceGroups)
	}
}
