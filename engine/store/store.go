// Package store keeps the control plane's records in Badger: resources,
// operations, unique indexes (names, idempotency keys, per-target locks) and
// the event log. Every write goes through Update, which appends the events of
// the change in the same transaction and then hands them to live subscribers.
// The layout has a schema version (schema.go), and the whole store can be
// written to a backup stream and restored from one (backup.go).
package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// ErrNotFound is returned by Get for a key that does not exist.
var ErrNotFound = errors.New("not found")

// ErrClosed is returned by writes after Close.
var ErrClosed = errors.New("store is closed")

// Options tune Open.
type Options struct {
	// InMemory keeps everything in memory (tests and benchmarks only).
	InMemory bool
	// SyncWrites fsyncs every commit. Off survives a killed process; on also
	// survives a power cut.
	SyncWrites bool
	Logger     *slog.Logger
	// Clock stamps events; nil means time.Now.
	Clock func() time.Time
	// EventRing is how many of the newest events are kept in memory for
	// live subscribers, and so how far one may lag before it is ended with
	// a cursor to resume from; 0 means DefaultEventRing.
	EventRing int
	// EventRetention bounds the event log by age and count; the zero value
	// keeps 7 days and at most 1,000,000 events (see retention.go).
	EventRetention EventRetention

	// migrations replaces the schema migrations (tests inject failing
	// steps); nil means the real ones.
	migrations []migration
}

// Store is the Badger-backed record store. It is safe for concurrent use.
type Store struct {
	db    *badger.DB
	dir   string // the data directory; "" in memory
	clock func() time.Time

	// retention prunes the event log (retention.go).
	retention retention

	// mu serialises writers so that event sequence numbers commit in order
	// and reach subscribers in order.
	mu     sync.Mutex
	seq    uint64
	closed bool
	hub    hub
}

var (
	keySeq        = []byte("m/seq")
	prefixRecord  = "r/"
	prefixIndex   = "i/"
	prefixEvent   = []byte("e/")
	eventKeyBytes = len(prefixEvent) + 8
)

// Open opens (creating if needed) the store in dir. A second process on the
// same directory gets an error that says so. A new store is stamped with
// SchemaVersion; an older one is migrated to it (schema.go); a newer one is
// refused.
func Open(dir string, opts Options) (*Store, error) {
	if !opts.InMemory {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create data directory %s: %w", dir, err)
		}
	}
	db, err := badger.Open(badgerOptions(dir, opts))
	if err != nil {
		if isLockError(err) {
			return nil, &inUseError{dir: dir, hint: "stop it, or start this one with a different --data-dir"}
		}
		return nil, fmt.Errorf("open store in %s: %w", dir, err)
	}
	steps := opts.migrations
	if steps == nil {
		steps = migrations
	}
	if err := migrate(db, dir, steps); err != nil {
		db.Close()
		return nil, err
	}
	s := &Store{db: db, clock: opts.Clock}
	if !opts.InMemory {
		s.dir = dir
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	err = db.View(func(txn *badger.Txn) (err error) {
		s.seq, _, err = metaCounter(txn, keySeq)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("read event sequence: %w", err)
	}
	s.hub.init(opts.EventRing, s.seq)
	if err := s.startRetention(opts); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// badgerOptions are the options of the Badger database in dir: Open's, and
// those of the databases backup and restore open.
func badgerOptions(dir string, opts Options) badger.Options {
	// Sized for a control plane's records (megabytes, not gigabytes):
	// Badger's defaults (a 256 MiB block cache, five 64 MiB memtables) are a
	// database server's.
	bo := badger.DefaultOptions(filepath.Join(dir, badgerDir)).
		WithLogger(nil).
		WithSyncWrites(opts.SyncWrites).
		WithNumVersionsToKeep(1).
		WithValueLogFileSize(64 << 20).
		WithMemTableSize(16 << 20).
		WithNumMemtables(2).
		WithBlockCacheSize(16 << 20).
		WithIndexCacheSize(8 << 20)
	if opts.InMemory {
		bo = bo.WithInMemory(true).WithDir("").WithValueDir("")
	}
	return bo
}

// badgerDir is the directory, inside the data directory, of the Badger
// database.
const badgerDir = "badger"

// ErrInUse is returned (wrapped) when another process holds the data
// directory: Badger lets one process at a time open it.
var ErrInUse = errors.New("the data directory is in use by another process")

type inUseError struct{ dir, hint string }

func (e *inUseError) Error() string {
	return fmt.Sprintf("data directory %s is in use by another InstantStart process: %s", e.dir, e.hint)
}

func (e *inUseError) Is(target error) bool { return target == ErrInUse }

// isLockError reports whether Badger failed to open because another
// process holds its directory lock.
func isLockError(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock") || strings.Contains(err.Error(), "resource temporarily unavailable")
}

// Close stops subscribers and closes Badger cleanly.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.hub.closeAll()
	s.mu.Unlock()
	s.stopRetention()
	return s.db.Close()
}

// Ping reports whether the store can serve reads.
func (s *Store) Ping() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return s.db.View(func(*badger.Txn) error { return nil })
}

// LastSequence returns the sequence number of the newest event.
func (s *Store) LastSequence() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Update runs fn in a read-write transaction. The events fn appends commit
// with it and are then published to subscribers.
func (s *Store) Update(fn func(tx *Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	startSeq := s.seq
	tx := &Tx{s: s, write: true, now: s.clock().UTC()}
	err := s.db.Update(func(txn *badger.Txn) error {
		tx.txn = txn
		if err := fn(tx); err != nil {
			return err
		}
		if len(tx.events) == 0 {
			return nil
		}
		return setCounter(txn, keySeq, s.seq)
	})
	if err != nil {
		s.seq = startSeq
		return err
	}
	s.hub.publish(tx.events)
	return nil
}

// View runs fn in a read-only transaction.
func (s *Store) View(fn func(tx *Tx) error) error {
	return s.db.View(func(txn *badger.Txn) error {
		return fn(&Tx{s: s, txn: txn, now: s.clock().UTC()})
	})
}

// metaCounter reads the big-endian counter kept at key (the event
// sequence, the oldest retained event); found is false when there is none.
func metaCounter(txn *badger.Txn, key []byte) (n uint64, found bool, err error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	err = item.Value(func(v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("%s holds %d bytes, not 8", key, len(v))
		}
		n = binary.BigEndian.Uint64(v)
		return nil
	})
	return n, err == nil, err
}

func recordKey(kind, id string) []byte  { return []byte(prefixRecord + kind + "/" + id) }
func indexKey(index, key string) []byte { return []byte(prefixIndex + index + "/" + key) }

func eventKey(seq uint64) []byte {
	k := make([]byte, eventKeyBytes)
	copy(k, prefixEvent)
	binary.BigEndian.PutUint64(k[len(prefixEvent):], seq)
	return k
}

func decode(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode record: %w", err)
	}
	return nil
}
