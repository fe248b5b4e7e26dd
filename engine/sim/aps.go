package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/instantstart/instantstart/engine/cloud"
)

// Amazon Managed Service for Prometheus, as the endpoints' charts read it:
// the query_range API of a workspace answers from the model servers of the
// EKS clusters whose HyperPod observability add-on writes to that
// workspace (its configuration names the workspace's endpoint), over the
// requests those servers answered (kubeServingRec.Requests, kept as the
// proxy answers them). The simulator does not run PromQL: it answers the
// exact queries the engine sends, and refuses any other with Prometheus's
// bad_data error. With M the metric prefix (vllm or sglang) and L the
// labels {namespace="<ns>",deployment="<deployment>"}:
//
//   - sum(rate(vllm:request_success_total L[W])), and SGLang's
//     sum(rate(sglang:num_requests_total L[W])): requests a second;
//   - sum(rate(M:generation_tokens_total L[W])): tokens generated a second;
//   - histogram_quantile(Q, sum by (le) (rate(M:e2e_request_latency_seconds_bucket L[W]))):
//     the Q quantile of the latency of the requests of the window, in
//     seconds, absent where the window holds none (Prometheus's NaN);
//   - sum(kube_deployment_status_replicas_available L): the replicas that
//     were ready at the last request before each step, and the
//     Deployment's available replicas at the step of now.
//
// Windows W are in minutes of the clock, not divided by the speed as
// KEDA's triggers read them (kube_keda.go): the charts are for a person
// sending requests, whose rate is per second of their time.

const (
	svcAPS = "aps"
	// apsAddon is the add-on whose configuration names the workspace.
	apsAddon = "amazon-sagemaker-hyperpod-observability"
	// apsMaxPoints is Prometheus's bound on the points of one series.
	apsMaxPoints = 11000
)

type apsAPI struct {
	w      *World
	region string
}

var _ cloud.Prometheus = (*apsAPI)(nil)

// apsQuery is a query the simulator answers.
type apsQuery struct {
	kind       string // rate, tokens, quantile, replicas
	namespace  string
	deployment string
	window     time.Duration
	quantile   float64
}

var (
	apsLabels   = `\{namespace="([a-z0-9-]{1,63})",deployment="([a-z0-9.-]{1,253})"\}`
	apsRate     = regexp.MustCompile(`^sum\(rate\((vllm:request_success_total|sglang:num_requests_total|vllm:generation_tokens_total|sglang:generation_tokens_total)` + apsLabels + `\[([1-9][0-9]?)m\]\)\)$`)
	apsQuantile = regexp.MustCompile(`^histogram_quantile\((0\.[0-9]{1,4}), sum by \(le\) \(rate\((?:vllm|sglang):e2e_request_latency_seconds_bucket` + apsLabels + `\[([1-9][0-9]?)m\]\)\)\)$`)
	apsReplicas = regexp.MustCompile(`^sum\(kube_deployment_status_replicas_available` + apsLabels + `\)$`)
)

// parseAPSQuery reads one of the queries the simulator answers.
func parseAPSQuery(q string) (apsQuery, error) {
	minutes := func(s string) time.Duration { n, _ := strconv.Atoi(s); return time.Duration(n) * time.Minute }
	if m := apsRate.FindStringSubmatch(q); m != nil {
		kind := "rate"
		if strings.HasSuffix(m[1], "generation_tokens_total") {
			kind = "tokens"
		}
		return apsQuery{kind: kind, namespace: m[2], deployment: m[3], window: minutes(m[4])}, nil
	}
	if m := apsQuantile.FindStringSubmatch(q); m != nil {
		f, _ := strconv.ParseFloat(m[1], 64)
		return apsQuery{kind: "quantile", quantile: f, namespace: m[2], deployment: m[3], window: minutes(m[4])}, nil
	}
	if m := apsReplicas.FindStringSubmatch(q); m != nil {
		return apsQuery{kind: "replicas", namespace: m[1], deployment: m[2]}, nil
	}
	return apsQuery{}, &cloud.PromError{Status: http.StatusBadRequest, Type: "bad_data",
		Message: fmt.Sprintf("invalid parameter \"query\": the simulator answers only the queries of the endpoints' charts, not %q", clip(q, 200))}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// QueryRange answers a range query of workspace id.
func (a *apsAPI) QueryRange(ctx context.Context, id string, q cloud.PromRangeQuery) ([]cloud.PromSeries, error) {
	out, err := call(ctx, a.w, svcAPS, a.region, "QueryMetrics", func(t *txn) (*[]cloud.PromSeries, error) {
		bad := func(format string, args ...any) error {
			return &cloud.PromError{Status: http.StatusBadRequest, Type: "bad_data", Message: fmt.Sprintf(format, args...)}
		}
		if !strings.HasPrefix(id, "ws-") || len(id) > 70 {
			return nil, &cloud.PromError{Status: http.StatusNotFound, Type: "ResourceNotFoundException", Message: fmt.Sprintf("workspace %q not found", id)}
		}
		switch {
		case q.Step <= 0:
			return nil, bad("invalid parameter \"step\": zero or negative query resolution step widths are not accepted. Try a positive integer")
		case q.End.Before(q.Start):
			return nil, bad("invalid parameter \"end\": end timestamp must not be before start time")
		case q.End.Sub(q.Start)/q.Step >= apsMaxPoints:
			return nil, bad("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)")
		}
		pq, err := parseAPSQuery(q.Query)
		if err != nil {
			return nil, err
		}
		var series []cloud.PromSeries
		for _, name := range slices.Sorted(maps.Keys(t.rs.EKS)) {
			c := t.rs.EKS[name]
			ad := c.Addons[apsAddon]
			if ad == nil || !strings.Contains(ad.ConfigurationValues, "/workspaces/"+id+`"`) {
				continue
			}
			if s, ok := t.apsSeries(name, pq, q); ok {
				series = append(series, s)
			}
		}
		if len(series) > 1 {
			// sum() joins what several clusters write to one workspace.
			series = []cloud.PromSeries{apsSum(series)}
		}
		if series == nil {
			series = []cloud.PromSeries{}
		}
		return &series, nil
	})
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// apsSeries evaluates pq over q's steps on the model servers of EKS
// cluster name; ok is false when the cluster has no such Deployment.
func (t *txn) apsSeries(name string, pq apsQuery, q cloud.PromRangeQuery) (cloud.PromSeries, bool) {
	rec := t.st.kube().Clusters[kubeClusterKey(t.region, name)]
	if rec == nil {
		return cloud.PromSeries{}, false
	}
	raw := rec.Objects[kubeDeploymentsKey][kubeObjectKey(pq.namespace, pq.deployment)]
	if raw == nil {
		return cloud.PromSeries{}, false
	}
	var dep appsv1.Deployment
	if err := json.Unmarshal(raw, &dep); err != nil {
		return cloud.PromSeries{}, false
	}
	var reqs []kubeRequestRec
	if s := rec.Serving[kubeObjectKey(pq.namespace, pq.deployment)]; s != nil {
		reqs = s.Requests
	}
	out := cloud.PromSeries{Labels: map[string]string{}, Points: []cloud.PromPoint{}}
	window := pq.window
	for at := q.Start; !at.After(q.End); at = at.Add(q.Step) {
		var in []kubeRequestRec
		for _, r := range reqs {
			if !r.At.After(at) && at.Sub(r.At) < window {
				in = append(in, r)
			}
		}
		switch pq.kind {
		case "rate":
			out.Points = append(out.Points, cloud.PromPoint{Time: at, Value: float64(len(in)) / pq.window.Seconds()})
		case "tokens":
			n := 0
			for _, r := range in {
				n += r.Tokens
			}
			out.Points = append(out.Points, cloud.PromPoint{Time: at, Value: float64(n) / pq.window.Seconds()})
		case "quantile":
			if len(in) == 0 {
				continue
			}
			lat := make([]float64, len(in))
			for i, r := range in {
				lat[i] = r.Latency.Seconds()
			}
			out.Points = append(out.Points, cloud.PromPoint{Time: at, Value: apsQuantileOf(lat, pq.quantile)})
		case "replicas":
			if t.now.Sub(at) < q.Step {
				out.Points = append(out.Points, cloud.PromPoint{Time: at, Value: float64(dep.Status.AvailableReplicas)})
				continue
			}
			i := slices.IndexFunc(reqs, func(r kubeRequestRec) bool { return r.At.After(at) })
			if i == -1 {
				i = len(reqs)
			}
			if i > 0 {
				out.Points = append(out.Points, cloud.PromPoint{Time: at, Value: float64(reqs[i-1].Ready)})
			}
		}
	}
	return out, true
}

// apsQuantileOf is the q quantile of values, interpolated between the
// nearest ranks.
func apsQuantileOf(values []float64, q float64) float64 {
	slices.Sort(values)
	pos := q * float64(len(values)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(values)-1)
	return values[lo] + (values[hi]-values[lo])*(pos-float64(lo))
}

// apsSum adds series point by point, at the times they share.
func apsSum(series []cloud.PromSeries) cloud.PromSeries {
	sums := map[time.Time]float64{}
	for _, s := range series {
		for _, p := range s.Points {
			sums[p.Time] += p.Value
		}
	}
	out := cloud.PromSeries{Labels: map[string]string{}}
	for at, v := range sums {
		out.Points = append(out.Points, cloud.PromPoint{Time: at, Value: v})
	}
	slices.SortFunc(out.Points, func(a, b cloud.PromPoint) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	return out
}
