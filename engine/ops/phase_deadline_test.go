package ops

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestResumedPhaseObservesBeforeItsDeadlineCounts stops a runner while a
// phase is WAITING, stores the phase as if the process had been down for
// ten hours (and, per case, had worked on it for some time before), and
// resumes it with a new runner: the phase always Observes before its
// deadline can end it, and the deadline counts only running time.
func TestResumedPhaseObservesBeforeItsDeadlineCounts(t *testing.T) {
	const timeout = time.Minute
	for _, tc := range []struct {
		name    string
		elapsed time.Duration // stored running time before the crash
		ready   bool          // whether the goal holds when the phase resumes
		want    PhaseStatus   // once the new runner has Observed a few times
	}{
		{"goal holds though its deadline was spent", 2 * timeout, true, PhaseSucceeded},
		{"goal pending after a long downtime", 0, false, PhaseWaiting},
		{"goal pending, deadline spent while running", timeout, false, PhaseFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := memStore(t)
			w := newWorld()
			w.pending["a"] = true
			var observed atomic.Int64
			steps := func(*Operation) ([]Step, error) {
				s := w.step("a")
				s.Timeout = timeout
				observe := s.Observe
				s.Observe = func(ctx context.Context, run *Run) (Observation, error) {
					observed.Add(1)
					return observe(ctx, run)
				}
				return []Step{s}, nil
			}
			before := int64(0)
			r2, id := resumeAfterDown(t, st, steps, "a", func(stored *Operation) {
				// The process was down for ten hours.
				p := stored.Phase("a")
				long := time.Now().Add(-10 * time.Hour).UTC()
				p.StartedAt, p.Elapsed = &long, tc.elapsed
				w.set("a", tc.ready, !tc.ready)
				before = observed.Load()
			})

			var got *Operation
			var err error
			deadline := time.Now().Add(10 * time.Second)
			for {
				if got, err = r2.Get(id); err != nil {
					t.Fatal(err)
				}
				if got.Status.Terminal() || observed.Load()-before >= 5 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the resumed phase Observed %d times in 10s", observed.Load()-before)
				}
				if _, err := r2.Wait(context.Background(), id, 100*time.Millisecond); err != nil {
					t.Fatal(err)
				}
			}
			if n := observed.Load() - before; n < 1 {
				t.Fatalf("the resumed phase ended %s without Observing", got.Phase("a").Status)
			}
			p := got.Phase("a")
			if p.Status != tc.want {
				t.Fatalf("resumed phase is %s (%s), want %s", p.Status, p.Message, tc.want)
			}
			if tc.want == PhaseFailed && (p.Error == nil || p.Error.Code != "TIMEOUT") {
				t.Fatalf("phase failed with %+v, want TIMEOUT", p.Error)
			}
			if tc.want == PhaseWaiting {
				// The clock restarted at the resume: the phase ends as soon
				// as its goal holds.
				w.set("a", true, false)
				if end := waitEnd(t, r2, id); end.Status != Succeeded {
					t.Fatalf("after the goal held: %s", end.Status)
				}
			}
		})
	}
}

// TestPhaseStoresItsRunningTime checks that a phase's running time is
// stored as it waits, so a restart can go on from it.
func TestPhaseStoresItsRunningTime(t *testing.T) {
	w := newWorld()
	w.pending["a"] = true
	r := testRunner(t, memStore(t), w, func() []Step { return []Step{w.step("a")} })
	op := submit(t, r, "t1")
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := r.Wait(context.Background(), op.ID, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if got.Phase("a").Elapsed > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a waiting phase never stored its running time")
		}
	}
	w.set("a", true, false)
	end := waitEnd(t, r, op.ID)
	if p := end.Phase("a"); end.Status != Succeeded || p.Elapsed <= 0 {
		t.Fatalf("status %s, stored running time %s", end.Status, p.Elapsed)
	}
}
