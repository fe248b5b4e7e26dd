package sim

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/cloud"
)

// KEDA's ScaledObjects, as a settle plays them while a release of the keda
// chart is deployed. The simulator does not run PromQL: a prometheus
// trigger is recognised by its query's metric name and labels:
//
//   - num_requests_total (vLLM's vllm:num_requests_total, SGLang's
//     sglang:num_requests_total) with labels namespace and deployment
//     measures the requests a second that Deployment's servers took over
//     the last minute (kube_proxy.go records them), plus the rps of the
//     load faults on it;
//   - queue_length (sglang_router_queue_length) with labels namespace and
//     service <deployment>-router measures the router's queue as that
//     rate times kedaQueueWait, a request's mean wait (Little's law).
//
// A label the query leaves out is the ScaledObject's own namespace or
// target. KEDA asks ceil(metric / threshold) replicas, within
// minReplicaCount and maxReplicaCount, of the target Deployment, at once
// when that is more than it has; fewer only once the demand has been lower
// for cooldownPeriod. It writes spec.replicas of the Deployment and the
// ScaledObject's status as KEDA does: scaleTargetKind, scaleTargetGVKR,
// originalReplicaCount, externalMetricNames, hpaName, lastActiveTime and
// the Ready, Active and Fallback conditions.
//
// The world is settled at the moment the demand falls under the
// replicas' and when a cooldown ends (kubeScheduler.later), so scaling
// down does not wait for a client to look. Left out: the HPA object KEDA
// makes, pollingInterval (KEDA reacts at each settle, which the engine's
// tests rely on: a burst scales at once), fallback, idleReplicaCount,
// advanced scaling modifiers and every trigger type but prometheus.

const (
	kubeScaledObjectsKey = "keda.sh/v1alpha1/scaledobjects"
	kedaChartName        = "keda"
	// kedaWindow is the range of the rate() KEDA's queries take.
	kedaWindow = time.Minute
	// kedaQueueWait is how long a request waits in a router's queue, on
	// average (real time).
	kedaQueueWait = 1500 * time.Millisecond
	// Defaults of a ScaledObject's spec.
	kedaDefaultCooldown = 300
	kedaDefaultMax      = 100
)

// kedaRuns tells whether KEDA runs in the session's cluster.
func (s *kubeSession) kedaRuns() bool {
	hc := s.t.st.Helm[kubeClusterKey(s.rec.Region, s.rec.Name)]
	if hc == nil || hc.EKSID != s.rec.EKSID {
		return false
	}
	for _, r := range hc.Releases {
		if r.Chart == kedaChartName && r.status(s.t.now) == cloud.HelmDeployed {
			return true
		}
	}
	return false
}

// playKEDA evaluates the ScaledObjects (see the top of this file).
func (sc *kubeScheduler) playKEDA() error {
	s := sc.s
	if !s.kedaRuns() {
		return nil
	}
	objs, err := s.list(kubeScaledObjectsKey, "")
	if err != nil {
		return err
	}
	for _, so := range objs {
		wake, err := s.scaleObject(so)
		if err != nil {
			return err
		}
		if !wake.IsZero() {
			sc.later = append(sc.later, wake)
		}
	}
	return nil
}

// kedaInt reads an integer field of a ScaledObject's spec.
func kedaInt(so *unstructured.Unstructured, field string, def int64) int64 {
	if v, ok, _ := unstructured.NestedInt64(so.Object, "spec", field); ok {
		return v
	}
	return def
}

// kedaLabelPattern finds a query's label matchers, name="value".
var kedaLabelPattern = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"]*)"`)

// kedaQueryLabels are the equality matchers of a PromQL query.
func kedaQueryLabels(query string) map[string]string {
	out := map[string]string{}
	for _, m := range kedaLabelPattern.FindAllStringSubmatch(query, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// kedaTrigger is a prometheus trigger the simulator recognised: its
// demand is ceil(requests a second of Deployment ns/deployment, times
// factor, over threshold).
type kedaTrigger struct {
	ns, deployment string
	factor         float64
	threshold      float64
}

// kedaTriggers reads the recognised triggers of a ScaledObject that
// targets Deployment target.
func kedaTriggers(so *unstructured.Unstructured, target string) []kedaTrigger {
	triggers, _, _ := unstructured.NestedSlice(so.Object, "spec", "triggers")
	var out []kedaTrigger
	for _, tr := range triggers {
		m, _ := tr.(map[string]any)
		meta, _ := m["metadata"].(map[string]any)
		query, _ := meta["query"].(string)
		threshold, _ := strconv.ParseFloat(strings.TrimSpace(asString(meta["threshold"])), 64)
		if m["type"] != "prometheus" || !(threshold > 0) {
			continue
		}
		labels := kedaQueryLabels(query)
		k := kedaTrigger{ns: labels["namespace"], threshold: threshold}
		if k.ns == "" {
			k.ns = so.GetNamespace()
		}
		switch {
		case strings.Contains(query, "num_requests_total"):
			k.deployment, k.factor = labels["deployment"], 1
		case strings.Contains(query, "queue_length"):
			k.deployment, k.factor = strings.TrimSuffix(labels["service"], "-router"), kedaQueueWait.Seconds()
		default:
			continue
		}
		if k.deployment == "" {
			k.deployment = target
		}
		out = append(out, k)
	}
	return out
}

// scaleObject evaluates one ScaledObject, and returns when the world
// should settle again for it (zero for no such moment).
func (s *kubeSession) scaleObject(so *unstructured.Unstructured) (time.Time, error) {
	ns := so.GetNamespace()
	target, _, _ := unstructured.NestedString(so.Object, "spec", "scaleTargetRef", "name")
	dep, err := s.get(kubeDeploymentsKey, ns, target)
	if err != nil {
		return time.Time{}, err
	}
	if dep == nil {
		s.putScaledObjectStatus(so, kedaCondition("Ready", false, "ScaledObjectCheckFailed", "ScaledObject doesn't have correct scaleTargetRef specification"),
			kedaCondition("Active", false, "ScalerNotActive", "No triggers active"), nil)
		return time.Time{}, nil
	}
	lo, hi := kedaInt(so, "minReplicaCount", 0), kedaInt(so, "maxReplicaCount", kedaDefaultMax)
	cooldown := s.t.w.scale(time.Duration(kedaInt(so, "cooldownPeriod", kedaDefaultCooldown)) * time.Second)
	cur, found, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	if !found {
		cur = 1
	}
	triggers := kedaTriggers(so, target)
	demand := func(at time.Time) int64 {
		want := lo
		for _, k := range triggers {
			rate := s.requestRate(k.ns, k.deployment, at) * k.factor
			want = max(want, int64(math.Ceil(rate/k.threshold)))
		}
		return min(max(want, lo), hi)
	}
	active := false
	for _, k := range triggers {
		active = active || s.requestRate(k.ns, k.deployment, s.t.now) > 0
	}
	now := s.t.now
	rec := s.servingRecOf(ns, target)
	want := demand(now)
	if want >= cur {
		rec.LowSince = time.Time{}
	} else if rec.LowSince.IsZero() {
		rec.LowSince = now
	}
	var wake time.Time
	switch {
	case want < cur && now.Sub(rec.LowSince) < cooldown:
		want, wake = cur, rec.LowSince.Add(cooldown)
	case want < cur:
		rec.LowSince = time.Time{} // scaled down: the cooldown starts again
		fallthrough
	case want > lo:
		wake = s.demandFalls(triggers, want, demand)
	}
	if want != cur {
		next := dep.DeepCopy()
		if err := unstructured.SetNestedField(next.Object, want, "spec", "replicas"); err != nil {
			return time.Time{}, err
		}
		next.SetGeneration(next.GetGeneration() + 1)
		s.put(kubeDeploymentsKey, dep, next)
	}
	activeCond := kedaCondition("Active", false, "ScalerNotActive", "No triggers active")
	if active {
		activeCond = kedaCondition("Active", true, "ScalerActive", "Scaling is performed because triggers are active")
		rec.ActiveAt = now
	}
	extra := map[string]any{"originalReplicaCount": cur}
	if prev, ok, _ := unstructured.NestedInt64(so.Object, "status", "originalReplicaCount"); ok {
		extra["originalReplicaCount"] = prev
	}
	if !rec.ActiveAt.IsZero() {
		extra["lastActiveTime"] = rec.ActiveAt.UTC().Format(time.RFC3339)
	}
	var names []any
	for i := range triggers {
		names = append(names, "s"+strconv.Itoa(i)+"-prometheus")
	}
	if names != nil {
		extra["externalMetricNames"] = names
	}
	s.putScaledObjectStatus(so, kedaCondition("Ready", true, "ScaledObjectReady", "ScaledObject is defined correctly and is ready for scaling"), activeCond, extra)
	return wake, nil
}

// demandFalls finds when, with no more requests than those recorded, the
// demand first falls under cur replicas: the moment enough of the window's
// requests have aged out of it. It returns zero when it never does.
func (s *kubeSession) demandFalls(triggers []kedaTrigger, cur int64, demand func(time.Time) int64) time.Time {
	window := s.t.w.scale(kedaWindow)
	var moments []time.Time
	for _, k := range triggers {
		for _, at := range s.servingRecOf(k.ns, k.deployment).Times {
			if out := at.Add(window); out.After(s.t.now) {
				moments = append(moments, out)
			}
		}
	}
	slices.SortFunc(moments, time.Time.Compare)
	for _, at := range moments {
		if demand(at) < cur {
			return at
		}
	}
	return time.Time{}
}

// kedaCondition is one condition of a ScaledObject's status.
func kedaCondition(typ string, status bool, reason, message string) map[string]any {
	st := "False"
	if status {
		st = "True"
	}
	return map[string]any{"type": typ, "status": st, "reason": reason, "message": message}
}

// putScaledObjectStatus writes a ScaledObject's status: its Ready and
// Active conditions, Fallback's, and the fields in extra.
func (s *kubeSession) putScaledObjectStatus(so *unstructured.Unstructured, ready, active map[string]any, extra map[string]any) {
	status := map[string]any{
		"scaleTargetKind": "apps/v1.Deployment",
		"scaleTargetGVKR": map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "resource": "deployments"},
		"hpaName":         "keda-hpa-" + so.GetName(),
		"conditions": []any{ready, active,
			kedaCondition("Fallback", false, "NoFallbackFound", "No fallback was found")},
	}
	for k, v := range extra {
		status[k] = v
	}
	next := so.DeepCopy()
	next.Object["status"] = status
	s.put(kubeScaledObjectsKey, so, next)
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// servingRecOf is the serving record of Deployment name of ns.
func (s *kubeSession) servingRecOf(ns, name string) *kubeServingRec {
	if s.rec.Serving == nil {
		s.rec.Serving = map[string]*kubeServingRec{}
	}
	key := kubeObjectKey(ns, name)
	if s.rec.Serving[key] == nil {
		s.rec.Serving[key] = &kubeServingRec{}
	}
	return s.rec.Serving[key]
}

// requestRate is the requests a second (real time) the servers of
// Deployment ns/name took in the minute up to at, as rate()[1m] reads
// vLLM's and SGLang's request counters, plus the load faults on it.
func (s *kubeSession) requestRate(ns, name string, at time.Time) float64 {
	window := s.t.w.scale(kedaWindow)
	n := 0
	if rec := s.rec.Serving[kubeObjectKey(ns, name)]; rec != nil {
		for _, t := range rec.Times {
			if !t.After(at) && at.Sub(t) < window {
				n++
			}
		}
	}
	return float64(n)/kedaWindow.Seconds() + s.faultLoad(ns, name)
}

// faultLoad is the requests a second the load faults add to Deployment
// ns/name.
func (s *kubeSession) faultLoad(ns, name string) float64 {
	rps := 0.0
	for _, f := range s.t.st.Faults {
		if f.Kind == FaultLoad && f.inRegion(s.t.region) && f.Deployment == name && (f.Namespace == "" || f.Namespace == ns) {
			rps += f.RPS
		}
	}
	return rps
}
