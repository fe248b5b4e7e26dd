package sim

import "time"

// The MLflow reporting of a training job: rank 0 logs loss, learning_rate
// and tokens_per_sec at each logged step to the run its environment names
// (see kubeTrainPlan's Tracking, Experiment and Run), and the run ends with
// the job.

// endMLflowRun ends the job's MLflow run.
func (sc *kubeScheduler) endMLflowRun(rec *kubeTrainRec, status string, at time.Time) {
	sc.sendTrainingMetrics(rec)
	if run := sc.mlflowRun(rec, at); run != nil {
		run.end(status, at)
	}
}

// mlflowRun is the job's MLflow run, nil when it reports to none.
func (sc *kubeScheduler) mlflowRun(rec *kubeTrainRec, at time.Time) *mlflowRunRec {
	p := rec.Plan
	if p.Tracking == "" || p.Run == "" || len(rec.Attempts) == 0 {
		return nil
	}
	exp := p.Experiment
	if exp == "" {
		exp = "Default"
	}
	return sc.s.t.rs.mlflowRunsOf(p.Tracking).run(exp, p.Run, rec.Attempts[0].Start, false)
}

// sendTrainingMetrics has rank 0 log the metrics of the steps logged by
// the settle's moment that MLflow does not have yet.
func (sc *kubeScheduler) sendTrainingMetrics(rec *kubeTrainRec) {
	w, now := sc.s.t.w, sc.s.t.now
	var run *mlflowRunRec
	for i := range rec.Attempts {
		a := &rec.Attempts[i]
		until := now
		if !a.EndAt.IsZero() && a.EndAt.Before(until) {
			until = a.EndAt
		}
		if a.stopsLogs() && a.FaultAt.Before(until) {
			until = a.FaultAt
		}
		last := rec.reached(w, a, until)
		for k := max(rec.Sent, a.From) + 1; k <= last; k++ {
			if k%trainLogEvery != 0 && k != rec.Plan.MaxSteps {
				continue
			}
			if run == nil {
				if run = sc.mlflowRun(rec, now); run == nil {
					return
				}
			}
			at := rec.stepAt(w, a, k)
			m := rec.metricsAt(k)
			if a.slowed(at) {
				m.tokens = round(m.tokens*slowFactor, 1)
			}
			run.log("loss", k, m.loss, at)
			run.log("learning_rate", k, m.lr, at)
			run.log("tokens_per_sec", k, m.tokens, at)
			rec.Sent = k
		}
	}
}
