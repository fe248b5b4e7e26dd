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
	// ClusterID keeps the operations about a cluster: on it, or on a
	// resource of it (storage, models, jobs, endpoints, groups, nodes).
	ClusterID string
}

// all reports whether f matches every operation.
func (f Filter) all() bool {
	return len(f.Kinds) == 0 && len(f.Statuses) == 0 && f.TargetKind == "" && f.TargetID == "" && f.ClusterID == ""
}

func (f Filter) match(op *Operation) bool {
	return (len(f.Kinds) == 0 || slices.Contains(f.Kinds, op.Kind)) &&
		(len(f.Statuses) == 0 || slices.Contains(f.Statuses, op.Status)) &&
		(f.TargetKind == "" || f.TargetKind == op.Target.Kind) &&
		(f.TargetID == "" || f.TargetID == op.Target.ID) &&
		(f.ClusterID == "" || f.ClusterID == op.ClusterID)
}

// Page is one page of operations, newest first.
type Page = store.Page[Operation]

// List returns one page of the operations matching f, newest first. A
// filter on one target walks that target's operations alone; an unfiltered
// page decodes only its own operations.
func (r *Runner) List(f Filter, req store.PageRequest) (*Page, error) {
	scan := store.Scan{Kind: recordKind, Descending: true} // ULIDs: key order is creation order
	switch {
	case f.TargetID != "" && f.TargetKind != "":
		scan.Index, scan.Prefix = indexByTarget, f.TargetKind+"/"+f.TargetID+"/"
		f.TargetKind, f.TargetID = "", "" // the index has matched them
	case f.ClusterID != "":
		scan.Index, scan.Prefix = indexByCluster, f.ClusterID+"/"
		f.ClusterID = ""
	}
	var match func(*Operation) bool
	if !f.all() {
		match = f.match
	}
	var page *Page
	err := r.store.View(func(tx *store.Tx) (err error) {
		page, err = store.ReadPage(tx, scan, req, match)
		return err
	})
	return page, err
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
