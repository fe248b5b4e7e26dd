package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// opRecord is one mutation the soak asked for, and what became of it.
type opRecord struct {
	Kind string // the mutation: createCluster, deleteJob...
	Key  string // its idempotency key
	Lane int    // the cluster lane that asked; -1 for the final clean-up

	OpID   string
	Target string // the id of the resource it made or changed
	Status string // the operation's last status
	Error  *opError
	// Retries counts the retryOperation calls on it after retryable
	// failures; Resubmits the times the same request, with the same key,
	// was sent again after a restart.
	Retries, Resubmits int
	// Refused is why the server refused the request, when it did.
	Refused *gqlError
	// Lost says why an acknowledged operation could not be followed to
	// its end (the server no longer knew it, or a resubmission with the
	// same key returned another operation).
	Lost string
	// Stuck is set when it did not end within the soak's bound.
	Stuck bool
}

// opError is an operation's error as the API shows it.
type opError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// operation is the part of an Operation the soak reads.
type operation struct {
	ID     string   `json:"id"`
	Kind   string   `json:"kind"`
	Status string   `json:"status"`
	Error  *opError `json:"error"`
	Target struct {
		Kind string `json:"kind"`
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"target"`
	IdempotencyKey string `json:"idempotencyKey"`
}

const opFields = `id kind status error { code message retryable } target { kind id name } idempotencyKey`

func terminal(status string) bool {
	return status == "SUCCEEDED" || status == "FAILED" || status == "CANCELLED"
}

// mutation is a request that starts an operation: its document, its
// variables (the idempotency key is added as $key) and the field that
// returns the Operation.
type mutation struct {
	kind, query, field string
	vars               map[string]any
}

// ledger holds every opRecord of a run.
type ledger struct {
	mu  sync.Mutex
	ops []*opRecord
}

func (l *ledger) add(r *opRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, r)
}

func (l *ledger) all() []*opRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*opRecord(nil), l.ops...)
}

// Bounds of how long and how often the soak insists.
const (
	// submitTries bounds the sends of a request the server refuses with
	// a retryable error (throttled checks, a store busy starting).
	submitTries = 8
	// maxRetries bounds the retryOperation calls on an operation that
	// failed with a retryable error.
	maxRetries = 3
	// waitSeconds is how long each waitOperation waits on the server.
	waitSeconds = 10
)

// do sends m with key until the server answers it with an operation, then
// follows the operation to its end, retrying it while it fails with a
// retryable error (at most maxRetries times), and sending the same
// request again after each restart of the server, which must answer with
// the same operation. It returns the record, whose Status is "" when the
// request was refused.
func (r *run) do(ctx context.Context, lane int, key string, m mutation) *opRecord {
	rec := &opRecord{Kind: m.kind, Key: key, Lane: lane}
	r.ledger.add(rec)
	r.submitted()
	op, err := r.submit(ctx, rec, m)
	if err != nil {
		var ge *gqlError
		if errors.As(err, &ge) {
			rec.Refused = ge
		} else {
			rec.Lost = "not submitted: " + err.Error()
		}
		r.logf("lane %d: %s refused: %v", lane, m.kind, err)
		return rec
	}
	rec.OpID, rec.Target, rec.Status = op.ID, op.Target.ID, op.Status
	r.await(ctx, rec, m)
	r.logf("lane %d: %s %s %s%s", lane, m.kind, rec.OpID, rec.Status, rec.describe())
	return rec
}

// submit sends m until the server answers it: a retryable refusal is
// sent again after a pause, with the same key.
func (r *run) submit(ctx context.Context, rec *opRecord, m mutation) (*operation, error) {
	vars := map[string]any{"key": rec.Key}
	for k, v := range m.vars {
		vars[k] = v
	}
	pause := 100 * time.Millisecond
	for try := 1; ; try++ {
		var out map[string]*operation
		err := r.c.graphql(ctx, m.query, vars, &out)
		if err == nil {
			op := out[m.field]
			if op == nil || op.ID == "" {
				return nil, fmt.Errorf("%s answered no operation", m.field)
			}
			return op, nil
		}
		var ge *gqlError
		if !errors.As(err, &ge) || !(ge.Extensions.Retryable || ge.Extensions.Code == "UNAVAILABLE") || try >= submitTries {
			return nil, err
		}
		r.logf("%s (key %s) refused with a retryable error, sending it again: %v", m.kind, rec.Key, err)
		if !sleep(ctx, pause) {
			return nil, ctx.Err()
		}
		pause = min(2*pause, 3*time.Second)
	}
}

// await follows rec's operation until it ends, or until the soak's bound.
func (r *run) await(ctx context.Context, rec *opRecord, m mutation) {
	deadline := time.Now().Add(r.opts.OpTimeout)
	epoch := r.epoch.Load()
	for {
		if terminal(rec.Status) && (rec.Status != "FAILED" || !r.retry(ctx, rec)) {
			return
		}
		if time.Now().After(deadline) {
			rec.Stuck = true
			return
		}
		if e := r.epoch.Load(); e != epoch {
			// The server restarted while the operation ran: the same
			// request, with the same key, is the same operation.
			epoch = e
			rec.Resubmits++
			op, err := r.submit(ctx, rec, m)
			switch {
			case err != nil:
				rec.Lost = "resubmitted after a restart: " + err.Error()
				return
			case op.ID != rec.OpID:
				rec.Lost = fmt.Sprintf("resubmitted after a restart with key %s: got operation %s, not %s", rec.Key, op.ID, rec.OpID)
				return
			}
		}
		var out struct{ WaitOperation operation }
		err := r.c.graphql(ctx, `query($id: ID!, $t: Int) { waitOperation(id: $id, timeoutSeconds: $t) { `+opFields+` } }`,
			map[string]any{"id": rec.OpID, "t": waitSeconds}, &out)
		var ge *gqlError
		switch {
		case errors.As(err, &ge) && ge.Extensions.Code == "NOT_FOUND":
			rec.Lost = "the server no longer knows the operation: " + ge.Message
			return
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			r.logf("waiting for %s: %v", rec.OpID, err)
			if !sleep(ctx, 200*time.Millisecond) {
				return
			}
			continue
		}
		rec.Status, rec.Error = out.WaitOperation.Status, out.WaitOperation.Error
	}
}

// query sends a read, again after a pause while the server refuses it
// with a retryable error, at most submitTries times.
func (r *run) query(ctx context.Context, query string, vars map[string]any, out any) error {
	for try := 1; ; try++ {
		err := r.c.graphql(ctx, query, vars, out)
		var ge *gqlError
		if err == nil || !errors.As(err, &ge) || !(ge.Extensions.Retryable || ge.Extensions.Code == "UNAVAILABLE") || try >= submitTries {
			return err
		}
		if !sleep(ctx, time.Duration(try)*200*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// retry calls retryOperation on rec's FAILED operation when its error is
// retryable and the bound allows, and tells whether it did.
func (r *run) retry(ctx context.Context, rec *opRecord) bool {
	if rec.Error == nil || !rec.Error.Retryable || rec.Retries >= maxRetries {
		return false
	}
	rec.Retries++
	r.logf("retrying %s %s after %s: %s", rec.Kind, rec.OpID, rec.Error.Code, rec.Error.Message)
	for try := 1; ; try++ {
		var out struct{ RetryOperation operation }
		err := r.c.graphql(ctx, `mutation($id: ID!) { retryOperation(id: $id) { `+opFields+` } }`, map[string]any{"id": rec.OpID}, &out)
		var ge *gqlError
		switch {
		case err == nil:
			rec.Status, rec.Error = out.RetryOperation.Status, out.RetryOperation.Error
			return true
		case errors.As(err, &ge) && ge.Extensions.Code == "PRECONDITION":
			// Sent again after a restart, the first one had already
			// resumed it: it is no longer FAILED.
			rec.Status = "RUNNING"
			return true
		case errors.As(err, &ge) && (ge.Extensions.Retryable || ge.Extensions.Code == "UNAVAILABLE") && try < submitTries:
			if !sleep(ctx, time.Duration(try)*200*time.Millisecond) {
				return false
			}
		default:
			r.logf("retryOperation %s: %v", rec.OpID, err)
			return false
		}
	}
}

// describe is what a log line says of a record besides its status.
func (rec *opRecord) describe() string {
	s := ""
	if rec.Retries > 0 {
		s += fmt.Sprintf(" (retried %d)", rec.Retries)
	}
	if rec.Error != nil && rec.Status != "SUCCEEDED" {
		s += fmt.Sprintf(": %s: %s", rec.Error.Code, rec.Error.Message)
	}
	if rec.Lost != "" {
		s += ": LOST: " + rec.Lost
	}
	if rec.Stuck {
		s += ": STUCK"
	}
	return s
}

// sleep waits d, or less if ctx ends; it tells whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
