package store

import (
	"context"
	"fmt"
	"sync/atomic"
)

// DefaultEventRing is how many of the newest events the store keeps in
// memory for live subscribers, shared by all of them: it is also how far a
// live subscriber may fall behind before it is ended with a cursor to resume
// from.
const DefaultEventRing = 1024

// replayBatch bounds the events one read of the stored log hands a
// subscriber that replays history.
const replayBatch = 256

// OverflowError ends a subscription whose reader fell more than the event
// ring behind. Resubscribing with since = ResumeAfter continues with no gap.
type OverflowError struct{ ResumeAfter uint64 }

func (e *OverflowError) Error() string {
	return fmt.Sprintf("subscriber fell too far behind; resubscribe with since %q to continue", Cursor(e.ResumeAfter))
}

// hub is the ring of the newest events. Writers publish into it under the
// store's write lock; readers never take a lock: they read the ring's slots
// and wait on wake, which every publish closes and replaces. A publisher
// never waits on a reader.
type hub struct {
	ring        []atomic.Pointer[Event] // event seq lives at ring[seq % len(ring)]
	last        atomic.Uint64           // the newest published sequence
	wake        atomic.Pointer[chan struct{}]
	closed      atomic.Bool
	subscribers atomic.Int64
}

func (h *hub) init(size int, last uint64) {
	if size < 1 {
		size = DefaultEventRing
	}
	h.ring = make([]atomic.Pointer[Event], size)
	h.last.Store(last)
	ch := make(chan struct{})
	h.wake.Store(&ch)
}

// publish puts events (consecutive, in order) into the ring and wakes every
// waiting reader.
func (h *hub) publish(events []*Event) {
	if len(events) == 0 {
		return
	}
	for _, ev := range events {
		h.ring[ev.Seq%uint64(len(h.ring))].Store(ev)
	}
	h.last.Store(events[len(events)-1].Seq)
	h.wakeAll()
}

func (h *hub) wakeAll() {
	ch := make(chan struct{})
	close(*h.wake.Swap(&ch))
}

func (h *hub) closeAll() {
	h.closed.Store(true)
	h.wakeAll()
}

// Subscribers returns the number of open subscriptions.
func (s *Store) Subscribers() int { return int(s.hub.subscribers.Load()) }

// Subscription delivers the events after a cursor that match its filter,
// first from the stored log and then live, in order, with no gap and no
// duplicate. It holds no buffer of its own: live events are read from the
// store's shared ring. It is used by one goroutine at a time.
type Subscription struct {
	s      *Store
	f      Filter
	pos    uint64   // the last sequence delivered or passed over
	live   bool     // has read from the ring: falling out of it is an overflow
	batch  []*Event // replayed events not yet delivered
	bEnd   uint64   // the last sequence the replayed batch covers
	closed bool
	idle   func() // called before Next waits
}

// BeforeWait sets a function that Next calls each time before it waits for
// an event: a reader that batches its writes flushes them there.
func (sub *Subscription) BeforeWait(fn func()) { sub.idle = fn }

// Subscribe starts a subscription to the events after since that match f.
// A since older than the retained log is a *CursorExpiredError; one newer
// than the log is read as the newest event. Close the subscription when done.
func (s *Store) Subscribe(since uint64, f Filter) (*Subscription, error) {
	if s.hub.closed.Load() {
		return nil, ErrClosed
	}
	if err := s.checkCursor(since); err != nil {
		return nil, err
	}
	since = min(since, s.hub.last.Load())
	s.hub.subscribers.Add(1)
	return &Subscription{s: s, f: f, pos: since}, nil
}

// Close ends the subscription. Closing twice does nothing.
func (sub *Subscription) Close() {
	if !sub.closed {
		sub.closed = true
		sub.batch = nil
		sub.s.hub.subscribers.Add(-1)
	}
}

// Next returns the next matching event, waiting for one until ctx ends. It
// returns ctx's error when ctx ends, ErrClosed when the store closes, and an
// *OverflowError when the reader fell further behind than the ring holds.
// The event is shared with other subscribers: never change it.
func (sub *Subscription) Next(ctx context.Context) (*Event, error) {
	h := &sub.s.hub
	for {
		if len(sub.batch) > 0 {
			ev := sub.batch[0]
			sub.batch[0] = nil
			sub.batch = sub.batch[1:]
			sub.pos = ev.Seq
			return ev, nil
		}
		sub.pos = max(sub.pos, sub.bEnd)
		if sub.closed || h.closed.Load() {
			return nil, ErrClosed
		}
		wake := h.wake.Load() // before reading last, so no publish is missed
		last := h.last.Load()
		if sub.pos >= last {
			if sub.idle != nil {
				sub.idle()
			}
			select {
			case <-*wake:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		want := sub.pos + 1
		if ev := h.ring[want%uint64(len(h.ring))].Load(); ev != nil && ev.Seq == want {
			sub.live = true
			sub.pos = want
			if sub.f.Match(ev) {
				return ev, nil
			}
			continue
		}
		// The next event is not in the ring: older than the ring (replay it
		// from the stored log), or overwritten while this reader lagged.
		if sub.live {
			return nil, &OverflowError{ResumeAfter: sub.pos}
		}
		if err := sub.replay(last); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// replay reads the next stored events, up to last, into the batch.
func (sub *Subscription) replay(last uint64) error {
	upTo := min(last, sub.pos+replayBatch)
	err := sub.s.History(sub.pos, upTo, sub.f, func(ev *Event) (bool, error) {
		sub.batch = append(sub.batch, ev)
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("replay events: %w", err)
	}
	sub.bEnd = upTo
	return nil
}
