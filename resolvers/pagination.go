package resolvers

import (
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

// pageAfter returns up to n items following the one whose id is after (from
// the start when after is empty), and whether more follow.
func pageAfter[T any](items []T, after string, n int, id func(T) string) ([]T, bool) {
	start := 0
	if after != "" {
		start = len(items)
		for i, it := range items {
			if id(it) == after {
				start = i + 1
				break
			}
		}
	}
	end := min(start+n, len(items))
	return items[start:end], end < len(items)
}

// operationOf maps the result of an engine call that starts an operation.
func operationOf(op *ops.Operation, err error) (*model.Operation, error) {
	if err != nil {
		return nil, err
	}
	return mapOperation(op), nil
}

// listPage is one page of a cluster's list, with the event cursor it
// reflects.
type listPage[T any] struct {
	cursor   string
	items    []T
	total    int
	pageInfo *model.PageInfo
}

// clusterListPage checks that the cluster exists, takes the event cursor,
// reads the list and cuts the page that first and after ask for.
func clusterListPage[T any](r *Resolver, clusterID string, first *int, after *string, list func() ([]T, error), id func(T) string) (*listPage[T], error) {
	n, err := pageSize(first)
	if err != nil {
		return nil, err
	}
	if _, err := r.Clusters.Get(clusterID); err != nil {
		return nil, err
	}
	cursor := store.Cursor(r.Store.LastSequence()) // before the read: no change after it is missed
	all, err := list()
	if err != nil {
		return nil, err
	}
	items, hasNext := pageAfter(all, deref(after), n, id)
	info := &model.PageInfo{HasNextPage: hasNext}
	if len(items) > 0 {
		end := id(items[len(items)-1])
		info.EndCursor = &end
	}
	return &listPage[T]{cursor: cursor, items: items, total: len(all), pageInfo: info}, nil
}
