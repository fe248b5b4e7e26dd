package features_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
)

// newFlowApp builds the App on a new world whose ports, when ports is
// set, are those it makes of the world; tweaks change the App's options
// first (a Speed set there is the world's and the runner's).
func newFlowApp(t *testing.T, ports func(*sim.World) cloud.Regions, tweaks ...func(*apptest.Options)) *app.App {
	t.Helper()
	opts := apptest.Options{Sim: sim.Options{Seed: 7}, SimPorts: ports}
	for _, tweak := range tweaks {
		tweak(&opts)
	}
	return apptest.New(t, opts)
}

// runFlow creates a cluster with a GPU group, turns features on and one
// off again, and deletes the cluster.
func runFlow(t *testing.T, a *app.App) {
	t.Helper()
	ctx := context.Background()
	op, err := a.Clusters.Create(ctx, "tester", cluster.CreateInput{
		Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.p5.48xlarge"}, Count: 2, Zone: "us-west-2a"}},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := simtest.Succeeded(t, a.Runner, op).Target.ID
	toggle := func(toggles ...features.Toggle) {
		op, err := a.Features.Update(ctx, "tester", id, toggles, "")
		if err != nil {
			t.Fatal(err)
		}
		simtest.Succeeded(t, a.Runner, op)
	}
	toggle(features.Toggle{Name: hyperpod.TrainingOperator, Enable: true}, features.Toggle{Name: hyperpod.S3CSIDriver, Enable: true, Settings: &features.Settings{Buckets: []string{"datasets-1"}}})
	toggle(features.Toggle{Name: hyperpod.FSxCSIDriver, Enable: true})
	toggle(features.Toggle{Name: hyperpod.S3CSIDriver, Enable: false})
	del, err := a.Clusters.Delete(ctx, "tester", id, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, a.Runner, del)
}

// TestWireRunMakesTheCallsOfTheEmbeddedRun runs one flow twice: on the
// simulator's ports in-process, and through the real SDK clients against
// the simulator's AWS wire endpoint (EKS REST-JSON, EC2 and IAM/STS query,
// SageMaker, FSx and Service Quotas JSON 1.1). Each world records the
// calls it answered; the mutating ones must be the same, call for call.
func TestWireRunMakesTheCallsOfTheEmbeddedRun(t *testing.T) {
	embedded := newFlowApp(t, nil)
	wire := newFlowApp(t, apptest.OnTheWire(t))
	runFlow(t, embedded)
	runFlow(t, wire)

	want, got := simtest.Mutations(embedded.World), simtest.Mutations(wire.World)
	t.Logf("%d kinds of mutating call, %d calls in all", len(want), total(want))
	if !maps.Equal(want, got) {
		for _, k := range slices.Sorted(maps.Keys(joinKeys(want, got))) {
			if want[k] != got[k] {
				t.Errorf("%s: embedded %d, wire %d", k, want[k], got[k])
			}
		}
	}
	for _, svc := range []string{"sagemaker", "eks", "ec2", "iam"} {
		if wire.World.Calls()[svc] == nil {
			t.Errorf("no %s call reached the wire world", svc)
		}
	}
}

func joinKeys(a, b map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}
