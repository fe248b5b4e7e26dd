package compute_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
)

// observed is one look at a node: its status and health.
type observed struct{ status, health string }

// watchNode steps the paused clock a simulated minute at a time for up to
// minutes, syncing and recording each change of the node, until done
// accepts it. It reports what it saw and whether done accepted the node.
func watchNode(t *testing.T, f *fixture, clock *simtest.PausableClock, id string, minutes int, done func(*compute.Node) bool) ([]observed, bool) {
	t.Helper()
	var seen []observed
	for range minutes {
		f.sync(t)
		n, err := f.svc.Node(id)
		if err != nil {
			t.Fatal(err)
		}
		if o := (observed{n.Status, n.Health}); len(seen) == 0 || seen[len(seen)-1] != o {
			seen = append(seen, o)
		}
		if done(n) {
			return seen, true
		}
		clock.Step(time.Duration(float64(time.Minute) / apptest.Speed)) // a minute of real-world time, as the simulator counts it
	}
	return seen, false
}

func injectNodeFault(t *testing.T, f *fixture) {
	t.Helper()
	if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultNode, Cluster: f.cluster.HyperPod.Name, Recovery: "reboot", Count: 1}); err != nil {
		t.Fatal(err)
	}
}

func TestNodeFaultWithAutoRecoveryReturnsTheNodeToService(t *testing.T) {
	clock := &simtest.PausableClock{}
	f := newFixtureWith(t, sim.Options{Clock: clock.Now})
	node := f.onlyNode(t)
	clock.Pause()
	injectNodeFault(t, f)
	struck := false
	seen, ok := watchNode(t, f, clock, node.ID, 60, func(n *compute.Node) bool {
		struck = struck || !n.Healthy()
		return struck && n.Healthy()
	})
	if !ok {
		t.Fatalf("the node did not come back within an hour: %v", seen)
	}
	if !slices.Contains(seen, observed{"RUNNING", compute.HealthUnschedulable}) {
		t.Fatalf("the node never showed Unschedulable: %v", seen)
	}
	if !slices.ContainsFunc(seen, func(o observed) bool { return o.status == "PENDING" || o.health == compute.HealthPendingReboot }) {
		t.Fatalf("the node was never rebooted: %v", seen)
	}
	if n := f.world.Calls()["sagemaker"]["BatchRebootClusterNodes"]; n != 0 {
		t.Fatalf("the control plane rebooted the node itself (%d calls); HyperPod should have", n)
	}
}

func TestNodeFaultWithoutAutoRecoveryStaysUntilRebooted(t *testing.T) {
	clock := &simtest.PausableClock{}
	f := newFixtureWith(t, sim.Options{Clock: clock.Now})
	ctx := context.Background()
	p, err := f.world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.SageMaker.UpdateCluster(ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String(f.cluster.HyperPod.Name), NodeRecovery: smtypes.ClusterNodeRecoveryNone}); err != nil {
		t.Fatal(err)
	}
	node := f.onlyNode(t)
	clock.Pause()
	injectNodeFault(t, f)
	seen, _ := watchNode(t, f, clock, node.ID, 60, func(*compute.Node) bool { return false })
	if last := seen[len(seen)-1]; last.status != "RUNNING" || last.health == compute.HealthSchedulable {
		t.Fatalf("without auto-recovery the node went %v", seen)
	}
	d, err := f.svc.Diagnose(ctx, node.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.AutoRecovery || d.NextStep != compute.StepReboot || len(d.Events) == 0 {
		t.Fatalf("diagnosis: %+v", d)
	}

	// The suggested reboot fixes it.
	op, err := f.svc.RebootNodes(ctx, "tester", f.cluster.ID, []string{node.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	clock.Resume()
	f.succeeded(t, op)
	f.sync(t)
	if n, err := f.svc.Node(node.ID); err != nil || !n.Healthy() {
		t.Fatalf("after the reboot: %+v, %v", n, err)
	}
}
