package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type rec struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func openMem(t testing.TB) *Store {
	t.Helper()
	s, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func put(t testing.TB, s *Store, id string, n int) {
	t.Helper()
	if err := s.Update(func(tx *Tx) error { return tx.Put("thing", id, rec{Name: id, N: n}) }); err != nil {
		t.Fatal(err)
	}
}

func TestPutAppendsEventsOnlyForChanges(t *testing.T) {
	s := openMem(t)
	put(t, s, "a", 1)
	put(t, s, "a", 1) // unchanged: no event
	put(t, s, "a", 2)
	if err := s.Update(func(tx *Tx) error { return tx.Delete("thing", "a") }); err != nil {
		t.Fatal(err)
	}
	var actions []Action
	if err := s.History(0, s.LastSequence(), Filter{}, func(ev Event) (bool, error) {
		actions = append(actions, ev.Action)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []Action{ActionCreated, ActionUpdated, ActionDeleted}
	if len(actions) != len(want) {
		t.Fatalf("events %v, want %v", actions, want)
	}
	for i := range want {
		if actions[i] != want[i] {
			t.Fatalf("events %v, want %v", actions, want)
		}
	}
}

func TestFailedTransactionLeavesNoEventAndNoGap(t *testing.T) {
	s := openMem(t)
	put(t, s, "a", 1)
	boom := errors.New("boom")
	if err := s.Update(func(tx *Tx) error {
		if err := tx.Put("thing", "b", rec{}); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	put(t, s, "c", 1)
	var seqs []uint64
	s.History(0, 100, Filter{}, func(ev Event) (bool, error) { seqs = append(seqs, ev.Seq); return true, nil })
	if len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Fatalf("sequence numbers %v, want [1 2]", seqs)
	}
}

func TestSubscribeReplaysThenFollowsLiveWithNoGapOrDuplicate(t *testing.T) {
	s := openMem(t)
	for i := 0; i < 50; i++ {
		put(t, s, "a", i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := s.Subscribe(ctx, 10, Filter{}, 1000)
	// Writes race with the replay on purpose.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 50; i < 150; i++ {
			put(t, s, "a", i)
		}
	}()
	want := uint64(11)
	for ev := range sub.C {
		if ev.Seq != want {
			t.Fatalf("got event %d, want %d", ev.Seq, want)
		}
		if want == 150 {
			break
		}
		want++
	}
	<-done
}

func TestSubscribeFiltersByKindAndID(t *testing.T) {
	s := openMem(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub := s.Subscribe(ctx, 0, Filter{IDs: []string{"b"}}, 10)
	put(t, s, "a", 1)
	put(t, s, "b", 1)
	ev := <-sub.C
	if ev.ID != "b" {
		t.Fatalf("got event for %s", ev.ID)
	}
}

func TestSlowSubscriberIsClosedWithResumeCursorWithoutBlockingWriters(t *testing.T) {
	s := openMem(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := s.Subscribe(ctx, 0, Filter{}, 4)
	fast := s.Subscribe(ctx, 0, Filter{}, 1000)
	put(t, s, "a", -1)
	first := <-slow.C // the slow reader takes one event, then stops reading
	for i := 0; i < 100; i++ {
		put(t, s, "a", i) // must not block on the slow reader
	}
	var last uint64
	for ev := range slow.C {
		last = ev.Seq
	}
	if last == 0 {
		last = first.Seq
	}
	var of *OverflowError
	if !errors.As(slow.Err(), &of) || of.ResumeAfter != last {
		t.Fatalf("slow subscriber ended with %v, want overflow resuming after %d", slow.Err(), last)
	}
	// Resuming from the cursor continues with the next event.
	resumed := s.Subscribe(ctx, of.ResumeAfter, Filter{}, 1000)
	if ev := <-resumed.C; ev.Seq != last+1 {
		t.Fatalf("resumed at %d, want %d", ev.Seq, last+1)
	}
	n := 0
	for range fast.C {
		n++
		if n == 101 {
			break
		}
	}
}

func TestSecondProcessOnSameDirectoryGetsClearError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "in use by another InstantStart process") {
		t.Fatalf("got %v", err)
	}
}

func TestSequenceSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "a", 1)
	put(t, s, "a", 2)
	s.Close()
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, "a", 3)
	if got := s.LastSequence(); got != 3 {
		t.Fatalf("sequence after reopen %d, want 3", got)
	}
}

func BenchmarkPersistedTransitions(b *testing.B) {
	s, err := Open(b.TempDir(), Options{SyncWrites: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		put(b, s, "op", i)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
}

func BenchmarkFanOutTo1000Subscribers(b *testing.B) {
	s := openMem(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 1000
	subs := make([]*Subscription, n)
	for i := range subs {
		subs[i] = s.Subscribe(ctx, s.LastSequence(), Filter{}, 16)
	}
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		put(b, s, "a", i)
		for _, sub := range subs {
			<-sub.C
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/event-to-all")
}
