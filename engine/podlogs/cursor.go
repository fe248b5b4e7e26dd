package podlogs

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// Cursor is a line's place in a container's log: the line's timestamp and
// how many earlier lines of the log had the same timestamp. Kubernetes
// stamps lines to the nanosecond, so N is nearly always 0; it keeps apart
// two lines with one stamp. Cursors order by Time, then N. The zero Cursor
// stands before every line; a Cursor with N = -1 stands just before the
// first line stamped Time.
type Cursor struct {
	Time time.Time
	N    int
}

// Compare returns -1, 0 or +1 as c is before, at or after d.
func (c Cursor) Compare(d Cursor) int {
	if x := c.Time.Compare(d.Time); x != 0 {
		return x
	}
	return cmp.Compare(c.N, d.N)
}

// cursorVersion is the first byte of an encoded cursor, so the form can
// change without old cursors being misread.
const cursorVersion = 1

// maxCursorLen bounds the text ParseCursor reads: an encoded cursor is at
// most 1+10+5+10 bytes, 35 characters in base64.
const maxCursorLen = 36

// String returns c in an opaque, URL-safe form that ParseCursor reads back.
func (c Cursor) String() string {
	var b [1 + 3*binary.MaxVarintLen64]byte
	b[0] = cursorVersion
	n := 1
	n += binary.PutVarint(b[n:], c.Time.Unix())
	n += binary.PutUvarint(b[n:], uint64(c.Time.Nanosecond()))
	n += binary.PutVarint(b[n:], int64(c.N))
	return base64.RawURLEncoding.EncodeToString(b[:n])
}

// ParseCursor reads a cursor that Cursor.String wrote. It refuses anything
// else with a VALIDATION error.
func ParseCursor(s string) (Cursor, error) {
	c, problem := parseCursor(s)
	if problem != "" {
		shown := s
		if len(shown) > maxCursorLen {
			shown = shown[:maxCursorLen] + "…"
		}
		return Cursor{}, errs.New(errs.Validation, "log cursor %q is not one this server gave (%s); subscribe without a cursor, or with the cursor of a line received", shown, problem)
	}
	return c, nil
}

func parseCursor(s string) (Cursor, string) {
	if s == "" {
		return Cursor{}, "it is empty"
	}
	if len(s) > maxCursorLen {
		return Cursor{}, fmt.Sprintf("it is longer than %d characters", maxCursorLen)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, "it is not base64url"
	}
	if len(b) == 0 || b[0] != cursorVersion {
		return Cursor{}, "unknown version"
	}
	b = b[1:]
	sec, n := binary.Varint(b)
	if n <= 0 {
		return Cursor{}, "bad seconds"
	}
	b = b[n:]
	nsec, n := binary.Uvarint(b)
	if n <= 0 || nsec >= uint64(time.Second) {
		return Cursor{}, "bad nanoseconds"
	}
	b = b[n:]
	count, n := binary.Varint(b)
	if n <= 0 || count < -1 || count > 1<<31 {
		return Cursor{}, "bad line count"
	}
	if n != len(b) {
		return Cursor{}, "trailing bytes"
	}
	return Cursor{Time: time.Unix(sec, int64(nsec)).UTC(), N: int(count)}, ""
}
