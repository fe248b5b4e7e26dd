package compute_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/preflight"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/testwait"
)

// fixture is the engine on the simulator with one ACTIVE cluster in
// us-west-2a and us-west-2b whose "gpu" group runs one ml.g5.xlarge.
type fixture struct {
	app      *app.App
	world    *sim.World
	runner   *ops.Runner
	clusters *cluster.Service
	svc      *compute.Service
	cluster  *hyperpod.Cluster
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, sim.Options{})
}

// newFixtureWith is newFixture with a simulator built from opts (its speed
// and region are the fixture's).
func newFixtureWith(t *testing.T, opts sim.Options) *fixture {
	t.Helper()
	a := apptest.New(t, apptest.Options{Sim: opts})
	f := &fixture{app: a, world: a.World, runner: a.Runner, clusters: a.Clusters, svc: a.Compute}
	f.cluster = apptest.Cluster(t, a, cluster.CreateInput{
		Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.xlarge"}, Count: 1, Zone: "us-west-2a"}},
	})
	return f
}

// succeeded waits for op and fails the test unless it succeeded.
func (f *fixture) succeeded(t *testing.T, op *ops.Operation) *ops.Operation {
	t.Helper()
	return simtest.Succeeded(t, f.runner, op)
}

func (f *fixture) sync(t *testing.T) {
	t.Helper()
	if _, err := f.svc.Sync(context.Background(), f.cluster); err != nil {
		t.Fatal(err)
	}
}

// onlyNode returns the one node of the fixture's "gpu" group once it is
// healthy.
func (f *fixture) onlyNode(t *testing.T) *compute.Node {
	t.Helper()
	var nodes []*compute.Node
	defer func() {
		if t.Failed() {
			for _, n := range nodes {
				t.Logf("node %+v", *n)
			}
		}
	}()
	testwait.Eventually(t, "one healthy node in the gpu group", func() bool {
		f.sync(t)
		nodes = mustNodes(t, f, f.groupNamed(t, "gpu").ID)
		return len(nodes) == 1 && nodes[0].Healthy()
	})
	return nodes[0]
}

// groupNamed returns the live group of the fixture's cluster named name.
func (f *fixture) groupNamed(t *testing.T, name string) *hyperpod.InstanceGroup {
	t.Helper()
	groups, err := f.svc.Groups(f.cluster.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %s among %d", name, len(groups))
	return nil
}

func (f *fixture) mutations() map[string]int { return simtest.Mutations(f.world) }

func (f *fixture) noMutationSince(t *testing.T, before map[string]int) {
	t.Helper()
	simtest.NoMutationSince(t, f.world, before)
}

// wantErr checks that err has code and names field, with a message that
// contains hint.
func wantErr(t *testing.T, err error, code errs.Code, field, hint string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s on %s", code, field)
	}
	var list errs.List
	found := []*errs.Error{}
	if errors.As(err, &list) {
		found = list
	} else {
		found = append(found, errs.As(err))
	}
	for _, e := range found {
		if e.Field == field && e.Code == code && strings.Contains(e.Message, hint) {
			return
		}
	}
	var got []string
	for _, e := range found {
		got = append(got, fmt.Sprintf("%s %s: %s", e.Code, e.Field, e.Message))
	}
	t.Fatalf("want %s on %s mentioning %q; got %s", code, field, hint, strings.Join(got, " | "))
}

func workers() compute.AddInput {
	return compute.AddInput{GroupSpec: hyperpod.GroupSpec{Name: "workers", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 2, Zone: "us-west-2b"}}
}

func TestInstanceGroupLifecycleWithNoops(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := workers()
	in.ClusterID = f.cluster.ID
	in.DeepHealthChecks = []string{"InstanceConnectivity"}
	op, err := f.svc.Add(ctx, "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.succeeded(t, op); end.Noop {
		t.Fatal("adding a group was a no-op")
	}
	if n := f.world.Calls()["sagemaker"]["UpdateCluster"]; n != 1 {
		t.Fatalf("UpdateCluster called %d times, want 1", n)
	}
	f.sync(t)
	g := f.groupNamed(t, "workers")
	if g.Status != hyperpod.GroupInService || g.CurrentCount != 2 || g.SubnetID == "" || !g.Managed || g.ThreadsPerCore != 1 || g.VolumeSizeGB != 500 {
		t.Fatalf("group after add: %+v", g)
	}
	c, _ := f.clusters.Get(f.cluster.ID)
	var subnetZone, subnetCIDR string
	for _, s := range c.Network.Subnets {
		if s.ID == g.SubnetID {
			subnetZone, subnetCIDR = s.Zone, s.CIDR
		}
	}
	if subnetZone != "us-west-2b" || !strings.HasSuffix(subnetCIDR, "/20") {
		t.Fatalf("the group's subnet %s is in %q with %q; want a /20 in us-west-2b", g.SubnetID, subnetZone, subnetCIDR)
	}
	nodes, err := f.svc.Nodes(f.cluster.ID, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("%d nodes, want 2", len(nodes))
	}
	for _, n := range nodes {
		if n.Status != "RUNNING" || n.Zone != "us-west-2b" || n.InstanceType != "ml.g5.12xlarge" || n.CapacityType != hyperpod.OnDemand || n.LaunchTime == nil {
			t.Fatalf("node %+v", n)
		}
	}

	// Scale up, then to the same count: the second is a no-op that calls
	// nothing that changes anything.
	op, err = f.svc.Scale(ctx, "tester", g.ID, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	before := f.mutations()
	op, err = f.svc.Scale(ctx, "tester", g.ID, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.succeeded(t, op); !end.Noop {
		t.Fatal("scaling to the actual count was not a no-op")
	}
	f.noMutationSince(t, before)

	// Update sends only what changed; sending the actual value is a no-op.
	labels := []hyperpod.Label{{Key: "team", Value: "vision"}}
	op, err = f.svc.Update(ctx, "tester", g.ID, compute.UpdateInput{Labels: labels, SetLabels: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.sync(t)
	if g = f.groupNamed(t, "workers"); !slices.Equal(g.Labels, labels) || g.Count != 3 || g.CurrentCount != 3 {
		t.Fatalf("group after update: %+v", g)
	}
	before = f.mutations()
	same, onDemand := 3, hyperpod.OnDemand
	op, err = f.svc.Update(ctx, "tester", g.ID, compute.UpdateInput{Labels: labels, SetLabels: true, Count: &same, CapacityType: &onDemand,
		DeepHealthChecks: []string{"InstanceConnectivity"}, SetHealthChecks: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.succeeded(t, op); !end.Noop {
		t.Fatal("an update to the actual values was not a no-op")
	}
	f.noMutationSince(t, before)

	// Fixed fields.
	spot, efa, zone := hyperpod.Spot, hyperpod.InterfaceEFAOnly, "us-west-2a"
	_, err = f.svc.Update(ctx, "tester", g.ID, compute.UpdateInput{CapacityType: &spot, InterfaceMode: &efa, Zone: &zone}, "")
	wantErr(t, err, errs.ImmutableField, "input.capacityType", "cannot change")
	wantErr(t, err, errs.ImmutableField, "input.networkInterfaceMode", "cannot change")
	wantErr(t, err, errs.ImmutableField, "input.zone", "cannot change")
	f.noMutationSince(t, before)

	op, err = f.svc.Delete(ctx, "tester", g.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.sync(t)
	if g, err = f.svc.Group(g.ID); err != nil || g.Status != hyperpod.GroupDeleted {
		t.Fatalf("group after delete: %+v, %v", g, err)
	}
	if nodes, _ := f.svc.Nodes(f.cluster.ID, g.ID); len(nodes) != 0 {
		t.Fatalf("%d nodes left after delete", len(nodes))
	}
	// The name is free again.
	if _, err := f.svc.Add(ctx, "tester", in, ""); err != nil {
		t.Fatalf("adding the name again: %v", err)
	}
}

func TestAddInstanceGroupRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	p5Plan := f.p5Plan(t)
	cases := []struct {
		name        string
		change      func(*compute.AddInput)
		code        errs.Code
		field, hint string
	}{
		{"zone outside the cluster", func(in *compute.AddInput) { in.Zone = "us-west-2c" }, errs.Precondition, "input.zone", "not one of cluster"},
		{"type not offered in the zone", func(in *compute.AddInput) { in.InstanceTypes = []string{"ml.p5e.48xlarge"}; in.Zone = "us-west-2a" }, errs.Precondition, "input.instanceType", "us-west-2a"},
		{"unknown type", func(in *compute.AddInput) { in.InstanceTypes = []string{"ml.z9.large"} }, errs.Precondition, "input.instanceType", "ml.z9.large"},
		{"not an ml type", func(in *compute.AddInput) { in.InstanceTypes = []string{"g5.12xlarge"} }, errs.Validation, "input.instanceType", "ml."},
		{"over quota", func(in *compute.AddInput) { in.InstanceTypes = []string{"ml.p4d.24xlarge"}; in.Count = 40 }, errs.Precondition, "input.count", "quota"},
		{"bad name", func(in *compute.AddInput) { in.Name = "-bad_name" }, errs.Validation, "input.name", ""},
		{"name taken", func(in *compute.AddInput) { in.Name = "gpu" }, errs.Precondition, "input.name", "already has an instance group"},
		{"min above count", func(in *compute.AddInput) { in.MinCount = 5 }, errs.Validation, "input.minCount", ""},
		{"flexible spot", func(in *compute.AddInput) {
			in.InstanceTypes = []string{"ml.g5.12xlarge", "ml.g5.48xlarge"}
			in.CapacityType = hyperpod.Spot
		}, errs.Precondition, "input.capacityType", "Spot"},
		{"plan without arn", func(in *compute.AddInput) { in.CapacityType = hyperpod.TrainingPlan }, errs.Validation, "input.trainingPlanArn", "ARN"},
		{"plan in another zone", func(in *compute.AddInput) {
			in.CapacityType, in.TrainingPlanArn, in.InstanceTypes, in.Zone = hyperpod.TrainingPlan, p5Plan.Arn, []string{"ml.p5.48xlarge"}, "us-west-2b"
		}, errs.Precondition, "input.zone", "reserves capacity in " + p5Plan.Zone},
		{"plan of another type", func(in *compute.AddInput) {
			in.CapacityType, in.TrainingPlanArn, in.Zone = hyperpod.TrainingPlan, p5Plan.Arn, ""
		}, errs.Precondition, "input.instanceType", "reserves ml.p5.48xlarge"},
		{"more than the plan holds", func(in *compute.AddInput) {
			in.CapacityType, in.TrainingPlanArn, in.InstanceTypes, in.Zone, in.Count = hyperpod.TrainingPlan, p5Plan.Arn, []string{"ml.p5.48xlarge"}, "", 9
		}, errs.Precondition, "input.count", "instances left"},
		{"unknown plan", func(in *compute.AddInput) {
			in.CapacityType, in.TrainingPlanArn = hyperpod.TrainingPlan, "arn:aws:sagemaker:us-west-2:123456789012:training-plan/nope"
		}, errs.Precondition, "input.trainingPlanArn", "does not exist"},
		{"bad label", func(in *compute.AddInput) { in.Labels = []hyperpod.Label{{Key: "bad key!", Value: "x"}} }, errs.Validation, "input.labels", "bad key!"},
	}
	before := f.mutations()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := workers()
			in.ClusterID = f.cluster.ID
			tc.change(&in)
			_, err := f.svc.Add(ctx, "tester", in, "")
			wantErr(t, err, tc.code, tc.field, tc.hint)
		})
	}
	f.noMutationSince(t, before)
	if groups, _ := f.svc.Groups(f.cluster.ID, true); len(groups) != 1 {
		t.Fatalf("%d groups after refusals, want only gpu", len(groups))
	}
}

func TestTrainingPlanGroupTakesThePlansZone(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	plan := f.p5Plan(t)
	in := compute.AddInput{ClusterID: f.cluster.ID, GroupSpec: hyperpod.GroupSpec{Name: "reserved", InstanceTypes: []string{"ml.p5.48xlarge"},
		Count: 2, CapacityType: hyperpod.TrainingPlan, TrainingPlanArn: plan.Arn}}
	op, err := f.svc.Add(ctx, "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.sync(t)
	g := f.groupNamed(t, "reserved")
	if g.Zone != plan.Zone || g.ThreadsPerCore != 2 || g.CapacityType != hyperpod.TrainingPlan || g.TrainingPlanArn != plan.Arn {
		t.Fatalf("training plan group: %+v (plan %+v)", g, plan)
	}
	spot := hyperpod.Spot
	_, err = f.svc.Update(ctx, "tester", g.ID, compute.UpdateInput{CapacityType: &spot}, "")
	wantErr(t, err, errs.ImmutableField, "input.capacityType", "TRAINING_PLAN")
}

func TestNodeActionsInBatches(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := compute.AddInput{ClusterID: f.cluster.ID, GroupSpec: hyperpod.GroupSpec{Name: "cpu", InstanceTypes: []string{"ml.m5.xlarge"}, Count: 27, Zone: "us-west-2a"}}
	op, err := f.svc.Add(ctx, "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.sync(t)
	g := f.groupNamed(t, "cpu")
	nodes, err := f.svc.Nodes(f.cluster.ID, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 27 {
		t.Fatalf("%d nodes, want 27", len(nodes))
	}
	var ids []string
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}

	// Refusals: none, too many, twice, unknown.
	before := f.mutations()
	_, err = f.svc.RebootNodes(ctx, "tester", f.cluster.ID, nil, "")
	wantErr(t, err, errs.Validation, "nodeIds", "give 1 to")
	_, err = f.svc.RebootNodes(ctx, "tester", f.cluster.ID, make([]string, 501), "")
	wantErr(t, err, errs.Validation, "nodeIds", "several requests")
	_, err = f.svc.ReplaceNodes(ctx, "tester", f.cluster.ID, []string{ids[0], ids[0]}, "")
	wantErr(t, err, errs.Validation, "nodeIds", "twice")
	_, err = f.svc.DeleteNodes(ctx, "tester", f.cluster.ID, []string{"i-0000000000000dead"}, "")
	wantErr(t, err, errs.NotFound, "nodeIds", "i-0000000000000dead")
	f.noMutationSince(t, before)

	// 27 reboots go in two batches, one after the other, within the API's
	// limit of 25 per call.
	op, err = f.svc.RebootNodes(ctx, "tester", f.cluster.ID, ids, "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.succeeded(t, op)
	if len(end.Phases) != 2 || end.Phases[0].Name != "batch-1" || end.Phases[1].Name != "batch-2" {
		t.Fatalf("phases %+v", end.Phases)
	}
	if n := f.world.Calls()["sagemaker"]["BatchRebootClusterNodes"]; n != 2 {
		t.Fatalf("BatchRebootClusterNodes called %d times, want 2", n)
	}
	f.sync(t)
	for _, n := range mustNodes(t, f, g.ID) {
		if n.Status != "RUNNING" {
			t.Fatalf("node %s is %s after the reboot", n.ID, n.Status)
		}
	}

	// Replacing keeps the count with new instances; deleting lowers it.
	op, err = f.svc.ReplaceNodes(ctx, "tester", f.cluster.ID, ids[:1], "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.sync(t)
	after := mustNodes(t, f, g.ID)
	if len(after) != 27 || slices.ContainsFunc(after, func(n *compute.Node) bool { return n.ID == ids[0] }) {
		t.Fatalf("after replacing %s: %d nodes", ids[0], len(after))
	}
	op, err = f.svc.DeleteNodes(ctx, "tester", f.cluster.ID, ids[1:3], "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.sync(t)
	if after = mustNodes(t, f, g.ID); len(after) != 25 {
		t.Fatalf("%d nodes after deleting 2 of 27", len(after))
	}
	if g = f.groupNamed(t, "cpu"); g.Count != 25 {
		t.Fatalf("group count %d after deleting 2 of 27 nodes", g.Count)
	}
}

// p5Plan returns the simulator's training plan of ml.p5.48xlarge.
func (f *fixture) p5Plan(t *testing.T) preflight.Plan {
	t.Helper()
	plans, err := f.app.Preflight.TrainingPlans(context.Background(), apptest.Region)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		if p.InstanceType == "ml.p5.48xlarge" {
			return p
		}
	}
	t.Fatalf("no ml.p5.48xlarge training plan in %+v", plans)
	return preflight.Plan{}
}

func mustNodes(t *testing.T, f *fixture, groupID string) []*compute.Node {
	t.Helper()
	nodes, err := f.svc.Nodes(f.cluster.ID, groupID)
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

func TestDeletingTheClusterRetiresItsGroupsAndNodes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	g := f.groupNamed(t, "gpu")
	if len(mustNodes(t, f, g.ID)) != 1 {
		t.Fatal("the gpu group has no node")
	}
	op, err := f.clusters.Delete(ctx, "tester", f.cluster.ID, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	if _, err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if g, err = f.svc.Group(g.ID); err != nil || g.Status != hyperpod.GroupDeleted || !strings.Contains(g.StatusMessage, "train-1 was deleted") {
		t.Fatalf("group after its cluster was deleted: %+v, %v", g, err)
	}
	if n := mustNodes(t, f, ""); len(n) != 0 {
		t.Fatalf("%d nodes left after the cluster was deleted", len(n))
	}
}
