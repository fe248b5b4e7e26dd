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
	return openStore(t, Options{InMemory: true})
}

func openStore(t testing.TB, opts Options) *Store {
	t.Helper()
	s, err := Open("", opts)
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
	if err := s.History(0, s.LastSequence(), Filter{}, func(ev *Event) (bool, error) {
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
	s.History(0, 100, Filter{}, func(ev *Event) (bool, error) { seqs = append(seqs, ev.Seq); return true, nil })
	if len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Fatalf("sequence numbers %v, want [1 2]", seqs)
	}
}

// subscribe starts a subscription that the test closes.
func subscribe(t testing.TB, s *Store, since uint64, f Filter) *Subscription {
	t.Helper()
	sub, err := s.Subscribe(since, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	return sub
}

// nextEvent returns the subscription's next event, failing the test on an
// error or after 10 s.
func nextEvent(t testing.TB, sub *Subscription) *Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("next event: %v", err)
	}
	return ev
}

func TestSubscribeReplaysThenFollowsLiveWithNoGapOrDuplicate(t *testing.T) {
	s := openStore(t, Options{InMemory: true, EventRing: 16})
	for i := 0; i < 50; i++ {
		put(t, s, "a", i)
	}
	sub := subscribe(t, s, 10, Filter{})
	// Writes race with the replay on purpose, and the ring is smaller than
	// the history: the reader crosses from the stored log to the ring. The
	// writer keeps at most 8 events ahead of what the reader has taken, so
	// a slow reader is never overrun (that is another test).
	credit := make(chan struct{}, 8)
	for range cap(credit) {
		credit <- struct{}{}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 50; i < 150; i++ {
			<-credit
			put(t, s, "a", i)
		}
	}()
	for want := uint64(11); want <= 150; want++ {
		if ev := nextEvent(t, sub); ev.Seq != want {
			t.Fatalf("got event %d, want %d", ev.Seq, want)
		}
		if want > 50 {
			select {
			case credit <- struct{}{}:
			default:
			}
		}
	}
	<-done
}

func TestSubscribeFiltersByKindAndID(t *testing.T) {
	s := openMem(t)
	sub := subscribe(t, s, 0, Filter{IDs: []string{"b"}})
	put(t, s, "a", 1)
	put(t, s, "b", 1)
	if ev := nextEvent(t, sub); ev.ID != "b" {
		t.Fatalf("got event for %s", ev.ID)
	}
}

func TestLiveSubscribersShareOneEventValue(t *testing.T) {
	s := openMem(t)
	a := subscribe(t, s, s.LastSequence(), Filter{})
	b := subscribe(t, s, s.LastSequence(), Filter{})
	put(t, s, "a", 1)
	evA, evB := nextEvent(t, a), nextEvent(t, b)
	if evA != evB {
		t.Fatal("live subscribers received different copies of one event")
	}
	calls := 0
	for range 3 {
		if got := evA.Shared("key", func() any { calls++; return "derived" }); got != "derived" {
			t.Fatalf("Shared = %v", got)
		}
	}
	if calls != 1 {
		t.Fatalf("the shared value was derived %d times, want once", calls)
	}
}

func TestSlowSubscriberIsEndedWithResumeCursorWithoutBlockingWriters(t *testing.T) {
	s := openStore(t, Options{InMemory: true, EventRing: 8})
	slow := subscribe(t, s, 0, Filter{})
	fast := subscribe(t, s, 0, Filter{})
	put(t, s, "a", -1)
	first := nextEvent(t, slow) // the slow reader takes one event, then stops reading
	for i := 0; i < 100; i++ {
		put(t, s, "a", i) // must not block on the slow reader
	}
	_, err := slow.Next(context.Background())
	var of *OverflowError
	if !errors.As(err, &of) || of.ResumeAfter != first.Seq {
		t.Fatalf("slow subscriber ended with %v, want overflow resuming after %d", err, first.Seq)
	}
	// Resuming from the cursor replays the rest from the stored log.
	resumed := subscribe(t, s, of.ResumeAfter, Filter{})
	for want := first.Seq + 1; want <= s.LastSequence(); want++ {
		if ev := nextEvent(t, resumed); ev.Seq != want {
			t.Fatalf("resumed at %d, want %d", ev.Seq, want)
		}
	}
	// A reader that keeps up is never ended.
	for i := 0; i < 101; i++ {
		nextEvent(t, fast)
	}
}

func TestSubscriptionEndsWhenTheStoreCloses(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sub := subscribe(t, s, 0, Filter{})
	errc := make(chan error, 1)
	go func() {
		_, err := sub.Next(context.Background())
		errc <- err
	}()
	s.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Next after Close = %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next still waiting after Close")
	}
	if n := s.Subscribers(); n != 1 {
		t.Fatalf("subscribers = %d before the subscription is closed", n)
	}
	sub.Close()
	if n := s.Subscribers(); n != 0 {
		t.Fatalf("subscribers = %d after Close", n)
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
	const n = 1000
	subs := make([]*Subscription, n)
	for i := range subs {
		subs[i] = subscribe(b, s, s.LastSequence(), Filter{})
	}
	ctx := context.Background()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		put(b, s, "a", i)
		for _, sub := range subs {
			if _, err := sub.Next(ctx); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/event-to-all")
}
