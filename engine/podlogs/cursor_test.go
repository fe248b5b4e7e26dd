package podlogs_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/podlogs"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []podlogs.Cursor{
		{},
		{Time: time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)},
		{Time: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), N: 41},
		{Time: time.Date(2026, 3, 4, 5, 6, 7, 999999999, time.UTC), N: -1},
		{Time: time.Date(1969, 12, 31, 23, 59, 59, 5, time.UTC)},
	} {
		s := c.String()
		if len(s) > 24 || strings.ContainsAny(s, "+/=?&# ") {
			t.Errorf("%v.String() = %q, want a short URL-safe text", c, s)
		}
		got, err := podlogs.ParseCursor(s)
		if err != nil {
			t.Fatalf("ParseCursor(%q): %v", s, err)
		}
		if got.Compare(c) != 0 {
			t.Errorf("ParseCursor(%q) = %v, want %v", s, got, c)
		}
	}
}

func TestParseCursorRefusesGarbage(t *testing.T) {
	valid := podlogs.Cursor{Time: time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)}.String()
	for name, s := range map[string]string{
		"empty":          "",
		"not base64":     "not a cursor!",
		"too long":       strings.Repeat("A", 10_000),
		"other version":  "AgIC",
		"cut short":      valid[:len(valid)-3],
		"trailing bytes": valid + "AA",
		"nanoseconds":    "AQL_____Dw",
		"count":          "AQICBw",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := podlogs.ParseCursor(s)
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.Validation {
				t.Fatalf("ParseCursor(%.40q) = %v, want a VALIDATION error", s, err)
			}
			if len(e.Message) > 300 {
				t.Fatalf("the message is %d bytes long: %.80q…", len(e.Message), e.Message)
			}
		})
	}
}

func TestCursorOrder(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	ordered := []podlogs.Cursor{{}, {Time: t0, N: -1}, {Time: t0}, {Time: t0, N: 1}, {Time: t0.Add(time.Nanosecond)}}
	for i := 1; i < len(ordered); i++ {
		if ordered[i-1].Compare(ordered[i]) >= 0 || ordered[i].Compare(ordered[i-1]) <= 0 {
			t.Errorf("%v and %v are out of order", ordered[i-1], ordered[i])
		}
	}
}
