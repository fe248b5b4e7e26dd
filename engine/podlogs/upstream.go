package podlogs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxFailedOpens is how many reopens in a row may fail before the
// upstream gives up and its viewers get the error.
const maxFailedOpens = 6

// pushBatch is the most lines the reader hands to the ring at once.
const pushBatch = 256

// upstream is the one followed log stream of a Key, read by one goroutine
// (run) into the ring its viewers read.
type upstream struct {
	h   *Hub
	key Key
	// initialTail is the TailLines of the first open.
	initialTail int
	ctx         context.Context
	cancel      context.CancelFunc
	// opened is closed after the first open; openErr is its error.
	opened  chan struct{}
	openErr error

	// Guarded by h.mu.
	viewers int
	gen     uint64 // counts arrivals, so a stale linger does nothing
	linger  *time.Timer

	mu   sync.Mutex
	ring ring
	// wake is closed when lines arrive or the upstream ends; nil while no
	// viewer waits, so the reader closes a channel only when one does.
	wake    chan struct{}
	last    Cursor // the newest line's cursor, when hasLast
	hasLast bool
	done    bool
	err     error // why the upstream stopped; nil when the log ended
}

func newUpstream(h *Hub, k Key, tail int) *upstream {
	ctx, cancel := context.WithCancel(h.ctx)
	return &upstream{
		h: h, key: k, initialTail: tail, ctx: ctx, cancel: cancel,
		opened: make(chan struct{}),
		ring:   newRing(h.opt.BufferLines, h.opt.BufferBytes),
	}
}

// run opens, reads and reopens the stream until the log ends, the
// upstream fails, it has no viewers when its stream ends, or its context
// ends (linger or Hub.Close).
func (u *upstream) run() {
	defer u.h.wg.Done()
	defer u.cancel()
	log := u.h.opt.Logger.With("log", u.key.String())
	delay := u.h.opt.RetryDelay
	failed := 0
	for attempt := 0; ; attempt++ {
		opts := u.options()
		rc, err := u.h.open(u.ctx, u.key, opts)
		if err != nil {
			err = fmt.Errorf("podlogs: open the log of %s: %w", u.key, err)
		}
		if attempt == 0 {
			u.openErr = err
			close(u.opened)
			if err != nil {
				u.finish(err)
				return
			}
		}
		lines := 0
		if err == nil {
			lines, err = u.pump(rc)
		}
		if u.ctx.Err() != nil {
			u.finish(ErrClosed)
			return
		}
		if attempt > 0 && lines == 0 && err == io.EOF {
			// A reopen from the last line found nothing new and ended: the
			// container has ended.
			u.finish(nil)
			return
		}
		if lines > 0 {
			failed, delay = 0, u.h.opt.RetryDelay
		} else if failed++; failed >= maxFailedOpens {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			log.Warn("log upstream failed", "error", err)
			u.finish(fmt.Errorf("podlogs: the log of %s keeps failing: %w", u.key, err))
			return
		}
		if !u.h.keep(u) {
			u.finish(ErrClosed)
			return
		}
		log.Debug("reopening log upstream", "after", delay, "error", err)
		t := time.NewTimer(delay/2 + rand.N(delay/2+1))
		select {
		case <-t.C:
		case <-u.ctx.Done():
			t.Stop()
			u.finish(ErrClosed)
			return
		}
		delay = min(2*delay, 32*u.h.opt.RetryDelay)
	}
}

// options are the next open's: the initial tail, or from the second of
// the newest line the ring has.
func (u *upstream) options() *corev1.PodLogOptions {
	o := &corev1.PodLogOptions{Container: u.key.Container, Follow: true, Timestamps: true}
	u.mu.Lock()
	last, has := u.last, u.hasLast
	u.mu.Unlock()
	if has {
		o.SinceTime = &metav1.Time{Time: last.Time.Truncate(time.Second)}
	} else {
		tail := int64(u.initialTail)
		o.TailLines = &tail
	}
	return o
}

// pump reads rc into the ring, dropping the lines a reopen repeats, and
// returns how many new lines it read and the stream's error.
func (u *upstream) pump(rc io.ReadCloser) (int, error) {
	stop := context.AfterFunc(u.ctx, func() { rc.Close() })
	defer stop()
	defer rc.Close()
	u.mu.Lock()
	after, skip := u.last, u.hasLast
	u.mu.Unlock()
	lr := newLineReader(rc)
	batch := make([]Line, 0, pushBatch)
	n := 0
	for {
		l, err := lr.next()
		if err != nil {
			u.push(batch)
			return n, err
		}
		if skip {
			if l.Cursor.Compare(after) <= 0 {
				continue
			}
			skip = false
		}
		batch = append(batch, l)
		n++
		// Hand lines over before the reader could wait on the stream.
		if len(batch) == pushBatch || !lr.complete() {
			u.push(batch)
			clear(batch)
			batch = batch[:0]
		}
	}
}

// push appends lines to the ring and wakes the viewers that wait.
func (u *upstream) push(lines []Line) {
	if len(lines) == 0 {
		return
	}
	u.mu.Lock()
	for _, l := range lines {
		u.ring.push(l)
	}
	u.last, u.hasLast = lines[len(lines)-1].Cursor, true
	u.wakeLocked()
	u.mu.Unlock()
}

// finish marks the upstream stopped with err (nil: the log ended) and
// takes it out of the hub.
func (u *upstream) finish(err error) {
	u.h.remove(u)
	u.mu.Lock()
	u.done, u.err = true, err
	u.wakeLocked()
	u.mu.Unlock()
}

func (u *upstream) wakeLocked() {
	if u.wake != nil {
		close(u.wake)
		u.wake = nil
	}
}
