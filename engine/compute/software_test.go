package compute_test

import (
	"context"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/testwait"
)

func TestUpdateClusterSoftwareMovesTheNodesToTheLatestImage(t *testing.T) {
	f := newFixture(t)
	node := f.onlyNode(t)
	before := f.groupNamed(t, "gpu").Software
	if before.ImageVersion != sim.ImageVersionCurrent || before.ImageVersionStatus != "UPDATE_AVAILABLE" || before.UpdateStatus != "" ||
		node.ImageVersion != sim.ImageVersionCurrent || node.ImageStatus != "UPDATE_AVAILABLE" {
		t.Fatalf("before the update the group's software is %+v and the node runs %s (%s)", before, node.ImageVersion, node.ImageStatus)
	}
	op, err := f.svc.UpdateSoftware(context.Background(), "tester", f.cluster.ID, nil, compute.RollingUpdate{MaxUnavailablePercent: 50, WaitIntervalSeconds: 30}, "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.succeeded(t, op)
	if p := end.Phase("software-update"); p == nil || !strings.Contains(p.Message, "1 of 1 nodes on the latest image") {
		t.Errorf("phase: %+v", p)
	}
	f.sync(t)
	after := f.groupNamed(t, "gpu").Software
	want := hyperpod.Software{ImageVersion: sim.ImageVersionAvailable, TargetImageVersion: sim.ImageVersionAvailable, ImageVersionStatus: "UP_TO_DATE", UpdateStatus: "SUCCEEDED"}
	if after != want {
		t.Errorf("after the update the group's software is %+v, want %+v", after, want)
	}
	nodes := mustNodes(t, f, f.groupNamed(t, "gpu").ID)
	if len(nodes) != 1 || nodes[0].ImageVersion != sim.ImageVersionAvailable || nodes[0].ImageStatus != "UP_TO_DATE" {
		t.Errorf("after the update the nodes are %+v", nodes)
	}
}

func TestUpdateClusterSoftwareStopsOnAnUnhealthyBatch(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		f := newFixture(t)
		node := f.onlyNode(t)
		if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultPatch, Cluster: f.cluster.HyperPod.Name}); err != nil {
			t.Fatal(err)
		}
		op, err := f.svc.UpdateSoftware(context.Background(), "tester", f.cluster.ID, []string{"gpu"},
			compute.RollingUpdate{MaxUnavailablePercent: 100, AutoRollback: rollback}, "")
		if err != nil {
			t.Fatal(err)
		}
		var end *ops.Operation
		testwait.Eventually(t, "the software update ends", func() bool {
			end, err = f.runner.Get(op.ID)
			return err == nil && end.Status.Terminal()
		})
		if end.Status != ops.Failed || end.Error == nil {
			t.Fatalf("rollback %v: the operation ended %s", rollback, end.Status)
		}
		msg := end.Error.Message
		for _, want := range []string{"instance group gpu", "batch 1 of 1", node.ID} {
			if !strings.Contains(msg, want) {
				t.Errorf("rollback %v: the error %q does not name %q", rollback, msg, want)
			}
		}
		if rolled := strings.Contains(msg, "rolled the updated nodes back"); rolled != rollback {
			t.Errorf("rollback %v: the error %q", rollback, msg)
		}
	}
}

func TestUpdateClusterSoftwareChecksItsInput(t *testing.T) {
	f := newFixture(t)
	before := f.mutations()
	for _, tc := range []struct {
		groups  []string
		rolling compute.RollingUpdate
		field   string
	}{
		{nil, compute.RollingUpdate{MaxUnavailablePercent: 0}, "rollingUpdate.maxUnavailablePercent"},
		{nil, compute.RollingUpdate{MaxUnavailablePercent: 101}, "rollingUpdate.maxUnavailablePercent"},
		{nil, compute.RollingUpdate{MaxUnavailablePercent: 10, WaitIntervalSeconds: -1}, "rollingUpdate.waitIntervalSeconds"},
		{nil, compute.RollingUpdate{MaxUnavailablePercent: 10, WaitIntervalSeconds: 3601}, "rollingUpdate.waitIntervalSeconds"},
		{[]string{"cpu"}, compute.RollingUpdate{MaxUnavailablePercent: 10}, "instanceGroups[0]"},
		{[]string{"gpu", "gpu"}, compute.RollingUpdate{MaxUnavailablePercent: 10}, "instanceGroups[1]"},
	} {
		_, err := f.svc.UpdateSoftware(context.Background(), "tester", f.cluster.ID, tc.groups, tc.rolling, "")
		list, ok := err.(errs.List)
		if !ok || len(list) != 1 || list[0].Code != errs.Validation || list[0].Field != tc.field {
			t.Errorf("%v %+v: %v, want a VALIDATION error on %s", tc.groups, tc.rolling, err, tc.field)
		}
	}
	f.noMutationSince(t, before)
}
