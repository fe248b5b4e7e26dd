package resolvers

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph/model"
)

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

// operationOf maps the result of an engine call that starts an operation.
func operationOf(op *ops.Operation, err error) (*model.Operation, error) {
	if err != nil {
		return nil, err
	}
	return mapOperation(op), nil
}

// connection is one page of a connection, with the event cursor it
// reflects. Cursors are the ids of the records, except where a list is
// ordered otherwise (nodes): there they are positions in that order.
type connection[T any] struct {
	eventCursor string
	page        *store.Page[T]
	pageInfo    *model.PageInfo
}

// readConnection reads the page that first and after ask for through read,
// the one pager of every connection. It takes the event cursor before the
// read, so a client following events from it misses no change, and asks for
// the total only when the client selected totalCount: a total reads every
// record, a page only its own.
func readConnection[T any](ctx context.Context, r *Resolver, first *int, after *string, read func(store.PageRequest) (*store.Page[T], error), cursor func(*T) string) (*connection[T], error) {
	n, err := pageSize(first)
	if err != nil {
		return nil, err
	}
	events := store.Cursor(r.Store.LastSequence())
	page, err := read(store.PageRequest{First: n, After: deref(after), Count: selected(ctx, "totalCount")})
	if err != nil {
		return nil, err
	}
	info := &model.PageInfo{HasNextPage: page.HasNext}
	if k := len(page.Items); k > 0 {
		end := cursor(page.Items[k-1])
		info.EndCursor = &end
	}
	return &connection[T]{eventCursor: events, page: page, pageInfo: info}, nil
}

// selected reports whether the request selected field of what the current
// resolver returns; true when no GraphQL request is there to ask.
func selected(ctx context.Context, field string) bool {
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return true
	}
	return slices.Contains(graphql.CollectAllFields(ctx), field)
}
