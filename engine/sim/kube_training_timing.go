package sim

import "time"

// The timing of a training attempt, as pure functions of the job's plan,
// the attempt (its start, the checkpoint it resumed from, what struck it
// and when) and the world's speed: when each step is done, which step an
// attempt has reached, when it last logged, where the next attempt
// resumes, when a fault is noticed and when the operator must wake. The
// reconciler (kube_training.go), the ranks' logs
// (kube_training_program.go) and the MLflow reports
// (kube_training_mlflow.go) all read the attempt's progress from here, so
// that they agree on it.

// Timings of a training attempt, in real time.
const (
	// trainStartup is from the processes' start to the first step:
	// rendezvous, NCCL, the model loaded.
	trainStartup = 45 * time.Second
	// trainNCCLReady is when, in the start-up, NCCL's communicators are up.
	trainNCCLReady = 8 * time.Second
	trainStepTime  = 2 * time.Second
	// trainLogEvery is how many steps a step line stands for.
	trainLogEvery = 10
	// trainFinish is from the last step to the processes' exit.
	trainFinish = 5 * time.Second
	// trainRestartDelay is from a restart to the next attempt's start.
	trainRestartDelay = 10 * time.Second
	// trainCrashNoticed is how long the elastic agent takes to report a
	// crashed worker.
	trainCrashNoticed = 5 * time.Second
	// trainNCCLTimeout is the NCCL watchdog's timeout.
	trainNCCLTimeout = 600 * time.Second
)

// stepAt is when attempt a finishes step k (From < k <= MaxSteps).
func (rec *kubeTrainRec) stepAt(w *World, a *kubeTrainAttempt, k int64) time.Time {
	return a.Start.Add(w.scale(a.startup()) + time.Duration(k-a.From)*w.scale(trainStepTime))
}

// doneAt is when attempt a ends if nothing strikes it.
func (rec *kubeTrainRec) doneAt(w *World, a *kubeTrainAttempt) time.Time {
	return rec.stepAt(w, a, rec.Plan.MaxSteps).Add(w.scale(trainFinish))
}

// reached is the last step attempt a finished by at.
func (rec *kubeTrainRec) reached(w *World, a *kubeTrainAttempt, at time.Time) int64 {
	first := a.Start.Add(w.scale(a.startup()))
	if at.Before(first) {
		return a.From
	}
	k := a.From + int64(at.Sub(first)/w.scale(trainStepTime))
	return min(k, rec.Plan.MaxSteps)
}

// lastLoggedAt is when attempt a last logged a step line by at, and
// whether it had.
func (rec *kubeTrainRec) lastLoggedAt(w *World, a *kubeTrainAttempt, at time.Time) (time.Time, bool) {
	k := rec.reached(w, a, at)
	if k != rec.Plan.MaxSteps {
		k -= k % trainLogEvery
	}
	if k <= a.From {
		return time.Time{}, false
	}
	return rec.stepAt(w, a, k), true
}

// resumeStep is the checkpoint the attempt after a starts from: the last
// one written by its fault.
func (rec *kubeTrainRec) resumeStep(w *World, a *kubeTrainAttempt) int64 {
	at := a.FaultAt
	if at.IsZero() || a.Fault == FaultSlow {
		at = a.EndAt
	}
	k := rec.reached(w, a, at)
	if save := rec.Plan.SaveSteps; save > 0 {
		k -= k % save
	} else {
		k = 0
	}
	return max(a.From, k)
}

// attemptEnd is when attempt a ends: its fault noticed, or its last step
// done; ok is false for a hang that no rule detects.
func (rec *kubeTrainRec) attemptEnd(w *World, a *kubeTrainAttempt) (time.Time, bool) {
	switch a.Fault {
	case "":
		return rec.doneAt(w, a), true
	case "crash":
		return a.FaultAt.Add(w.scale(trainCrashNoticed)), true
	case "nccl":
		return a.FaultAt.Add(w.scale(trainNCCLTimeout)), true
	case FaultSlow:
		if at, ok := rec.slowDetectedAt(w, a); ok {
			return at, true
		}
		return rec.doneAt(w, a), true
	case "hang":
		if rec.Plan.HangAfter == 0 {
			return time.Time{}, false
		}
		if last, ok := rec.lastLoggedAt(w, a, a.FaultAt); ok {
			return last.Add(w.scale(rec.Plan.HangAfter)), true
		}
		return a.Start.Add(w.scale(rec.Plan.FirstStepCutoff)), true
	}
	return a.FaultAt, true // node
}

// slowFactor is the share of its healthy throughput a slow job reports.
const slowFactor = 0.01

// slowDetectedAt is when the throughput rule fires on slow attempt a: at
// its SlowPoints-th step line after the fault, if the job's rule would see
// the fallen figure and the job has that many steps left.
func (rec *kubeTrainRec) slowDetectedAt(w *World, a *kubeTrainAttempt) (time.Time, bool) {
	p := rec.Plan
	if p.SlowPoints <= 0 || p.TokensPerSec*slowFactor*1.02 >= p.SlowThreshold {
		return time.Time{}, false
	}
	k := rec.reached(w, a, a.FaultAt)
	k += trainLogEvery - k%trainLogEvery + int64(p.SlowPoints-1)*trainLogEvery
	if k >= p.MaxSteps {
		return time.Time{}, false
	}
	return rec.stepAt(w, a, k), true
}

// slowed tells whether attempt a's step line at at reports the fallen
// throughput.
func (a *kubeTrainAttempt) slowed(at time.Time) bool {
	return a.Fault == FaultSlow && !at.Before(a.FaultAt)
}

// stopsLogs tells whether what struck attempt a stops its log at the
// fault: all but slowness, which logs on.
func (a *kubeTrainAttempt) stopsLogs() bool {
	return a.Fault != "" && a.Fault != FaultSlow
}

// nextWake is the next moment after now the job needs the operator.
func (rec *kubeTrainRec) nextWake(w *World, now time.Time) time.Time {
	if rec.terminal() {
		return time.Time{}
	}
	if cur := rec.current(); cur != nil {
		if at, ok := rec.attemptEnd(w, cur); ok && at.After(now) {
			return at
		}
		return time.Time{}
	}
	if rec.NextAt.After(now) {
		return rec.NextAt
	}
	return time.Time{}
}
