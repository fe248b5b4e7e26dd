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

func TestListedCarriesTheFirstTwentyAndACount(t *testing.T) {
	var l errs.List
	for i := range 95_000 {
		l = append(l, errs.Field("input.instanceGroups", "group %d is not a group of the cluster", i))
	}
	got := l.Listed()
	if len(got) != errs.MaxListed+1 {
		t.Fatalf("%d errors listed; want %d and a count", len(got), errs.MaxListed)
	}
	if got[0] != l[0] || got[errs.MaxListed-1] != l[errs.MaxListed-1] {
		t.Fatalf("the first %d are not the list's first", errs.MaxListed)
	}
	last := got[errs.MaxListed]
	if last.Code != errs.Validation || last.Details["omitted"] != "94980" || !strings.Contains(last.Message, "94980 more") {
		t.Fatalf("count entry %+v", last)
	}
	short := l[:3]
	if len(short.Listed()) != 3 {
		t.Fatalf("a short list changed: %d", len(short.Listed()))
	}
	if len(l) != 95_000 {
		t.Fatalf("Listed changed the list it was given")
	}
}

func TestNotFoundOnNamesOnlyAFieldlessNotFound(t *testing.T) {
	if e := errs.As(errs.NotFoundOn(errs.New(errs.NotFound, "cluster \"c1\" does not exist"), "input.clusterId")); e.Field != "input.clusterId" {
		t.Errorf("a NOT_FOUND without a field got field %q", e.Field)
	}
	if e := errs.As(errs.NotFoundOn(errs.New(errs.NotFound, "x").WithField("id"), "input.clusterId")); e.Field != "id" {
		t.Errorf("a NOT_FOUND's own field became %q", e.Field)
	}
	if e := errs.As(errs.NotFoundOn(errs.New(errs.Internal, "region unreachable"), "input.clusterId")); e.Field != "" {
		t.Errorf("an INTERNAL got field %q", e.Field)
	}
}
