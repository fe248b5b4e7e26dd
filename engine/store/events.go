package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
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
//
// An Event is immutable once stored and is handled by pointer: every live
// subscriber receives the same *Event, and Shared lets them share what they
// derive from it.
type Event struct {
	Seq     uint64          `json:"seq"`
	Time    time.Time       `json:"time"`
	Action  Action          `json:"action"`
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	Payload json.RawMessage `json:"payload"`

	shared atomic.Pointer[sync.Map] // key -> *sharedValue, made on first use
}

// Shared returns the value make derives from the event for key, computing it
// once however many goroutines ask: the first caller computes it, the others
// wait for it and share it. Subscribers use it to decode, redact and render
// an event once rather than once each. make must treat the event as
// read-only; key is compared with ==.
func (ev *Event) Shared(key any, make func() any) any {
	m := ev.shared.Load()
	if m == nil {
		m = new(sync.Map)
		if !ev.shared.CompareAndSwap(nil, m) {
			m = ev.shared.Load()
		}
	}
	v, ok := m.Load(key)
	if !ok {
		v, _ = m.LoadOrStore(key, new(sharedValue))
	}
	sv := v.(*sharedValue)
	sv.once.Do(func() { sv.v = make() })
	return sv.v
}

type sharedValue struct {
	once sync.Once
	v    any
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
// matches f, in order, until fn returns false or an error. It returns a
// *CursorExpiredError when events following the cursor after were pruned.
func (s *Store) History(after, upTo uint64, f Filter, fn func(*Event) (bool, error)) error {
	return s.db.View(func(txn *badger.Txn) error {
		// Checked in the snapshot, so a prune cannot leave a silent gap.
		if err := s.checkCursor(after); err != nil {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefixEvent, PrefetchValues: true, PrefetchSize: 128})
		defer it.Close()
		for it.Seek(eventKey(after + 1)); it.Valid(); it.Next() {
			k := it.Item().Key()
			if binary.BigEndian.Uint64(k[len(prefixEvent):]) > upTo {
				return nil
			}
			ev := new(Event)
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, ev) }); err != nil {
				return fmt.Errorf("read event: %w", err)
			}
			if !f.Match(ev) {
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
