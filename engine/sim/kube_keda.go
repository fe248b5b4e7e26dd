package sim

import (
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/cloud"
)

// KEDA's ScaledObjects, as a settle plays them while a release of the keda
// chart is deployed. The simulator does not run PromQL: a prometheus
// trigger whose query reads a num_requests_total counter (vLLM's or
// SGLang's) measures the requests a second its Deployment's servers took
// over the last minute (kube_proxy.go records them), and one that reads
// sglang_router_queue_length measures the router's queue as that rate
// times the servers' mean latency. KEDA then asks ceil(metric / threshold)
// replicas, within minReplicaCount and maxReplicaCount, of the target
// Deployment; it scales down only once cooldownPeriod has passed since
// the demand was last higher. It writes spec.replicas of the Deployment and
// the ScaledObject's Ready and Active conditions.
//
// Left out: the HPA KEDA makes, polling intervals (a settle evaluates),
// fallback, idleReplicaCount, and every other trigger type.

const (
	kubeScaledObjectsKey = "keda.sh/v1alpha1/scaledobjects"
	kedaChartName        = "keda"
	kedaWindow           = time.Minute
	kedaDefaultCooldown  = 300
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
		if err := s.scaleObject(so); err != nil {
			return err
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

// scaleObject evaluates one ScaledObject.
func (s *kubeSession) scaleObject(so *unstructured.Unstructured) error {
	ns := so.GetNamespace()
	target, _, _ := unstructured.NestedString(so.Object, "spec", "scaleTargetRef", "name")
	dep, err := s.get(kubeDeploymentsKey, ns, target)
	if err != nil || dep == nil {
		return err
	}
	triggers, _, _ := unstructured.NestedSlice(so.Object, "spec", "triggers")
	lo, hi := kedaInt(so, "minReplicaCount", 0), kedaInt(so, "maxReplicaCount", 100)
	cooldown := s.t.w.scale(time.Duration(kedaInt(so, "cooldownPeriod", kedaDefaultCooldown)) * time.Second)
	rec := s.servingRecOf(ns, target)
	metric, active := 0.0, false
	want := lo
	for _, tr := range triggers {
		m, _ := tr.(map[string]any)
		meta, _ := m["metadata"].(map[string]any)
		query, _ := meta["query"].(string)
		threshold, _ := strconv.ParseFloat(strings.TrimSpace(asString(meta["threshold"])), 64)
		if m["type"] != "prometheus" || threshold <= 0 {
			continue
		}
		rate := s.requestRate(rec)
		switch {
		case strings.Contains(query, "num_requests_total"):
			metric = rate
		case strings.Contains(query, "queue_length"):
			metric = rate * 1.5 // a request waits about its latency in the queue
		default:
			continue
		}
		active = active || metric > 0
		want = max(want, int64(math.Ceil(metric/threshold)))
	}
	want = min(max(want, lo), hi)
	cur, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	now := s.t.now
	switch {
	case want > cur:
		rec.HighAt = now
	case want < cur && now.Sub(rec.HighAt) < cooldown:
		want = cur
	}
	if want >= cur {
		rec.HighAt = now
	}
	if want != cur {
		next := dep.DeepCopy()
		if err := unstructured.SetNestedField(next.Object, want, "spec", "replicas"); err != nil {
			return err
		}
		next.SetGeneration(next.GetGeneration() + 1)
		s.put(kubeDeploymentsKey, dep, next)
	}
	status := func(b bool) string {
		if b {
			return "True"
		}
		return "False"
	}
	next := so.DeepCopy()
	next.Object["status"] = map[string]any{
		"scaleTargetKind": "apps/v1.Deployment",
		"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "ScaledObjectReady", "message": "ScaledObject is defined correctly and is ready for scaling"},
			map[string]any{"type": "Active", "status": status(active), "reason": "ScalerActive", "message": "Scaling is performed because triggers are active"},
		},
	}
	s.put(kubeScaledObjectsKey, so, next)
	return nil
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

// requestRate is the requests a second a Deployment's servers took over
// the last minute (real time).
func (s *kubeSession) requestRate(rec *kubeServingRec) float64 {
	window := s.t.w.scale(kedaWindow)
	n := 0
	for _, at := range rec.Times {
		if s.t.now.Sub(at) <= window {
			n++
		}
	}
	return float64(n) / kedaWindow.Seconds()
}
