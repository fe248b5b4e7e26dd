package resolvers

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph/model"
)

// subscriptionBuffer bounds the live events the store holds for one
// subscriber. A subscriber that falls further behind is ended by the store
// with an OverflowError rather than slowing anyone else.
const subscriptionBuffer = 256

// send hands v to out unless ctx ends first.
func send[T any](ctx context.Context, out chan<- T, v T) bool {
	select {
	case out <- v:
		return true
	case <-ctx.Done():
		return false
	}
}

// followOperation sends op (read after since) and then every stored change
// of it, and closes out after a terminal state or when ctx ends. A follower
// that falls behind re-reads the operation and continues from there: it
// only ever needs the newest state.
func (r *Resolver) followOperation(ctx context.Context, op *ops.Operation, since uint64, out chan<- *model.Operation) {
	defer close(out)
	var sent time.Time // UpdatedAt of the last state sent
	for {
		if !op.UpdatedAt.Equal(sent) {
			if !send(ctx, out, mapOperation(op)) {
				return
			}
			sent = op.UpdatedAt
		}
		if op.Status.Terminal() {
			return
		}
		last, overflowed := r.forwardOperation(ctx, op.ID, since, out)
		if !overflowed {
			return
		}
		if last != nil {
			sent = last.UpdatedAt
		}
		// The sequence is taken before the read so that no change between
		// the two is missed.
		since = r.Store.LastSequence()
		latest, err := r.Ops.Get(op.ID)
		if err != nil {
			r.log().Error("operationUpdated: re-read operation", "operation", op.ID, "err", err)
			return
		}
		op = latest
	}
}

// forwardOperation sends the stored changes of operation id after since to
// out until one is terminal, ctx ends, or the store ends the subscription.
// It returns the last state sent and whether the store ended the
// subscription because out fell behind.
func (r *Resolver) forwardOperation(ctx context.Context, id string, since uint64, out chan<- *model.Operation) (last *ops.Operation, overflowed bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the store's pump when leaving early
	sub := r.Store.Subscribe(ctx, since, store.Filter{Kinds: []string{ops.RecordKind}, IDs: []string{id}}, subscriptionBuffer)
	for ev := range sub.C {
		var next ops.Operation
		if err := json.Unmarshal(ev.Payload, &next); err != nil {
			r.log().Error("operationUpdated: decode operation event", "operation", id, "seq", ev.Seq, "err", err)
			continue
		}
		if !send(ctx, out, mapOperation(&next)) {
			return last, false
		}
		last = &next
		if next.Status.Terminal() {
			return last, false
		}
	}
	var overflow *store.OverflowError
	err := sub.Err()
	if errors.As(err, &overflow) {
		return last, true
	}
	if err != nil {
		r.log().Warn("operationUpdated ended", "operation", id, "err", err)
	}
	return last, false
}

// streamEvents forwards sub to out. When the store ends sub because the
// reader fell behind, it sends one RESUBSCRIBE event whose cursor resumes
// with no gap, then closes out.
func (r *Resolver) streamEvents(ctx context.Context, sub *store.Subscription, out chan<- *model.Event) {
	defer close(out)
	for ev := range sub.C {
		if !send(ctx, out, mapEvent(ev)) {
			return
		}
	}
	var overflow *store.OverflowError
	switch err := sub.Err(); {
	case errors.As(err, &overflow):
		send(ctx, out, resubscribeEvent(overflow.ResumeAfter, time.Now()))
	case err != nil:
		r.log().Warn("events subscription ended", "err", err)
	}
}

// eventFilter turns the GraphQL event filter into the store's.
func eventFilter(f *model.EventFilter) store.Filter {
	if f == nil {
		return store.Filter{}
	}
	out := store.Filter{IDs: f.Ids}
	for _, k := range f.Kinds {
		out.Kinds = append(out.Kinds, storeKind(k))
	}
	return out
}

// parseSince reads the events subscription's since cursor.
func parseSince(since *string) (uint64, error) {
	seq, err := store.ParseCursor(deref(since))
	if err != nil {
		return 0, errs.Field("since", "%v", err)
	}
	return seq, nil
}
