package features_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/app/apptest"
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
	plain := newFlowApp(t, nil)
	paged := newFlowApp(t, nil, func(o *apptest.Options) {
		o.Faults = []sim.Fault{{Kind: sim.FaultSmallPages, Value: 1}}
	})
	runFlow(t, plain)
	runFlow(t, paged)

	want, got := simtest.Mutations(plain.World), simtest.Mutations(paged.World)
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
		if n, before := paged.World.Calls()[c.svc][c.op], plain.World.Calls()[c.svc][c.op]; n <= before {
			t.Errorf("%s %s: %d calls one item a page, %d with whole pages: the fault did not page it", c.svc, c.op, n, before)
		}
	}
}
