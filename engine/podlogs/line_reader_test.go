package podlogs

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func readAll(t *testing.T, in string) ([]Line, error) {
	t.Helper()
	r := newLineReader(strings.NewReader(in))
	var out []Line
	for {
		l, err := r.next()
		if err != nil {
			return out, err
		}
		out = append(out, l)
	}
}

func TestLineReaderNumbersLinesThatShareATime(t *testing.T) {
	in := "2026-03-04T05:06:07.5Z a\n2026-03-04T05:06:07.5Z b\n2026-03-04T05:06:08Z c\nno stamp\n2026-03-04T05:06:08Z d"
	lines, err := readAll(t, in)
	if err != io.EOF {
		t.Fatalf("err = %v, want io.EOF", err)
	}
	t1 := time.Date(2026, 3, 4, 5, 6, 7, 5e8, time.UTC)
	t2 := time.Date(2026, 3, 4, 5, 6, 8, 0, time.UTC)
	want := []Line{
		{Cursor{t1, 0}, "a"},
		{Cursor{t1, 1}, "b"},
		{Cursor{t2, 0}, "c"},
		{Cursor{t2, 1}, "no stamp"},
		{Cursor{t2, 2}, "d"},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d: %+v", len(lines), len(want), lines)
	}
	for i := range want {
		if lines[i].Cursor.Compare(want[i].Cursor) != 0 || lines[i].Text != want[i].Text {
			t.Errorf("line %d = %+v, want %+v", i, lines[i], want[i])
		}
	}
}

func TestLineReaderCutsLongLines(t *testing.T) {
	for _, size := range []int{MaxLineBytes + 1, 40 << 10, 200 << 10} {
		text := strings.Repeat("é", size/2+1)
		lines, err := readAll(t, "2026-03-04T05:06:07Z "+text+"\n2026-03-04T05:06:08Z next\n")
		if err != io.EOF || len(lines) != 2 {
			t.Fatalf("size %d: %d lines, err %v; want 2 lines", size, len(lines), err)
		}
		got := lines[0].Text
		if !strings.HasSuffix(got, cutMarker) || len(got) > MaxLineBytes+len(cutMarker) || !utf8.ValidString(got) {
			t.Errorf("size %d: kept %d bytes ending %q, want at most %d valid bytes and the marker", size, len(got), got[max(0, len(got)-30):], MaxLineBytes)
		}
		if lines[1].Text != "next" {
			t.Errorf("size %d: the next line is %q", size, lines[1].Text)
		}
	}
}

func TestLineReaderReplacesInvalidUTF8(t *testing.T) {
	lines, _ := readAll(t, "2026-03-04T05:06:07Z a\xffb\n")
	if len(lines) != 1 || lines[0].Text != "a\uFFFDb" {
		t.Fatalf("lines = %+v, want one line \"a\\uFFFDb\"", lines)
	}
}

func TestLineReaderDropsAPartialLineOfABrokenStream(t *testing.T) {
	broken := io.MultiReader(strings.NewReader("2026-03-04T05:06:07Z whole\n2026-03-04T05:06:08Z half"), errReader{})
	r := newLineReader(broken)
	if l, err := r.next(); err != nil || l.Text != "whole" {
		t.Fatalf("next = %+v, %v; want the whole line", l, err)
	}
	if l, err := r.next(); !errors.Is(err, errBroken) {
		t.Fatalf("next = %+v, %v; want the stream's error and no line", l, err)
	}
}

var errBroken = errors.New("connection reset")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }
