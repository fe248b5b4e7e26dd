package podlogs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// Options tune a Hub. The zero value gives the defaults.
type Options struct {
	// BufferLines bounds the lines each upstream buffers (default 10,000).
	BufferLines int
	// BufferBytes bounds the bytes of text each upstream buffers (default
	// 8 MiB).
	BufferBytes int
	// ViewerLag is how many lines a viewer may have left unread before it
	// is cut off (default and most: BufferLines). A viewer is cut off too
	// when a line it has not read leaves the buffer. A viewer that starts
	// further back reads privately up to the last ViewerLag lines.
	ViewerLag int
	// Linger is how long an upstream stays open after its last viewer
	// leaves, so that a viewer that reconnects finds its buffer (default
	// 30 s; negative: close at once).
	Linger time.Duration
	// RetryDelay is the first wait before reopening an upstream that ended
	// or failed while viewers remain; it doubles, up to 32 times, while
	// reopens bring no line (default 250 ms).
	RetryDelay time.Duration
	// CatchUpLines bounds the lines a viewer reads privately, before it
	// reaches the shared buffer or in a read that does not follow (default
	// 100,000). Past it the viewer is cut off with its resume cursor.
	CatchUpLines int
	// Logger receives reopens and upstream failures (default: discarded).
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.BufferLines <= 0 {
		o.BufferLines = 10_000
	}
	if o.BufferBytes <= 0 {
		o.BufferBytes = 8 << 20
	}
	if o.ViewerLag <= 0 || o.ViewerLag > o.BufferLines {
		o.ViewerLag = o.BufferLines
	}
	if o.Linger == 0 {
		o.Linger = 30 * time.Second
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = 250 * time.Millisecond
	}
	if o.CatchUpLines <= 0 {
		o.CatchUpLines = 100_000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Hub shares upstream log streams among viewers: one upstream, with its
// buffer and its reader goroutine, per Key that has viewers (or had them
// within Linger). The hub owns those goroutines; Close stops them.
type Hub struct {
	open Opener
	opt  Options

	// ctx is the parent of every upstream's context; cancel ends them all.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	ups    map[Key]*upstream
}

// NewHub returns a hub that opens logs with open.
func NewHub(open Opener, opt Options) *Hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{open: open, opt: opt.withDefaults(), ctx: ctx, cancel: cancel, ups: map[Key]*upstream{}}
}

// SubscribeOptions say where a viewer starts and whether it follows.
type SubscribeOptions struct {
	// Since starts the viewer after this line (the cursor of the last line
	// received, or a SlowError's Resume).
	Since *Cursor
	// Tail starts the viewer at the last Tail lines (at most BufferLines).
	// Without Since or Tail a viewer starts at the oldest buffered line
	// (at most ViewerLag back), or at the last BufferLines lines of the log.
	Tail int
	// FromEnd starts the viewer at the log's end: it gets only the lines
	// written from now on (none without Follow). It takes neither Tail nor
	// Since.
	FromEnd bool
	// Follow keeps the viewer on the live log; without it the viewer ends
	// with io.EOF at the log's end as of subscribing.
	Follow bool
}

// Subscribe starts a viewer of k's log. ctx bounds the viewer as a whole
// (its private reads and its share of the upstream); Close ends it sooner.
// A following viewer shares k's upstream, opening it if it is the first;
// Subscribe then waits for that open and returns its error (wrapping the
// Opener's, which errors.Is and errors.As see).
func (h *Hub) Subscribe(ctx context.Context, k Key, so SubscribeOptions) (*Viewer, error) {
	if so.Tail < 0 || (so.Tail > 0 && so.Since != nil) || (so.FromEnd && (so.Tail > 0 || so.Since != nil)) {
		return nil, errs.New(errs.Validation, "a log subscription takes one of a tail of at least 1 line, a cursor to start after, or the log's end")
	}
	so.Tail = min(so.Tail, h.opt.BufferLines)
	v := newViewer(ctx, h, k, so.Follow)
	if !so.Follow {
		// A one-off read is served from the buffer when it holds what is
		// asked; it never opens a shared upstream.
		if u := h.acquireExisting(k); u != nil {
			u.mu.Lock()
			ok := v.place(&u.ring, so, u.initialTail, h.opt.ViewerLag)
			v.stopAt = u.ring.end
			u.mu.Unlock()
			if ok {
				v.u = u
				return v, nil
			}
			h.release(u)
		}
		if err := v.openPrivate(so, false); err != nil {
			v.Close()
			return nil, err
		}
		return v, nil
	}
	u, err := h.acquire(ctx, k, so)
	if err != nil {
		v.Close()
		return nil, err
	}
	v.u = u
	u.mu.Lock()
	ok := v.place(&u.ring, so, u.initialTail, h.opt.ViewerLag)
	u.mu.Unlock()
	if !ok {
		if err := v.openPrivate(so, true); err != nil {
			v.Close()
			return nil, err
		}
	}
	return v, nil
}

// acquire returns k's upstream with one more viewer, starting it if there
// is none, once its first open is done.
func (h *Hub) acquire(ctx context.Context, k Key, so SubscribeOptions) (*upstream, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	u := h.ups[k]
	if u == nil {
		tail := h.opt.BufferLines
		switch {
		case so.Tail > 0:
			tail = so.Tail
		case so.FromEnd:
			// The first viewer wants no earlier line: the upstream reads
			// none, and a later viewer that wants some reads them itself.
			tail = 0
		}
		u = newUpstream(h, k, tail)
		h.ups[k] = u
		h.wg.Add(1)
		go u.run()
	}
	h.holdLocked(u)
	h.mu.Unlock()
	select {
	case <-u.opened:
	case <-ctx.Done():
		h.release(u)
		return nil, ctx.Err()
	}
	if u.openErr != nil {
		h.release(u)
		return nil, u.openErr
	}
	return u, nil
}

// acquireExisting returns k's upstream with one more viewer if it is
// open, else nil.
func (h *Hub) acquireExisting(k Key) *upstream {
	h.mu.Lock()
	defer h.mu.Unlock()
	u := h.ups[k]
	if u == nil {
		return nil
	}
	select {
	case <-u.opened:
	default:
		return nil
	}
	if u.openErr != nil {
		return nil
	}
	h.holdLocked(u)
	return u
}

func (h *Hub) holdLocked(u *upstream) {
	u.viewers++
	u.gen++
	if u.linger != nil {
		u.linger.Stop()
		u.linger = nil
	}
}

// release takes one viewer off u; the last one starts u's linger.
func (h *Hub) release(u *upstream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	u.viewers--
	if u.viewers > 0 || h.closed || h.ups[u.key] != u {
		return
	}
	if h.opt.Linger < 0 {
		delete(h.ups, u.key)
		u.cancel()
		return
	}
	gen := u.gen
	u.linger = time.AfterFunc(h.opt.Linger, func() { h.expire(u, gen) })
}

// expire closes u if no viewer came back since its linger started.
func (h *Hub) expire(u *upstream, gen uint64) {
	h.mu.Lock()
	if u.viewers > 0 || u.gen != gen || h.ups[u.key] != u {
		h.mu.Unlock()
		return
	}
	delete(h.ups, u.key)
	u.linger = nil
	h.mu.Unlock()
	u.cancel()
}

// keep says whether u should reopen: it still has viewers. If not, u
// leaves the hub.
func (h *Hub) keep(u *upstream) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if u.viewers > 0 && !h.closed {
		return true
	}
	h.removeLocked(u)
	return false
}

func (h *Hub) remove(u *upstream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.removeLocked(u)
}

func (h *Hub) removeLocked(u *upstream) {
	if h.ups[u.key] == u {
		delete(h.ups, u.key)
	}
	if u.linger != nil {
		u.linger.Stop()
		u.linger = nil
	}
}

// Close stops every upstream and waits for their readers to end. Viewers
// then get ErrClosed; Subscribe refuses with it.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	for _, u := range h.ups {
		h.removeLocked(u)
	}
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}
