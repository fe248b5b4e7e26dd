package resolvers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph/model"
)

// testRing is the store's event ring in these tests: a subscriber further
// behind than it is ended with a cursor to resume from.
const testRing = 16

func newTestResolver(t *testing.T) *Resolver {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{InMemory: true, EventRing: testRing})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Resolver{Store: st, Ops: ops.NewRunner(st, ops.Options{})}
}

func put(t *testing.T, st *store.Store, kind, id string, v any) {
	t.Helper()
	if err := st.Update(func(tx *store.Tx) error { return tx.Put(kind, id, v) }); err != nil {
		t.Fatal(err)
	}
}

// drain reads ch until it closes or the deadline passes.
func drain[T any](t *testing.T, ch <-chan T) []T {
	t.Helper()
	var out []T
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, v)
		case <-deadline:
			t.Fatalf("channel still open after %d values", len(out))
		}
	}
}

func TestEventsOverflowEndsWithResubscribeCursor(t *testing.T) {
	r := newTestResolver(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Subscription().Events(ctx, nil, &model.EventFilter{Kinds: []string{"WIDGET"}})
	if err != nil {
		t.Fatal(err)
	}
	// The first event is read live from the store's ring; the reader then
	// stops reading while four rings' worth of events are written, so it
	// falls out of the ring (a reader that has not gone live yet would
	// replay them from the stored log instead).
	const total = 4 * testRing
	put(t, r.Store, "widget", "0", map[string]int{"n": 0})
	var first *model.Event
	select {
	case first = <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the first event did not come")
	}
	for i := 1; i < total; i++ {
		put(t, r.Store, "widget", fmt.Sprint(i), map[string]int{"n": i})
	}
	got := append([]*model.Event{first}, drain(t, ch)...)
	if len(got) == 0 || got[len(got)-1].Action != model.EventActionResubscribe {
		t.Fatalf("did not end with RESUBSCRIBE after %d events", len(got))
	}
	delivered := got[:len(got)-1]
	for i, ev := range delivered {
		if ev.Cursor != store.Cursor(uint64(i+1)) || ev.Target.Kind != "WIDGET" {
			t.Fatalf("event %d = %s %s, want cursor %d of a WIDGET", i, ev.Cursor, ev.Target.Kind, i+1)
		}
	}
	resume := got[len(got)-1].Cursor
	if want := store.Cursor(uint64(len(delivered))); resume != want {
		t.Fatalf("resume cursor = %s, want %s (the last delivered)", resume, want)
	}

	// Resuming from the cursor continues with no gap and no duplicate.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	rest, err := r.Subscription().Events(ctx2, &resume, nil)
	if err != nil {
		t.Fatal(err)
	}
	next := len(delivered) + 1
	for next <= total {
		ev := <-rest
		if ev.Cursor != store.Cursor(uint64(next)) {
			t.Fatalf("resumed event cursor = %s, want %d", ev.Cursor, next)
		}
		next++
	}
}

func TestEventsRejectsBadCursor(t *testing.T) {
	r := newTestResolver(t)
	bad := "not-a-cursor"
	if _, err := r.Subscription().Events(context.Background(), &bad, nil); err == nil {
		t.Fatal("a bad cursor was accepted")
	}
}

func TestOperationUpdatedCatchesUpAfterFallingBehind(t *testing.T) {
	r := newTestResolver(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	op := ops.Operation{ID: "op-1", Kind: "Build", Status: ops.Running, CreatedAt: base, UpdatedAt: base}
	put(t, r.Store, ops.RecordKind, op.ID, op)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Subscription().OperationUpdated(ctx, op.ID)
	if err != nil {
		t.Fatal(err)
	}
	const updates = 4 * testRing
	for i := 1; i <= updates; i++ {
		op.UpdatedAt = base.Add(time.Duration(i) * time.Millisecond)
		if i == updates {
			op.Status = ops.Succeeded
		}
		put(t, r.Store, ops.RecordKind, op.ID, op)
	}
	got := drain(t, ch)
	if len(got) == 0 || got[0].Status != model.OperationStatusRunning {
		t.Fatalf("first state = %+v, want the RUNNING snapshot", got)
	}
	last := got[len(got)-1]
	if last.Status != model.OperationStatusSucceeded || !last.UpdatedAt.Equal(op.UpdatedAt) {
		t.Fatalf("last state = %s at %s, want SUCCEEDED at %s", last.Status, last.UpdatedAt, op.UpdatedAt)
	}
	for i := 1; i < len(got); i++ {
		if !got[i].UpdatedAt.After(got[i-1].UpdatedAt) {
			t.Fatalf("state %d (%s) does not follow state %d (%s)", i, got[i].UpdatedAt, i-1, got[i-1].UpdatedAt)
		}
	}
}

func TestOperationUpdatedOfEndedOperationSendsItOnce(t *testing.T) {
	r := newTestResolver(t)
	op := ops.Operation{ID: "op-2", Kind: "Build", Status: ops.Failed, UpdatedAt: time.Now()}
	put(t, r.Store, ops.RecordKind, op.ID, op)
	ch, err := r.Subscription().OperationUpdated(context.Background(), op.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(t, ch); len(got) != 1 || got[0].Status != model.OperationStatusFailed {
		t.Fatalf("got %+v, want the FAILED operation once", got)
	}
}

func TestEventsOnAClosedStoreIsUnavailable(t *testing.T) {
	r := newTestResolver(t)
	r.Store.Close()
	if _, err := r.Subscription().Events(context.Background(), nil, nil); errs.CodeOf(err) != errs.Unavailable {
		t.Fatalf("events on a closed store: %v, want UNAVAILABLE", err)
	}
}
