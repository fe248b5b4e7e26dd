// Package simtest holds what the engine's tests on the simulator share:
// following an operation to its end, and counting the calls that change
// the simulated cloud.
package simtest

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

// Succeeded follows op to its end and fails the test, naming the failed
// phases, unless it succeeded.
func Succeeded(t testing.TB, r *ops.Runner, op *ops.Operation) *ops.Operation {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		end, err := r.Wait(context.Background(), op.ID, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !end.Status.Terminal() {
			continue
		}
		if end.Status != ops.Succeeded {
			var msgs []string
			for _, p := range end.Phases {
				if p.Error != nil {
					msgs = append(msgs, p.Name+": "+p.Error.Message)
				}
			}
			t.Fatalf("%s ended %s: %s", end.Kind, end.Status, strings.Join(msgs, "; "))
		}
		return end
	}
	t.Fatalf("operation %s did not end", op.ID)
	return nil
}

// Mutations counts the simulator's calls that change something: every
// operation that is not a Describe, List or Get (or a Kubernetes get,
// list or watch), as "service.operation".
func Mutations(w *sim.World) map[string]int {
	out := map[string]int{}
	for svc, calls := range w.Calls() {
		for op, n := range calls {
			if !strings.HasPrefix(op, "Describe") && !strings.HasPrefix(op, "List") && !strings.HasPrefix(op, "Get") &&
				!strings.HasPrefix(op, "list ") && !strings.HasPrefix(op, "get ") && !strings.HasPrefix(op, "watch ") {
				out[svc+"."+op] = n
			}
		}
	}
	return out
}

// MadeSince lists, sorted, the mutating calls whose counts grew since
// before (a result of Mutations).
func MadeSince(w *sim.World, before map[string]int) []string {
	var out []string
	for k, n := range Mutations(w) {
		if n > before[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// NoMutationSince fails the test when a mutating call was made since
// before.
func NoMutationSince(t testing.TB, w *sim.World, before map[string]int) {
	t.Helper()
	if after := Mutations(w); !maps.Equal(before, after) {
		t.Fatalf("mutating calls changed: before %v, after %v", before, after)
	}
}
