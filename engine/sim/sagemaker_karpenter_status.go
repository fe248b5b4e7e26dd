package sim

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// karpenterCondition is a status condition of a Karpenter object.
type karpenterCondition struct {
	typ, status, reason, message string
}

// karpenterConditions is obj's status conditions set to conds, observed at
// obj's generation, keeping the transition time of those whose status did
// not change.
func (s *kubeSession) karpenterConditions(obj *unstructured.Unstructured, conds ...karpenterCondition) []any {
	old, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	now := s.t.now.UTC().Format(time.RFC3339)
	var out []any
	for _, c := range conds {
		since := now
		for _, o := range old {
			m, _ := o.(map[string]any)
			if m["type"] == c.typ && m["status"] == c.status {
				if at, ok := m["lastTransitionTime"].(string); ok {
					since = at
				}
			}
		}
		out = append(out, map[string]any{
			"type": c.typ, "status": c.status, "reason": c.reason, "message": c.message,
			"lastTransitionTime": since, "observedGeneration": obj.GetGeneration(),
		})
	}
	return out
}

// karpenterStore stores obj of resource res with status, if that changes
// it.
func (s *kubeSession) karpenterStore(res string, obj *unstructured.Unstructured, status map[string]any) *unstructured.Unstructured {
	next := obj.DeepCopy()
	next.Object["status"] = status
	return s.put(res, obj, next)
}

// karpenterClassStatus reports a HyperpodNodeClass: Ready once every group
// it names exists in the HyperPod cluster.
func (s *kubeSession) karpenterClassStatus(c *hpClusterRec, k *karpenterClass) {
	ready := karpenterCondition{"Ready", "True", "Ready", ""}
	switch {
	case len(k.missing) > 0:
		ready = karpenterCondition{"Ready", "False", "InstanceGroupNotFound", fmt.Sprintf(
			"instance group(s) %s not found in HyperPod cluster %s; add them with UpdateCluster (InstanceCount 0) or remove them from spec.instanceGroups",
			strings.Join(k.missing, ", "), c.Name)}
	case len(k.groups) == 0:
		ready = karpenterCondition{"Ready", "False", "NoInstanceGroups", "spec.instanceGroups names no instance group"}
	}
	k.obj = s.karpenterStore(karpenterClassesKey, k.obj, map[string]any{"conditions": s.karpenterConditions(k.obj, ready)})
}

// karpenterPoolStatus reports a NodePool: whether its spec is valid, its
// class ready, and the resources its groups' nodes offer.
func (s *kubeSession) karpenterPoolStatus(p *karpenterPool) {
	valid := karpenterCondition{"ValidationSucceeded", "True", "ValidationSucceeded", ""}
	if p.invalid != "" {
		valid = karpenterCondition{"ValidationSucceeded", "False", "NodePoolValidationFailed", p.invalid}
	}
	classReady := karpenterCondition{"NodeClassReady", "True", "NodeClassReady", ""}
	switch {
	case p.class == nil:
		classReady = karpenterCondition{"NodeClassReady", "False", "NodeClassNotFound", fmt.Sprintf("%s %q not found", karpenterClassKind, p.classRef)}
	case !p.class.ready():
		classReady = karpenterCondition{"NodeClassReady", "False", "NodeClassNotReady", fmt.Sprintf("%s %q is not ready", karpenterClassKind, p.classRef)}
	}
	ready := karpenterCondition{"Ready", "True", "Ready", ""}
	if !p.ready() {
		var why []string
		for _, c := range []karpenterCondition{valid, classReady} {
			if c.status != "True" {
				why = append(why, c.typ+"="+c.status)
			}
		}
		ready = karpenterCondition{"Ready", "False", "UnhealthyDependents", strings.Join(why, ", ")}
	}
	resources := map[string]any{}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, "nodes"} {
		resources[string(name)] = "0"
	}
	for name, q := range p.usage {
		resources[string(name)] = q.String()
	}
	status := map[string]any{"conditions": s.karpenterConditions(p.obj, valid, classReady, ready), "resources": resources}
	if p.class != nil {
		status["nodeClassObservedGeneration"] = p.class.obj.GetGeneration()
	}
	p.obj = s.karpenterStore(karpenterPoolsKey, p.obj, status)
}
