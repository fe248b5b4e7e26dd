package sim

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Taints the node lifecycle controller and kubectl cordon stand for.
const (
	kubeTaintNotReady      = "node.kubernetes.io/not-ready"
	kubeTaintUnschedulable = "node.kubernetes.io/unschedulable"
)

func resourceOne() *resource.Quantity { return resource.NewQuantity(1, resource.DecimalSI) }

// kubeFit tells why pod p can not run on node n, in the words of the
// scheduler's filters, or nothing when it can. As in the scheduler, the
// first filter that fails gives the reasons, in this order: the node is
// cordoned (unless p tolerates it), not Ready, or has a NoSchedule or
// NoExecute taint p does not tolerate; p's nodeSelector or required node
// affinity does not match the node's labels; the node lacks room for p's
// requests (each resource short is a reason).
func kubeFit(p *kubeSchedPod, n *kubeSchedNode) []string {
	tols := p.pod.Spec.Tolerations
	cordon := corev1.Taint{Key: kubeTaintUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	if n.unschedulable && !kubeTolerates(tols, cordon) {
		return []string{"node(s) were unschedulable"}
	}
	if !n.ready {
		return []string{fmt.Sprintf("node(s) had untolerated taint {%s: }", kubeTaintNotReady)}
	}
	if tn := kubeUntolerated(tols, n.taints, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute); tn != nil {
		return []string{fmt.Sprintf("node(s) had untolerated taint {%s: %s}", tn.Key, tn.Value)}
	}
	if !kubeNodeMatches(&p.pod.Spec, n.name, n.labels) {
		return []string{"node(s) didn't match Pod's node affinity/selector"}
	}
	return n.short(p.req)
}

// short lists what n lacks for requests: "Too many pods", "Insufficient
// nvidia.com/gpu". A resource the node does not report counts as none,
// except ephemeral-storage, which the simulated nodes do not track.
func (n *kubeSchedNode) short(requests corev1.ResourceList) []string {
	var out []string
	for _, name := range kubeResourceNames(requests) {
		want := requests[name]
		if want.Sign() <= 0 || name == corev1.ResourceEphemeralStorage {
			continue
		}
		left := n.allocatable[name].DeepCopy()
		left.Sub(n.requested[name])
		if left.Cmp(want) >= 0 {
			continue
		}
		if name == corev1.ResourcePods {
			out = append(out, "Too many pods")
			continue
		}
		out = append(out, "Insufficient "+string(name))
	}
	return out
}

// kubeUntolerated returns the first of taints, of one of effects, that
// tolerations do not tolerate, or nil.
func kubeUntolerated(tolerations []corev1.Toleration, taints []corev1.Taint, effects ...corev1.TaintEffect) *corev1.Taint {
	for i := range taints {
		if slices.Contains(effects, taints[i].Effect) && !kubeTolerates(tolerations, taints[i]) {
			return &taints[i]
		}
	}
	return nil
}

// kubeTolerates tells whether one of tolerations tolerates taint: same
// effect (or any, when empty), same key (or any, when empty with operator
// Exists), and same value unless the operator is Exists.
func kubeTolerates(tolerations []corev1.Toleration, taint corev1.Taint) bool {
	for _, t := range tolerations {
		if t.Effect != "" && t.Effect != taint.Effect {
			continue
		}
		if t.Key != "" && t.Key != taint.Key {
			continue
		}
		switch t.Operator {
		case corev1.TolerationOpExists:
			return true
		case "", corev1.TolerationOpEqual:
			if t.Key != "" && t.Value == taint.Value {
				return true
			}
		}
	}
	return false
}

// kubeNodeMatches tells whether a node (its name and labels) satisfies a
// pod's nodeSelector and required node affinity, whose terms are ORed and
// whose expressions are ANDed.
func kubeNodeMatches(spec *corev1.PodSpec, name string, nodeLabels map[string]string) bool {
	for k, v := range spec.NodeSelector {
		if got, ok := nodeLabels[k]; !ok || got != v {
			return false
		}
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if kubeTermMatches(term, name, nodeLabels) {
			return true
		}
	}
	return false
}

// kubeTermMatches tells whether a node selector term matches a node. A term
// with no requirement matches nothing, as in the scheduler.
func kubeTermMatches(term corev1.NodeSelectorTerm, name string, nodeLabels map[string]string) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	if !kubeRequirementsMatch(term.MatchExpressions, nodeLabels) {
		return false
	}
	for _, f := range term.MatchFields {
		if f.Key != "metadata.name" {
			return false
		}
		in := slices.Contains(f.Values, name)
		switch f.Operator {
		case corev1.NodeSelectorOpIn:
			if !in {
				return false
			}
		case corev1.NodeSelectorOpNotIn:
			if in {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// kubeRequirementsMatch tells whether labels satisfy every node selector
// requirement: In, NotIn, Exists, DoesNotExist, Gt and Lt. A malformed
// requirement matches nothing.
func kubeRequirementsMatch(reqs []corev1.NodeSelectorRequirement, set map[string]string) bool {
	for _, r := range reqs {
		op, ok := kubeSelectorOps[r.Operator]
		if !ok {
			return false
		}
		req, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil || !req.Matches(labels.Set(set)) {
			return false
		}
	}
	return true
}

var kubeSelectorOps = map[corev1.NodeSelectorOperator]selection.Operator{
	corev1.NodeSelectorOpIn:           selection.In,
	corev1.NodeSelectorOpNotIn:        selection.NotIn,
	corev1.NodeSelectorOpExists:       selection.Exists,
	corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	corev1.NodeSelectorOpGt:           selection.GreaterThan,
	corev1.NodeSelectorOpLt:           selection.LessThan,
}

// kubeResourceNames is the sorted names of a resource list.
func kubeResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	return sets.List(sets.KeySet(l))
}

// kubePodRequests is what a pod asks of a node: the sum of its containers'
// requests (a resource with a limit and no request requests its limit, as
// the API server defaults it) and of its sidecars, or the largest of its
// other init containers where that is more, plus its overhead; "pods" is 1.
func kubePodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, c := range spec.Containers {
		kubeAddResources(out, kubeContainerRequests(c))
	}
	for _, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			kubeAddResources(out, kubeContainerRequests(c))
		}
	}
	for _, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			continue
		}
		for name, q := range kubeContainerRequests(c) {
			if q.Cmp(out[name]) > 0 {
				out[name] = q.DeepCopy()
			}
		}
	}
	kubeAddResources(out, spec.Overhead)
	out[corev1.ResourcePods] = *resourceOne()
	return out
}

func kubeContainerRequests(c corev1.Container) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range c.Resources.Requests {
		out[name] = q.DeepCopy()
	}
	for name, q := range c.Resources.Limits {
		if _, ok := out[name]; !ok {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

func kubeAddResources(sum, add corev1.ResourceList) {
	for name, q := range add {
		v := sum[name]
		v.Add(q)
		sum[name] = v
	}
}
