package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// Observer hears about operation progress (for metrics). Methods must not block.
type Observer interface {
	OperationStatus(kind string, status Status)
	PhaseFinished(kind, phase string, status PhaseStatus, d time.Duration)
}

type nopObserver struct{}

func (nopObserver) OperationStatus(string, Status)                           {}
func (nopObserver) PhaseFinished(string, string, PhaseStatus, time.Duration) {}

// Options configure a Runner.
type Options struct {
	Backoff Backoff
	// PhaseTimeout is the default deadline of a phase: how long runners
	// may work on it from its start, not counting time the process was
	// down (see Phase.Elapsed).
	PhaseTimeout time.Duration
	// ApplyTimeout bounds one Apply call. Apply is not interrupted by cancel
	// or shutdown, so that its result is always stored.
	ApplyTimeout time.Duration
	Logger       *slog.Logger
	Observer     Observer
}

// Runner stores and runs operations.
type Runner struct {
	store    *store.Store
	ids      store.IDs
	defs     map[string]*Definition
	opts     Options
	log      *slog.Logger
	observer Observer

	ctx  context.Context // cancelled by Shutdown: stops polling
	stop context.CancelFunc

	mu      sync.Mutex
	closing bool
	running map[string]*execution
	wg      sync.WaitGroup
}

type execution struct {
	cancel context.CancelFunc
	done   chan struct{}
	// again asks for another execution once this one returns: the
	// operation was queued again (retried) while this one was finishing.
	// Guarded by Runner.mu.
	again bool
}

// NewRunner returns a runner over st. Register definitions, then Start.
func NewRunner(st *store.Store, opts Options) *Runner {
	if opts.Backoff.Initial == 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.PhaseTimeout == 0 {
		opts.PhaseTimeout = 2 * time.Hour
	}
	if opts.ApplyTimeout == 0 {
		opts.ApplyTimeout = 5 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Observer == nil {
		opts.Observer = nopObserver{}
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Runner{
		store: st, defs: map[string]*Definition{}, opts: opts, log: opts.Logger,
		observer: opts.Observer, ctx: ctx, stop: stop, running: map[string]*execution{},
	}
}

// Register adds an operation kind. Call it before Start.
func (r *Runner) Register(def Definition) {
	d := def
	r.defs[def.Kind] = &d
}

// Start resumes every operation that had not ended when the process last
// stopped. Each resumes at its stored phases by Observing first.
func (r *Runner) Start() error {
	var pending []string
	err := r.store.View(func(tx *store.Tx) error {
		return tx.List(recordKind, "", func(id string, raw []byte) (bool, error) {
			var op Operation
			if err := json.Unmarshal(raw, &op); err != nil {
				return false, fmt.Errorf("decode operation %s: %w", id, err)
			}
			if !op.Status.Terminal() {
				pending = append(pending, id)
			}
			return true, nil
		})
	})
	if err != nil {
		return err
	}
	for _, id := range pending {
		r.log.Info("resuming operation", "operation", id)
		r.launch(id)
	}
	return nil
}

// Shutdown stops taking work, interrupts polling, and waits until every
// phase has reached a stored point (Apply calls in flight finish and store
// their result) or ctx ends.
func (r *Runner) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	r.stop()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("operations still stopping: %w", ctx.Err())
	}
}

// launch starts executing op id. When an execution of it is still
// returning (it has stored the operation's end, and a retry queued it again
// at once), the next one starts as soon as that one is gone.
func (r *Runner) launch(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return
	}
	if ex, ok := r.running[id]; ok {
		ex.again = true
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	ex := &execution{cancel: cancel, done: make(chan struct{})}
	r.running[id] = ex
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(ex.done)
		defer func() {
			r.mu.Lock()
			again := ex.again
			delete(r.running, id)
			r.mu.Unlock()
			cancel()
			if again {
				r.launch(id)
			}
		}()
		r.execute(ctx, id)
	}()
}

// errClosing refuses new work during shutdown.
var errClosing = errs.New(errs.Unavailable, "the server is shutting down; send the request again once it is back")

func (r *Runner) acceptingWork() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return errClosing
	}
	return nil
}

// Get returns the operation id.
func (r *Runner) Get(id string) (*Operation, error) {
	var op Operation
	err := r.store.View(func(tx *store.Tx) error { return tx.Get(recordKind, id, &op) })
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.New(errs.NotFound, "operation %q does not exist; list operations to find its id", id)
	}
	if err != nil {
		return nil, err
	}
	return &op, nil
}

// update loads op id, applies fn, stores it with its definition's Reflect,
// all in one transaction, and returns the stored operation.
func (r *Runner) update(id string, fn func(op *Operation) error) (*Operation, error) {
	var out Operation
	err := r.store.Update(func(tx *store.Tx) error {
		var op Operation
		if err := tx.Get(recordKind, id, &op); err != nil {
			return fmt.Errorf("load operation %s: %w", id, err)
		}
		if err := fn(&op); err != nil {
			return err
		}
		if err := r.save(tx, &op); err != nil {
			return err
		}
		out = op
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// save stores op and reflects it onto its target.
func (r *Runner) save(tx *store.Tx, op *Operation) error {
	op.UpdatedAt = tx.Now()
	if err := tx.Put(recordKind, op.ID, op); err != nil {
		return err
	}
	if def := r.defs[op.Kind]; def != nil && def.Reflect != nil {
		if err := def.Reflect(tx, op); err != nil {
			return fmt.Errorf("reflect operation %s onto %s %s: %w", op.ID, op.Target.Kind, op.Target.ID, err)
		}
	}
	return nil
}
