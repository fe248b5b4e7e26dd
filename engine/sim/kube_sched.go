package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

// Pod scheduling in the simulated Kubernetes APIs. Nothing runs in the
// background: the world settles a cluster's Kubernetes side whenever
// something happens to it, at the moment it happens, so that what happens
// does not depend on when clients look. It does so at each HyperPod
// transition (as advanceHyperPod applies it), when a node Karpenter scales
// has been idle long enough, and at each call to the cluster's API or to
// SageMaker in its region (before the call, and after it if it changed
// something), and when a Job or a pod's program has something due
// (kube_jobs.go). A settle, as of its moment:
//
//   - makes the Node objects follow HyperPod (kube_nodes.go);
//   - binds PersistentVolumes and claims (kube_volumes.go);
//   - plays the programs of the Running pods up to its moment
//     (kube_programs.go);
//   - deletes a pod bound to a node that is gone (deleted, or replaced: a
//     new instance is a new node), as the pod garbage collector deletes a
//     bare pod that lost its node; only the Job controller makes a pod
//     again, for its Job. It deletes too a pod on a node with a NoExecute
//     taint it does not tolerate, such as HyperPod's while a node waits
//     for a reboot or a replacement (tolerationSeconds is not honoured:
//     such a toleration tolerates for ever);
//   - runs a pod kubePodStartTime after it was bound, and begins its
//     program, if it runs one;
//   - plays the Job controller (kube_jobs.go): deletes the pods of Jobs
//     that are gone, makes a pod for a Job that needs one, follows Jobs'
//     pods, deadlines and expiry;
//   - takes the pods still to bind oldest first (then by namespace and
//     name) and binds each to the fitting node with the most room left, or
//     marks it Unschedulable with the scheduler's message (see kubeFit);
//   - plays the model servers: loading, out of GPU memory, images that
//     cannot be pulled (kube_serving.go);
//   - plays KEDA's ScaledObjects (kube_keda.go), then the Deployment
//     controller (kube_deployments.go);
//   - plays the HyperPod inference operator and the AWS Load Balancer
//     Controller (kube_inference_operator.go, kube_loadbalancer.go);
//   - lets the managed Karpenter act (sagemaker_karpenter.go).
//
// Left out: inter-pod affinity and anti-affinity, topology spread,
// preferred node affinity, priorities and preemption, host ports, volumes
// other than claims of static PersistentVolumes (kube_volumes.go),
// ephemeral-storage (the nodes do not report it), pod IPs (but for
// hostNetwork pods), Events. A pod stays Running until it is deleted, even
// with restartPolicy Never, unless its program ends it.

// kubePodStartTime is how long a bound pod takes to run: its images pulled
// and its containers started (divided by the world's speed).
const kubePodStartTime = 20 * time.Second

// kubePodsKey is the resource key of pods.
const kubePodsKey = "v1/pods"

// kubeDefaultScheduler is the scheduler the simulator plays; pods that name
// another one are left alone.
const kubeDefaultScheduler = "default-scheduler"

// kubeSchedNode is a node as the scheduler sees it, or a node Karpenter
// imagines.
type kubeSchedNode struct {
	name          string
	labels        map[string]string
	taints        []corev1.Taint
	unschedulable bool
	ready         bool
	allocatable   corev1.ResourceList
	// requested sums the requests of the pods bound to the node, "pods"
	// counting them.
	requested corev1.ResourceList
	hostIP    string
	// workloads counts the pods bound to the node that no DaemonSet owns.
	workloads int
}

// kubeSchedPod is a stored pod, decoded.
type kubeSchedPod struct {
	pod corev1.Pod
	req corev1.ResourceList // what it requests of a node, "pods": 1 included
}

func (p *kubeSchedPod) key() string { return kubeObjectKey(p.pod.Namespace, p.pod.Name) }

// active tells whether the pod holds or waits for a node: it has not ended
// and is not being deleted.
func (p *kubeSchedPod) active() bool {
	return p.pod.DeletionTimestamp == nil && p.pod.Status.Phase != corev1.PodSucceeded && p.pod.Status.Phase != corev1.PodFailed
}

// daemon tells whether a DaemonSet owns the pod.
func (p *kubeSchedPod) daemon() bool {
	for _, o := range p.pod.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return true
		}
	}
	return false
}

// kubeScheduler is one settle's view of a cluster's nodes and pods.
type kubeScheduler struct {
	s     *kubeSession
	nodes []*kubeSchedNode // by name
	node  map[string]*kubeSchedNode
	pods  []*kubeSchedPod // oldest first, then by namespace and name
	// later holds the moments at which the controllers played before
	// planWakes want the world settled again.
	later []time.Time
}

// settle brings the cluster's Kubernetes side up to the session's moment:
// nodes, pods, then the managed Karpenter (see the top of this file). The
// caller has brought HyperPod up to it.
func (s *kubeSession) settle() error {
	if err := s.syncFromHyperPod(); err != nil {
		return err
	}
	if err := s.bindVolumes(); err != nil {
		return err
	}
	sc, err := s.scheduler()
	if err != nil {
		return err
	}
	runs := sc.playPrograms()
	sc.evict()
	sc.start()
	sc.playServing()
	runs.begin()
	if err := sc.playJobs(runs.ended); err != nil {
		return err
	}
	if err := sc.playTraining(); err != nil {
		return err
	}
	if err := sc.playKEDA(); err != nil {
		return err
	}
	if err := sc.playDeployments(); err != nil {
		return err
	}
	unschedulable := sc.bind()
	sc.planWakes()
	if err := sc.playInference(); err != nil {
		return err
	}
	if s.karpenter(sc, unschedulable) {
		return s.syncFromHyperPod()
	}
	return nil
}

// syncFromHyperPod reads HyperPod's nodes, and those of the cluster's
// managed node groups, and stores them.
func (s *kubeSession) syncFromHyperPod() error {
	s.views = append(s.t.hpNodeViews(s.eks.Arn), s.t.nodegroupViews(s.eks)...)
	_, err := s.syncNodes(s.views, nil)
	return err
}

// settleKube settles each Kubernetes API of the region whose EKS cluster
// serves it, now. A SageMaker call does it, since what HyperPod did may move
// pods or wake Karpenter.
func (t *txn) settleKube() { t.settleKubeAt("", t.now) }

// settleKubeAt settles, as of at (not after now), the Kubernetes APIs of
// the region served by the EKS cluster eksArn ("" for all of them), and has
// their watchers told once the world is saved. An error of a cluster's
// settle is left for its own requests to report.
func (t *txn) settleKubeAt(eksArn string, at time.Time) {
	ks := t.st.Kube
	if ks == nil || t.rs == nil {
		return
	}
	then := &txn{w: t.w, st: t.st, region: t.region, rs: t.rs, now: at}
	for _, key := range sortedKeys(ks.Clusters) {
		rec := ks.Clusters[key]
		eks := t.rs.EKS[rec.Name]
		if rec.Region != t.region || !then.kubeAlive(rec.Region, rec.Name, rec.EKSID) || (eksArn != "" && eks.Arn != eksArn) {
			continue
		}
		srv := ks.servers[key]
		if srv != nil && srv.eksID != rec.EKSID {
			srv = nil
		}
		s := &kubeSession{t: then, rec: rec, eks: eks, server: srv}
		_ = s.settle()
		t.afterSave = append(t.afterSave, s.publish)
	}
}

// nextKubeWake finds the earliest moment after after, and not after now, at
// which a Kubernetes API of the region needs a settle though HyperPod does
// nothing then: the idle time of a node Karpenter scales is up, or a Job
// or a program has something due (kubeClusterRec.Wakes). It returns the
// EKS cluster's ARN and the moment.
func (t *txn) nextKubeWake(after time.Time) (string, time.Time, bool) {
	ks := t.st.Kube
	if ks == nil {
		return "", time.Time{}, false
	}
	var arn string
	var best time.Time
	for _, key := range sortedKeys(ks.Clusters) {
		rec := ks.Clusters[key]
		if rec.Region != t.region || (len(rec.KarpenterIdle) == 0 && len(rec.Wakes) == 0) || !t.kubeAlive(rec.Region, rec.Name, rec.EKSID) {
			continue
		}
		consider := func(at time.Time) {
			if at.IsZero() || !at.After(after) || at.After(t.now) || (arn != "" && !at.Before(best)) {
				return
			}
			arn, best = t.rs.EKS[rec.Name].Arn, at
		}
		for _, idle := range rec.KarpenterIdle {
			consider(idle.Until)
		}
		if at, ok := rec.nextWake(after, t.now); ok {
			consider(at)
		}
	}
	return arn, best, arn != ""
}

// scheduler reads the stored nodes and pods.
func (s *kubeSession) scheduler() (*kubeScheduler, error) {
	sc := &kubeScheduler{s: s, node: map[string]*kubeSchedNode{}}
	nodes, err := s.list(kubeNodesKey, "")
	if err != nil {
		return nil, err
	}
	for _, obj := range nodes {
		var n corev1.Node
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &n); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decode node %s: %w", obj.GetName(), err))
		}
		sn := &kubeSchedNode{
			name: n.Name, labels: n.Labels, taints: n.Spec.Taints, unschedulable: n.Spec.Unschedulable,
			allocatable: n.Status.Allocatable, requested: corev1.ResourceList{},
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				sn.ready = c.Status == corev1.ConditionTrue
			}
		}
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				sn.hostIP = a.Address
			}
		}
		sc.nodes = append(sc.nodes, sn)
		sc.node[sn.name] = sn
	}
	// Pods are decoded straight into their Go type: there may be many, and
	// few of them change.
	for key, raw := range s.rec.Objects[kubePodsKey] {
		p := &kubeSchedPod{}
		if err := json.Unmarshal(raw, &p.pod); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decode pod %s: %w", key, err))
		}
		p.req = kubePodRequests(&p.pod.Spec)
		sc.pods = append(sc.pods, p)
	}
	slices.SortStableFunc(sc.pods, func(a, b *kubeSchedPod) int {
		if c := a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.key(), b.key())
	})
	for _, p := range sc.pods {
		if n := sc.node[p.pod.Spec.NodeName]; n != nil && p.active() {
			n.add(p)
		}
	}
	return sc, nil
}

// add accounts for pod p bound to n.
func (n *kubeSchedNode) add(p *kubeSchedPod) {
	for name, q := range p.req {
		sum := n.requested[name]
		sum.Add(q)
		n.requested[name] = sum
	}
	if !p.daemon() {
		n.workloads++
	}
}

// evict deletes the pods whose node is gone, and those on a node with a
// NoExecute taint they do not tolerate.
func (sc *kubeScheduler) evict() {
	kept := sc.pods[:0]
	for _, p := range sc.pods {
		if p.pod.Spec.NodeName == "" || !p.active() {
			kept = append(kept, p)
			continue
		}
		n := sc.node[p.pod.Spec.NodeName]
		if n != nil && kubeUntolerated(p.pod.Spec.Tolerations, n.taints, corev1.TaintEffectNoExecute) == nil {
			kept = append(kept, p)
			continue
		}
		sc.remove(p)
		delete(sc.s.rec.PodStarts, string(p.pod.UID))
		if n != nil {
			n.remove(p)
		}
	}
	sc.pods = kept
}

// remove takes back what add accounted for.
func (n *kubeSchedNode) remove(p *kubeSchedPod) {
	for name, q := range p.req {
		sum := n.requested[name]
		sum.Sub(q)
		n.requested[name] = sum
	}
	if !p.daemon() {
		n.workloads--
	}
}

// start runs the bound pods whose start time has come. A pod bound by its
// creator (spec.nodeName set) counts as bound when first seen.
func (sc *kubeScheduler) start() {
	s := sc.s
	starting := map[string]bool{}
	for _, p := range sc.pods {
		if p.pod.Spec.NodeName == "" || !p.active() || p.pod.Status.Phase == corev1.PodRunning {
			continue
		}
		uid := string(p.pod.UID)
		starting[uid] = true
		at, ok := s.rec.PodStarts[uid]
		if !ok {
			at = sc.boundStatus(p, sc.node[p.pod.Spec.NodeName])
		}
		// The kubelet mounts the pod's volumes before its containers
		// start: it waits for their CSI drivers.
		if missing, since := s.csiMissing(&p.pod); missing != "" {
			continue
		} else if since.After(at) {
			at = since
		}
		if s.t.now.Before(at) {
			continue
		}
		if i, image := s.t.kubeUnpullable(&p.pod); i >= 0 {
			kubePullFailedStatus(&p.pod, image, cmp.Or(s.t.st.Faults[i].Message, "not found"))
			sc.store(p)
			continue
		}
		kubeRunningStatus(&p.pod, at)
		if kubeServingKind(&p.pod) != "" {
			if s.rec.ServerStarts == nil {
				s.rec.ServerStarts = map[string]time.Time{}
			}
			s.rec.ServerStarts[uid] = at // exact: the pod's timestamps keep seconds
		}
		delete(s.rec.PodStarts, uid)
		sc.store(p)
	}
	for uid := range s.rec.PodStarts {
		if !starting[uid] {
			delete(s.rec.PodStarts, uid) // the pod is gone
		}
	}
}

// bind binds the pods that wait for a node where one fits, and returns
// those that fit none.
func (sc *kubeScheduler) bind() []*kubeSchedPod {
	var unschedulable []*kubeSchedPod
	for _, p := range sc.pods {
		if p.pod.Spec.NodeName != "" || !p.active() {
			continue
		}
		if name := p.pod.Spec.SchedulerName; name != "" && name != kubeDefaultScheduler {
			continue
		}
		if len(p.pod.Spec.SchedulingGates) > 0 {
			var gates []string
			for _, g := range p.pod.Spec.SchedulingGates {
				gates = append(gates, g.Name)
			}
			sc.pending(p, corev1.PodReasonSchedulingGated, "Scheduling is blocked due to non-empty scheduling gates: "+strings.Join(gates, ", "))
			continue
		}
		// Claims not yet bound hold a pod back before any node is tried,
		// and no node Karpenter could add would change that.
		if message, err := sc.s.claimsMessage(p); err != nil || message != "" {
			if err == nil {
				sc.pending(p, corev1.PodReasonUnschedulable, message)
			}
			continue
		}
		n, message := sc.place(p)
		if n == nil {
			sc.pending(p, corev1.PodReasonUnschedulable, message)
			unschedulable = append(unschedulable, p)
			continue
		}
		p.pod.Spec.NodeName = n.name
		n.add(p)
		sc.boundStatus(p, n)
	}
	return unschedulable
}

// place finds the node for p: of those it fits, the one with the most
// cpu and memory left, then the first by name. When none fits, it returns
// the scheduler's message.
func (sc *kubeScheduler) place(p *kubeSchedPod) (*kubeSchedNode, string) {
	if len(sc.nodes) == 0 {
		return nil, "no nodes available to schedule pods"
	}
	var best *kubeSchedNode
	bestScore := -1.0
	reasons := map[string]int{}
	for _, n := range sc.nodes {
		if why := kubeFit(p, n); len(why) > 0 {
			for _, r := range why {
				reasons[r]++
			}
			continue
		}
		if score := n.roomLeft(p); score > bestScore {
			best, bestScore = n, score
		}
	}
	if best != nil {
		return best, ""
	}
	return nil, kubeUnschedulableMessage(len(sc.nodes), reasons)
}

// kubeUnschedulableMessage words why a pod fits none of total nodes as the
// scheduler does: "0/3 nodes are available: 1 node(s) had untolerated taint
// {gpu: true}, 2 Insufficient nvidia.com/gpu."
func kubeUnschedulableMessage(total int, reasons map[string]int) string {
	var parts []string
	for r, count := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", count, r))
	}
	slices.Sort(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", total, strings.Join(parts, ", "))
}

// roomLeft scores n for p: the share of cpu and memory left once p runs
// there (the scheduler's least-allocated scoring).
func (n *kubeSchedNode) roomLeft(p *kubeSchedPod) float64 {
	score := 0.0
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		alloc := n.allocatable[name]
		if alloc.IsZero() {
			continue
		}
		left := alloc.DeepCopy()
		left.Sub(n.requested[name])
		left.Sub(p.req[name])
		score += left.AsApproximateFloat64() / alloc.AsApproximateFloat64()
	}
	return score
}
