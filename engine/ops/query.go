package ops

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// Filter selects operations; empty fields match all.
type Filter struct {
	Kinds      []string
	Statuses   []Status
	TargetKind string
	TargetID   string
}

func (f Filter) match(op *Operation) bool {
	return (len(f.Kinds) == 0 || slices.Contains(f.Kinds, op.Kind)) &&
		(len(f.Statuses) == 0 || slices.Contains(f.Statuses, op.Status)) &&
		(f.TargetKind == "" || f.TargetKind == op.Target.Kind) &&
		(f.TargetID == "" || f.TargetID == op.Target.ID)
}

// Page is one page of operations, newest first.
type Page struct {
	Items      []*Operation
	TotalCount int
	HasNext    bool
}

// List returns operations matching f, newest first, after the operation id
// after ("" = from the newest), at most first of them.
func (r *Runner) List(f Filter, first int, after string) (*Page, error) {
	var all []*Operation
	keep := func(op *Operation) {
		if f.match(op) {
			all = append(all, op)
		}
	}
	err := r.store.View(func(tx *store.Tx) error {
		if f.TargetID != "" && f.TargetKind != "" {
			prefix := f.TargetKind + "/" + f.TargetID + "/"
			return tx.ScanIndex(indexByTarget, prefix, func(key, _ string) (bool, error) {
				var op Operation
				if err := tx.Get(recordKind, key[len(prefix):], &op); err != nil {
					return false, err
				}
				keep(&op)
				return true, nil
			})
		}
		return tx.List(recordKind, "", func(id string, raw []byte) (bool, error) {
			var op Operation
			if err := json.Unmarshal(raw, &op); err != nil {
				return false, err
			}
			keep(&op)
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(all)
	page := &Page{TotalCount: len(all)}
	start := 0
	if after != "" {
		start = len(all)
		for i, op := range all {
			if op.ID == after {
				start = i + 1
				break
			}
		}
	}
	end := min(start+first, len(all))
	page.Items = all[start:end]
	page.HasNext = end < len(all)
	return page, nil
}

// Wait returns operation id once it ends or one of its phases changes
// state, or when timeout passes, whichever is first.
func (r *Runner) Wait(ctx context.Context, id string, timeout time.Duration) (*Operation, error) {
	since := r.store.LastSequence()
	op, err := r.Get(id)
	if err != nil || op.Status.Terminal() || timeout <= 0 {
		return op, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sub, err := r.store.Subscribe(since, store.Filter{Kinds: []string{recordKind}, IDs: []string{id}})
	if err != nil {
		return r.Get(id) // the log moved past since: the operation now is the answer
	}
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			var overflow *store.OverflowError
			if ctx.Err() == nil && !errors.As(err, &overflow) {
				return nil, errs.Wrap(errs.Unavailable, err, "waiting for operation %s stopped: %v", id, err)
			}
			return r.Get(id)
		}
		var next Operation
		if err := json.Unmarshal(ev.Payload, &next); err != nil {
			return nil, err
		}
		if changed(op, &next) {
			return &next, nil
		}
	}
}

// changed reports whether next differs from prev in status or in any
// phase's status.
func changed(prev, next *Operation) bool {
	if prev.Status != next.Status || len(prev.Phases) != len(next.Phases) {
		return true
	}
	for i := range prev.Phases {
		if prev.Phases[i].Status != next.Phases[i].Status {
			return true
		}
	}
	return false
}
