package ops

import (
	"context"
	"testing"
	"time"
)

// TestCancelledRunsOnceTheOperationIsCancelled stops an operation whose
// phase waits for ever: its definition's Cancelled runs once, after the
// operation is stored CANCELLED, and not for operations that end otherwise.
func TestCancelledRunsOnceTheOperationIsCancelled(t *testing.T) {
	r := NewRunner(memStore(t), Options{Backoff: Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond}})
	seen := make(chan *Operation, 4)
	waiting := make(chan struct{}, 1)
	r.Register(Definition{Kind: "Download", StatusQuery: "thing",
		Steps: func(op *Operation) ([]Step, error) {
			return []Step{{Name: "wait", Observe: func(context.Context, *Run) (Observation, error) {
				select {
				case waiting <- struct{}{}:
				default:
				}
				return Observation{State: Pending, Message: "still going"}, nil
			}}}, nil
		},
		Cancelled: func(_ context.Context, op *Operation) error {
			seen <- op
			return nil
		},
	})
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	op, err := r.Submit(Request{Kind: "Download", Target: Ref{Kind: "THING", ID: "t1"}, RequestedBy: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the phase never ran")
	}
	if _, err := r.Cancel(op.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-seen:
		if got.ID != op.ID || got.Status != Cancelled {
			t.Fatalf("Cancelled saw %s %s", got.ID, got.Status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Cancelled did not run")
	}
	if end := waitEnd(t, r, op.ID); end.Status != Cancelled {
		t.Fatalf("the operation ended %s", end.Status)
	}
	select {
	case again := <-seen:
		t.Fatalf("Cancelled ran twice: %+v", again)
	default:
	}
}
