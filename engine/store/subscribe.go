package store

import (
	"context"
	"fmt"
	"runtime"
	"sync"
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
// store's write lock; readers read the ring's slots without a lock. A
// publisher never waits on a reader.
//
// Readers that have caught up wait in one queue, in the order they caught
// up. A publish does not wake them all at once: with thousands of readers
// that would make thousands of goroutines runnable together, and the
// goroutines that make the next event would wait behind all of them, so a
// burst of events would go out in as many rounds as it has events. Instead
// a publish wakes a few readers (relays), and each woken reader wakes the
// next before it reads. The scheduler runs the next one once the reader
// before it has written and parked, so the wake-ups follow the pace of the
// work they cause, the engine keeps its share of the processor, and a
// reader woken late takes every event that came meanwhile in one go.
type hub struct {
	ring        []atomic.Pointer[Event] // event seq lives at ring[seq % len(ring)]
	last        atomic.Uint64           // the newest published sequence
	closed      atomic.Bool
	done        chan struct{} // closed when the store closes
	subscribers atomic.Int64

	mu        sync.Mutex
	queue     []*waiter // readers waiting, oldest first; queue[head:] is live
	head      int
	relays    int // wake-up chains running
	maxRelays int
}

// A waiter is a caught-up reader's place in the queue.
type waiter struct {
	ready     chan struct{} // receives the wake-up, which it passes on
	pos       uint64        // the newest sequence it had read when it queued
	abandoned bool          // stopped waiting: skip it
}

func (h *hub) init(size int, last uint64) {
	if size < 1 {
		size = DefaultEventRing
	}
	h.ring = make([]atomic.Pointer[Event], size)
	h.last.Store(last)
	h.done = make(chan struct{})
	h.maxRelays = max(2, runtime.GOMAXPROCS(0))
}

// publish puts events (consecutive, in order) into the ring and wakes the
// first waiting readers.
func (h *hub) publish(events []*Event) {
	if len(events) == 0 {
		return
	}
	for _, ev := range events {
		h.ring[ev.Seq%uint64(len(h.ring))].Store(ev)
	}
	h.last.Store(events[len(events)-1].Seq)
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.relays < h.maxRelays {
		w := h.behind()
		if w == nil {
			break
		}
		h.relays++
		w.ready <- struct{}{}
	}
}

// relay passes a wake-up on to the next reader that is behind, or ends the
// chain when every waiting reader has caught up.
func (h *hub) relay() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w := h.behind(); w != nil {
		w.ready <- struct{}{}
		return
	}
	h.relays--
}

// behind takes the first waiting reader that has events to read out of the
// queue, or returns nil when there is none. Readers queue in the order they
// caught up, so the ones that are behind are at the front. h.mu is held.
func (h *hub) behind() *waiter {
	last := h.last.Load()
	var found *waiter
	for h.head < len(h.queue) {
		w := h.queue[h.head]
		if !w.abandoned && w.pos >= last {
			break
		}
		h.queue[h.head] = nil
		h.head++
		if !w.abandoned {
			found = w
			break
		}
	}
	switch {
	case h.head == len(h.queue):
		h.queue, h.head = h.queue[:0], 0
	case h.head > 1024 && h.head > len(h.queue)/2:
		n := copy(h.queue, h.queue[h.head:])
		clear(h.queue[n:])
		h.queue, h.head = h.queue[:n], 0
	}
	return found
}

func (h *hub) closeAll() {
	h.closed.Store(true)
	close(h.done)
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
	w      *waiter
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
		last := h.last.Load()
		if sub.pos >= last {
			if sub.idle != nil {
				sub.idle()
			}
			if err := sub.wait(ctx); err != nil {
				return nil, err
			}
			continue
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

// wait queues the reader, unless events came since it last looked, and
// waits for its wake-up, which it passes on at once.
func (sub *Subscription) wait(ctx context.Context) error {
	h := &sub.s.hub
	if sub.w == nil {
		sub.w = &waiter{ready: make(chan struct{}, 1)}
	}
	w := sub.w
	h.mu.Lock()
	if h.last.Load() > sub.pos { // under h.mu: a publish after this sees w queued
		h.mu.Unlock()
		return nil
	}
	w.pos = sub.pos
	h.queue = append(h.queue, w)
	h.mu.Unlock()
	select {
	case <-w.ready:
		h.relay()
		return nil
	case <-h.done:
		return ErrClosed
	case <-ctx.Done():
	}
	h.mu.Lock()
	select {
	case <-w.ready: // woken meanwhile: the wake-up is passed on all the same
		h.mu.Unlock()
		h.relay()
	default:
		w.abandoned = true // left in the queue; the next pass drops it
		sub.w = nil
		h.mu.Unlock()
	}
	return ctx.Err()
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
