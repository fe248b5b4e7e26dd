package podlogs_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/podlogs"
)

// fakeLog is a container's log kept in memory that serves Kubernetes'
// pods/log semantics (SinceTime in whole seconds, TailLines, Follow,
// Timestamps) and records every open.
type fakeLog struct {
	mu      sync.Mutex
	lines   []fakeLine
	now     time.Time // the next line's time
	changed chan struct{}
	ended   bool  // the container ended: followed streams end at the last line
	failing error // while set, opens fail with it
	opens   []corev1.PodLogOptions
	live    map[*fakeStream]struct{}
}

type fakeLine struct {
	t    time.Time
	text string
}

func newFakeLog() *fakeLog {
	return &fakeLog{
		now:     time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC),
		changed: make(chan struct{}),
		live:    map[*fakeStream]struct{}{},
	}
}

// add appends lines 1 ms apart, so that a second holds a thousand.
func (f *fakeLog) add(texts ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range texts {
		f.lines = append(f.lines, fakeLine{t: f.now, text: s})
		f.now = f.now.Add(time.Millisecond)
	}
	f.notifyLocked()
}

// addSameTime appends lines that all carry the time of the last line.
func (f *fakeLog) addSameTime(texts ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.lines[len(f.lines)-1].t
	for _, s := range texts {
		f.lines = append(f.lines, fakeLine{t: t, text: s})
	}
	f.notifyLocked()
}

func (f *fakeLog) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// end ends the container: followed streams end after the last line.
func (f *fakeLog) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = true
	f.notifyLocked()
}

// fail makes opens fail with err (nil: succeed again).
func (f *fakeLog) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing = err
}

// breakStreams breaks every open stream, as a dropped connection would.
func (f *fakeLog) breakStreams() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.live {
		s.broken = true
	}
	f.notifyLocked()
}

// openCount is how many opens there were.
func (f *fakeLog) openCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.opens)
}

// openOptions returns the options of open i.
func (f *fakeLog) openOptions(i int) corev1.PodLogOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opens[i]
}

// liveCount is how many streams are open and not closed.
func (f *fakeLog) liveCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.live)
}

// cursor is the cursor of line i, for a log whose lines have distinct times.
func (f *fakeLog) cursor(i int) podlogs.Cursor {
	f.mu.Lock()
	defer f.mu.Unlock()
	return podlogs.Cursor{Time: f.lines[i].t}
}

func (f *fakeLog) open(ctx context.Context, _ podlogs.Key, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens = append(f.opens, *opts)
	if f.failing != nil {
		return nil, f.failing
	}
	next := 0
	if opts.SinceTime != nil {
		since := opts.SinceTime.Truncate(time.Second)
		for next < len(f.lines) && f.lines[next].t.Before(since) {
			next++
		}
	}
	if opts.TailLines != nil {
		next = max(next, len(f.lines)-int(*opts.TailLines))
	}
	s := &fakeStream{f: f, ctx: ctx, next: next, follow: opts.Follow, stamps: opts.Timestamps, stop: len(f.lines)}
	f.live[s] = struct{}{}
	return s, nil
}

// fakeStream is one open of a fakeLog.
type fakeStream struct {
	f       *fakeLog
	ctx     context.Context
	follow  bool
	stamps  bool
	next    int // the next line to send
	stop    int // without follow: the line to end at
	pending []byte
	// Guarded by f.mu.
	broken bool
	closed bool
}

func (s *fakeStream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		f := s.f
		f.mu.Lock()
		switch {
		case s.closed:
			f.mu.Unlock()
			return 0, errors.New("read of a closed log stream")
		case s.broken:
			f.mu.Unlock()
			return 0, io.ErrUnexpectedEOF
		}
		end := len(f.lines)
		if !s.follow {
			end = s.stop
		}
		for ; s.next < end && len(s.pending) < 32<<10; s.next++ {
			l := f.lines[s.next]
			if s.stamps {
				s.pending = l.t.AppendFormat(s.pending, time.RFC3339Nano)
				s.pending = append(s.pending, ' ')
			}
			s.pending = append(append(s.pending, l.text...), '\n')
		}
		if len(s.pending) > 0 {
			f.mu.Unlock()
			break
		}
		if !s.follow || f.ended {
			f.mu.Unlock()
			return 0, io.EOF
		}
		changed := f.changed
		f.mu.Unlock()
		select {
		case <-changed:
		case <-s.ctx.Done():
			return 0, s.ctx.Err()
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *fakeStream) Close() error {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if !s.closed {
		s.closed = true
		delete(s.f.live, s)
		s.f.notifyLocked()
	}
	return nil
}
