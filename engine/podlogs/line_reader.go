package podlogs

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxLineBytes is the most text a Line keeps; a longer line is cut at a
// character boundary and cutMarker appended.
const MaxLineBytes = 16 << 10

// cutMarker ends the text of a line that was cut.
const cutMarker = " […line cut at 16 KiB]"

// maxRawLine is the most of one line lineReader holds: a timestamp, the
// text it keeps and one byte to tell a cut.
const maxRawLine = 64 + MaxLineBytes + 1

// lineReader splits a timestamped log stream into Lines and numbers the
// lines that share a timestamp. A stream opened at a SinceTime second holds
// every line of that second, so its numbering matches an earlier stream's.
type lineReader struct {
	br   *bufio.Reader
	prev Cursor
	seen bool   // prev is set
	long []byte // the kept part of a line longer than br's buffer
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line. A last line without a newline is returned
// when the stream ends with io.EOF, and dropped when it breaks with another
// error (a reopen reads it again). err is the stream's error, io.EOF at its
// end.
func (r *lineReader) next() (Line, error) {
	b, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b[:min(len(b), maxRawLine)]...)
		for err == bufio.ErrBufferFull {
			b, err = r.br.ReadSlice('\n')
			if room := maxRawLine - len(r.long); room > 0 {
				r.long = append(r.long, b[:min(len(b), room)]...)
			}
		}
		b = r.long
	}
	if len(b) == 0 || (err != nil && err != io.EOF) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return Line{}, err
	}
	return r.parse(b), nil
}

// complete says whether a whole line is already buffered, so that the
// next call of next does not wait for the stream.
func (r *lineReader) complete() bool {
	b, _ := r.br.Peek(r.br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// parse turns one raw line into a Line. A line without a readable
// timestamp keeps all its text and takes the previous line's time.
func (r *lineReader) parse(b []byte) Line {
	// One string holds the whole line: the timestamp is parsed from it and
	// the text is its tail, so a line costs one allocation.
	s := string(bytes.TrimSuffix(b, []byte{'\n'}))
	text := s
	t, ok := time.Time{}, false
	if sp := strings.IndexByte(s, ' '); sp > 0 && sp <= 64 {
		var err error
		t, err = time.Parse(time.RFC3339Nano, s[:sp])
		if ok = err == nil; ok {
			text = s[sp+1:]
		}
	}
	if len(text) > MaxLineBytes {
		cut := MaxLineBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = strings.ToValidUTF8(text[:cut], "\uFFFD") + cutMarker
	} else if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	c := Cursor{Time: t}
	if !ok {
		c.Time = r.prev.Time
	}
	if r.seen && c.Time.Equal(r.prev.Time) {
		c.N = r.prev.N + 1
	}
	r.prev, r.seen = c, true
	return Line{Cursor: c, Text: text}
}
