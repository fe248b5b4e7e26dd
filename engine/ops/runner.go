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

// Options configure a Runner. Durations are real-world ones: the runner
// divides them by Speed, here and nowhere else.
type Options struct {
	// Speed is how many times faster than AWS the provider answers: the
	// simulator's speed; 0 or 1 for AWS. It divides Backoff, PhaseTimeout,
	// ApplyTimeout, every Step.Timeout and the waits of ReadRetry.
	Speed float64
	// Backoff spaces the Observe polls of a waiting phase and the retries
	// of a phase state the store refused; zero means DefaultBackoff.
	Backoff Backoff
	// PhaseTimeout is the default deadline of a phase: how long runners
	// may work on it from its start, not counting time the process was
	// down (see Phase.Elapsed).
	PhaseTimeout time.Duration
	// ApplyTimeout bounds one Apply call. Apply is not interrupted by cancel
	// or shutdown, so that its result is always stored.
	ApplyTimeout time.Duration
	// ReadRetry bounds the retries of the reads that check a request
	// before an operation exists (see Runner.ReadRetry); zero means
	// DefaultReadRetry.
	ReadRetry ReadRetry
	Logger    *slog.Logger
	Observer  Observer
}

// minTimeout is the shortest scaled phase deadline: below it a simulated
// phase would time out on scheduling noise.
const minTimeout = 2 * time.Second

// minApplyTimeout is the shortest scaled Apply bound: an Apply makes
// several calls, which a busy machine must not cut off.
const minApplyTimeout = 10 * time.Second

// scaled divides a real-world duration by the speed, keeping at least floor.
func (o Options) scaled(d, floor time.Duration) time.Duration {
	if o.Speed <= 0 || o.Speed == 1 {
		return d
	}
	return max(time.Duration(float64(d)/o.Speed), floor)
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
	if opts.ReadRetry.Attempts == 0 {
		opts.ReadRetry = DefaultReadRetry
	}
	if opts.Speed > 0 && opts.Speed != 1 {
		opts.Backoff = opts.Backoff.Scaled(opts.Speed)
		opts.ReadRetry = opts.ReadRetry.Scaled(opts.Speed)
		opts.PhaseTimeout = opts.scaled(opts.PhaseTimeout, minTimeout)
		opts.ApplyTimeout = opts.scaled(opts.ApplyTimeout, minApplyTimeout)
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

// ReadRetry is how a read that checks a request, before any operation
// exists to retry it, is tried again: Options.ReadRetry at the runner's
// speed.
func (r *Runner) ReadRetry() ReadRetry { return r.opts.ReadRetry }

// phaseTimeout is the deadline of st at the runner's speed.
func (r *Runner) phaseTimeout(st *Step) time.Duration {
	if st.Timeout == 0 {
		return r.opts.PhaseTimeout
	}
	return r.opts.scaled(st.Timeout, minTimeout)
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
	var indexed bool
	unindexed := map[string]string{} // operation id -> its cluster, for indexByCluster
	err := r.store.View(func(tx *store.Tx) error {
		_, err := tx.GetIndex(indexMeta, metaByClusterBuilt)
		if indexed = err == nil; err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return tx.List(recordKind, "", func(id string, raw []byte) (bool, error) {
			var op Operation
			if err := json.Unmarshal(raw, &op); err != nil {
				return false, fmt.Errorf("decode operation %s: %w", id, err)
			}
			if !op.Status.Terminal() {
				pending = append(pending, id)
			}
			if !indexed {
				if c := clusterOf(&op); c != "" {
					unindexed[id] = c
				}
			}
			return true, nil
		})
	})
	if err != nil {
		return err
	}
	if !indexed {
		if err := r.indexByCluster(unindexed); err != nil {
			return err
		}
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
	ex := &execution{cancel: cancel}
	r.running[id] = ex
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
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

// The meta index of the operation records, and its entry that marks
// indexByCluster built for the operations stored before it existed.
const (
	indexMeta          = "op-meta"
	metaByClusterBuilt = "by-cluster-built"
)

// clusterOf is the cluster of an operation stored before operations named
// theirs: its target when that is a cluster, else the clusterId of its
// input, which every area's operation input carries.
func clusterOf(op *Operation) string {
	if op.ClusterID != "" {
		return op.ClusterID
	}
	if op.Target.Kind == "CLUSTER" {
		return op.Target.ID
	}
	var in struct {
		ClusterID string `json:"clusterId"`
	}
	if len(op.Input) > 0 && json.Unmarshal(op.Input, &in) == nil {
		return in.ClusterID
	}
	return ""
}

// indexByCluster writes the indexByCluster entries of clusters (operation
// id -> cluster id), a few hundred a transaction, then marks the index
// built so that the next start does not look again.
func (r *Runner) indexByCluster(clusters map[string]string) error {
	ids := make([]string, 0, len(clusters))
	for id := range clusters {
		ids = append(ids, id)
	}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 500)]
		ids = ids[len(batch):]
		if err := r.store.Update(func(tx *store.Tx) error {
			for _, id := range batch {
				if err := tx.PutIndex(indexByCluster, clusters[id]+"/"+id, ""); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("index the operations by cluster: %w", err)
		}
	}
	return r.store.Update(func(tx *store.Tx) error { return tx.PutIndex(indexMeta, metaByClusterBuilt, "") })
}
