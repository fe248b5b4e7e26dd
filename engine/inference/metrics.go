package inference

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// An endpoint's charts are read from the OBSERVABILITY feature's Amazon
// Managed Service for Prometheus workspace, where the observability
// add-on writes what the model servers export (vLLM's vllm:* and SGLang's
// sglang:* metrics) and kube-state-metrics' Deployment status. A managed
// endpoint is read by vLLM's names.

// Metric is one chart of an endpoint.
type Metric string

// The charts.
const (
	RequestsPerSecond Metric = "REQUESTS_PER_SECOND"
	LatencyP50        Metric = "LATENCY_P50_SECONDS"
	LatencyP99        Metric = "LATENCY_P99_SECONDS"
	TokensPerSecond   Metric = "TOKENS_PER_SECOND"
	ReplicasAvailable Metric = "REPLICAS"
)

// Bounds of a metrics read.
const (
	MinMetricsRange     = 5 * time.Minute
	MaxMetricsRange     = 24 * time.Hour
	DefaultMetricsRange = 30 * time.Minute
	MinMetricsStep      = 5 * time.Second
	MaxMetricsStep      = time.Hour
	// MaxMetricsPoints bounds the points of one series.
	MaxMetricsPoints = 720
	// metricsPoints is how many points a default step gives.
	metricsPoints = 120
)

// MetricsRequest says what span of an endpoint's metrics to read.
type MetricsRequest struct {
	// Range is how far back from now (default 30 minutes).
	Range time.Duration
	// Step is the time between points (default Range/120, at least 5 s).
	Step time.Duration
}

// MetricPoint is one value of a series.
type MetricPoint struct {
	Time  time.Time
	Value float64
}

// MetricSeries is one chart: the PromQL sent and what it answered.
type MetricSeries struct {
	Metric Metric
	Query  string
	Points []MetricPoint
}

// Metrics is an endpoint's charts over a span.
type Metrics struct {
	WorkspaceID string
	Start, End  time.Time
	Step        time.Duration
	Series      []MetricSeries
}

// metricQueries are the PromQL of each chart, for the endpoint's server.
func metricQueries(e *Endpoint) []MetricSeries {
	prefix, requests := "vllm", "vllm:request_success_total"
	if e.Engine == SGLang {
		prefix, requests = "sglang", "sglang:num_requests_total"
	}
	sel := fmt.Sprintf(`{namespace=%q,deployment=%q}`, e.Namespace, e.Workload)
	quantile := func(q string) string {
		return fmt.Sprintf(`histogram_quantile(%s, sum by (le) (rate(%s:e2e_request_latency_seconds_bucket%s[5m])))`, q, prefix, sel)
	}
	return []MetricSeries{
		{Metric: RequestsPerSecond, Query: fmt.Sprintf(`sum(rate(%s%s[1m]))`, requests, sel)},
		{Metric: LatencyP50, Query: quantile("0.5")},
		{Metric: LatencyP99, Query: quantile("0.99")},
		{Metric: TokensPerSecond, Query: fmt.Sprintf(`sum(rate(%s:generation_tokens_total%s[1m]))`, prefix, sel)},
		{Metric: ReplicasAvailable, Query: fmt.Sprintf(`sum(kube_deployment_status_replicas_available%s)`, sel)},
	}
}

var workspaceOfEndpoint = regexp.MustCompile(`/workspaces/(ws-[a-zA-Z0-9-]+)/?$`)

// Metrics reads endpoint id's charts from its cluster's observability
// workspace: requests a second, p50 and p99 latency, tokens a second and
// ready replicas, over req's span up to now.
func (s *Service) Metrics(ctx context.Context, id string, req MetricsRequest) (*Metrics, error) {
	if req.Range == 0 {
		req.Range = DefaultMetricsRange
	}
	if req.Range < MinMetricsRange || req.Range > MaxMetricsRange {
		return nil, errs.Field("rangeMinutes", "the range must be %d to %d minutes, got %g", int(MinMetricsRange.Minutes()), int(MaxMetricsRange.Minutes()), req.Range.Minutes())
	}
	if req.Step == 0 {
		req.Step = max(MinMetricsStep, (req.Range / metricsPoints).Round(time.Second))
	}
	if req.Step < MinMetricsStep || req.Step > MaxMetricsStep {
		return nil, errs.Field("stepSeconds", "the step must be %d to %d seconds, got %g", int(MinMetricsStep.Seconds()), int(MaxMetricsStep.Seconds()), req.Step.Seconds())
	}
	if n := int(req.Range / req.Step); n > MaxMetricsPoints {
		return nil, errs.Field("stepSeconds", "a range of %g minutes at a step of %g seconds is %d points a chart, more than %d; take a longer step", req.Range.Minutes(), req.Step.Seconds(), n, MaxMetricsPoints)
	}
	e, err := s.Get(id)
	if err != nil {
		return nil, errs.As(err).WithField("endpointId")
	}
	noFeature := func() error {
		return errs.New(errs.Precondition, "the cluster's metrics are not collected: the OBSERVABILITY feature writes the model servers' metrics to an Amazon Managed Service for Prometheus workspace, which these charts read; turn OBSERVABILITY on (updateClusterFeatures with input.observability)").WithField("endpointId")
	}
	if on, err := s.features.On(ctx, e.ClusterID, hyperpod.Observability); err != nil {
		return nil, err
	} else if !on {
		return nil, noFeature()
	}
	prom, err := s.features.PrometheusEndpoint(e.ClusterID)
	if err != nil {
		return nil, err
	}
	m := workspaceOfEndpoint.FindStringSubmatch(prom)
	if m == nil {
		return nil, noFeature()
	}
	_, p, err := s.clusters.Reach(e.ClusterID, true)
	if err != nil {
		return nil, err
	}
	if p.Prometheus == nil {
		return nil, errs.New(errs.Unavailable, "this provider reads no Prometheus workspace")
	}
	end := s.opts.Now().UTC()
	out := &Metrics{WorkspaceID: m[1], Start: end.Add(-req.Range), End: end, Step: req.Step}
	for _, ms := range metricQueries(e) {
		series, err := p.Prometheus.QueryRange(ctx, out.WorkspaceID, cloud.PromRangeQuery{Query: ms.Query, Start: out.Start, End: out.End, Step: req.Step})
		if err != nil {
			var pe *cloud.PromError
			if errors.As(err, &pe) {
				return nil, errs.Wrap(errs.Upstream, err, "the workspace %s refused the query of %s: %s", out.WorkspaceID, ms.Metric, pe.Message)
			}
			return nil, errs.Wrap(errs.Upstream, err, "query the workspace %s for %s: %v", out.WorkspaceID, ms.Metric, err)
		}
		ms.Points = []MetricPoint{}
		if len(series) > 0 {
			for _, pt := range series[0].Points {
				ms.Points = append(ms.Points, MetricPoint{Time: pt.Time, Value: pt.Value})
			}
		}
		out.Series = append(out.Series, ms)
	}
	return out, nil
}
