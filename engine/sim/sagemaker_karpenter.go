package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// HyperPod's managed Karpenter. Once a HyperPod cluster has AutoScaling
// {Mode: Enable, AutoScalerType: Karpenter} and the autoscaler is installed
// (hpAutoScalingTime after it was enabled), Karpenter watches the objects of
// the cluster's EKS API, as part of each settle (kube_sched.go):
//
//   - a karpenter.sagemaker.amazonaws.com/v1 HyperpodNodeClass names
//     instance groups of the cluster (spec.instanceGroups); its Ready
//     condition says whether they all exist;
//   - a karpenter.sh/v1 NodePool refers to a class (spec.template.spec.
//     nodeClassRef) and may narrow its groups (spec.template.spec.
//     requirements, on the labels the groups' nodes will carry plus
//     karpenter.sh/nodepool and karpenter.sh/capacity-type), cap what they
//     run (spec.limits: cpu, memory, nvidia.com/gpu, nodes...) and set how
//     long an empty node lives (spec.disruption.consolidateAfter, 30s by
//     default, or Never). Pools are tried by spec.weight, highest first,
//     then by name; a pool's groups in its class's order. Its status shows
//     its conditions and the resources of its groups' nodes.
//
// Scale-up: the pods the scheduler could not bind (but DaemonSet ones) are
// packed, largest first, onto the nodes of the pools' groups still on their
// way (launching, booting, under checks or recovery), then onto new nodes
// of the first group whose next node they would fit, within the pool's
// limits, the zone's capacity, the quota and the training plan; HyperPod
// adds those nodes as BatchAddClusterNodes does, called with the cluster
// role (a cluster event says so; no client call is counted). The nodes then
// boot as any other and the scheduler binds the pods once they are Ready.
//
// Scale-down: a Ready node of a pool's group that has run no pods but
// DaemonSet ones for consolidateAfter is removed as BatchDeleteClusterNodes
// removes it (the group's target count drops), so an idle group returns to
// zero.
//
// The scale-up is in sagemaker_karpenter_scale_up.go, the scale-down in
// sagemaker_karpenter_consolidate.go, the objects' status in
// sagemaker_karpenter_status.go.
//
// Left out: consolidation of nodes that are not empty
// (WhenEmptyOrUnderutilized acts as WhenEmpty), disruption budgets,
// expireAfter and drift, the NodePool template's labels and taints (nodes
// carry their group's), karpenter.sh labels on nodes, NodeClaim objects.
// Karpenter stops at once when autoscaling is disabled.

// Karpenter's resources in the simulated Kubernetes API.
const (
	karpenterClassesKey       = "karpenter.sagemaker.amazonaws.com/v1/hyperpodnodeclasses"
	karpenterPoolsKey         = "karpenter.sh/v1/nodepools"
	karpenterClassGroup       = "karpenter.sagemaker.amazonaws.com"
	karpenterClassKind        = "HyperpodNodeClass"
	karpenterConsolidateAfter = 30 * time.Second // NodePool's default, divided by the world's speed
)

// karpenterClass is a HyperpodNodeClass as Karpenter reads it.
type karpenterClass struct {
	obj     *unstructured.Unstructured
	groups  []*hpGroupRec // the groups it names that exist, in its order
	missing []string      // the groups it names that do not
}

func (k *karpenterClass) ready() bool { return len(k.missing) == 0 && len(k.groups) > 0 }

// karpenterPool is a NodePool as Karpenter reads it.
type karpenterPool struct {
	obj    *unstructured.Unstructured
	name   string
	weight int64
	// invalid says why the pool's spec is not valid; "" when it is.
	invalid          string
	classRef         string
	class            *karpenterClass // nil when no class has the name it refers to
	limits           corev1.ResourceList
	consolidateAfter time.Duration
	never            bool // consolidateAfter: Never
	requirements     []corev1.NodeSelectorRequirement
	groups           []*hpGroupRec // its class's groups that meet its requirements
	// usage is what its groups' nodes offer, "nodes" counting them, plus
	// what the settle asked for.
	usage corev1.ResourceList
}

func (p *karpenterPool) ready() bool { return p.invalid == "" && p.class != nil && p.class.ready() }

// karpenter lets the managed Karpenter of the EKS cluster, if one runs, act
// on the pods the scheduler could not bind and on empty nodes, and report
// on its objects. It tells whether HyperPod's nodes changed.
func (s *kubeSession) karpenter(sc *kubeScheduler, unschedulable []*kubeSchedPod) bool {
	c := s.t.karpenterCluster(s.eks.Arn)
	if c == nil {
		s.rec.KarpenterIdle = nil
		return false
	}
	classes := s.karpenterClasses(c)
	pools := s.karpenterPools(c, classes)
	changed := false
	if st := c.status(s.t.now); st == smtypes.ClusterStatusInservice || st == smtypes.ClusterStatusUpdating {
		changed = s.karpenterScaleUp(c, sc, pools, unschedulable)
		changed = s.karpenterConsolidate(c, sc, pools) || changed
	} else {
		s.rec.KarpenterIdle = nil
	}
	for _, name := range sortedKeys(classes) {
		s.karpenterClassStatus(c, classes[name])
	}
	for _, p := range pools {
		p.usage = karpenterUsage(p.groups)
		s.karpenterPoolStatus(p)
	}
	return changed
}

// karpenterCluster is the HyperPod cluster of the EKS cluster eksArn whose
// managed Karpenter runs: autoscaling is enabled with Karpenter and
// installed. Should several clusters share the EKS cluster, the first by
// name wins.
func (t *txn) karpenterCluster(eksArn string) *hpClusterRec {
	for _, name := range sortedKeys(t.rs.HyperPod) {
		c := t.rs.HyperPod[name]
		if c.EKSArn == eksArn && t.karpenterRunning(c) {
			return c
		}
	}
	return nil
}

// karpenterRunning tells whether c's managed Karpenter is installed and
// running (see autoScalingOut for the status DescribeCluster shows).
func (t *txn) karpenterRunning(c *hpClusterRec) bool {
	a := c.AutoScaling
	if a == nil || a.Mode != string(smtypes.ClusterAutoScalingModeEnable) || a.Type != string(smtypes.ClusterAutoScalerTypeKarpenter) || !c.alive() {
		return false
	}
	return !t.now.Before(a.Since.Add(t.w.scale(hpAutoScalingTime)))
}

// karpenterClasses reads the HyperpodNodeClasses, by name.
func (s *kubeSession) karpenterClasses(c *hpClusterRec) map[string]*karpenterClass {
	objs, _ := s.list(karpenterClassesKey, "")
	out := map[string]*karpenterClass{}
	for _, obj := range objs {
		k := &karpenterClass{obj: obj}
		names, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "instanceGroups")
		for _, name := range names {
			if g := c.group(name); g != nil && !g.Deleting {
				k.groups = append(k.groups, g)
			} else {
				k.missing = append(k.missing, name)
			}
		}
		out[obj.GetName()] = k
	}
	return out
}

// karpenterPools reads the NodePools, in the order Karpenter tries them.
func (s *kubeSession) karpenterPools(c *hpClusterRec, classes map[string]*karpenterClass) []*karpenterPool {
	objs, _ := s.list(karpenterPoolsKey, "")
	var out []*karpenterPool
	for _, obj := range objs {
		p := &karpenterPool{obj: obj, name: obj.GetName(), consolidateAfter: karpenterConsolidateAfter}
		p.invalid = p.read()
		p.class = classes[p.classRef]
		if p.class != nil && p.invalid == "" {
			for _, g := range p.class.groups {
				if kubeRequirementsMatch(p.requirements, s.karpenterLabels(c, g, p.name)) {
					p.groups = append(p.groups, g)
				}
			}
		}
		p.usage = karpenterUsage(p.groups)
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b *karpenterPool) int {
		switch {
		case a.weight > b.weight:
			return -1
		case a.weight < b.weight:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}

// read reads the pool's spec, and tells what is wrong with it, if
// anything.
func (p *karpenterPool) read() string {
	obj := p.obj.Object
	if w, ok, _ := unstructured.NestedFieldNoCopy(obj, "spec", "weight"); ok {
		switch w := w.(type) {
		case int64:
			p.weight = w
		case float64:
			p.weight = int64(w)
		default:
			return fmt.Sprintf("spec.weight %v is not a number", w)
		}
	}
	group, _, _ := unstructured.NestedString(obj, "spec", "template", "spec", "nodeClassRef", "group")
	kind, _, _ := unstructured.NestedString(obj, "spec", "template", "spec", "nodeClassRef", "kind")
	p.classRef, _, _ = unstructured.NestedString(obj, "spec", "template", "spec", "nodeClassRef", "name")
	switch {
	case group != karpenterClassGroup || kind != karpenterClassKind:
		return fmt.Sprintf("spec.template.spec.nodeClassRef must name a %s of group %s; it names a %q of group %q", karpenterClassKind, karpenterClassGroup, kind, group)
	case p.classRef == "":
		return "spec.template.spec.nodeClassRef.name is empty"
	}
	if limits, ok, _ := unstructured.NestedFieldNoCopy(obj, "spec", "limits"); ok {
		m, isMap := limits.(map[string]any)
		if !isMap {
			return "spec.limits is not a map of resources"
		}
		p.limits = corev1.ResourceList{}
		for name, v := range m {
			q, err := resource.ParseQuantity(fmt.Sprint(v))
			if err != nil {
				return fmt.Sprintf("spec.limits.%s: %v", name, err)
			}
			p.limits[corev1.ResourceName(name)] = q
		}
	}
	if after, ok, _ := unstructured.NestedString(obj, "spec", "disruption", "consolidateAfter"); ok && after != "" {
		if after == "Never" {
			p.never = true
		} else {
			d, err := time.ParseDuration(after)
			if err != nil || d < 0 {
				return fmt.Sprintf("spec.disruption.consolidateAfter %q is neither a duration such as 30s nor Never", after)
			}
			p.consolidateAfter = d
		}
	}
	if reqs, ok, _ := unstructured.NestedSlice(obj, "spec", "template", "spec", "requirements"); ok {
		for i, r := range reqs {
			m, isMap := r.(map[string]any)
			var req corev1.NodeSelectorRequirement
			if !isMap || runtime.DefaultUnstructuredConverter.FromUnstructured(m, &req) != nil {
				return fmt.Sprintf("spec.template.spec.requirements[%d] is not a node selector requirement", i)
			}
			if _, known := kubeSelectorOps[req.Operator]; !known {
				return fmt.Sprintf("spec.template.spec.requirements[%d] has operator %q; use In, NotIn, Exists, DoesNotExist, Gt or Lt", i, req.Operator)
			}
			p.requirements = append(p.requirements, req)
		}
	}
	return ""
}

// karpenterTemplate is the next node of group g as Karpenter imagines it:
// Ready and healthy, with the group's labels and taints and HyperPod's
// labels, the resources of its instance type, and nothing on it.
func (s *kubeSession) karpenterTemplate(c *hpClusterRec, g *hpGroupRec) *kubeSchedNode {
	v := NodeView{HyperPodCluster: c.Name, InstanceGroup: g.Name, InstanceType: g.InstanceType, Zone: g.Zone, Health: HealthSchedulable, Labels: g.Kube.Labels}
	if len(g.DeepHealthChecks) > 0 {
		v.DeepHealth = DeepHealthCheckPassed
	}
	l := s.kubeNodeLabels(v)
	delete(l, "kubernetes.io/hostname") // not known before the instance is
	n := &kubeSchedNode{labels: l, ready: true, allocatable: kubeNodeCapacity(g.InstanceType), requested: corev1.ResourceList{}}
	for _, tn := range g.Kube.Taints {
		n.taints = append(n.taints, corev1.Taint{Key: tn.Key, Value: tn.Value, Effect: corev1.TaintEffect(tn.Effect)})
	}
	return n
}

// karpenterLabels are the labels a NodePool's requirements are checked
// against for group g: its nodes' labels, and Karpenter's pool and
// capacity type.
func (s *kubeSession) karpenterLabels(c *hpClusterRec, g *hpGroupRec, pool string) map[string]string {
	l := s.karpenterTemplate(c, g).labels
	l["karpenter.sh/nodepool"] = pool
	switch {
	case g.TrainingPlanArn != "":
		l["karpenter.sh/capacity-type"] = "reserved"
	case g.capacityType() == smtypes.ClusterCapacityTypeSpot:
		l["karpenter.sh/capacity-type"] = "spot"
	default:
		l["karpenter.sh/capacity-type"] = "on-demand"
	}
	return l
}

// karpenterNodeResources is what one node of instanceType counts for in a
// pool's limits and status: its capacity, and 1 of "nodes".
func karpenterNodeResources(instanceType string) corev1.ResourceList {
	out := kubeNodeCapacity(instanceType)
	out["nodes"] = *resourceOne()
	return out
}

// karpenterUsage sums the resources of the groups' nodes, those that wait
// for capacity or boot included, those shutting down not.
func karpenterUsage(groups []*hpGroupRec) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, g := range groups {
		for _, n := range g.Nodes {
			if !n.Deleting {
				kubeAddResources(out, karpenterNodeResources(n.InstanceType))
			}
		}
	}
	return out
}
