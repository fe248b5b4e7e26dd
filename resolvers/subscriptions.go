package resolvers

import (
	"context"
	"errors"
	"time"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
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

// operationStream follows operation id until it ends.
func (r *Resolver) operationStream(id string) *recordStream[ops.Operation, model.Operation] {
	return &recordStream[ops.Operation, model.Operation]{r: r, name: "operationUpdated", kind: ops.RecordKind, id: id,
		get: r.Ops.Get, view: mapOperation, final: func(op *ops.Operation) bool { return op.Status.Terminal() }}
}

// clusterStream follows cluster id until it is deleted.
func (r *Resolver) clusterStream(id string) *recordStream[hyperpod.Cluster, model.Cluster] {
	return &recordStream[hyperpod.Cluster, model.Cluster]{r: r, name: "clusterUpdated", kind: cluster.RecordKind, id: id,
		get: r.Clusters.Get, view: mapCluster, final: func(c *hyperpod.Cluster) bool { return c.Status == hyperpod.ClusterDeleted }}
}
