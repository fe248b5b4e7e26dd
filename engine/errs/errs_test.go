package errs_test

import (
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestClipKeepsAMessageInProportionToTheMistake(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{strings.Repeat("a", 100), strings.Repeat("a", 100)},
		{strings.Repeat("b", 101), strings.Repeat("b", 100) + "..."},
		{strings.Repeat("c", 1<<20), strings.Repeat("c", 100) + "..."},
	} {
		if got := errs.Clip(tc.in); got != tc.want {
			t.Errorf("Clip(%d bytes) = %d bytes; want %d", len(tc.in), len(got), len(tc.want))
		}
	}
}
