package auth

import (
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestRoleAllows(t *testing.T) {
	cases := []struct {
		have, need Role
		want       bool
	}{
		{Viewer, Viewer, true},
		{Viewer, Operator, false},
		{Viewer, Admin, false},
		{Operator, Viewer, true},
		{Operator, Operator, true},
		{Operator, Admin, false},
		{Admin, Viewer, true},
		{Admin, Operator, true},
		{Admin, Admin, true},
		{"", Viewer, false},
		{"ROOT", Viewer, false},
		{Admin, "", false},
		{Admin, "ROOT", false},
	}
	for _, c := range cases {
		if got := c.have.Allows(c.need); got != c.want {
			t.Errorf("%q.Allows(%q) = %v, want %v", c.have, c.need, got, c.want)
		}
	}
}

func TestParseRole(t *testing.T) {
	cases := []struct {
		in   string
		want Role
		ok   bool
	}{
		{"VIEWER", Viewer, true},
		{"operator", Operator, true},
		{" Admin ", Admin, true},
		{"", "", false},
		{"root", "", false},
	}
	for _, c := range cases {
		got, err := ParseRole(c.in)
		if c.ok {
			if err != nil || got != c.want {
				t.Errorf("ParseRole(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
			continue
		}
		if errs.CodeOf(err) != errs.Validation {
			t.Errorf("ParseRole(%q) error %v, want VALIDATION", c.in, err)
		}
	}
}
