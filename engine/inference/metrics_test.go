package inference_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/inference"
)

// TestEndpointMetricsFromTheWorkspace reads a vLLM endpoint's charts from
// the OBSERVABILITY workspace the simulator answers from its model
// servers: refused while the feature is off, then, after requests, each
// chart's PromQL as sent and values that follow the requests served.
func TestEndpointMetricsFromTheWorkspace(t *testing.T) {
	f := newFixture(t)
	e := f.ready(t, f.deploy(t, f.vllm("chat", inference.ClusterIP)).ID)
	ctx := context.Background()
	_, err := f.svc.Metrics(ctx, e.ID, inference.MetricsRequest{})
	wantCode(t, err, errs.Precondition, "endpointId", "OBSERVABILITY")
	f.enable(t, features.Toggle{Name: hyperpod.Observability, Enable: true, Settings: &features.Settings{WorkspaceArn: "arn:aws:aps:us-west-2:123456789012:workspace/ws-1111"}})

	// The clock is held: the requests and the read share one moment.
	f.clock.Pause()
	defer f.clock.Resume()
	const requests = 6
	var tokens int
	for range requests {
		a, err := f.svc.Invoke(ctx, e.ID, hello("What is HyperPod?"), "")
		if err != nil {
			t.Fatal(err)
		}
		tokens += a.CompletionTokens
	}
	m, err := f.svc.Metrics(ctx, e.ID, inference.MetricsRequest{Range: 10 * time.Minute, Step: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sel := `{namespace="default",deployment="vllm-chat"}`
	want := map[inference.Metric]string{
		inference.RequestsPerSecond: `sum(rate(vllm:request_success_total` + sel + `[1m]))`,
		inference.LatencyP50:        `histogram_quantile(0.5, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket` + sel + `[5m])))`,
		inference.LatencyP99:        `histogram_quantile(0.99, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket` + sel + `[5m])))`,
		inference.TokensPerSecond:   `sum(rate(vllm:generation_tokens_total` + sel + `[1m]))`,
		inference.ReplicasAvailable: `sum(kube_deployment_status_replicas_available` + sel + `)`,
	}
	if m.WorkspaceID != "ws-1111" || len(m.Series) != len(want) || m.Step != 10*time.Second {
		t.Fatalf("metrics %+v", m)
	}
	last := func(s inference.MetricSeries) float64 {
		if len(s.Points) == 0 {
			t.Fatalf("%s has no point", s.Metric)
		}
		return s.Points[len(s.Points)-1].Value
	}
	for _, s := range m.Series {
		if s.Query != want[s.Metric] {
			t.Errorf("%s query = %s, want %s", s.Metric, s.Query, want[s.Metric])
		}
	}
	if got := last(m.Series[0]); got != requests/60.0 {
		t.Errorf("requests a second = %g, want %g", got, requests/60.0)
	}
	if got := last(m.Series[3]); got != float64(tokens)/60 {
		t.Errorf("tokens a second = %g, want %g", got, float64(tokens)/60)
	}
	if p50, p99 := last(m.Series[1]), last(m.Series[2]); p50 <= 0 || p99 < p50 {
		t.Errorf("latency p50 %g p99 %g", p50, p99)
	}
	if got := last(m.Series[4]); got != 1 {
		t.Errorf("replicas = %g, want 1", got)
	}

	// A query the engine does not send is refused as Prometheus does.
	_, err = f.p.Prometheus.QueryRange(ctx, "ws-1111", cloud.PromRangeQuery{Query: "up", Start: m.Start, End: m.End, Step: time.Minute})
	var pe *cloud.PromError
	if !errors.As(err, &pe) || pe.Status != 400 || pe.Type != "bad_data" {
		t.Fatalf("an unknown query: %v", err)
	}
	// Bounds are checked before the workspace is asked.
	for _, c := range []struct {
		req   inference.MetricsRequest
		field string
	}{
		{inference.MetricsRequest{Range: time.Minute}, "rangeMinutes"},
		{inference.MetricsRequest{Range: 25 * time.Hour}, "rangeMinutes"},
		{inference.MetricsRequest{Step: time.Second}, "stepSeconds"},
		{inference.MetricsRequest{Range: 24 * time.Hour, Step: 5 * time.Second}, "stepSeconds"},
	} {
		_, err := f.svc.Metrics(ctx, e.ID, c.req)
		wantCode(t, err, errs.Validation, c.field)
	}
}
