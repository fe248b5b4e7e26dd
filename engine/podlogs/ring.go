package podlogs

import "sort"

// lineOverhead is what a buffered line costs besides its text.
const lineOverhead = 64

// ring is the shared buffer of an upstream's recent lines, bounded by a
// count and by bytes. Lines are numbered from 0 in the order they arrived;
// [start, end) are the numbers still held.
type ring struct {
	buf        []Line
	start, end uint64
	bytes      int
	maxBytes   int
	// evicted is the cursor of line start-1, kept once start > 0.
	evicted Cursor
	// first is the cursor of line 0, kept once end > 0.
	first Cursor
}

func newRing(lines, bytes int) ring {
	return ring{buf: make([]Line, lines), maxBytes: bytes}
}

func (r *ring) len() int { return int(r.end - r.start) }

func (r *ring) at(seq uint64) *Line { return &r.buf[seq%uint64(len(r.buf))] }

func lineSize(l *Line) int { return len(l.Text) + lineOverhead }

// push appends l, evicting the oldest lines to stay within the bounds.
func (r *ring) push(l Line) {
	size := lineSize(&l)
	for r.len() > 0 && (r.len() == len(r.buf) || r.bytes+size > r.maxBytes) {
		old := r.at(r.start)
		r.evicted = old.Cursor
		r.bytes -= lineSize(old)
		*old = Line{}
		r.start++
	}
	if r.end == 0 {
		r.first = l.Cursor
	}
	*r.at(r.end) = l
	r.end++
	r.bytes += size
}

// after returns the number of the first held line after c (end if none).
func (r *ring) after(c Cursor) uint64 {
	i := sort.Search(r.len(), func(i int) bool {
		return r.at(r.start+uint64(i)).Cursor.Compare(c) > 0
	})
	return r.start + uint64(i)
}

// before returns the cursor just before line seq, when the ring knows it.
func (r *ring) before(seq uint64) (Cursor, bool) {
	switch {
	case seq > r.start && seq <= r.end:
		return r.at(seq - 1).Cursor, true
	case seq == r.start && r.start > 0:
		return r.evicted, true
	case seq == 0 && r.end > 0:
		return Cursor{Time: r.first.Time, N: r.first.N - 1}, true
	}
	return Cursor{}, false
}

// covers says whether every line after c that the log holds is in the
// ring or still to come to it: c is at or after the place just before the
// ring's first line.
func (r *ring) covers(c Cursor) bool {
	if r.len() == 0 {
		return false
	}
	before, _ := r.before(r.start)
	return c.Compare(before) >= 0
}
