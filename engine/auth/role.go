package auth

import (
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
)

// Role is what a token may do. Each role includes the ones below it.
type Role string

// The roles, from least to most power.
const (
	// Viewer may read.
	Viewer Role = "VIEWER"
	// Operator may also run mutations.
	Operator Role = "OPERATOR"
	// Admin may also manage tokens, delete clusters and control the simulator.
	Admin Role = "ADMIN"
)

func (r Role) rank() int {
	switch r {
	case Viewer:
		return 1
	case Operator:
		return 2
	case Admin:
		return 3
	}
	return 0
}

// ParseRole reads a role name, ignoring case and surrounding space.
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToUpper(strings.TrimSpace(s)))
	if r.rank() == 0 {
		return "", errs.Field("role", "role %q is not one of VIEWER, OPERATOR, ADMIN", s)
	}
	return r, nil
}

// Allows reports whether a holder of r may do what needs need. An unknown
// role allows nothing and is allowed nothing.
func (r Role) Allows(need Role) bool {
	return need.rank() > 0 && r.rank() >= need.rank()
}
