package ops

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// Each is a phase that ends a set of records, each by an operation of its
// own (a DeleteCluster with cascade deletes a cluster's endpoints, each by
// its DeleteEndpoint), so that every record ends the way it would alone.
type Each struct {
	Name, Title string
	// Timeout is a backstop (default EachTimeout): each record's own
	// operation has deadlines of its own, and the phase waits while they
	// run.
	Timeout time.Duration
	// Noun names one record in messages ("endpoint").
	Noun string
	// Live lists the records still to end.
	Live func() ([]Child, error)
	// End submits, as caller (who asked for the phase's operation), the
	// operation that ends child, with the idempotency key
	// key; an operation already running on it is a CONFLICT.
	End func(ctx context.Context, child Child, caller, key string) (*Operation, error)
	// Kinds are the kinds of the operations End submits.
	Kinds []string
}

// EachTimeout is an Each phase's default deadline.
const EachTimeout = 7 * 24 * time.Hour

// Child is one record an Each phase ends.
type Child struct {
	ID, Name, Status string
	// TargetKind is the kind of the operations on it (ENDPOINT).
	TargetKind string
}

func (c Child) label(noun string) string {
	if c.Name == "" {
		return noun + " " + c.ID
	}
	return fmt.Sprintf("%s %s (%s)", noun, c.Name, c.ID)
}

// EachStep returns the phase e describes. Its Apply submits an ending
// operation for every live record that has none running, keyed by the
// operation, the phase's attempt and the record, so that an Apply that
// runs again after a restart submits nothing new; a record busy with
// another operation makes Apply wait for it (a retryable error). Its
// Observe is done once no record is live, and fails when the ending
// operation of one failed or was cancelled: a retry of the operation ends
// it again.
func (r *Runner) EachStep(e Each) Step {
	if e.Timeout == 0 {
		e.Timeout = EachTimeout
	}
	return Step{Name: e.Name, Title: e.Title, Timeout: e.Timeout,
		Observe: func(ctx context.Context, run *Run) (Observation, error) {
			live, err := e.Live()
			if err != nil {
				return Observation{}, err
			}
			if len(live) == 0 {
				return Observation{State: Done, Message: "no " + e.Noun + " is left"}, nil
			}
			if !run.Applied {
				return Observation{State: Absent, Message: plural(len(live), e.Noun) + " to end"}, nil
			}
			for _, c := range live {
				last, err := r.newest(c, e.Kinds)
				if err != nil {
					return Observation{}, err
				}
				if last != nil && (last.Status == Failed || last.Status == Cancelled) {
					// A retry of this operation ends the record again with a
					// new operation: it may succeed when the record's own
					// failure was retryable, or it was cancelled.
					msg, retryable := string(last.Status), last.Status == Cancelled
					if last.Error != nil {
						msg, retryable = last.Error.Message, retryable || last.Error.Retryable
					}
					broken := errs.New(errs.Upstream, "%s did not end: operation %s (%s) %s: %s; mend that, then retry this operation",
						c.label(e.Noun), last.ID, last.Kind, strings.ToLower(string(last.Status)), msg).WithDetail("operationId", last.ID)
					broken.Retryable = retryable
					return Observation{State: Broken, Err: broken}, nil
				}
			}
			return Observation{State: Pending, Message: plural(len(live), e.Noun) + " still ending: " + live[0].label(e.Noun) + " is " + live[0].Status}, nil
		},
		Apply: func(ctx context.Context, run *Run) (any, error) {
			live, err := e.Live()
			if err != nil {
				return nil, err
			}
			var busy []string
			for _, c := range live {
				key := "cascade:" + run.Op.ID + ":" + strconv.Itoa(run.Attempt) + ":" + c.ID
				if _, err := e.End(ctx, c, run.Op.RequestedBy, key); err != nil {
					if errs.CodeOf(err) == errs.Conflict {
						busy = append(busy, c.label(e.Noun))
						continue
					}
					return nil, fmt.Errorf("end %s: %w", c.label(e.Noun), err)
				}
			}
			if len(busy) > 0 {
				w := errs.New(errs.Conflict, "%s busy with another operation; waiting for it to end: %s", plural(len(busy), e.Noun)+" is", strings.Join(busy, ", "))
				w.Retryable = true
				return nil, w
			}
			return nil, nil
		},
	}
}

// newest returns the newest operation of one of kinds on child, or nil.
func (r *Runner) newest(c Child, kinds []string) (*Operation, error) {
	page, err := r.List(Filter{TargetKind: c.TargetKind, TargetID: c.ID, Kinds: kinds}, store.PageRequest{First: 1})
	if err != nil || len(page.Items) == 0 {
		return nil, err
	}
	return page.Items[0], nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Children reads the records scan walks that live accepts, as the Child
// each one is: for an area's Workloads on a cluster.
func Children[T any](st *store.Store, scan store.Scan, live func(*T) bool, child func(*T) Child) ([]Child, error) {
	recs, err := store.Select(st, scan, live)
	if err != nil {
		return nil, err
	}
	out := make([]Child, 0, len(recs))
	for _, r := range recs {
		out = append(out, child(r))
	}
	return out, nil
}
