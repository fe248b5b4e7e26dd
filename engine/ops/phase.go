package ops

import (
	"context"
	"maps"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// runPhase takes one phase from its stored state to SUCCEEDED, SKIPPED or
// FAILED, or stops at a stored point when ctx ends (cancel or shutdown).
func (r *Runner) runPhase(ctx context.Context, id string, st *Step) {
	timeout := st.Timeout
	if timeout == 0 {
		timeout = r.opts.PhaseTimeout
	}
	deadline := time.Now().Add(timeout)
	op, err := r.update(id, func(op *Operation) error {
		p := op.Phase(st.Name)
		if p.Status == PhasePending {
			now := time.Now().UTC()
			p.Status, p.StartedAt, p.FinishedAt, p.Error = PhaseRunning, &now, nil, nil
			p.Message = "checking the current state"
		}
		return nil
	})
	if err != nil {
		r.log.Error("start phase", "operation", id, "phase", st.Name, "err", err)
		return
	}
	started := time.Now()
	ph := op.Phase(st.Name)
	run := &Run{Op: op, Phase: st.Name, Attempt: ph.Attempt}
	// applying: a previous process stopped inside Apply; re-Apply with the same
	// attempt (and token) if Observe finds nothing. appliedHere: Apply already
	// returned, so a goal not yet visible is AWS catching up, not a reason to
	// Apply again.
	applying := ph.Applying
	appliedHere := ph.Status == PhaseWaiting
	run.Applied = appliedHere

	for poll := 0; ; poll++ {
		if poll > 0 {
			if time.Now().After(deadline) {
				e := errs.New(errs.Timeout, "phase %s did not reach its goal within %s; retry the operation to keep waiting", st.Name, timeout.Round(time.Second))
				e.Retryable = true
				r.failPhase(id, st.Name, started, e)
				return
			}
			if !sleep(ctx, r.opts.Backoff.wait(poll-1)) {
				return
			}
		}
		obs, err := st.Observe(ctx, run)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if errs.IsRetryable(err) {
				r.note(id, st.Name, "reading state: "+errs.FromUpstream(err, "observe").Message+" (retrying)")
				continue
			}
			r.failPhase(id, st.Name, started, errs.FromUpstream(err, st.Title))
			return
		}
		switch obs.State {
		case Done:
			r.endPhase(id, st.Name, started, PhaseSucceeded, obs)
			return
		case NotNeeded:
			r.endPhase(id, st.Name, started, PhaseSkipped, obs)
			return
		case Broken:
			cause := obs.Err
			if cause == nil {
				cause = errs.New(errs.Upstream, "%s", obs.Message)
			}
			r.failPhase(id, st.Name, started, cause)
			return
		case Pending:
			r.wait(id, st.Name, obs)
			continue
		}
		// Absent: the goal does not hold and nothing is under way.
		if st.Apply == nil || appliedHere {
			r.wait(id, st.Name, obs)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if !applying {
			run.Attempt++
		}
		if op, err = r.update(id, func(op *Operation) error {
			p := op.Phase(st.Name)
			p.Status, p.Attempt, p.Applying = PhaseRunning, run.Attempt, true
			p.Message = "applying the change"
			return nil
		}); err != nil {
			r.log.Error("persist RUNNING", "operation", id, "phase", st.Name, "err", err)
			return
		}
		run.Op = op
		// Apply runs to completion even when ctx ends, so its outcome is stored.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.ApplyTimeout)
		outputs, err := st.Apply(actx, run)
		cancel()
		applying = false
		if err != nil {
			if errs.IsRetryable(err) && time.Now().Before(deadline) {
				r.applied(id, st.Name, nil, "applying: "+errs.FromUpstream(err, "apply").Message+" (will retry)")
				continue
			}
			r.failPhase(id, st.Name, started, errs.FromUpstream(err, st.Title))
			return
		}
		appliedHere, run.Applied = true, true
		r.applied(id, st.Name, outputs, "waiting for the change to take effect")
	}
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

// applied stores the result of Apply: WAITING with its outputs.
func (r *Runner) applied(id, phase string, outputs map[string]string, msg string) {
	_, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		p.Status, p.Applying, p.Message = PhaseWaiting, false, msg
		p.Outputs = merge(p.Outputs, outputs)
		return nil
	})
	if err != nil {
		r.log.Error("persist WAITING", "operation", id, "phase", phase, "err", err)
	}
}

// wait stores that the phase is waiting, with the latest observed message.
func (r *Runner) wait(id, phase string, obs Observation) {
	_, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		if p.Status == PhaseRunning && !p.Applying {
			p.Status = PhaseWaiting
		}
		if obs.Message != "" {
			p.Message = obs.Message
		}
		p.Outputs = merge(p.Outputs, obs.Outputs)
		return nil
	})
	if err != nil {
		r.log.Error("persist phase progress", "operation", id, "phase", phase, "err", err)
	}
}

func (r *Runner) note(id, phase, msg string) {
	r.wait(id, phase, Observation{Message: msg})
}

func (r *Runner) endPhase(id, phase string, started time.Time, status PhaseStatus, obs Observation) {
	op, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		now := time.Now().UTC()
		p.Status, p.FinishedAt, p.Applying, p.Error = status, &now, false, nil
		p.Message = obs.Message
		p.Outputs = merge(p.Outputs, obs.Outputs)
		return nil
	})
	if err != nil {
		r.log.Error("persist phase end", "operation", id, "phase", phase, "err", err)
		return
	}
	r.observer.PhaseFinished(op.Kind, phase, status, time.Since(started))
}

func (r *Runner) failPhase(id, phase string, started time.Time, cause error) {
	op, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		now := time.Now().UTC()
		p.Status, p.FinishedAt, p.Applying = PhaseFailed, &now, false
		p.Error = errorFrom(cause)
		p.Message = p.Error.Message
		return nil
	})
	if err != nil {
		r.log.Error("persist phase failure", "operation", id, "phase", phase, "err", err)
		return
	}
	r.observer.PhaseFinished(op.Kind, phase, PhaseFailed, time.Since(started))
	r.log.Warn("phase failed", "operation", id, "phase", phase, "err", cause)
}

func merge(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	maps.Copy(dst, src)
	return dst
}
