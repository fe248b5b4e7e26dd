package podlogs

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Viewer reads one container's log from a Hub. It holds only its place in
// the shared buffer; when it starts further back than the buffer holds it
// first reads the older lines through a private read, then moves to the
// buffer at the next line. Next must not be called concurrently; Close may
// be called at any time.
type Viewer struct {
	h      *Hub
	key    Key
	follow bool
	// ctx ends with the Subscribe context, Close and Hub.Close.
	ctx      context.Context
	cancel   context.CancelFunc
	stopHub  func() bool
	closeOne sync.Once

	u      *upstream // the shared upstream, nil for a private read only
	pos    uint64    // the next line of u.ring to read
	stopAt uint64    // without follow: the ring line to end at
	// skip drops ring lines at or before after: a private read handed over
	// ahead of what the ring has read yet.
	skip  bool
	after Cursor
	// last is the cursor of the last line handed out, or of the place
	// before the first one; it is the resume cursor. Unknown (hasLast
	// false) only for a viewer at line 0 of a ring still empty.
	last    Cursor
	hasLast bool

	priv *privateRead
	buf  []Line
	err  error // once set, every Next returns it
}

// privateRead is a viewer's own non-following read of older lines.
type privateRead struct {
	rc io.ReadCloser
	lr *lineReader
	// handover: at its end or at the ring's first line the viewer moves to
	// the ring; without it the viewer ends at its end.
	handover bool
	left     int   // lines it may still hand out
	err      error // the read's failure, returned after the lines before it
	stop     func() bool
}

func newViewer(ctx context.Context, h *Hub, k Key, follow bool) *Viewer {
	v := &Viewer{h: h, key: k, follow: follow}
	v.ctx, v.cancel = context.WithCancel(ctx)
	v.stopHub = context.AfterFunc(h.ctx, v.cancel)
	return v
}

// place sets where v starts in r, and says whether r serves that start:
// the start is buffered and within lag of the ring's head. initialTail is
// how many lines the upstream's first open asked for.
func (v *Viewer) place(r *ring, so SubscribeOptions, initialTail, lag int) bool {
	switch {
	case so.Since != nil:
		if !r.covers(*so.Since) {
			return false
		}
		v.pos = r.after(*so.Since)
	case so.FromEnd:
		v.pos = r.end
	case so.Tail > 0:
		switch {
		case r.len() >= so.Tail:
			v.pos = r.end - uint64(so.Tail)
		case r.start == 0 && initialTail >= so.Tail:
			// The ring holds the whole log so far.
			v.pos = 0
		default:
			return false
		}
	default:
		v.pos = max(r.start, r.end-min(r.end, uint64(lag)))
	}
	if r.end-v.pos > uint64(lag) {
		return false
	}
	if so.Since != nil {
		v.last, v.hasLast = *so.Since, true
	} else {
		v.last, v.hasLast = r.before(v.pos)
	}
	return true
}

// openPrivate starts v's private read for so.
func (v *Viewer) openPrivate(so SubscribeOptions, handover bool) error {
	o := &corev1.PodLogOptions{Container: v.key.Container, Timestamps: true}
	switch {
	case so.Since != nil:
		o.SinceTime = &metav1.Time{Time: so.Since.Time.Truncate(time.Second)}
		v.last, v.hasLast = *so.Since, true
	case so.Tail > 0:
		tail := int64(so.Tail)
		o.TailLines = &tail
	case so.FromEnd:
		// Only a one-off read opens a private read from the end (a
		// following viewer is always placed on its upstream): it reads
		// no line.
		none := int64(0)
		o.TailLines = &none
	default:
		tail := int64(v.h.opt.BufferLines)
		o.TailLines = &tail
	}
	rc, err := v.h.open(v.ctx, v.key, o)
	if err != nil {
		return fmt.Errorf("podlogs: open the log of %s: %w", v.key, err)
	}
	v.priv = &privateRead{
		rc: rc, lr: newLineReader(rc), handover: handover, left: v.h.opt.CatchUpLines,
		stop: context.AfterFunc(v.ctx, func() { rc.Close() }),
	}
	return nil
}

// Next returns the next lines, up to MaxBatch: at once when some are
// ready, else when some arrive or ctx ends. The slice is reused by the
// next call. It returns a *SlowError when the viewer was cut off, io.EOF
// when the log ended (without Follow: its end as of Subscribe), ErrClosed
// after Close or Hub.Close, and the upstream's error when it failed. Only
// ctx's error leaves the viewer usable.
func (v *Viewer) Next(ctx context.Context) ([]Line, error) {
	if v.err != nil {
		return nil, v.err
	}
	if v.ctx.Err() != nil {
		return nil, v.fail(ErrClosed)
	}
	if v.priv != nil {
		lines, err := v.nextPrivate()
		if err != nil {
			return lines, v.fail(err)
		}
		if len(lines) > 0 {
			return lines, nil
		}
	}
	if v.u == nil {
		return nil, v.fail(io.EOF)
	}
	lines, err := v.nextShared(ctx)
	if err != nil && err != ctx.Err() {
		v.fail(err)
	}
	return lines, err
}

func (v *Viewer) fail(err error) error {
	v.err = err
	v.endPrivate()
	return err
}

// nextPrivate reads the next batch of v's private read. It returns no
// lines and no error once the read is over and v reads the ring.
func (v *Viewer) nextPrivate() ([]Line, error) {
	p := v.priv
	switch {
	case p.err != nil:
		return nil, p.err
	case p.left == 0:
		return nil, &SlowError{Resume: v.last}
	}
	start, startHas := v.last, v.hasLast
	buf := v.buf[:0]
	var err error
	for len(buf) < min(MaxBatch, p.left) {
		var l Line
		if l, err = p.lr.next(); err != nil {
			break
		}
		if v.hasLast && l.Cursor.Compare(v.last) <= 0 {
			continue
		}
		buf = append(buf, l)
		v.last, v.hasLast = l.Cursor, true
	}
	v.buf = buf
	if err != nil && err != io.EOF {
		p.err = fmt.Errorf("podlogs: read the log of %s: %w", v.key, err)
		if v.ctx.Err() != nil {
			p.err = ErrClosed
		}
		if len(buf) == 0 {
			return nil, p.err
		}
		return buf, nil
	}
	if !p.handover {
		p.left -= len(buf)
		if err == io.EOF {
			v.endPrivate()
		}
		return buf, nil
	}
	// Hand over at the first line the ring holds, or at the read's end.
	u := v.u
	u.mu.Lock()
	defer u.mu.Unlock()
	i := len(buf)
	if r := &u.ring; r.len() > 0 {
		// The first line v may read from the ring without being cut off.
		first := r.at(max(r.start, r.end-min(r.end, uint64(v.h.opt.ViewerLag)))).Cursor
		for i > 0 && buf[i-1].Cursor.Compare(first) >= 0 {
			i--
		}
	}
	if i == len(buf) && err == nil {
		p.left -= len(buf)
		return buf, nil
	}
	buf = buf[:i]
	v.buf = buf
	if i > 0 {
		v.last = buf[i-1].Cursor
	} else {
		v.last, v.hasLast = start, startHas
	}
	v.endPrivate()
	if v.hasLast {
		v.pos = u.ring.after(v.last)
		v.skip, v.after = true, v.last
	} else {
		v.pos = max(u.ring.start, u.ring.end-min(u.ring.end, uint64(v.h.opt.ViewerLag)))
	}
	return buf, nil
}

func (v *Viewer) endPrivate() {
	if v.priv != nil {
		v.priv.stop()
		v.priv.rc.Close()
		v.priv = nil
	}
}

// nextShared reads the next batch from the ring, waiting for lines when
// there are none.
func (v *Viewer) nextShared(ctx context.Context) ([]Line, error) {
	u := v.u
	lag := uint64(v.h.opt.ViewerLag)
	u.mu.Lock()
	for {
		r := &u.ring
		if v.pos < r.start || r.end-v.pos > lag {
			resume := v.resumeLocked()
			u.mu.Unlock()
			return nil, &SlowError{Resume: resume}
		}
		hi := r.end
		if !v.follow {
			hi = min(hi, v.stopAt)
		}
		buf := v.buf[:0]
		for v.pos < hi && len(buf) < MaxBatch {
			l := r.at(v.pos)
			v.pos++
			if v.skip {
				if l.Cursor.Compare(v.after) <= 0 {
					continue
				}
				v.skip = false
			}
			buf = append(buf, *l)
		}
		v.buf = buf
		if len(buf) > 0 {
			v.last, v.hasLast = buf[len(buf)-1].Cursor, true
			u.mu.Unlock()
			return buf, nil
		}
		switch {
		case !v.follow && v.pos >= v.stopAt:
			u.mu.Unlock()
			return nil, io.EOF
		case u.done:
			err := u.err
			u.mu.Unlock()
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		if u.wake == nil {
			u.wake = make(chan struct{})
		}
		wake := u.wake
		u.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-v.ctx.Done():
			return nil, ErrClosed
		}
		u.mu.Lock()
	}
}

// resumeLocked is the cursor a cut-off viewer resumes from.
func (v *Viewer) resumeLocked() Cursor {
	if v.hasLast {
		return v.last
	}
	c, _ := v.u.ring.before(v.pos)
	return c
}

// Close ends the viewer and gives up its share of the upstream.
func (v *Viewer) Close() {
	v.closeOne.Do(func() {
		v.cancel()
		v.stopHub()
		if v.u != nil {
			v.h.release(v.u)
		}
	})
}
