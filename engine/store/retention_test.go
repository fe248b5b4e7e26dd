package store

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// testClock is a settable clock for stamping events.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openRetained(t testing.TB, dir string, r EventRetention, c *testClock) *Store {
	t.Helper()
	opts := Options{InMemory: dir == "", EventRetention: r, Clock: c.Now}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	<-s.retention.firstPass // a prune at Open that runs late would prune what the test is about to write
	return s
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

// putMany appends n events in one transaction, with an index entry each.
func putMany(t testing.TB, s *Store, prefix string, n int) {
	t.Helper()
	err := s.Update(func(tx *Tx) error {
		for i := range n {
			id := fmt.Sprintf("%s-%05d", prefix, i)
			if err := tx.Put("thing", id, rec{Name: id, N: i}); err != nil {
				return err
			}
			if err := tx.PutIndex("thing-name", id, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// seqs returns the sequences History replays after since.
func seqs(t testing.TB, s *Store, since uint64) []uint64 {
	t.Helper()
	var out []uint64
	err := s.History(since, s.LastSequence(), Filter{}, func(ev *Event) (bool, error) {
		out = append(out, ev.Seq)
		return true, nil
	})
	if err != nil {
		t.Fatalf("history after %d: %v", since, err)
	}
	return out
}

// otherKeys returns every key and value that is not an event or the
// retention bound.
func otherKeys(t testing.TB, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if bytes.HasPrefix(k, prefixEvent) || bytes.Equal(k, keyOldestEvent) {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(k)] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPruneKeepsTheNewestMaxCountEvents(t *testing.T) {
	c := newTestClock()
	s := openRetained(t, "", EventRetention{MaxCount: 1000}, c)
	putMany(t, s, "a", 3500) // more than a pruning batch past the bound
	before := otherKeys(t, s)

	n, err := s.PruneEvents(c.Now())
	if err != nil || n != 2500 {
		t.Fatalf("pruned %d, %v; want 2500", n, err)
	}
	if got := s.OldestRetained(); got != 2501 {
		t.Fatalf("oldest retained %d, want 2501", got)
	}
	got := seqs(t, s, 2500)
	if len(got) != 1000 || got[0] != 2501 || got[999] != 3500 {
		t.Fatalf("history has %d events from %v, want 2501 to 3500", len(got), got[:1])
	}
	if after := otherKeys(t, s); len(after) != len(before) {
		t.Fatalf("pruning changed other keys: %d before, %d after", len(before), len(after))
	} else {
		for k, v := range before {
			if after[k] != v {
				t.Fatalf("pruning changed %q", k)
			}
		}
	}
	if n, err := s.PruneEvents(c.Now()); err != nil || n != 0 {
		t.Fatalf("a second prune deleted %d, %v", n, err)
	}
}

func TestPruneDropsEventsOlderThanMaxAge(t *testing.T) {
	c := newTestClock()
	s := openRetained(t, "", EventRetention{MaxAge: time.Hour}, c)
	putMany(t, s, "old", 3)
	c.Advance(30 * time.Minute)
	putMany(t, s, "mid", 2)
	c.Advance(31 * time.Minute)
	putMany(t, s, "new", 2)

	// Only the first three are past an hour old.
	if n, err := s.PruneEvents(c.Now()); err != nil || n != 3 {
		t.Fatalf("pruned %d, %v; want 3", n, err)
	}
	if got := seqs(t, s, 3); len(got) != 4 || got[0] != 4 {
		t.Fatalf("history %v, want 4 to 7", got)
	}
	// A day later every event is past the bound: the log is empty and
	// starts at the next sequence.
	c.Advance(24 * time.Hour)
	if n, err := s.PruneEvents(c.Now()); err != nil || n != 4 {
		t.Fatalf("pruned %d, %v; want 4", n, err)
	}
	if got := s.OldestRetained(); got != 8 {
		t.Fatalf("oldest retained %d, want 8", got)
	}
	if got := seqs(t, s, 7); len(got) != 0 {
		t.Fatalf("history %v, want none", got)
	}
	for _, id := range []string{"old-00000", "old-00002", "mid-00001", "new-00000"} {
		if err := s.View(func(tx *Tx) error { return tx.Get("thing", id, new(rec)) }); err != nil {
			t.Fatalf("record %s gone with its events: %v", id, err)
		}
	}
}

func TestRetentionDefaults(t *testing.T) {
	s := openRetained(t, "", EventRetention{}, newTestClock())
	if got := s.retention.limits; got.MaxAge != 7*24*time.Hour || got.MaxCount != 1_000_000 {
		t.Fatalf("zero retention means %+v, want 7 days and 1,000,000 events", got)
	}
	if got := s.OldestRetained(); got != 1 {
		t.Fatalf("oldest retained of an empty log %d, want 1", got)
	}
}

func TestOldestRetainedSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	c := newTestClock()
	s, err := Open(dir, Options{EventRetention: EventRetention{MaxCount: 5}, Clock: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	putMany(t, s, "a", 12)
	if _, err := s.PruneEvents(c.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopened with the default bounds, nothing more is pruned, but the
	// bound of the first life holds.
	s = openRetained(t, dir, EventRetention{}, c)
	if got := s.OldestRetained(); got != 8 {
		t.Fatalf("oldest retained after reopen %d, want 8", got)
	}
	var expired *CursorExpiredError
	if err := s.History(0, s.LastSequence(), Filter{}, func(*Event) (bool, error) { return true, nil }); !errors.As(err, &expired) {
		t.Fatalf("history from the start after reopen: %v, want a CursorExpiredError", err)
	}
	if got := seqs(t, s, 7); len(got) != 5 {
		t.Fatalf("history %v, want 8 to 12", got)
	}
}

func TestOpenPrunes(t *testing.T) {
	dir := t.TempDir()
	c := newTestClock()
	s, err := Open(dir, Options{Clock: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	putMany(t, s, "a", 10)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openRetained(t, dir, EventRetention{MaxCount: 4}, c)
	deadline := time.Now().Add(10 * time.Second)
	for s.OldestRetained() != 7 {
		if time.Now().After(deadline) {
			t.Fatalf("oldest retained %d ten seconds after Open, want 7", s.OldestRetained())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHistoryRefusesAnExpiredCursor(t *testing.T) {
	c := newTestClock()
	s := openRetained(t, "", EventRetention{MaxCount: 3}, c)
	putMany(t, s, "a", 10)
	if _, err := s.PruneEvents(c.Now()); err != nil {
		t.Fatal(err)
	}
	putMany(t, s, "b", 2) // the log now holds 8 to 12

	for _, since := range []uint64{0, 5, 6} {
		err := s.History(since, s.LastSequence(), Filter{}, func(*Event) (bool, error) {
			t.Fatal("history replayed events after an expired cursor")
			return false, nil
		})
		var expired *CursorExpiredError
		if !errors.As(err, &expired) {
			t.Fatalf("history after %d: %v, want a CursorExpiredError", since, err)
		}
		want := CursorExpiredError{Since: since, Oldest: 8, Resume: 12}
		if *expired != want {
			t.Fatalf("error %+v, want %+v", *expired, want)
		}
		for _, says := range []string{"re-read the state", `resubscribe with since "12"`} {
			if !strings.Contains(err.Error(), says) {
				t.Fatalf("message %q does not say %q", err, says)
			}
		}
	}
	// The cursor just before the oldest event, and later ones, are current.
	for since, want := range map[uint64]int{7: 5, 10: 2, 12: 0} {
		if got := seqs(t, s, since); len(got) != want {
			t.Fatalf("history after %d: %v, want %d events", since, got, want)
		}
	}
	if err := s.checkCursor(7); err != nil {
		t.Fatalf("checkCursor(7): %v", err)
	}
	if err := s.checkCursor(6); err == nil {
		t.Fatal("checkCursor(6) accepts a cursor whose next event was pruned")
	}
}

func TestPruneRacesWithWriters(t *testing.T) {
	c := newTestClock()
	s := openRetained(t, "", EventRetention{MaxCount: 50}, c)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			if err := s.Update(func(tx *Tx) error { return tx.Put("thing", fmt.Sprint("w", i), rec{N: i}) }); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 20 {
		if _, err := s.PruneEvents(c.Now()); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
	if _, err := s.PruneEvents(c.Now()); err != nil {
		t.Fatal(err)
	}
	if got := seqs(t, s, s.OldestRetained()-1); len(got) != 50 || got[49] != 200 {
		t.Fatalf("kept %d events ending %v, want the newest 50", len(got), got[len(got)-1:])
	}
}
