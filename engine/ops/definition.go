package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/instantstart/instantstart/engine/store"
)

// State is what Observe found.
type State int

// The states Observe can report.
const (
	// Absent: the goal does not hold and nothing is under way; Apply is needed.
	Absent State = iota
	// Pending: the change is under way (e.g. a cluster is CREATING); keep polling.
	Pending
	// Done: the goal holds.
	Done
	// Broken: the target reached a state from which this phase cannot succeed
	// (e.g. a cluster that FAILED); Observation.Err says why.
	Broken
	// NotNeeded: the phase has nothing to do for this operation (it is SKIPPED).
	NotNeeded
)

// Observation is the result of Observe.
type Observation struct {
	State State
	// Output is the phase's typed output (see OutputOf), or nil.
	Output  any
	Message string
	// Err explains a Broken state; it should be an errs.Error.
	Err error
}

// Step defines one phase: how to see whether its goal holds, and how to make
// it hold.
type Step struct {
	Name      string
	Title     string
	DependsOn []string
	// Timeout bounds the phase from its start to its goal, in time the
	// process was running (downtime does not count); 0 means the runner's
	// default. It is a real-world duration: the runner scales it by
	// Options.Speed.
	Timeout time.Duration
	Observe func(ctx context.Context, run *Run) (Observation, error)
	// Apply makes the change once and returns the phase's typed output (see
	// OutputOf), or nil. It may be nil for phases that only wait. It must
	// not wait for the change to take effect: the runner polls Observe.
	Apply func(ctx context.Context, run *Run) (any, error)
	// Recheck makes a retry of the operation run this phase again, Observe
	// first, even when it succeeded: for a phase that clears the way for a
	// later one, which the later one's failed attempt may block again.
	Recheck bool
}

// Run is what a phase sees of its operation while it runs.
type Run struct {
	// Op is a snapshot of the operation taken when the phase started; the
	// outputs of every phase it depends on are final in it.
	Op      *Operation
	Phase   string
	Attempt int
	// Applied is true once this phase's change was requested: by an Apply
	// in this run, or by an earlier process (the phase was stored WAITING).
	// Observe uses it to tell a failure of this attempt, which fails the
	// phase, from the leftovers of an earlier one, which Apply may replace.
	Applied bool
}

// ClientToken is the idempotency token for the current Apply: derived from the
// operation, phase and attempt, so a replayed call is idempotent at AWS too.
// It is 32 hex characters, within every AWS client-token limit.
func (r *Run) ClientToken() string {
	h := sha256.Sum256([]byte(r.Op.ID + "/" + r.Phase + "/" + strconv.Itoa(r.Attempt)))
	return hex.EncodeToString(h[:16])
}

// Definition describes one kind of operation.
type Definition struct {
	Kind string
	// StatusQuery names the query that confirms the operation's effect.
	StatusQuery string
	// Steps builds the phases of op from its stored input.
	Steps func(op *Operation) ([]Step, error)
	// Reflect updates the target resource from the operation, in the same
	// transaction every time the operation is stored. It may be nil.
	Reflect func(tx *store.Tx, op *Operation) error
	// Cancelled, when set, runs once an operation of this kind has been
	// stored CANCELLED, to stop what its phases started outside that no
	// later phase will stop (a download Job, say). It runs once, bounded
	// by CancelledTimeout; an error is logged, and the operation stays
	// CANCELLED.
	Cancelled func(ctx context.Context, op *Operation) error
}

// CancelledTimeout bounds a Definition's Cancelled.
const CancelledTimeout = time.Minute
