package sim

import (
	"testing"
	"time"
)

func TestLifecyclePhase(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ready := t0.Add(time.Minute)
	deleting := func(l lifecycle, at, gone time.Time) lifecycle { l.startDeleting(at, gone); return l }
	failed := newLifecycle(t0, ready)
	failed.FailMessage = "boom"
	cases := []struct {
		name string
		l    lifecycle
		at   time.Time
		want phase
	}{
		{"before ready", newLifecycle(t0, ready), ready.Add(-1), phaseCreating},
		{"at ready", newLifecycle(t0, ready), ready, phaseReady},
		{"failing, before ready", failed, ready.Add(-1), phaseCreating},
		{"failed", failed, ready, phaseFailed},
		{"deleting", deleting(newLifecycle(t0, ready), ready, ready.Add(time.Minute)), ready.Add(time.Second), phaseDeleting},
		{"deleting while creating", deleting(newLifecycle(t0, ready), t0, ready.Add(time.Minute)), t0, phaseDeleting},
		{"gone", deleting(failed, ready, ready.Add(time.Minute)), ready.Add(time.Minute), phaseGone},
	}
	for _, c := range cases {
		if got := c.l.phase(c.at); got != c.want {
			t.Errorf("%s: phase %d, want %d", c.name, got, c.want)
		}
	}
}

func TestGeneratedIDsAreDeterministic(t *testing.T) {
	a, b := &txn{st: newState()}, &txn{st: newState()}
	for i := 0; i < 100; i++ {
		if x, y := a.newID("vpc"), b.newID("vpc"); x != y || len(x) != len("vpc-")+17 {
			t.Fatalf("ids %q and %q", x, y)
		}
	}
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := a.newID("i")
		if seen[id] {
			t.Fatalf("id %s repeated", id)
		}
		seen[id] = true
	}
}
