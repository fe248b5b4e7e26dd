package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// phaseClock measures the time a phase's deadline counts: the time runners
// worked on it, over every process that ran it, and not the time the
// process was down. A run's clock goes on from what earlier runs stored,
// and only once the run has Observed: after a restart the phase looks
// before its deadline can end it.
type phaseClock struct {
	spent time.Duration // stored by earlier runs
	since time.Time     // when this run's clock started; zero until then
}

// start starts this run's share of the clock, once.
func (c *phaseClock) start() {
	if c.since.IsZero() {
		c.since = time.Now()
	}
}

// elapsed is the phase's running time so far.
func (c *phaseClock) elapsed() time.Duration {
	if c.since.IsZero() {
		return c.spent
	}
	return c.spent + time.Since(c.since)
}

// runPhase takes one phase from its stored state to SUCCEEDED, SKIPPED or
// FAILED, or stops at a stored point when ctx ends (cancel or shutdown).
// It returns an error only when ctx ended while a change of the phase's
// state was still not stored.
func (r *Runner) runPhase(ctx context.Context, id string, st *Step) error {
	timeout := r.phaseTimeout(st)
	op, err := r.persist(ctx, id, st.Name, "start", func(op *Operation) error {
		p := op.Phase(st.Name)
		if p.Status == PhasePending {
			now := time.Now().UTC()
			p.Status, p.StartedAt, p.FinishedAt, p.Error, p.Elapsed, p.Applied = PhaseRunning, &now, nil, nil, 0, false
			p.Message = "checking the current state"
		}
		return nil
	})
	if err != nil {
		return err
	}
	ph := op.Phase(st.Name)
	clock := &phaseClock{spent: ph.Elapsed}
	run := &Run{Op: op, Phase: st.Name, Attempt: ph.Attempt}
	// applying: a previous process stopped inside Apply; re-Apply with the same
	// attempt (and token) if Observe finds nothing. appliedHere: Apply already
	// returned, so a goal not yet visible is AWS catching up, not a reason to
	// Apply again.
	applying := ph.Applying
	appliedHere := ph.Applied
	run.Applied = appliedHere

	// lastApplyErr is the retryable error of the last Apply, nil once one
	// succeeds: a phase out of time with it fails with that cause.
	var lastApplyErr error
	for poll := 0; ; poll++ {
		if poll > 0 {
			if clock.elapsed() > timeout {
				if lastApplyErr != nil {
					return r.failPhase(ctx, id, st.Name, clock, errs.FromUpstream(lastApplyErr, st.Title), nil)
				}
				e := errs.New(errs.Timeout, "phase %s did not reach its goal within %s; retry the operation to keep waiting", st.Name, timeout.Round(time.Second))
				e.Retryable = true
				return r.failPhase(ctx, id, st.Name, clock, e, nil)
			}
			if !sleep(ctx, r.opts.Backoff.wait(poll-1)) {
				return nil
			}
		}
		obs, err := st.Observe(ctx, run)
		clock.start()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errs.IsRetryable(err) {
				if err := r.note(ctx, id, st.Name, clock, "reading state: "+errs.FromUpstream(err, "observe").Message+" (retrying)"); err != nil {
					return err
				}
				continue
			}
			return r.failPhase(ctx, id, st.Name, clock, errs.FromUpstream(err, st.Title), nil)
		}
		output, err := encodeOutput(st.Name, obs.Output)
		if err != nil {
			return r.failPhase(ctx, id, st.Name, clock, err, nil)
		}
		switch obs.State {
		case Done:
			return r.endPhase(ctx, id, st.Name, clock, PhaseSucceeded, obs.Message, output)
		case NotNeeded:
			return r.endPhase(ctx, id, st.Name, clock, PhaseSkipped, obs.Message, output)
		case Broken:
			cause := obs.Err
			if cause == nil {
				cause = errs.New(errs.Upstream, "%s", obs.Message)
			}
			return r.failPhase(ctx, id, st.Name, clock, cause, output)
		case Pending:
			if err := r.wait(ctx, id, st.Name, clock, obs.Message, output); err != nil {
				return err
			}
			continue
		}
		// Absent: the goal does not hold and nothing is under way.
		if st.Apply == nil || appliedHere {
			if err := r.wait(ctx, id, st.Name, clock, obs.Message, output); err != nil {
				return err
			}
			continue
		}
		if ctx.Err() != nil {
			return nil
		}
		if !applying {
			run.Attempt++
		}
		if op, err = r.persist(ctx, id, st.Name, "RUNNING", func(op *Operation) error {
			p := op.Phase(st.Name)
			p.Status, p.Attempt, p.Applying, p.Elapsed = PhaseRunning, run.Attempt, true, clock.elapsed()
			p.Message = "applying the change"
			return nil
		}); err != nil {
			return err
		}
		run.Op = op
		// Apply runs to completion even when ctx ends, so its outcome is stored.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.ApplyTimeout)
		result, err := st.Apply(actx, run)
		cancel()
		applying = false
		if err != nil {
			if errs.IsRetryable(err) && clock.elapsed() < r.retryWithin(timeout, err) {
				lastApplyErr = err
				if err := r.applied(ctx, id, st.Name, clock, false, nil, "applying: "+errs.FromUpstream(err, "apply").Message+" (will retry)"); err != nil {
					return err
				}
				continue
			}
			return r.failPhase(ctx, id, st.Name, clock, errs.FromUpstream(err, st.Title), nil)
		}
		lastApplyErr = nil
		output, err = encodeOutput(st.Name, result)
		if err != nil {
			return r.failPhase(ctx, id, st.Name, clock, err, nil)
		}
		appliedHere, run.Applied = true, true
		if err := r.applied(ctx, id, st.Name, clock, true, output, "waiting for the change to take effect"); err != nil {
			return err
		}
	}
}

// retryWithin is how far into a phase a retryable Apply error is still
// retried: to the phase's deadline, but for a role another service does not
// see yet only for IAM's propagation time (at the runner's speed), after
// which the role is taken to be really missing or not assumable.
func (r *Runner) retryWithin(timeout time.Duration, err error) time.Duration {
	if errs.NotYetPropagated(err) {
		return min(timeout, r.opts.scaled(errs.IAMPropagation, minTimeout))
	}
	return timeout
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// persist stores a change of the phase's state. When the store refuses it,
// it tries again with the runner's backoff, logging each failure: dropping
// the change would restart the phase at once, and a store that keeps
// failing would then spin. It gives up only when ctx ends, and then
// returns the last error.
func (r *Runner) persist(ctx context.Context, id, phase, what string, fn func(op *Operation) error) (*Operation, error) {
	for n := 0; ; n++ {
		op, err := r.update(id, fn)
		if err == nil {
			return op, nil
		}
		r.log.Error("store phase state; will retry", "operation", id, "phase", phase, "state", what, "try", n+1, "err", err)
		if !sleep(ctx, r.opts.Backoff.wait(n)) {
			return nil, fmt.Errorf("store %s of phase %s of operation %s: %w", what, phase, id, err)
		}
	}
}

// applied stores the result of Apply: WAITING with its output, and
// whether it succeeded (ok) or failed and will be retried.
func (r *Runner) applied(ctx context.Context, id, phase string, clock *phaseClock, ok bool, output map[string]json.RawMessage, msg string) error {
	_, err := r.persist(ctx, id, phase, "WAITING", func(op *Operation) error {
		p := op.Phase(phase)
		p.Status, p.Applying, p.Applied, p.Message, p.Elapsed = PhaseWaiting, false, ok, msg, clock.elapsed()
		p.mergeOutput(output)
		return nil
	})
	return err
}

// wait stores that the phase is waiting, with the latest observed message.
func (r *Runner) wait(ctx context.Context, id, phase string, clock *phaseClock, msg string, output map[string]json.RawMessage) error {
	_, err := r.persist(ctx, id, phase, "progress", func(op *Operation) error {
		p := op.Phase(phase)
		if p.Status == PhaseRunning && !p.Applying {
			p.Status = PhaseWaiting
		}
		p.Elapsed = clock.elapsed()
		if msg != "" {
			p.Message = msg
		}
		p.mergeOutput(output)
		return nil
	})
	return err
}

func (r *Runner) note(ctx context.Context, id, phase string, clock *phaseClock, msg string) error {
	return r.wait(ctx, id, phase, clock, msg, nil)
}

func (r *Runner) endPhase(ctx context.Context, id, phase string, clock *phaseClock, status PhaseStatus, msg string, output map[string]json.RawMessage) error {
	elapsed := clock.elapsed()
	op, err := r.persist(ctx, id, phase, string(status), func(op *Operation) error {
		p := op.Phase(phase)
		now := time.Now().UTC()
		p.Status, p.FinishedAt, p.Applying, p.Error, p.Elapsed = status, &now, false, nil, elapsed
		p.Message = msg
		p.mergeOutput(output)
		return nil
	})
	if err != nil {
		return err
	}
	r.observer.PhaseFinished(op.Kind, phase, status, elapsed)
	return nil
}

// failPhase fails the phase with cause. output, when not nil, is kept as
// the phase's output: what a Broken observation saw, such as how far a
// download got, stays on record beside the error.
func (r *Runner) failPhase(ctx context.Context, id, phase string, clock *phaseClock, cause error, output map[string]json.RawMessage) error {
	elapsed := clock.elapsed()
	op, err := r.persist(ctx, id, phase, string(PhaseFailed), func(op *Operation) error {
		p := op.Phase(phase)
		now := time.Now().UTC()
		p.Status, p.FinishedAt, p.Applying, p.Elapsed = PhaseFailed, &now, false, elapsed
		p.Error = errorFrom(cause)
		p.Message = p.Error.Message
		p.mergeOutput(output)
		return nil
	})
	if err != nil {
		return err
	}
	r.observer.PhaseFinished(op.Kind, phase, PhaseFailed, elapsed)
	r.log.Warn("phase failed", "operation", id, "phase", phase, "err", cause)
	return nil
}
