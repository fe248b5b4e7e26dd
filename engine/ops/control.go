package ops

import (
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// Retry resumes a FAILED or CANCELLED operation at the phases that did not
// succeed; succeeded phases are not run again. It takes the target's lock
// again, so it is a CONFLICT while another operation runs on the target.
func (r *Runner) Retry(id string) (*Operation, error) {
	if err := r.acceptingWork(); err != nil {
		return nil, err
	}
	var op Operation
	err := r.store.Update(func(tx *store.Tx) error {
		if err := tx.Get(recordKind, id, &op); err != nil {
			return notFound(id, err)
		}
		if op.Status != Failed && op.Status != Cancelled {
			return errs.New(errs.Precondition, "operation %s is %s; only FAILED or CANCELLED operations can be retried", id, op.Status)
		}
		if err := r.lock(tx, &op); err != nil {
			return err
		}
		op.Status, op.Error, op.FinishedAt, op.CancelRequested = Queued, nil, nil, false
		for _, p := range op.Phases {
			if p.Status == PhaseFailed || p.Status == PhaseCancelled || (p.Recheck && p.Status.done()) {
				p.Status, p.Error, p.FinishedAt, p.Message = PhasePending, nil, nil, "queued for retry"
			}
		}
		return r.save(tx, &op)
	})
	if err != nil {
		return nil, err
	}
	r.observer.OperationStatus(op.Kind, op.Status)
	r.launch(id)
	return &op, nil
}

// Cancel asks operation id to stop and returns at once, with the request
// recorded (Operation.CancelRequested). The runner stops the phases' polls
// at once; a phase in the middle of an Apply finishes that call and stores
// its result first. The operation then ends CANCELLED.
func (r *Runner) Cancel(id string) (*Operation, error) {
	var op Operation
	err := r.store.Update(func(tx *store.Tx) error {
		if err := tx.Get(recordKind, id, &op); err != nil {
			return notFound(id, err)
		}
		if op.Status.Terminal() {
			return errs.New(errs.Precondition, "operation %s already ended %s; there is nothing to cancel", id, op.Status)
		}
		op.CancelRequested = true
		return r.save(tx, &op)
	})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	ex := r.running[id]
	r.mu.Unlock()
	if ex != nil {
		// The execution records CANCELLED when its phases have stopped.
		ex.cancel()
		return &op, nil
	}
	r.finish(id)
	return r.Get(id)
}

func notFound(id string, err error) error {
	if err == store.ErrNotFound {
		return errs.New(errs.NotFound, "operation %q does not exist; list operations to find its id", id)
	}
	return err
}
