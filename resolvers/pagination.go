package resolvers

import "github.com/instantstart/instantstart/engine/errs"

// Page sizes a connection accepts.
const (
	defaultPageSize = 50
	maxPageSize     = 200
)

// pageSize checks a connection's first argument: 1..200, the default when
// absent.
func pageSize(first *int) (int, error) {
	if first == nil {
		return defaultPageSize, nil
	}
	if *first < 1 || *first > maxPageSize {
		return 0, errs.Field("first", "first must be between 1 and %d, got %d; page through longer lists with after = pageInfo.endCursor", maxPageSize, *first)
	}
	return *first, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
