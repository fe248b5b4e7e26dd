package features_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
)

// TestOnePageAtATimeMakesTheSameCalls runs the whole flow (create, feature
// toggles, delete) twice: as the simulator pages by default, and with
// every paged list answer cut to one item. A caller that read only the
// first page would miss a role policy, an add-on, a security group... and
// make fewer deletes, or a second create: the mutating calls must be the
// same.
func TestOnePageAtATimeMakesTheSameCalls(t *testing.T) {
	sim1 := func(w *sim.World) cloud.Regions { return w }
	plain := newFlowStack(t, sim1)
	paged := newFlowStack(t, sim1)
	if _, err := paged.world.InjectFault(sim.Fault{Kind: sim.FaultSmallPages, Value: 1}); err != nil {
		t.Fatal(err)
	}
	plain.run(t)
	paged.run(t)

	want, got := simtest.Mutations(plain.world), simtest.Mutations(paged.world)
	if !maps.Equal(want, got) {
		for _, k := range slices.Sorted(maps.Keys(joinKeys(want, got))) {
			if want[k] != got[k] {
				t.Errorf("%s: %d with whole pages, %d one item a page", k, want[k], got[k])
			}
		}
	}
	// The fault paged the lists that hold several items: a role's
	// attached policies, the region's quotas.
	for _, c := range []struct{ svc, op string }{{"iam", "ListAttachedRolePolicies"}, {"servicequotas", "ListServiceQuotas"}} {
		if n, before := paged.world.Calls()[c.svc][c.op], plain.world.Calls()[c.svc][c.op]; n <= before {
			t.Errorf("%s %s: %d calls one item a page, %d with whole pages: the fault did not page it", c.svc, c.op, n, before)
		}
	}
}
