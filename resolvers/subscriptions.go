package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph/model"
)

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
	defer flush(ctx)
	var sent time.Time // UpdatedAt of the last state sent
	for {
		if !op.UpdatedAt.Equal(sent) {
			if !deliver(ctx, out, mapOperation(op), nil) {
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

// sharedOperation is an operation event decoded and mapped once for every
// subscriber.
type sharedOperation struct {
	op  *ops.Operation
	out *model.Operation
	err error
}

type operationViewKey struct{}

func operationView(ev *store.Event) *sharedOperation {
	return ev.Shared(operationViewKey{}, func() any {
		var op ops.Operation
		if err := json.Unmarshal(ev.Payload, &op); err != nil {
			return &sharedOperation{err: err}
		}
		return &sharedOperation{op: &op, out: mapOperation(&op)}
	}).(*sharedOperation)
}

// forwardOperation sends the stored changes of operation id after since to
// out until one is terminal, ctx ends, or the store ends the subscription.
// It returns the last state sent and whether the store ended the
// subscription because out fell behind.
func (r *Resolver) forwardOperation(ctx context.Context, id string, since uint64, out chan<- *model.Operation) (last *ops.Operation, overflowed bool) {
	sub, err := r.Store.Subscribe(since, store.Filter{Kinds: []string{ops.RecordKind}, IDs: []string{id}})
	if err != nil {
		r.log().Warn("operationUpdated: subscribe", "operation", id, "err", err)
		return nil, false
	}
	defer sub.Close()
	flushOnWait(ctx, sub)
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			var overflow *store.OverflowError
			if errors.As(err, &overflow) {
				return last, true
			}
			if ctx.Err() == nil {
				r.log().Warn("operationUpdated ended", "operation", id, "err", err)
			}
			return last, false
		}
		view := operationView(ev)
		if view.err != nil {
			r.log().Error("operationUpdated: decode operation event", "operation", id, "seq", ev.Seq, "err", view.err)
			continue
		}
		if !deliver(ctx, out, view.out, ev) {
			return last, false
		}
		last = view.op
		if last.Status.Terminal() {
			return last, false
		}
	}
}

// clusterFollow is where a clusterUpdated stream starts.
type clusterFollow struct {
	id string
	// first is the cluster as read when the stream began, sent before any
	// change; nil when the stream replays from a cursor.
	first *cluster.Cluster
	// sub delivers the cluster's changes after the read or the cursor; nil
	// when first is already deleted.
	sub *store.Subscription
	// untilCaughtUp ends the stream once sub has read the whole log: the
	// cluster was already deleted, so no change can follow.
	untilCaughtUp bool
}

// clusterEvents selects the events of cluster id.
func clusterEvents(id string) store.Filter {
	return store.Filter{Kinds: []string{cluster.RecordKind}, IDs: []string{id}}
}

// followCluster sends f.first, if any, and then every stored change of the
// cluster, and closes out once the cluster is deleted or ctx ends. Like
// followOperation, a follower that falls behind re-reads the cluster and
// continues from there.
func (r *Resolver) followCluster(ctx context.Context, f clusterFollow, out chan<- *model.Cluster) {
	defer close(out)
	defer flush(ctx)
	var sent []byte // the stored form of the last state sent
	if f.first != nil {
		if !deliver(ctx, out, mapCluster(f.first), nil) || f.first.Status == cluster.StatusDeleted {
			if f.sub != nil {
				f.sub.Close()
			}
			return
		}
		sent, _ = json.Marshal(f.first)
	}
	sub := f.sub
	for {
		var overflowed bool
		sent, overflowed = r.forwardCluster(ctx, f.id, sub, f.untilCaughtUp, sent, out)
		if !overflowed {
			return
		}
		// The sequence is taken before the read so that no change between
		// the two is missed.
		since := r.Store.LastSequence()
		latest, err := r.Clusters.Get(f.id)
		if errs.CodeOf(err) == errs.NotFound {
			return // the record itself was deleted
		}
		if err != nil {
			r.log().Error("clusterUpdated: re-read cluster", "cluster", f.id, "err", err)
			return
		}
		// The store appends no event for a write that changes nothing, so
		// equal stored forms are the same state.
		if raw, err := json.Marshal(latest); err != nil || !bytes.Equal(raw, sent) {
			if !deliver(ctx, out, mapCluster(latest), nil) {
				return
			}
			sent = raw
		}
		if latest.Status == cluster.StatusDeleted {
			return
		}
		if sub, err = r.Store.Subscribe(since, clusterEvents(f.id)); err != nil {
			r.log().Warn("clusterUpdated: subscribe", "cluster", f.id, "err", err)
			return
		}
	}
}

// sharedCluster is a cluster event decoded and mapped once for every
// subscriber.
type sharedCluster struct {
	c   *cluster.Cluster
	out *model.Cluster
	err error
}

type clusterViewKey struct{}

func clusterView(ev *store.Event) *sharedCluster {
	return ev.Shared(clusterViewKey{}, func() any {
		var c cluster.Cluster
		if err := json.Unmarshal(ev.Payload, &c); err != nil {
			return &sharedCluster{err: err}
		}
		return &sharedCluster{c: &c, out: mapCluster(&c)}
	}).(*sharedCluster)
}

// forwardCluster sends the changes of cluster id that sub delivers to out
// until the cluster is deleted, ctx ends, or the store ends sub, and then
// closes sub. With untilCaughtUp it also ends once sub has read the whole
// log. sent is the stored form of the last state sent; forwardCluster
// returns it updated, and whether the store ended sub because out fell
// behind.
func (r *Resolver) forwardCluster(ctx context.Context, id string, sub *store.Subscription, untilCaughtUp bool, sent []byte, out chan<- *model.Cluster) (last []byte, overflowed bool) {
	defer sub.Close()
	waitCtx := ctx
	if untilCaughtUp {
		var caughtUp context.CancelFunc
		waitCtx, caughtUp = context.WithCancel(ctx)
		defer caughtUp()
		sub.BeforeWait(func() {
			flush(ctx)
			caughtUp()
		})
	} else {
		flushOnWait(ctx, sub)
	}
	for {
		ev, err := sub.Next(waitCtx)
		if err != nil {
			var overflow *store.OverflowError
			if errors.As(err, &overflow) {
				return sent, true
			}
			if waitCtx.Err() == nil {
				r.log().Warn("clusterUpdated ended", "cluster", id, "err", err)
			}
			return sent, false
		}
		if ev.Action == store.ActionDeleted {
			return sent, false // the record is gone; the payload is its state before
		}
		view := clusterView(ev)
		if view.err != nil {
			r.log().Error("clusterUpdated: decode cluster event", "cluster", id, "seq", ev.Seq, "err", view.err)
			continue
		}
		if !deliver(ctx, out, view.out, ev) {
			return sent, false
		}
		sent = ev.Payload
		if view.c.Status == cluster.StatusDeleted {
			return sent, false
		}
	}
}

// streamEvents forwards sub to out. When the store ends sub because the
// reader fell behind, it sends one RESUBSCRIBE event whose cursor resumes
// with no gap, then closes out.
func (r *Resolver) streamEvents(ctx context.Context, sub *store.Subscription, out chan<- *model.Event) {
	defer close(out)
	defer sub.Close()
	defer flush(ctx)
	flushOnWait(ctx, sub)
	for {
		ev, err := sub.Next(ctx)
		var overflow *store.OverflowError
		switch {
		case err == nil:
			if !deliver(ctx, out, mapEvent(ev), ev) {
				return
			}
			continue
		case errors.As(err, &overflow):
			deliver(ctx, out, resubscribeEvent(overflow.ResumeAfter, time.Now()), nil)
		case ctx.Err() == nil:
			r.log().Warn("events subscription ended", "err", err)
		}
		return
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

// subscribeError explains why the store would not start a subscription: an
// expired cursor gets CURSOR_EXPIRED with the cursor to resume from, a
// closing store UNAVAILABLE.
func subscribeError(err error) error {
	var expired *store.CursorExpiredError
	switch {
	case errors.As(err, &expired):
		return errs.Wrap(errs.CursorExpired, err, "%s", expired.Error()).
			WithField("since").WithDetail("resumeFrom", store.Cursor(expired.Resume))
	case errors.Is(err, store.ErrClosed):
		return errs.Wrap(errs.Unavailable, err, "the server is shutting down: subscribe again once it is back")
	}
	return err
}

// parseSince reads the events subscription's since cursor.
func parseSince(since *string) (uint64, error) {
	seq, err := store.ParseCursor(deref(since))
	if err != nil {
		return 0, errs.Field("since", "%v", err)
	}
	return seq, nil
}
