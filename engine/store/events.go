package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Action says what happened to a record.
type Action string

// The actions an event can carry.
const (
	ActionCreated Action = "CREATED"
	ActionUpdated Action = "UPDATED"
	ActionDeleted Action = "DELETED"
)

// Event is one entry of the event log: a record of kind/id was created,
// updated or deleted, and Payload is its value afterwards (before, for a
// delete).
type Event struct {
	Seq     uint64          `json:"seq"`
	Time    time.Time       `json:"time"`
	Action  Action          `json:"action"`
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	Payload json.RawMessage `json:"payload"`
}

// Cursor is the opaque string form of a sequence number.
func Cursor(seq uint64) string { return strconv.FormatUint(seq, 10) }

// ParseCursor reads a cursor made by Cursor; "" means the beginning.
func ParseCursor(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cursor %q is not one this server issued: pass the cursor of the last event you received, or omit it", s)
	}
	return n, nil
}

// Filter selects events; the zero value selects all.
type Filter struct {
	Kinds []string
	IDs   []string
}

// Match reports whether ev passes the filter.
func (f Filter) Match(ev *Event) bool {
	return matchAny(f.Kinds, ev.Kind) && matchAny(f.IDs, ev.ID)
}

func matchAny(set []string, v string) bool {
	if len(set) == 0 {
		return true
	}
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// History calls fn for each stored event with after < Seq <= upTo that
// matches f, in order, until fn returns false or an error.
func (s *Store) History(after, upTo uint64, f Filter, fn func(Event) (bool, error)) error {
	return s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefixEvent, PrefetchValues: true, PrefetchSize: 128})
		defer it.Close()
		for it.Seek(eventKey(after + 1)); it.Valid(); it.Next() {
			k := it.Item().Key()
			if binary.BigEndian.Uint64(k[len(prefixEvent):]) > upTo {
				return nil
			}
			var ev Event
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &ev) }); err != nil {
				return fmt.Errorf("read event: %w", err)
			}
			if !f.Match(&ev) {
				continue
			}
			more, err := fn(ev)
			if err != nil || !more {
				return err
			}
		}
		return nil
	})
}

// OverflowError ends a subscription whose reader fell more than its buffer
// behind. Resubscribing with since = ResumeAfter continues with no gap.
type OverflowError struct{ ResumeAfter uint64 }

func (e *OverflowError) Error() string {
	return fmt.Sprintf("subscriber fell too far behind; resubscribe with since %q to continue", Cursor(e.ResumeAfter))
}

// Subscription delivers the events after a cursor, first from the log and
// then live, in order, with no gap and no duplicate. C is closed when the
// context ends, the store closes, or the reader falls behind; Err then says
// which.
type Subscription struct {
	C <-chan Event

	out      chan Event
	live     chan Event
	mu       sync.Mutex
	err      error
	overflow bool // set by the hub when it drops a reader that fell behind
	closed   bool // set by the hub when the store closes
}

// Err returns why C was closed: nil for a cancelled context, an
// *OverflowError for a reader that fell behind, ErrClosed for a closed store.
func (sub *Subscription) Err() error {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.err
}

// Subscribe starts a subscription to events after since that match f.
// buffer bounds the live events held for a slow reader (at least 1).
func (s *Store) Subscribe(ctx context.Context, since uint64, f Filter, buffer int) *Subscription {
	if buffer < 1 {
		buffer = 1
	}
	sub := &Subscription{out: make(chan Event), live: make(chan Event, buffer)}
	sub.C = sub.out
	s.mu.Lock()
	upTo := s.seq
	closed := s.closed
	if !closed {
		s.hub.add(sub, f)
	}
	s.mu.Unlock()
	if closed {
		sub.err = ErrClosed
		close(sub.out)
		return sub
	}
	if since > upTo {
		since = upTo
	}
	go s.pump(ctx, sub, since, upTo, f)
	return sub
}

// pump replays history up to upTo and then forwards live events.
func (s *Store) pump(ctx context.Context, sub *Subscription, since, upTo uint64, f Filter) {
	defer close(sub.out)
	defer s.hub.remove(sub)
	last := since
	send := func(ev Event) bool {
		select {
		case sub.out <- ev:
			last = ev.Seq
			return true
		case <-ctx.Done():
			return false
		}
	}
	err := s.History(since, upTo, f, func(ev Event) (bool, error) { return send(ev), nil })
	if err != nil {
		sub.finish(fmt.Errorf("replay events: %w", err))
		return
	}
	if ctx.Err() != nil {
		sub.finish(nil)
		return
	}
	for {
		select {
		case ev, ok := <-sub.live:
			if !ok {
				sub.mu.Lock()
				overflow, closed := sub.overflow, sub.closed
				sub.mu.Unlock()
				switch {
				case overflow:
					sub.finish(&OverflowError{ResumeAfter: last})
				case closed:
					sub.finish(ErrClosed)
				default:
					sub.finish(nil)
				}
				return
			}
			if ev.Seq <= last {
				continue
			}
			if !send(ev) {
				sub.finish(nil)
				return
			}
		case <-ctx.Done():
			sub.finish(nil)
			return
		}
	}
}

func (sub *Subscription) finish(err error) {
	sub.mu.Lock()
	sub.err = err
	sub.mu.Unlock()
}

// hub fans events out to live subscribers without ever waiting on one.
type hub struct {
	mu   sync.Mutex
	subs map[*Subscription]Filter
}

func (h *hub) init() { h.subs = map[*Subscription]Filter{} }

func (h *hub) add(sub *Subscription, f Filter) {
	h.mu.Lock()
	h.subs[sub] = f
	h.mu.Unlock()
}

func (h *hub) remove(sub *Subscription) {
	h.mu.Lock()
	if _, ok := h.subs[sub]; ok {
		delete(h.subs, sub)
		close(sub.live)
	}
	h.mu.Unlock()
}

// publish hands events to every matching subscriber. A subscriber whose
// buffer is full is dropped: its pump ends it with an OverflowError.
func (h *hub) publish(events []Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub, f := range h.subs {
		for i := range events {
			if !f.Match(&events[i]) {
				continue
			}
			select {
			case sub.live <- events[i]:
			default:
				sub.mu.Lock()
				sub.overflow = true
				sub.mu.Unlock()
				delete(h.subs, sub)
				close(sub.live)
			}
			if _, still := h.subs[sub]; !still {
				break
			}
		}
	}
}

// Subscribers returns the number of live subscribers.
func (s *Store) Subscribers() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.hub.subs)
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		sub.mu.Lock()
		sub.closed = true
		sub.mu.Unlock()
		delete(h.subs, sub)
		close(sub.live)
	}
}
