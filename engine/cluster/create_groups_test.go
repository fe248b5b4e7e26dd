package cluster

import (
	"context"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/ops"
)

// TestCreateSendsEveryGroupDecisionToHyperPod creates a cluster with an
// EFA-only group and a flexible group with labels and taints, and reads
// back what the simulated HyperPod recorded of each: the decisions
// createCluster shares with addInstanceGroup reach HyperPod unchanged.
func TestCreateSendsEveryGroupDecisionToHyperPod(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	efa := compute.GroupSpec{Name: "efa", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 1, Zone: "us-west-2a", InterfaceMode: compute.InterfaceEFAOnly}
	flex := compute.GroupSpec{Name: "flex", InstanceTypes: []string{"ml.p4d.24xlarge", "ml.g5.48xlarge"}, Count: 1, Zone: "us-west-2b",
		Labels: []compute.Label{{Key: "team", Value: "vision"}}, Taints: []compute.Taint{{Key: "dedicated", Value: "training", Effect: "NO_SCHEDULE"}}}
	in := CreateInput{Name: "groups", Zones: []string{"us-west-2a", "us-west-2b"}, InstanceGroups: []compute.GroupSpec{efa, flex}}
	op, err := f.svc.Create(ctx, "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.wait(t, op.ID); end.Status != ops.Succeeded {
		t.Fatalf("create ended %s: %+v", end.Status, end.Error)
	}

	p, err := f.world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String("groups")})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []compute.GroupSpec{efa, flex} {
		d := compute.FindGroup(out, want.Name)
		if d == nil {
			t.Fatalf("HyperPod has no group %s", want.Name)
		}
		got := compute.ActualSpec(d)
		wantMode := want.InterfaceMode
		if wantMode == "" {
			wantMode = compute.InterfaceStandard
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
	if len(c.InstanceGroups) != 2 || c.InstanceGroups[0].InterfaceMode != compute.InterfaceEFAOnly ||
		c.InstanceGroups[1].InterfaceMode != compute.InterfaceStandard || !reflect.DeepEqual(c.InstanceGroups[1].InstanceTypes, flex.InstanceTypes) {
		t.Fatalf("requested groups %+v", c.InstanceGroups)
	}
}
