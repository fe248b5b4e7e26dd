package ops

import (
	"context"
	"fmt"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// phaseResult reports that a phase goroutine stopped, and err when it
// stopped with a change of the phase's state not stored.
type phaseResult struct {
	name string
	err  error
}

// execute drives op id until it ends, is cancelled, or the runner shuts down.
// Independent phases run at the same time; a failed phase stops new phases
// from starting while running ones finish.
func (r *Runner) execute(ctx context.Context, id string) {
	op, err := r.Get(id)
	if err != nil {
		r.log.Error("load operation", "operation", id, "err", err)
		return
	}
	if op.Status.Terminal() {
		return // an extra launch after the execution that ended it
	}
	def := r.defs[op.Kind]
	if def == nil {
		r.finishWith(id, errs.New(errs.Internal, "operation kind %q is unknown to this version of InstantStart", op.Kind))
		return
	}
	steps, err := def.Steps(op)
	if err != nil {
		r.finishWith(id, err)
		return
	}
	byName := make(map[string]*Step, len(steps))
	for i := range steps {
		byName[steps[i].Name] = &steps[i]
	}
	if op, err = r.update(id, func(op *Operation) error {
		replan(op, steps)
		if op.Status == Queued {
			now := time.Now().UTC()
			op.Status, op.StartedAt = Running, &now
		}
		return nil
	}); err != nil {
		r.log.Error("start operation", "operation", id, "err", err)
		return
	}
	r.observer.OperationStatus(op.Kind, op.Status)

	results := make(chan phaseResult, len(steps))
	inflight := map[string]bool{}
	// launches counts the runs of each phase in this execution: a phase
	// that stopped while it still has work starts again after a backoff,
	// never at once.
	launches := map[string]int{}
	for {
		op, err = r.reload(ctx, id)
		if err != nil {
			r.log.Error("reload operation", "operation", id, "err", err)
			return
		}
		stopping := op.CancelRequested || ctx.Err() != nil || anyPhase(op, PhaseFailed)
		if !stopping {
			for _, p := range op.Phases {
				if inflight[p.Name] || !p.Status.active() || !depsDone(op, p) {
					continue
				}
				st := byName[p.Name]
				if st == nil {
					r.finishWith(id, errs.New(errs.Internal, "phase %q of operation %s is unknown to this version of InstantStart", p.Name, id))
					return
				}
				inflight[p.Name] = true
				again := launches[p.Name]
				launches[p.Name]++
				go func() {
					if again > 0 && !sleep(ctx, r.opts.Backoff.wait(again-1)) {
						results <- phaseResult{name: st.Name}
						return
					}
					results <- phaseResult{name: st.Name, err: r.runPhase(ctx, id, st)}
				}()
			}
		}
		if len(inflight) == 0 {
			break
		}
		res := <-results
		delete(inflight, res.name)
		if res.err != nil {
			r.log.Error("phase stopped with its state not stored", "operation", id, "phase", res.name, "err", res.err)
		}
	}
	if ctx.Err() != nil && !r.cancelRequested(id) {
		// Shutdown: leave the operation as stored; Start resumes it.
		return
	}
	r.finish(id)
}

// reload reads op id, trying again with the runner's backoff while the
// store fails, until ctx ends.
func (r *Runner) reload(ctx context.Context, id string) (*Operation, error) {
	for n := 0; ; n++ {
		op, err := r.Get(id)
		if err == nil || errs.CodeOf(err) == errs.NotFound {
			return op, err
		}
		r.log.Error("reload operation; will retry", "operation", id, "try", n+1, "err", err)
		if !sleep(ctx, r.opts.Backoff.wait(n)) {
			return nil, err
		}
	}
}

func (r *Runner) cancelRequested(id string) bool {
	op, err := r.Get(id)
	return err == nil && op.CancelRequested
}

func anyPhase(op *Operation, s PhaseStatus) bool {
	for _, p := range op.Phases {
		if p.Status == s {
			return true
		}
	}
	return false
}

func anyActive(op *Operation) bool {
	for _, p := range op.Phases {
		if p.Status.active() {
			return true
		}
	}
	return false
}

func depsDone(op *Operation, p *Phase) bool {
	for _, d := range p.DependsOn {
		if dp := op.Phase(d); dp == nil || !dp.Status.done() {
			return false
		}
	}
	return true
}

// finish records the end state of op from its phases and releases its lock.
func (r *Runner) finish(id string) {
	r.end(id, func(op *Operation, now time.Time) {
		switch {
		case op.CancelRequested && anyActive(op):
			op.Status = Cancelled
			for _, p := range op.Phases {
				if !p.Status.active() {
					continue
				}
				p.Status, p.FinishedAt = PhaseCancelled, &now
				if p.Attempt > 0 {
					p.Message = "cancelled; a change already requested from AWS may still complete"
				} else {
					p.Message = "cancelled before it started"
				}
			}
		case anyPhase(op, PhaseFailed):
			op.Status = Failed
			for _, p := range op.Phases {
				if p.Status == PhaseFailed && p.Error != nil {
					op.Error = &Error{Code: p.Error.Code, Message: fmt.Sprintf("phase %s failed: %s", p.Name, p.Error.Message),
						Retryable: p.Error.Retryable, UpstreamCode: p.Error.UpstreamCode}
					break
				}
			}
		default:
			op.Status, op.Noop = Succeeded, true
			for _, p := range op.Phases {
				if p.Attempt > 0 {
					op.Noop = false
				}
			}
		}
	})
}

// finishWith fails op id with err as the operation's error.
func (r *Runner) finishWith(id string, err error) {
	r.end(id, func(op *Operation, _ time.Time) { op.Status, op.Error = Failed, errorFrom(err) })
}

// end applies a terminal state to op id, stores it and releases the target's
// lock in one transaction.
func (r *Runner) end(id string, decide func(op *Operation, now time.Time)) {
	var op Operation
	err := r.store.Update(func(tx *store.Tx) error {
		if err := tx.Get(recordKind, id, &op); err != nil {
			return err
		}
		now := tx.Now()
		decide(&op, now)
		op.FinishedAt = &now
		if err := r.unlock(tx, &op); err != nil {
			return err
		}
		return r.save(tx, &op)
	})
	if err != nil {
		r.log.Error("end operation", "operation", id, "err", err)
		return
	}
	r.observer.OperationStatus(op.Kind, op.Status)
	r.log.Info("operation ended", "operation", id, "kind", op.Kind, "status", op.Status, "noop", op.Noop)
	if def := r.defs[op.Kind]; op.Status == Cancelled && def != nil && def.Cancelled != nil {
		ctx, cancel := context.WithTimeout(context.Background(), CancelledTimeout)
		defer cancel()
		if err := def.Cancelled(ctx, &op); err != nil {
			r.log.Error("clean up after a cancelled operation", "operation", id, "kind", op.Kind, "err", err)
		}
	}
}
