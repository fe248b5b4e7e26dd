package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// recordStream follows one stored record for a subscription such as
// operationUpdated or clusterUpdated: it sends the record as read when the
// stream began, then each stored change of it, and ends once the record
// reaches a final state, is deleted, or ctx ends. A stream that falls
// behind re-reads the record and continues from there: its subscriber only
// ever needs the newest state.
type recordStream[R, M any] struct {
	r     *Resolver
	name  string // the subscription, for logs
	kind  string // the record's kind in the store
	id    string
	get   func(id string) (*R, error)
	view  func(*R) *M
	final func(*R) bool // true when no change can follow
}

// open starts the stream. With no since it sends the record as it is now
// and then its changes; with since it replays the changes stored after
// that cursor, and a replay of a record already final ends with the log.
func (s *recordStream[R, M]) open(ctx context.Context, since *string) (<-chan *M, error) {
	after, err := parseSince(since)
	if err != nil {
		return nil, err
	}
	read := s.r.Store.LastSequence() // before the read, so no change is missed
	rec, err := s.get(s.id)
	if err != nil {
		return nil, err
	}
	var first *R
	untilCaughtUp := false
	if deref(since) == "" {
		first, after = rec, read
	} else {
		untilCaughtUp = s.final(rec)
	}
	var sub *store.Subscription
	if first == nil || !s.final(first) {
		if sub, err = s.r.Store.Subscribe(after, s.filter()); err != nil {
			return nil, subscribeError(err)
		}
	}
	out := make(chan *M, 1)
	goStream(ctx, func() { s.run(ctx, first, sub, untilCaughtUp, out) })
	return out, nil
}

func (s *recordStream[R, M]) filter() store.Filter {
	return store.Filter{Kinds: []string{s.kind}, IDs: []string{s.id}}
}

// run sends first, if any, then what sub delivers, and closes out.
func (s *recordStream[R, M]) run(ctx context.Context, first *R, sub *store.Subscription, untilCaughtUp bool, out chan<- *M) {
	defer close(out)
	defer flush(ctx)
	var sent []byte // the stored form of the last state sent
	if first != nil {
		if !deliver(ctx, out, s.view(first), nil) || s.final(first) {
			if sub != nil {
				sub.Close()
			}
			return
		}
		sent, _ = json.Marshal(first)
	}
	for {
		var overflowed bool
		sent, overflowed = s.forward(ctx, sub, untilCaughtUp, sent, out)
		if !overflowed {
			return
		}
		// The sequence is taken before the read so that no change between
		// the two is missed.
		since := s.r.Store.LastSequence()
		latest, err := s.get(s.id)
		if errs.CodeOf(err) == errs.NotFound {
			return // the record itself was deleted
		}
		if err != nil {
			s.r.log().Error(s.name+": re-read record", "id", s.id, "err", err)
			return
		}
		// The store appends no event for a write that changes nothing, so
		// equal stored forms are the same state.
		if raw, err := json.Marshal(latest); err != nil || !bytes.Equal(raw, sent) {
			if !deliver(ctx, out, s.view(latest), nil) {
				return
			}
			sent = raw
		}
		if s.final(latest) {
			return
		}
		if sub, err = s.r.Store.Subscribe(since, s.filter()); err != nil {
			s.r.log().Warn(s.name+": subscribe", "id", s.id, "err", err)
			return
		}
	}
}

// sharedRecord is a record event decoded and mapped once for every
// subscriber of it.
type sharedRecord[R, M any] struct {
	rec *R
	out *M
	err error
}

// recordViewKey keys an event's shared view by the record and view types.
type recordViewKey[R, M any] struct{}

func (s *recordStream[R, M]) shared(ev *store.Event) *sharedRecord[R, M] {
	return ev.Shared(recordViewKey[R, M]{}, func() any {
		var rec R
		if err := json.Unmarshal(ev.Payload, &rec); err != nil {
			return &sharedRecord[R, M]{err: err}
		}
		return &sharedRecord[R, M]{rec: &rec, out: s.view(&rec)}
	}).(*sharedRecord[R, M])
}

// forward sends the changes that sub delivers to out until the record is
// final or deleted, ctx ends, or the store ends sub, and then closes sub.
// With untilCaughtUp it also ends once sub has read the whole log. sent is
// the stored form of the last state sent; forward returns it updated, and
// whether the store ended sub because out fell behind.
func (s *recordStream[R, M]) forward(ctx context.Context, sub *store.Subscription, untilCaughtUp bool, sent []byte, out chan<- *M) (last []byte, overflowed bool) {
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
				s.r.log().Warn(s.name+" ended", "id", s.id, "err", err)
			}
			return sent, false
		}
		if ev.Action == store.ActionDeleted {
			return sent, false // the record is gone; the payload is its state before
		}
		view := s.shared(ev)
		if view.err != nil {
			s.r.log().Error(s.name+": decode event", "id", s.id, "seq", ev.Seq, "err", view.err)
			continue
		}
		if !deliver(ctx, out, view.out, ev) {
			return sent, false
		}
		sent = ev.Payload
		if s.final(view.rec) {
			return sent, false
		}
	}
}
