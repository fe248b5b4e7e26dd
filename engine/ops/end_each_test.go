package ops

import (
	"context"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// TestEachFailsAsRetryableAsItsRecordsOperation: a record whose own ending
// operation failed with a retryable error (a phase out of time) fails the
// Each phase retryably, naming that operation, so a retry of the parent
// ends the record again.
func TestEachFailsAsRetryableAsItsRecordsOperation(t *testing.T) {
	st := memStore(t)
	r := NewRunner(st, Options{Backoff: Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
	late := errs.New(errs.Timeout, "phase end did not reach its goal")
	late.Retryable = true
	r.Register(Definition{Kind: "End", Steps: func(*Operation) ([]Step, error) {
		return []Step{{Name: "end", Title: "end it", Observe: func(context.Context, *Run) (Observation, error) {
			return Observation{State: Broken, Err: late}, nil
		}}}, nil
	}})
	child := Child{ID: "c1", Name: "one", Status: "READY", TargetKind: "THING"}
	r.Register(Definition{Kind: "Parent", Steps: func(*Operation) ([]Step, error) {
		return []Step{r.EachStep(Each{Name: "things", Title: "end the things", Noun: "thing", Kinds: []string{"End"},
			Live: func() ([]Child, error) { return []Child{child}, nil },
			End: func(_ context.Context, c Child, caller, key string) (*Operation, error) {
				return r.Submit(Request{Kind: "End", Target: Ref{Kind: c.TargetKind, ID: c.ID}, RequestedBy: caller, IdempotencyKey: key})
			}})}, nil
	}})
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	op, err := r.Submit(Request{Kind: "Parent", Target: Ref{Kind: "PARENT", ID: "p"}, RequestedBy: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	end := waitEnd(t, r, op.ID)
	if end.Status != Failed || end.Error == nil || !end.Error.Retryable || end.Error.Code != string(errs.Upstream) {
		t.Fatalf("parent ended %s with %+v; want FAILED, retryable, UPSTREAM", end.Status, end.Error)
	}
}
