// Package ops runs staged operations: every mutation that changes the world
// becomes an Operation made of phases that form a DAG. Each phase Observes
// the actual state before it Applies a change, persists RUNNING before Apply
// and WAITING after, then polls Observe until its goal holds. Operations are
// stored, so a restarted process resumes each one by Observing first.
package ops

import (
	"encoding/json"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// Status is the state of a whole operation.
type Status string

// The operation states; SUCCEEDED, FAILED and CANCELLED are terminal.
const (
	Queued    Status = "QUEUED"
	Running   Status = "RUNNING"
	Succeeded Status = "SUCCEEDED"
	Failed    Status = "FAILED"
	Cancelled Status = "CANCELLED"
)

// Terminal reports whether s is an end state.
func (s Status) Terminal() bool { return s == Succeeded || s == Failed || s == Cancelled }

// PhaseStatus is the state of one phase.
type PhaseStatus string

// The phase states.
const (
	PhasePending   PhaseStatus = "PENDING"
	PhaseRunning   PhaseStatus = "RUNNING"
	PhaseWaiting   PhaseStatus = "WAITING"
	PhaseSucceeded PhaseStatus = "SUCCEEDED"
	PhaseFailed    PhaseStatus = "FAILED"
	PhaseSkipped   PhaseStatus = "SKIPPED"
	PhaseCancelled PhaseStatus = "CANCELLED"
)

// done reports whether dependents of a phase in this state may start.
func (s PhaseStatus) done() bool { return s == PhaseSucceeded || s == PhaseSkipped }

// active reports whether the phase still has work (or resumable work) to do.
func (s PhaseStatus) active() bool {
	return s == PhasePending || s == PhaseRunning || s == PhaseWaiting
}

// Ref names the resource an operation acts on.
type Ref struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Error is a phase's or operation's failure.
type Error struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Retryable    bool   `json:"retryable"`
	UpstreamCode string `json:"upstreamCode,omitempty"`
}

func errorFrom(err error) *Error {
	e := errs.As(err)
	return &Error{Code: string(e.Code), Message: e.Message, Retryable: e.Retryable, UpstreamCode: e.UpstreamCode}
}

// Phase is one step of an operation as stored.
type Phase struct {
	Name       string      `json:"name"`
	Title      string      `json:"title"`
	DependsOn  []string    `json:"dependsOn,omitempty"`
	Status     PhaseStatus `json:"status"`
	Attempt    int         `json:"attempt"`
	StartedAt  *time.Time  `json:"startedAt,omitempty"`
	FinishedAt *time.Time  `json:"finishedAt,omitempty"`
	Message    string      `json:"message,omitempty"`
	Error      *Error      `json:"error,omitempty"`
	// Output is the phase's typed output as one JSON object; read it with
	// OutputOf.
	Output json.RawMessage `json:"output,omitempty"`
	// Outputs is what operations stored before outputs were typed hold
	// instead of Output: strings, with lists packed as JSON text. OutputOf
	// and OutputFields read it; the next output a phase stores moves it
	// into Output.
	Outputs map[string]string `json:"outputs,omitempty"`
	// Recheck: a retry runs the phase again even when it succeeded (see
	// Step.Recheck).
	Recheck bool `json:"recheck,omitempty"`
	// Applying is true from just before Apply until its result is stored: a
	// process that restarts with it set re-Applies with the same attempt (and
	// so the same client token) if Observe finds nothing.
	Applying bool `json:"applying,omitempty"`
	// Applied is true once an Apply of the phase returned with no error: a
	// process that restarts with it set waits for the change to show
	// rather than Apply again. WAITING alone does not say so: a phase
	// also waits while Observe reads Pending, and after an Apply that
	// failed and will be retried.
	Applied bool `json:"applied,omitempty"`
	// Elapsed is how long runners have worked on the phase since it
	// started, summed over the processes that ran it and stored with each
	// of its changes: the time its deadline counts. Time the process was
	// down is not in it.
	Elapsed time.Duration `json:"elapsed,omitempty"`
}

// Operation is a stored, staged change of one target resource.
type Operation struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Target Ref    `json:"target"`
	// ClusterID is the cluster the operation is about: its target, or the
	// cluster its target belongs to; "" for an operation about no cluster.
	ClusterID       string     `json:"clusterId,omitempty"`
	RequestedBy     string     `json:"requestedBy"`
	IdempotencyKey  string     `json:"idempotencyKey,omitempty"`
	Status          Status     `json:"status"`
	Noop            bool       `json:"noop"`
	StatusQuery     string     `json:"statusQuery"`
	Phases          []*Phase   `json:"phases"`
	Input           []byte     `json:"input,omitempty"`
	Error           *Error     `json:"error,omitempty"`
	CancelRequested bool       `json:"cancelRequested,omitempty"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	StartedAt       *time.Time `json:"startedAt,omitempty"`
	FinishedAt      *time.Time `json:"finishedAt,omitempty"`
}

// Phase returns the phase called name, or nil.
func (op *Operation) Phase(name string) *Phase {
	for _, p := range op.Phases {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// recordKind is the store kind of operation records.
const recordKind = "operation"

// RecordKind is the store kind under which operations are kept (and the kind
// their events carry).
const RecordKind = recordKind
