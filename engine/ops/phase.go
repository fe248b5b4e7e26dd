package ops

import (
	"context"
	"maps"
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
func (r *Runner) runPhase(ctx context.Context, id string, st *Step) {
	timeout := st.Timeout
	if timeout == 0 {
		timeout = r.opts.PhaseTimeout
	}
	op, err := r.update(id, func(op *Operation) error {
		p := op.Phase(st.Name)
		if p.Status == PhasePending {
			now := time.Now().UTC()
			p.Status, p.StartedAt, p.FinishedAt, p.Error, p.Elapsed = PhaseRunning, &now, nil, nil, 0
			p.Message = "checking the current state"
		}
		return nil
	})
	if err != nil {
		r.log.Error("start phase", "operation", id, "phase", st.Name, "err", err)
		return
	}
	ph := op.Phase(st.Name)
	clock := &phaseClock{spent: ph.Elapsed}
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
			if clock.elapsed() > timeout {
				e := errs.New(errs.Timeout, "phase %s did not reach its goal within %s; retry the operation to keep waiting", st.Name, timeout.Round(time.Second))
				e.Retryable = true
				r.failPhase(id, st.Name, clock, e)
				return
			}
			if !sleep(ctx, r.opts.Backoff.wait(poll-1)) {
				return
			}
		}
		obs, err := st.Observe(ctx, run)
		clock.start()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if errs.IsRetryable(err) {
				r.note(id, st.Name, clock, "reading state: "+errs.FromUpstream(err, "observe").Message+" (retrying)")
				continue
			}
			r.failPhase(id, st.Name, clock, errs.FromUpstream(err, st.Title))
			return
		}
		switch obs.State {
		case Done:
			r.endPhase(id, st.Name, clock, PhaseSucceeded, obs)
			return
		case NotNeeded:
			r.endPhase(id, st.Name, clock, PhaseSkipped, obs)
			return
		case Broken:
			cause := obs.Err
			if cause == nil {
				cause = errs.New(errs.Upstream, "%s", obs.Message)
			}
			r.failPhase(id, st.Name, clock, cause)
			return
		case Pending:
			r.wait(id, st.Name, clock, obs)
			continue
		}
		// Absent: the goal does not hold and nothing is under way.
		if st.Apply == nil || appliedHere {
			r.wait(id, st.Name, clock, obs)
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
			p.Status, p.Attempt, p.Applying, p.Elapsed = PhaseRunning, run.Attempt, true, clock.elapsed()
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
			if errs.IsRetryable(err) && clock.elapsed() < timeout {
				r.applied(id, st.Name, clock, nil, "applying: "+errs.FromUpstream(err, "apply").Message+" (will retry)")
				continue
			}
			r.failPhase(id, st.Name, clock, errs.FromUpstream(err, st.Title))
			return
		}
		appliedHere, run.Applied = true, true
		r.applied(id, st.Name, clock, outputs, "waiting for the change to take effect")
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
func (r *Runner) applied(id, phase string, clock *phaseClock, outputs map[string]string, msg string) {
	_, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		p.Status, p.Applying, p.Message, p.Elapsed = PhaseWaiting, false, msg, clock.elapsed()
		p.Outputs = merge(p.Outputs, outputs)
		return nil
	})
	if err != nil {
		r.log.Error("persist WAITING", "operation", id, "phase", phase, "err", err)
	}
}

// wait stores that the phase is waiting, with the latest observed message.
func (r *Runner) wait(id, phase string, clock *phaseClock, obs Observation) {
	_, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		if p.Status == PhaseRunning && !p.Applying {
			p.Status = PhaseWaiting
		}
		p.Elapsed = clock.elapsed()
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

func (r *Runner) note(id, phase string, clock *phaseClock, msg string) {
	r.wait(id, phase, clock, Observation{Message: msg})
}

func (r *Runner) endPhase(id, phase string, clock *phaseClock, status PhaseStatus, obs Observation) {
	elapsed := clock.elapsed()
	op, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		now := time.Now().UTC()
		p.Status, p.FinishedAt, p.Applying, p.Error, p.Elapsed = status, &now, false, nil, elapsed
		p.Message = obs.Message
		p.Outputs = merge(p.Outputs, obs.Outputs)
		return nil
	})
	if err != nil {
		r.log.Error("persist phase end", "operation", id, "phase", phase, "err", err)
		return
	}
	r.observer.PhaseFinished(op.Kind, phase, status, elapsed)
}

func (r *Runner) failPhase(id, phase string, clock *phaseClock, cause error) {
	elapsed := clock.elapsed()
	op, err := r.update(id, func(op *Operation) error {
		p := op.Phase(phase)
		now := time.Now().UTC()
		p.Status, p.FinishedAt, p.Applying, p.Elapsed = PhaseFailed, &now, false, elapsed
		p.Error = errorFrom(cause)
		p.Message = p.Error.Message
		return nil
	})
	if err != nil {
		r.log.Error("persist phase failure", "operation", id, "phase", phase, "err", err)
		return
	}
	r.observer.PhaseFinished(op.Kind, phase, PhaseFailed, elapsed)
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
