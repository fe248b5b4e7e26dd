package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// podSpec changes a test pod's spec.
type podSpec func(*corev1.PodSpec)

// testPod is a pod of one container in namespace default.
func testPod(name string, mods ...podSpec) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "public.ecr.aws/docker/library/busybox:1.37"}}},
	}
	for _, m := range mods {
		m(&p.Spec)
	}
	return p
}

// requesting sets the container's requests, "name=quantity" pairs.
func requesting(pairs ...string) podSpec {
	return func(s *corev1.PodSpec) { s.Containers[0].Resources.Requests = resourceList(pairs) }
}

// limiting sets the container's limits only, as GPU pods usually do.
func limiting(pairs ...string) podSpec {
	return func(s *corev1.PodSpec) { s.Containers[0].Resources.Limits = resourceList(pairs) }
}

func resourceList(pairs []string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

// tolerating adds a toleration of key=value:NoSchedule, or of every taint
// when key is empty.
func tolerating(key, value string) podSpec {
	return func(s *corev1.PodSpec) {
		t := corev1.Toleration{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
		if key == "" {
			t = corev1.Toleration{Operator: corev1.TolerationOpExists}
		}
		s.Tolerations = append(s.Tolerations, t)
	}
}

func selecting(key, value string) podSpec {
	return func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{key: value} }
}

func requiring(exprs ...corev1.NodeSelectorRequirement) podSpec {
	return func(s *corev1.PodSpec) {
		s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}},
		}}}
	}
}

// podIn reads a pod of namespace default.
func podIn(f *fixture, kc kubernetes.Interface, name string) *corev1.Pod {
	f.t.Helper()
	return ok(kc.CoreV1().Pods("default").Get(f.ctx, name, metav1.GetOptions{})).must(f.t)
}

func podCondition(p *corev1.Pod, typ corev1.PodConditionType) corev1.PodCondition {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return corev1.PodCondition{}
}

// schedFixture is a HyperPod cluster "hp" with one ml.m5.xlarge node in
// group "cpu" and one ml.g5.xlarge node in group "gpu", labelled
// team=vision and tainted gpu=true:NoSchedule, and the clients of its EKS
// cluster. It returns the node name of each group.
func schedFixture(t *testing.T) (*fixture, kubernetes.Interface, map[string]string) {
	f := newFixture(t)
	h := f.hyperPod()
	f.devicePlugins("eks")
	in := h.input("hp", "", 0, 0)
	gpu := h.spec("gpu", "ml.g5.xlarge", 1)
	gpu.KubernetesConfig = &smtypes.ClusterKubernetesConfig{
		Labels: map[string]string{"team": "vision"},
		Taints: []smtypes.ClusterKubernetesTaint{{Key: aws.String("gpu"), Value: aws.String("true"), Effect: smtypes.ClusterKubernetesTaintEffectNoSchedule}},
	}
	in.InstanceGroups = []smtypes.ClusterInstanceGroupSpecification{h.spec("cpu", "ml.m5.xlarge", 1), gpu}
	f.createReady(in)
	nodes := map[string]string{}
	for _, v := range f.kubeNodes() {
		nodes[v.InstanceGroup] = kubeNodeName(v.InstanceID)
	}
	return f, f.kubeClients("eks").Core, nodes
}

func TestKubePodsBindWhereTheyFit(t *testing.T) {
	const tainted = "1 node(s) had untolerated taint {gpu: true}"
	cases := []struct {
		name    string
		spec    []podSpec
		group   string // where it runs; "" when it stays Pending
		message string
	}{
		{"cpu request", []podSpec{requesting("cpu", "2", "memory", "4Gi")}, "cpu", ""},
		{"gpu without toleration", []podSpec{limiting("nvidia.com/gpu", "1")}, "",
			"0/2 nodes are available: 1 Insufficient nvidia.com/gpu, " + tainted + "."},
		{"gpu with toleration", []podSpec{limiting("nvidia.com/gpu", "1"), tolerating("gpu", "true")}, "gpu", ""},
		{"gpu with a toleration of everything", []podSpec{limiting("nvidia.com/gpu", "1"), tolerating("", "")}, "gpu", ""},
		{"toleration of another value", []podSpec{limiting("nvidia.com/gpu", "1"), tolerating("gpu", "false")}, "",
			"0/2 nodes are available: 1 Insufficient nvidia.com/gpu, " + tainted + "."},
		{"two gpus", []podSpec{limiting("nvidia.com/gpu", "2"), tolerating("gpu", "true")}, "",
			"0/2 nodes are available: 2 Insufficient nvidia.com/gpu."},
		{"too much cpu and memory", []podSpec{requesting("cpu", "8", "memory", "32Gi"), tolerating("gpu", "true")}, "",
			"0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory."},
		{"neuron devices", []podSpec{limiting("aws.amazon.com/neuron", "1"), tolerating("", "")}, "",
			"0/2 nodes are available: 2 Insufficient aws.amazon.com/neuron."},
		{"efa on types without it", []podSpec{limiting("vpc.amazonaws.com/efa", "1"), tolerating("", "")}, "",
			"0/2 nodes are available: 2 Insufficient vpc.amazonaws.com/efa."},
		{"nodeSelector", []podSpec{selecting("team", "vision"), tolerating("gpu", "true")}, "gpu", ""},
		{"nodeSelector on the instance type", []podSpec{selecting("node.kubernetes.io/instance-type", "ml.m5.xlarge")}, "cpu", ""},
		{"nodeSelector matching nothing", []podSpec{selecting("team", "nlp"), tolerating("", "")}, "",
			"0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."},
		{"affinity NotIn", []podSpec{tolerating("", ""), requiring(corev1.NodeSelectorRequirement{
			Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"ml.m5.xlarge"}})}, "gpu", ""},
		{"affinity In", []podSpec{tolerating("", ""), requiring(corev1.NodeSelectorRequirement{
			Key: kubeLabelGroup, Operator: corev1.NodeSelectorOpIn, Values: []string{"cpu", "other"}})}, "cpu", ""},
		{"affinity DoesNotExist", []podSpec{tolerating("", ""), requiring(corev1.NodeSelectorRequirement{
			Key: "team", Operator: corev1.NodeSelectorOpDoesNotExist})}, "cpu", ""},
		{"affinity Exists without toleration", []podSpec{requiring(corev1.NodeSelectorRequirement{
			Key: "team", Operator: corev1.NodeSelectorOpExists})}, "",
			"0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, " + tainted + "."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, kc, nodes := schedFixture(t)
			created := ok(kc.CoreV1().Pods("default").Create(f.ctx, testPod("p", c.spec...), metav1.CreateOptions{})).must(t)
			if created.Spec.NodeName != "" {
				t.Errorf("the create answer is already bound to %s", created.Spec.NodeName)
			}
			p := podIn(f, kc, "p")
			sched := podCondition(p, corev1.PodScheduled)
			if c.group == "" {
				if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending || sched.Status != corev1.ConditionFalse ||
					sched.Reason != corev1.PodReasonUnschedulable || sched.Message != c.message {
					t.Errorf("node %q, phase %s, PodScheduled %+v; want Pending, Unschedulable: %s", p.Spec.NodeName, p.Status.Phase, sched, c.message)
				}
				return
			}
			if p.Spec.NodeName != nodes[c.group] || sched.Status != corev1.ConditionTrue {
				t.Errorf("bound to %q (PodScheduled %+v), want the %s node %s", p.Spec.NodeName, sched, c.group, nodes[c.group])
			}
		})
	}
}

func TestKubePodStartsAfterItsLatency(t *testing.T) {
	f, kc, nodes := schedFixture(t)
	pods := kc.CoreV1().Pods("default")
	w := ok(pods.Watch(f.ctx, metav1.ListOptions{})).must(t)
	defer w.Stop()
	ok(pods.Create(f.ctx, testPod("p", requesting("cpu", "1")), metav1.CreateOptions{})).must(t)
	bound := f.clock.Now()

	p := podIn(f, kc, "p")
	ready := podCondition(p, corev1.PodReady)
	if p.Spec.NodeName != nodes["cpu"] || p.Status.Phase != corev1.PodPending || ready.Status != corev1.ConditionFalse ||
		p.Status.HostIP == "" || p.Status.QOSClass != corev1.PodQOSBurstable || p.Status.ContainerStatuses[0].State.Waiting == nil {
		t.Errorf("a pod just bound: node %q, %s, Ready %+v, host %q, %s, %+v", p.Spec.NodeName, p.Status.Phase, ready, p.Status.HostIP, p.Status.QOSClass, p.Status.ContainerStatuses)
	}
	f.clock.Advance(scaled(kubePodStartTime) - time.Millisecond)
	if p := podIn(f, kc, "p"); p.Status.Phase != corev1.PodPending {
		t.Errorf("before its start latency the pod is %s", p.Status.Phase)
	}
	f.clock.Advance(time.Millisecond)
	p = podIn(f, kc, "p")
	st := p.Status.ContainerStatuses
	if p.Status.Phase != corev1.PodRunning || podCondition(p, corev1.PodReady).Status != corev1.ConditionTrue || len(st) != 1 || !st[0].Ready || st[0].State.Running == nil {
		t.Fatalf("after its start latency: %s %+v %+v", p.Status.Phase, p.Status.Conditions, st)
	}
	if want := bound.Add(scaled(kubePodStartTime)).Truncate(time.Second); !st[0].State.Running.StartedAt.Time.Equal(want) {
		t.Errorf("started at %v, want %v", st[0].State.Running.StartedAt, want)
	}

	// Watchers see the pod as created, then bound, then running.
	var seen []string
	for len(seen) < 3 {
		select {
		case ev := <-w.ResultChan():
			p := ev.Object.(*corev1.Pod)
			seen = append(seen, fmt.Sprintf("%s %s %q", ev.Type, p.Status.Phase, p.Spec.NodeName))
		default:
			t.Fatalf("events %v, want 3", seen)
		}
	}
	want := []string{`ADDED  ""`, fmt.Sprintf("MODIFIED Pending %q", nodes["cpu"]), fmt.Sprintf("MODIFIED Running %q", nodes["cpu"])}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v", seen, want)
	}
}

func TestKubePodsShareANode(t *testing.T) {
	f, kc, nodes := schedFixture(t)
	pods := kc.CoreV1().Pods("default")
	gpu := []podSpec{limiting("nvidia.com/gpu", "1"), tolerating("gpu", "true")}
	ok(pods.Create(f.ctx, testPod("first", gpu...), metav1.CreateOptions{})).must(t)
	f.clock.Advance(time.Second)
	ok(pods.Create(f.ctx, testPod("second", gpu...), metav1.CreateOptions{})).must(t)
	if p := podIn(f, kc, "second"); p.Spec.NodeName != "" ||
		podCondition(p, corev1.PodScheduled).Message != "0/2 nodes are available: 2 Insufficient nvidia.com/gpu." {
		t.Errorf("a second pod on the only GPU: %q %+v", p.Spec.NodeName, podCondition(p, corev1.PodScheduled))
	}
	if err := pods.Delete(f.ctx, "first", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p := podIn(f, kc, "second"); p.Spec.NodeName != nodes["gpu"] {
		t.Errorf("once the GPU is free the pending pod is on %q", p.Spec.NodeName)
	}
}

func TestKubeCordonedNodeTakesNoPods(t *testing.T) {
	f, kc, nodes := schedFixture(t)
	ok(kc.CoreV1().Nodes().Patch(f.ctx, nodes["cpu"], types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{})).must(t)
	ok(kc.CoreV1().Pods("default").Create(f.ctx, testPod("p"), metav1.CreateOptions{})).must(t)
	want := "0/2 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 1 node(s) were unschedulable."
	if p := podIn(f, kc, "p"); p.Spec.NodeName != "" || podCondition(p, corev1.PodScheduled).Message != want {
		t.Errorf("on %q: %+v", p.Spec.NodeName, podCondition(p, corev1.PodScheduled))
	}
	ok(kc.CoreV1().Nodes().Patch(f.ctx, nodes["cpu"], types.MergePatchType, []byte(`{"spec":{"unschedulable":false}}`), metav1.PatchOptions{})).must(t)
	if p := podIn(f, kc, "p"); p.Spec.NodeName != nodes["cpu"] {
		t.Errorf("after the node is uncordoned the pod is on %q", p.Spec.NodeName)
	}
}

func TestKubePodsLeaveNodesThatGo(t *testing.T) {
	f, kc, nodes := schedFixture(t)
	pods := kc.CoreV1().Pods("default")
	ok(pods.Create(f.ctx, testPod("cpu"), metav1.CreateOptions{})).must(t)
	ok(pods.Create(f.ctx, testPod("gpu", tolerating("gpu", "true"), selecting("team", "vision")), metav1.CreateOptions{})).must(t)
	ok(pods.Create(f.ctx, testPod("stays", tolerating("", ""), selecting("team", "vision")), metav1.CreateOptions{})).must(t)
	for _, name := range []string{"cpu", "gpu", "stays"} {
		if p := podIn(f, kc, name); p.Spec.NodeName == "" {
			t.Fatalf("pod %s is not bound", name)
		}
	}
	gone := func(name string) bool {
		_, err := pods.Get(f.ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}

	// HyperPod's NoExecute taint, once the node waits for a replacement,
	// evicts the pods that do not tolerate it.
	gpuID := nodes["gpu"][len("hyperpod-"):]
	if err := f.w.SetNodeHealthLabel("us-west-2", "eks", gpuID, HealthUnschedulablePendingReplacement); err != nil {
		t.Fatal(err)
	}
	if !gone("gpu") || gone("stays") {
		t.Errorf("after the NoExecute taint: gpu gone %v, stays gone %v", gone("gpu"), gone("stays"))
	}
	// A replaced node is a new node: the old one's pods go with it.
	f.advance(hpRecoveryDelay + hpNodeShutdownTime)
	if !gone("stays") {
		t.Errorf("a pod outlived its replaced node")
	}

	// A deleted node's pods stay while it shuts down, then go.
	cpuID := nodes["cpu"][len("hyperpod-"):]
	ok(f.p.SageMaker.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: []string{cpuID}})).must(t)
	if gone("cpu") {
		t.Errorf("the pod went before its node")
	}
	f.advance(hpNodeShutdownTime)
	if !gone("cpu") {
		t.Errorf("the pod outlived its node")
	}
	if calls := f.w.Calls()[svcKubernetes]; calls["delete pods"] != 0 {
		t.Errorf("evictions were counted as client calls: %v", calls)
	}
}

func TestKubePodsWaitForHyperPodNodes(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	kc := f.kubeClients("eks").Core
	ok(kc.CoreV1().Pods("default").Create(f.ctx, testPod("p"), metav1.CreateOptions{})).must(t)
	if p := podIn(f, kc, "p"); podCondition(p, corev1.PodScheduled).Message != "no nodes available to schedule pods" {
		t.Errorf("without nodes: %+v", podCondition(p, corev1.PodScheduled))
	}
	// A SageMaker call is enough for the pod to land once a node joins.
	f.createReady(h.input("hp", "ml.m5.xlarge", 1, 0))
	f.advance(kubePodStartTime)
	f.hpStatus("hp")
	var got *corev1.Pod
	for _, p := range ok(kc.CoreV1().Pods("").List(f.ctx, metav1.ListOptions{FieldSelector: "status.phase=Running"})).must(t).Items {
		got = &p
	}
	if got == nil || got.Spec.NodeName == "" {
		t.Errorf("the pod did not run on the node that joined: %+v", got)
	}
}
