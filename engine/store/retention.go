package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// The event log is bounded: the store prunes its oldest events past an age
// and a count, once at Open and then every pruneEvery, and remembers the
// first sequence it kept. A cursor whose next event was pruned gets a
// *CursorExpiredError rather than a silent gap.

// EventRetention bounds the event log. An event is pruned once it is older
// than MaxAge or once MaxCount newer events are stored, whichever comes
// first. The zero value keeps 7 days and at most 1,000,000 events.
type EventRetention struct {
	// MaxAge is how long an event is kept; 0 means DefaultEventMaxAge.
	MaxAge time.Duration
	// MaxCount is how many of the newest events are kept; 0 means
	// DefaultEventMaxCount.
	MaxCount int
}

// The bounds of the event log when EventRetention leaves them zero: enough
// for a client to catch up after a week away, small enough to stay a few
// hundred megabytes.
const (
	DefaultEventMaxAge   = 7 * 24 * time.Hour
	DefaultEventMaxCount = 1_000_000
)

// pruneEvery is how often the store prunes the event log.
const pruneEvery = time.Minute

// pruneBatchSize bounds the events one transaction deletes: Badger refuses
// a transaction past a size limit, and a short one never holds up writers.
const pruneBatchSize = 1000

// keyOldestEvent holds the first sequence still stored (big-endian), so that
// it survives restarts; absent means 1 (nothing was pruned).
var keyOldestEvent = []byte("m/oldest-event")

// retention is the store's state for bounding the event log.
type retention struct {
	limits EventRetention
	log    *slog.Logger
	// oldest is the first sequence still stored. It is raised before the
	// events below it are deleted, never after.
	oldest atomic.Uint64
	// mu lets one prune run at a time.
	mu        sync.Mutex
	stop      context.CancelFunc
	done      chan struct{}
	firstPass chan struct{} // closed once the prune at Open has run
}

// CursorExpiredError refuses a cursor whose next event was pruned from the
// log: the client missed events it can no longer replay. It re-reads the
// state it follows and then subscribes again with since = Resume.
type CursorExpiredError struct {
	// Since is the cursor that was refused.
	Since uint64
	// Oldest is the first sequence the log still holds.
	Oldest uint64
	// Resume is the newest sequence when the cursor was refused. State read
	// after that already reflects every event up to Resume, so subscribing
	// from Resume after re-reading state leaves no gap.
	Resume uint64
}

func (e *CursorExpiredError) Error() string {
	return fmt.Sprintf("the events after cursor %q are no longer kept (the event log now starts at %q): re-read the state you follow, then resubscribe with since %q",
		Cursor(e.Since), Cursor(e.Oldest), Cursor(e.Resume))
}

// startRetention reads the first retained sequence and starts the prune
// loop, which stopRetention ends. Open calls it.
func (s *Store) startRetention(opts Options) error {
	r := &s.retention
	r.limits = opts.EventRetention
	if r.limits.MaxAge <= 0 {
		r.limits.MaxAge = DefaultEventMaxAge
	}
	if r.limits.MaxCount <= 0 {
		r.limits.MaxCount = DefaultEventMaxCount
	}
	r.log = opts.Logger
	if r.log == nil {
		r.log = slog.Default()
	}
	var oldest uint64
	err := s.db.View(func(txn *badger.Txn) error {
		n, found, err := metaCounter(txn, keyOldestEvent)
		oldest = n
		if !found {
			oldest = 1 // nothing pruned yet
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("read the oldest retained event: %w", err)
	}
	r.oldest.Store(oldest)
	ctx, cancel := context.WithCancel(context.Background())
	r.stop, r.done, r.firstPass = cancel, make(chan struct{}), make(chan struct{})
	go s.pruneLoop(ctx)
	return nil
}

// stopRetention stops the prune loop and waits for it. Close calls it
// before closing Badger.
func (s *Store) stopRetention() {
	s.retention.stop()
	<-s.retention.done
}

func (s *Store) pruneLoop(ctx context.Context) {
	defer close(s.retention.done)
	tick := time.NewTicker(pruneEvery)
	defer tick.Stop()
	first := s.retention.firstPass
	for {
		if n, err := s.prune(ctx, s.clock()); err != nil && ctx.Err() == nil {
			s.retention.log.Warn("could not prune the event log; will retry", "pruned", n, "retry_in", pruneEvery, "error", err.Error())
		}
		if first != nil {
			close(first)
			first = nil
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// OldestRetained returns the first sequence the event log still holds (the
// next one to be appended when every event was pruned); 1 when nothing was
// pruned. A subscription may start from OldestRetained()-1 or later.
func (s *Store) OldestRetained() uint64 { return s.retention.oldest.Load() }

// PruneEvents deletes, as of now, the events past the store's retention
// bounds, and returns how many it deleted. The store does this by itself
// every minute; tests and maintenance call it to prune at once.
func (s *Store) PruneEvents(now time.Time) (int, error) {
	return s.prune(context.Background(), now)
}

// prune deletes the events past the bounds in batches of pruneBatchSize
// until none is left or ctx ends.
func (s *Store) prune(ctx context.Context, now time.Time) (int, error) {
	s.retention.mu.Lock()
	defer s.retention.mu.Unlock()
	total := 0
	for ctx.Err() == nil {
		n, err := s.pruneBatch(now)
		total += n
		if err != nil || n < pruneBatchSize {
			return total, err
		}
	}
	return total, nil
}

// pruneBatch deletes up to pruneBatchSize of the oldest events past the
// bounds. It reads which in one snapshot and deletes them in a transaction
// that reads nothing, so it never conflicts with writers, which only append.
func (s *Store) pruneBatch(now time.Time) (int, error) {
	r := &s.retention
	from := r.oldest.Load()
	var doomed []uint64
	err := s.db.View(func(txn *badger.Txn) error {
		last, err := committedSequence(txn)
		if err != nil {
			return err
		}
		var keepFrom uint64 // events before it are past the count bound
		if maxCount := uint64(r.limits.MaxCount); last > maxCount {
			keepFrom = last - maxCount + 1
		}
		tooOld := now.Add(-r.limits.MaxAge)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefixEvent})
		defer it.Close()
		for it.Seek(eventKey(from)); it.Valid() && len(doomed) < pruneBatchSize; it.Next() {
			seq := binary.BigEndian.Uint64(it.Item().Key()[len(prefixEvent):])
			if seq > last {
				break
			}
			if seq >= keepFrom {
				// Events are appended in time order, so the first one young
				// enough ends the pass.
				var head struct {
					Time time.Time `json:"time"`
				}
				if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &head) }); err != nil {
					return fmt.Errorf("read event %d: %w", seq, err)
				}
				if !head.Time.Before(tooOld) {
					break
				}
			}
			doomed = append(doomed, seq)
		}
		return nil
	})
	if err != nil || len(doomed) == 0 {
		return 0, err
	}
	next := doomed[len(doomed)-1] + 1
	// Raised before the deletes commit: a History whose snapshot lacks these
	// events is then sure to see the new bound (see checkCursor).
	r.oldest.Store(next)
	err = s.db.Update(func(txn *badger.Txn) error {
		for _, seq := range doomed {
			if err := txn.Delete(eventKey(seq)); err != nil {
				return err
			}
		}
		return setCounter(txn, keyOldestEvent, next)
	})
	if err != nil {
		r.oldest.Store(from)
		return 0, fmt.Errorf("delete events %d to %d: %w", doomed[0], doomed[len(doomed)-1], err)
	}
	return len(doomed), nil
}

// checkCursor returns a *CursorExpiredError when the event after since was
// pruned. Called inside a read transaction, it also covers that
// transaction's snapshot: a prune whose deletes the snapshot sees raised
// the bound before committing them.
func (s *Store) checkCursor(since uint64) error {
	oldest := s.retention.oldest.Load()
	if since >= oldest-1 {
		return nil
	}
	// The newest published event: every change up to it is committed.
	return &CursorExpiredError{Since: since, Oldest: oldest, Resume: s.hub.last.Load()}
}

// committedSequence returns the newest committed event sequence as txn sees
// it.
func committedSequence(txn *badger.Txn) (uint64, error) {
	seq, _, err := metaCounter(txn, keySeq)
	return seq, err
}
