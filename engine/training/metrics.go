package training

import (
	"context"
	"regexp"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// DefaultMetrics are the metrics a job's charts show.
var DefaultMetrics = []string{"loss", "learning_rate", "tokens_per_sec"}

// Bounds of a metrics request.
const (
	maxMetricNames = 10
	// MaxMetricPoints is the most points read of one metric: the newest.
	MaxMetricPoints = 5000
)

var metricNamePattern = regexp.MustCompile(`^[A-Za-z0-9_./ -]{1,250}$`)

// Metrics is a job's MLflow run and the history of the metrics asked.
type Metrics struct {
	Target MLflowTarget
	// Run is nil until the job has started its run.
	Run    *cloud.MLflowRun
	Series []Series
}

// Series is one metric's history.
type Series struct {
	Name   string
	Points []cloud.MLflowMetric
}

// Metrics reads names (DefaultMetrics when empty) of job id's MLflow run.
func (s *Service) Metrics(ctx context.Context, id string, names []string) (*Metrics, error) {
	if len(names) == 0 {
		names = DefaultMetrics
	}
	if len(names) > maxMetricNames {
		return nil, errs.Field("names", "%d metrics is too many; ask for at most %d", len(names), maxMetricNames)
	}
	for _, n := range names {
		if !metricNamePattern.MatchString(n) {
			return nil, errs.Field("names", "%q is not an MLflow metric key (1-250 letters, digits, '_', '-', '.', '/', ' ')", errs.Clip(n))
		}
	}
	j, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if j.MLflow == nil {
		return nil, errs.New(errs.Precondition, "job %s reports to no MLflow tracking server: the cluster's MLFLOW feature was off when it was submitted; turn it on and submit the job again to get its metrics", j.Name).WithField("jobId")
	}
	_, p, err := s.clusters.Reach(j.ClusterID, true)
	if err != nil {
		return nil, err
	}
	if p.MLflow == nil {
		return nil, errs.New(errs.Precondition, "this control plane cannot read MLflow tracking servers")
	}
	out := &Metrics{Target: *j.MLflow, Series: make([]Series, 0, len(names))}
	run, err := p.MLflow.FindRun(ctx, j.MLflow.TrackingServerArn, j.MLflow.Experiment, j.MLflow.RunName)
	if err != nil {
		return nil, errs.FromUpstream(err, "find the MLflow run of job "+j.Name)
	}
	out.Run = run
	for _, n := range names {
		series := Series{Name: n, Points: []cloud.MLflowMetric{}}
		if run != nil {
			pts, err := p.MLflow.MetricHistory(ctx, j.MLflow.TrackingServerArn, run.ID, n, MaxMetricPoints)
			if err != nil {
				return nil, errs.FromUpstream(err, "read metric "+n+" of job "+j.Name)
			}
			series.Points = pts
		}
		out.Series = append(out.Series, series)
	}
	return out, nil
}
