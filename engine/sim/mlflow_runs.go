package sim

import (
	"fmt"
	"time"
)

// MLflow runs: what training pods log to the simulated SageMaker managed
// MLflow tracking servers. A pod whose environment names a tracking server
// (MLFLOW_TRACKING_URI, the server's ARN, as the sagemaker-mlflow plugin
// takes it) logs its metrics there as it trains; the simulated MLflow REST
// API reads them back. Runs are kept by tracking server ARN, so a server
// deleted and made again under the same name starts empty (its ARN is the
// same, but DeleteMlflowTrackingServer forgets its runs).

// mlflowMaxPoints bounds the points kept of one metric of one run, as a
// guard on the saved world: a longer run keeps its newest points.
const mlflowMaxPoints = 20000

// mlflowServerRuns are the experiments of one tracking server, by name.
type mlflowServerRuns struct {
	Experiments map[string]*mlflowExperimentRec
	// Seq numbers the server's experiments and runs.
	Seq int
}

// mlflowExperimentRec is one experiment and its runs, oldest first.
type mlflowExperimentRec struct {
	ID, Name string
	Created  time.Time
	Runs     []*mlflowRunRec
}

// mlflowRunRec is one run. Status is MLflow's: RUNNING, FINISHED, FAILED
// or KILLED.
type mlflowRunRec struct {
	ID, Name string
	Status   string
	Start    time.Time
	End      time.Time `json:",omitempty"`
	// Metrics holds each metric's points in the order they were logged.
	Metrics map[string][]mlflowPoint `json:",omitempty"`
}

// mlflowPoint is one logged value of a metric.
type mlflowPoint struct {
	Step  int64
	Value float64
	At    time.Time
}

// mlflowRunsOf returns the runs of tracking server arn, made on first use.
func (rs *regionState) mlflowRunsOf(arn string) *mlflowServerRuns {
	if rs.MLflowRuns == nil {
		rs.MLflowRuns = map[string]*mlflowServerRuns{}
	}
	r := rs.MLflowRuns[arn]
	if r == nil {
		r = &mlflowServerRuns{Experiments: map[string]*mlflowExperimentRec{}}
		rs.MLflowRuns[arn] = r
	}
	return r
}

// run returns the newest run named name in experiment, starting the
// experiment or the run (RUNNING, at at) when there is none or the newest
// has ended and fresh is set.
func (r *mlflowServerRuns) run(experiment, name string, at time.Time, fresh bool) *mlflowRunRec {
	e := r.Experiments[experiment]
	if e == nil {
		r.Seq++
		e = &mlflowExperimentRec{ID: fmt.Sprint(r.Seq), Name: experiment, Created: at}
		r.Experiments[experiment] = e
	}
	for i := len(e.Runs) - 1; i >= 0; i-- {
		if run := e.Runs[i]; run.Name == name && (!fresh || run.Status == "RUNNING") {
			return run
		}
	}
	r.Seq++
	run := &mlflowRunRec{ID: fmt.Sprintf("%032x", r.Seq), Name: name, Status: "RUNNING", Start: at, Metrics: map[string][]mlflowPoint{}}
	e.Runs = append(e.Runs, run)
	return run
}

// log appends a value of metric key at step.
func (run *mlflowRunRec) log(key string, step int64, value float64, at time.Time) {
	pts := append(run.Metrics[key], mlflowPoint{Step: step, Value: value, At: at})
	if len(pts) > mlflowMaxPoints {
		pts = pts[len(pts)-mlflowMaxPoints:]
	}
	run.Metrics[key] = pts
}

// end ends the run with status (FINISHED, FAILED, KILLED) at at.
func (run *mlflowRunRec) end(status string, at time.Time) {
	if run.Status != "RUNNING" {
		return
	}
	run.Status, run.End = status, at
}
