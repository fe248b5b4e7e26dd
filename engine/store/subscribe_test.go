package store

import (
	"context"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/testwait"
)

func (h *hub) state() (relays, queued int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.relays, len(h.queue) - h.head
}

// Every waiting reader is woken by a publish, readers that stopped waiting
// are passed over, and the wake-up chains end once all have caught up.
func TestPublishWakesEveryWaitingReaderThroughRelays(t *testing.T) {
	s := openMem(t)
	const n = 300
	got := make(chan uint64, n)
	cancels := make([]context.CancelFunc, n)
	for i := range n {
		sub := subscribe(t, s, s.LastSequence(), Filter{})
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		go func() {
			if ev, err := sub.Next(ctx); err == nil {
				got <- ev.Seq
			}
		}()
	}
	testwait.Eventually(t, "every reader to queue", func() bool { _, q := s.hub.state(); return q == n })
	gone := 0
	for i := 0; i < n; i += 3 {
		cancels[i]()
		gone++
	}
	put(t, s, "a", 1)
	for range n - gone {
		select {
		case seq := <-got:
			if seq != s.LastSequence() {
				t.Fatalf("woken with event %d, want %d", seq, s.LastSequence())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a waiting reader was never woken")
		}
	}
	testwait.Eventually(t, "the wake-up chains to end", func() bool { r, q := s.hub.state(); return r == 0 && q == 0 })
	for _, c := range cancels {
		c()
	}
}

// A reader that stops waiting just as its wake-up arrives passes the
// wake-up on, so the readers behind it are not stranded.
func TestAbandonedWakeUpIsPassedOn(t *testing.T) {
	s := openMem(t)
	s.hub.maxRelays = 1
	first := subscribe(t, s, s.LastSequence(), Filter{})
	second := subscribe(t, s, s.LastSequence(), Filter{})
	ctx, cancel := context.WithCancel(context.Background())
	firstDone := make(chan error, 1)
	go func() { _, err := first.Next(ctx); firstDone <- err }()
	testwait.Eventually(t, "the first reader to queue", func() bool { _, q := s.hub.state(); return q == 1 })
	secondGot := make(chan *Event, 1)
	go func() {
		ev, err := second.Next(context.Background())
		if err != nil {
			t.Error(err)
		}
		secondGot <- ev
	}()
	testwait.Eventually(t, "the second reader to queue", func() bool { _, q := s.hub.state(); return q == 2 })
	// Hand the first reader the only wake-up and end its wait together.
	h := &s.hub
	h.mu.Lock()
	cancel()
	h.last.Add(1)
	h.ring[h.last.Load()%uint64(len(h.ring))].Store(&Event{Seq: h.last.Load()})
	w := h.behind()
	h.relays++
	w.ready <- struct{}{}
	h.mu.Unlock()
	<-firstDone
	select {
	case ev := <-secondGot:
		if ev.Seq != h.last.Load() {
			t.Fatalf("second reader got %d, want %d", ev.Seq, h.last.Load())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wake-up given to a reader that stopped waiting was lost")
	}
	testwait.Eventually(t, "the chain to end", func() bool { r, _ := s.hub.state(); return r == 0 })
}

// A publish wakes at most maxRelays readers at once; the rest are woken
// one by one as the woken ones pass the wake-up on.
func TestPublishStartsAtMostMaxRelays(t *testing.T) {
	s := openMem(t)
	h := &s.hub
	h.maxRelays = 2
	var ws []*waiter
	h.mu.Lock()
	for range 5 {
		w := &waiter{ready: make(chan struct{}, 1), pos: h.last.Load()}
		ws = append(ws, w)
		h.queue = append(h.queue, w)
	}
	h.mu.Unlock()
	put(t, s, "a", 1)
	woken := func() (n int) {
		for _, w := range ws {
			n += len(w.ready)
		}
		return n
	}
	if n := woken(); n != 2 {
		t.Fatalf("a publish woke %d readers at once, want 2", n)
	}
	<-ws[0].ready
	h.relay()
	if n := woken(); n != 2 || len(ws[2].ready) != 1 {
		t.Fatalf("after one relay %d readers hold wake-ups (the third: %d), want 2 with the third", n, len(ws[2].ready))
	}
}
