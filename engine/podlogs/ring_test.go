package podlogs

import (
	"strings"
	"testing"
	"time"
)

func TestRingBounds(t *testing.T) {
	r := newRing(4, 1000)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for i := range 6 {
		r.push(Line{Cursor: Cursor{Time: t0.Add(time.Duration(i))}, Text: "x"})
	}
	if r.start != 2 || r.end != 6 {
		t.Fatalf("ring holds [%d, %d), want [2, 6) with room for 4 lines", r.start, r.end)
	}
	if c, _ := r.before(2); c.Compare(Cursor{Time: t0.Add(1)}) != 0 {
		t.Fatalf("before(2) = %v, want line 1's cursor", c)
	}
	if got := r.after(Cursor{Time: t0.Add(3)}); got != 4 {
		t.Fatalf("after(line 3) = %d, want 4", got)
	}
	big := Line{Cursor: Cursor{Time: t0.Add(10)}, Text: strings.Repeat("y", 800)}
	r.push(big)
	// 800+64 bytes leave room for two 1+64-byte lines of the four.
	if r.len() != 3 || r.bytes > 1000 || r.at(r.end-1).Text != big.Text {
		t.Fatalf("after an 800-byte line the ring holds %d lines, %d bytes; want 3 lines within 1000 bytes", r.len(), r.bytes)
	}
}
