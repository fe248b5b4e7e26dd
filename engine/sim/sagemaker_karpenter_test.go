package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/cloud"
)

var (
	nodePools   = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	nodeClasses = schema.GroupVersionResource{Group: "karpenter.sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodnodeclasses"}
)

// autoscaled is a fixture with a HyperPod cluster "hp" that provisions
// continuously and recovers nodes itself, its groups at count 0, and the
// clients of its EKS cluster.
type autoscaled struct {
	*fixture
	h    hyperPod
	kc   *cloud.KubeClients
	role string
}

// group is an instance group spec with count 0 of typ.
type group struct{ name, typ string }

// newAutoscaled creates the cluster and, with enable, turns managed
// Karpenter on and waits until it is installed.
func newAutoscaled(t *testing.T, enable bool, groups ...group) *autoscaled {
	f := newFixture(t)
	a := &autoscaled{fixture: f, h: f.hyperPod()}
	f.devicePlugins("eks")
	in := continuous(a.h.input("hp", "", 0, 0))
	for _, g := range groups {
		in.InstanceGroups = append(in.InstanceGroups, a.h.spec(g.name, g.typ, 0))
	}
	f.createReady(in)
	a.role = f.role("HyperPodAutoscaler")
	if enable {
		ok(f.p.SageMaker.UpdateCluster(f.ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), ClusterRole: aws.String(a.role),
			AutoScaling: &smtypes.ClusterAutoScalingConfig{Mode: smtypes.ClusterAutoScalingModeEnable, AutoScalerType: smtypes.ClusterAutoScalerTypeKarpenter}})).must(t)
		f.advance(hpAutoScalingTime)
		if s := f.hpStatus("hp").AutoScaling.Status; s != smtypes.ClusterAutoScalingStatusInservice {
			t.Fatalf("the autoscaler is %s", s)
		}
	}
	a.kc = f.kubeClients("eks")
	return a
}

// apply creates a Karpenter object.
func (a *autoscaled) apply(gvr schema.GroupVersionResource, obj *unstructured.Unstructured) {
	a.t.Helper()
	ok(a.kc.Dynamic.Resource(gvr).Create(a.ctx, obj, metav1.CreateOptions{})).must(a.t)
}

// read reads a Karpenter object.
func (a *autoscaled) read(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	a.t.Helper()
	return ok(a.kc.Dynamic.Resource(gvr).Get(a.ctx, name, metav1.GetOptions{})).must(a.t)
}

func nodeClass(name string, groups ...string) *unstructured.Unstructured {
	var gs []any
	for _, g := range groups {
		gs = append(gs, g)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sagemaker.amazonaws.com/v1", "kind": "HyperpodNodeClass",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"instanceGroups": gs},
	}}
}

// nodePool is a NodePool of class; extra is merged into its spec.
func nodePool(name, class string, extra map[string]any) *unstructured.Unstructured {
	spec := map[string]any{"template": map[string]any{"spec": map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.sagemaker.amazonaws.com", "kind": "HyperpodNodeClass", "name": class},
	}}}
	for k, v := range extra {
		spec[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// condition is a status condition of a Karpenter object, as "status
// reason: message".
func condition(obj *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m := c.(map[string]any)
		if m["type"] == typ {
			return m["status"].(string) + " " + m["reason"].(string) + ": " + m["message"].(string)
		}
	}
	return ""
}

func (a *autoscaled) target(name string) int32 { return *a.group("hp", name).TargetCount }

func (a *autoscaled) createPods(spec []podSpec, names ...string) {
	a.t.Helper()
	for _, n := range names {
		ok(a.kc.Core.CoreV1().Pods("default").Create(a.ctx, testPod(n, spec...), metav1.CreateOptions{})).must(a.t)
	}
}

// eventsSaying lists the cluster's event descriptions that contain text.
func (a *autoscaled) eventsSaying(text string) []string {
	a.t.Helper()
	var out []string
	for _, e := range a.events(&sagemaker.ListClusterEventsInput{ClusterName: aws.String("hp"), MaxResults: aws.Int32(100)}) {
		if strings.Contains(*e.Description, text) {
			out = append(out, *e.Description)
		}
	}
	return out
}

func TestKarpenterScalesAGroupFromZeroAndBack(t *testing.T) {
	a := newAutoscaled(t, true, group{"gpu", "ml.g5.xlarge"})
	a.apply(nodeClasses, nodeClass("gpu", "gpu"))
	a.apply(nodePools, nodePool("gpu", "gpu", nil))
	if c := condition(a.read(nodeClasses, "gpu"), "Ready"); c != "True Ready: " {
		t.Errorf("node class Ready: %q", c)
	}
	pool := a.read(nodePools, "gpu")
	if c := condition(pool, "Ready"); c != "True Ready: " {
		t.Errorf("node pool Ready: %q", c)
	}
	if n, _, _ := unstructured.NestedString(pool.Object, "status", "resources", "nodes"); n != "0" {
		t.Errorf("node pool resources: %v", pool.Object["status"])
	}

	gpuPod := []podSpec{limiting("nvidia.com/gpu", "1")}
	a.createPods(gpuPod, "train")
	p := podIn(a.fixture, a.kc.Core, "train")
	if c := podCondition(p, corev1.PodScheduled); c.Reason != corev1.PodReasonUnschedulable || c.Message != "no nodes available to schedule pods" {
		t.Errorf("the pod before its node: %+v", c)
	}
	if got := a.target("gpu"); got != 1 {
		t.Fatalf("target count %d after a GPU pod came, want 1", got)
	}
	if ev := a.eventsSaying("Karpenter (NodePool gpu) is adding 1 node(s) to instance group gpu through BatchAddClusterNodes as " + a.role); len(ev) != 1 {
		t.Errorf("Karpenter's events: %v", a.eventsSaying("Karpenter"))
	}
	// The node on its way serves the pod: no second node.
	a.advance(hpNodeBootTime / 2)
	podIn(a.fixture, a.kc.Core, "train")
	if got := a.target("gpu"); got != 1 {
		t.Errorf("target count %d while the node boots", got)
	}

	a.advance(hpNodeBootTime / 2)
	p = podIn(a.fixture, a.kc.Core, "train")
	nodes := a.kubeNodes()
	if len(nodes) != 1 || p.Spec.NodeName != kubeNodeName(nodes[0].InstanceID) {
		t.Fatalf("the pod is on %q; nodes %+v", p.Spec.NodeName, nodes)
	}
	a.advance(kubePodStartTime)
	if p := podIn(a.fixture, a.kc.Core, "train"); p.Status.Phase != corev1.PodRunning {
		t.Errorf("the pod is %s", p.Status.Phase)
	}
	res, _, _ := unstructured.NestedStringMap(a.read(nodePools, "gpu").Object, "status", "resources")
	if res["nodes"] != "1" || res["nvidia.com/gpu"] != "1" || res["cpu"] != "4" || res["memory"] != "16Gi" {
		t.Errorf("node pool resources with a node: %v", res)
	}

	// Idle for consolidateAfter, the node goes and the group is back to 0.
	if err := a.kc.Core.CoreV1().Pods("default").Delete(a.ctx, "train", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	a.clock.Advance(scaled(karpenterConsolidateAfter) - time.Millisecond)
	if got := a.target("gpu"); got != 1 {
		t.Errorf("target count %d before consolidateAfter", got)
	}
	a.clock.Advance(time.Millisecond)
	if got := a.target("gpu"); got != 0 {
		t.Errorf("target count %d after consolidateAfter, want 0", got)
	}
	if ev := a.eventsSaying("Karpenter (NodePool gpu) is removing node " + nodes[0].InstanceID); len(ev) != 1 {
		t.Errorf("Karpenter's events: %v", a.eventsSaying("Karpenter"))
	}
	a.advance(hpNodeShutdownTime)
	if n := a.kubeNodes(); len(n) != 0 {
		t.Errorf("nodes left: %+v", n)
	}
	calls := a.w.Calls()[svcSageMaker]
	if calls["BatchAddClusterNodes"] != 0 || calls["BatchDeleteClusterNodes"] != 0 {
		t.Errorf("Karpenter's calls were counted as the client's: %v", calls)
	}
}

func TestKarpenterStaysStillWithoutAutoscaling(t *testing.T) {
	cases := []struct {
		name    string
		enabled bool // before setup
		setup   func(a *autoscaled)
		wait    time.Duration
	}{
		{"autoscaling never enabled", false, func(*autoscaled) {}, hpNodeBootTime},
		{"the autoscaler still installing", false, func(a *autoscaled) {
			ok(a.p.SageMaker.UpdateCluster(a.ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), ClusterRole: aws.String(a.role),
				AutoScaling: &smtypes.ClusterAutoScalingConfig{Mode: smtypes.ClusterAutoScalingModeEnable}})).must(a.t)
		}, hpAutoScalingTime - time.Second},
		{"autoscaling disabled", true, func(a *autoscaled) {
			ok(a.p.SageMaker.UpdateCluster(a.ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"),
				AutoScaling: &smtypes.ClusterAutoScalingConfig{Mode: smtypes.ClusterAutoScalingModeDisable}})).must(a.t)
		}, hpNodeBootTime},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAutoscaled(t, c.enabled, group{"gpu", "ml.g5.xlarge"})
			c.setup(a)
			a.apply(nodeClasses, nodeClass("gpu", "gpu"))
			a.apply(nodePools, nodePool("gpu", "gpu", nil))
			a.createPods([]podSpec{limiting("nvidia.com/gpu", "1")}, "train")
			a.advance(c.wait)
			if got := a.target("gpu"); got != 0 {
				t.Errorf("target count %d", got)
			}
			if p := podIn(a.fixture, a.kc.Core, "train"); p.Spec.NodeName != "" || podCondition(p, corev1.PodScheduled).Reason != corev1.PodReasonUnschedulable {
				t.Errorf("pod on %q: %+v", p.Spec.NodeName, p.Status.Conditions)
			}
			if c := condition(a.read(nodePools, "gpu"), "Ready"); c != "" {
				t.Errorf("a NodePool got a status without Karpenter: %q", c)
			}
		})
	}
}

func TestKarpenterLimitsAndCapacity(t *testing.T) {
	cases := []struct {
		name   string
		typ    string
		limits map[string]any
		fault  string
		pods   int
		gpus   string // per pod
		want   int32  // target count
	}{
		{"a node per pod", "ml.g5.xlarge", nil, "", 3, "1", 3},
		{"pods packed on few nodes", "ml.g5.12xlarge", nil, "", 6, "1", 2},
		{"gpu limit", "ml.g5.xlarge", map[string]any{"nvidia.com/gpu": "2"}, "", 3, "1", 2},
		{"cpu limit", "ml.g5.xlarge", map[string]any{"cpu": "8"}, "", 3, "1", 2},
		{"node limit", "ml.g5.xlarge", map[string]any{"nodes": int64(1)}, "", 3, "1", 1},
		{"zone capacity", "ml.p5.48xlarge", nil, "quota:instanceType=ml.p5.48xlarge,value=10", 5, "8", 4},
		{"quota", "ml.g5.xlarge", nil, "quota:instanceType=ml.g5.xlarge,value=2", 3, "1", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAutoscaled(t, true, group{"gpu", c.typ})
			if c.fault != "" {
				ok(a.w.InjectFault(ok(ParseFault(c.fault)).must(t))).must(t)
			}
			a.apply(nodeClasses, nodeClass("gpu", "gpu"))
			var extra map[string]any
			if c.limits != nil {
				extra = map[string]any{"limits": c.limits}
			}
			a.apply(nodePools, nodePool("gpu", "gpu", extra))
			var names []string
			for i := range c.pods {
				names = append(names, string(rune('a'+i)))
			}
			a.createPods([]podSpec{limiting("nvidia.com/gpu", c.gpus)}, names...)
			if got := a.target("gpu"); got != c.want {
				t.Fatalf("target count %d, want %d", got, c.want)
			}
			a.advance(hpNodeBootTime + kubePodStartTime)
			running := 0
			for _, n := range names {
				if podIn(a.fixture, a.kc.Core, n).Status.Phase == corev1.PodRunning {
					running++
				}
			}
			gpus, per := kubeNodeCapacity(c.typ)["nvidia.com/gpu"], resource.MustParse(c.gpus)
			perNode := int(gpus.Value() / per.Value())
			if want := min(c.pods, int(c.want)*perNode); running != want {
				t.Errorf("%d pods run, want %d", running, want)
			}
			if got := a.target("gpu"); got != c.want {
				t.Errorf("target count %d once the nodes are up, want %d", got, c.want)
			}
		})
	}
}

func TestKarpenterChoosesAGroup(t *testing.T) {
	inType := func(typ string) map[string]any {
		return map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.sagemaker.amazonaws.com", "kind": "HyperpodNodeClass", "name": "gpus"},
			"requirements": []any{map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []any{typ}}},
		}}}
	}
	cases := []struct {
		name string
		pool map[string]any
		pod  []podSpec
		want string // the group that grows
	}{
		{"the first group that fits", nil, []podSpec{limiting("nvidia.com/gpu", "1")}, "small"},
		{"a pod too big for the first", nil, []podSpec{limiting("nvidia.com/gpu", "2")}, "big"},
		{"a pod selecting a group", nil, []podSpec{limiting("nvidia.com/gpu", "1"), selecting(kubeLabelGroup, "big")}, "big"},
		{"the pool's requirements", inType("ml.g5.12xlarge"), []podSpec{limiting("nvidia.com/gpu", "1")}, "big"},
		{"nothing fits", nil, []podSpec{limiting("nvidia.com/gpu", "8")}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAutoscaled(t, true, group{"small", "ml.g5.xlarge"}, group{"big", "ml.g5.12xlarge"})
			a.apply(nodeClasses, nodeClass("gpus", "small", "big"))
			a.apply(nodePools, nodePool("gpus", "gpus", c.pool))
			a.createPods(c.pod, "p")
			got := map[string]int32{"small": a.target("small"), "big": a.target("big")}
			want := map[string]int32{"small": 0, "big": 0}
			if c.want != "" {
				want[c.want] = 1
			}
			if got["small"] != want["small"] || got["big"] != want["big"] {
				t.Errorf("target counts %v, want %v", got, want)
			}
		})
	}
}

func TestKarpenterNodeClassNamesMissingGroups(t *testing.T) {
	a := newAutoscaled(t, true, group{"gpu", "ml.g5.xlarge"})
	a.apply(nodeClasses, nodeClass("gpu", "gpu", "ghost"))
	a.apply(nodePools, nodePool("gpu", "gpu", nil))
	a.apply(nodePools, nodePool("orphan", "nowhere", nil))
	if c := condition(a.read(nodeClasses, "gpu"), "Ready"); !strings.HasPrefix(c, "False InstanceGroupNotFound: instance group(s) ghost not found in HyperPod cluster hp") {
		t.Errorf("node class Ready: %q", c)
	}
	pool := a.read(nodePools, "gpu")
	if c := condition(pool, "NodeClassReady"); c != `False NodeClassNotReady: HyperpodNodeClass "gpu" is not ready` {
		t.Errorf("NodeClassReady: %q", c)
	}
	if c := condition(pool, "Ready"); c != "False UnhealthyDependents: NodeClassReady=False" {
		t.Errorf("Ready: %q", c)
	}
	if c := condition(a.read(nodePools, "orphan"), "NodeClassReady"); c != `False NodeClassNotFound: HyperpodNodeClass "nowhere" not found` {
		t.Errorf("a pool of a missing class: %q", c)
	}
	a.createPods([]podSpec{limiting("nvidia.com/gpu", "1")}, "train")
	if got := a.target("gpu"); got != 0 {
		t.Errorf("a pool that is not ready grew its group to %d", got)
	}

	ok(a.p.SageMaker.UpdateCluster(a.ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"),
		InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{a.h.spec("ghost", "ml.m5.xlarge", 0)}})).must(t)
	if c := condition(a.read(nodeClasses, "gpu"), "Ready"); c != "True Ready: " {
		t.Errorf("node class Ready once its groups exist: %q", c)
	}
	if got := a.target("gpu"); got != 1 {
		t.Errorf("target count %d once the pool is ready, want 1", got)
	}
}

func TestKarpenterSurvivesARestart(t *testing.T) {
	a := newAutoscaled(t, true, group{"gpu", "ml.g5.xlarge"})
	a.apply(nodeClasses, nodeClass("gpu", "gpu"))
	a.apply(nodePools, nodePool("gpu", "gpu", map[string]any{"disruption": map[string]any{"consolidateAfter": "5m"}}))
	restart := func() {
		a.w = a.world()
		a.kc = a.kubeClients("eks")
	}
	a.createPods([]podSpec{limiting("nvidia.com/gpu", "1")}, "train")
	restart()
	a.advance(hpNodeBootTime)
	if p := podIn(a.fixture, a.kc.Core, "train"); p.Spec.NodeName == "" {
		t.Fatalf("the pod did not land after a restart: %+v", p.Status.Conditions)
	}
	restart()
	a.advance(kubePodStartTime)
	if p := podIn(a.fixture, a.kc.Core, "train"); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("the pod is %s after a restart", p.Status.Phase)
	}
	if err := a.kc.Core.CoreV1().Pods("default").Delete(a.ctx, "train", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	a.advance(4 * time.Minute)
	restart()
	if got := a.target("gpu"); got != 1 {
		t.Errorf("target count %d before consolidateAfter", got)
	}
	a.advance(time.Minute)
	if got := a.target("gpu"); got != 0 {
		t.Errorf("target count %d once idle for consolidateAfter across a restart, want 0", got)
	}
}

func TestAutoScalingPrerequisites(t *testing.T) {
	enable := &smtypes.ClusterAutoScalingConfig{Mode: smtypes.ClusterAutoScalingModeEnable, AutoScalerType: smtypes.ClusterAutoScalerTypeKarpenter}
	cases := []struct {
		name       string
		continuous bool
		recovery   smtypes.ClusterNodeRecovery
		enabled    bool // autoscaling already on
		in         func(role string) *sagemaker.UpdateClusterInput
		want       string // in the ValidationException's message; "" when accepted
	}{
		{"without Continuous provisioning", false, smtypes.ClusterNodeRecoveryAutomatic, false,
			func(role string) *sagemaker.UpdateClusterInput {
				return &sagemaker.UpdateClusterInput{AutoScaling: enable, ClusterRole: aws.String(role)}
			}, "NodeProvisioningMode Continuous"},
		{"switching to Continuous at the same time", false, smtypes.ClusterNodeRecoveryAutomatic, false,
			func(role string) *sagemaker.UpdateClusterInput {
				return &sagemaker.UpdateClusterInput{AutoScaling: enable, ClusterRole: aws.String(role), NodeProvisioningMode: smtypes.ClusterNodeProvisioningModeContinuous}
			}, ""},
		{"without automatic node recovery", true, smtypes.ClusterNodeRecoveryNone, false,
			func(role string) *sagemaker.UpdateClusterInput {
				return &sagemaker.UpdateClusterInput{AutoScaling: enable, ClusterRole: aws.String(role)}
			}, "NodeRecovery Automatic"},
		{"without a cluster role", true, smtypes.ClusterNodeRecoveryAutomatic, false,
			func(string) *sagemaker.UpdateClusterInput { return &sagemaker.UpdateClusterInput{AutoScaling: enable} }, "ClusterRole"},
		{"with a role that does not exist", true, smtypes.ClusterNodeRecoveryAutomatic, false,
			func(string) *sagemaker.UpdateClusterInput {
				return &sagemaker.UpdateClusterInput{AutoScaling: enable, ClusterRole: aws.String("arn:aws:iam::123456789012:role/nope")}
			}, "does not exist"},
		{"turning node recovery off while on", true, smtypes.ClusterNodeRecoveryAutomatic, true,
			func(string) *sagemaker.UpdateClusterInput {
				return &sagemaker.UpdateClusterInput{NodeRecovery: smtypes.ClusterNodeRecoveryNone}
			}, "NodeRecovery Automatic"},
		{"changing the role while on", true, smtypes.ClusterNodeRecoveryAutomatic, true,
			func(string) *sagemaker.UpdateClusterInput {
				return &sagemaker.UpdateClusterInput{ClusterRole: aws.String("arn:aws:iam::123456789012:role/HyperPodExec")}
			}, "cannot change while autoscaling is enabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			in := h.input("hp", "ml.m5.xlarge", 1, 0)
			in.NodeRecovery = c.recovery
			if c.continuous {
				in = continuous(in)
			}
			role := f.role("HyperPodAutoscaler")
			if c.enabled {
				in.AutoScaling, in.ClusterRole = enable, aws.String(role)
			}
			f.createReady(in)
			up := c.in(role)
			up.ClusterName = aws.String("hp")
			err := f.update(up)
			if c.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			mustCode(t, err, "ValidationException")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one about %q", err, c.want)
			}
		})
	}
}

func TestKarpenterHistoryDoesNotDependOnReads(t *testing.T) {
	a := newAutoscaled(t, true, group{"gpu", "ml.g5.xlarge"})
	a.apply(nodeClasses, nodeClass("gpu", "gpu"))
	a.apply(nodePools, nodePool("gpu", "gpu", nil))
	a.createPods([]podSpec{limiting("nvidia.com/gpu", "1")}, "train")
	asked := a.clock.Now()

	// Nobody looks while the node boots and the pod starts: the pod still
	// ran once the node joined.
	a.advance(time.Hour)
	p := podIn(a.fixture, a.kc.Core, "train")
	want := asked.Add(scaled(hpNodeBootTime + kubePodStartTime)).Truncate(time.Second)
	if p.Status.Phase != corev1.PodRunning || !p.Status.ContainerStatuses[0].State.Running.StartedAt.Time.Equal(want) {
		t.Errorf("pod %s, started %v, want Running since %v", p.Status.Phase, p.Status.ContainerStatuses, want)
	}

	// Nobody looks once the pod is gone: the node was removed when its idle
	// time was up, and has shut down since.
	if err := a.kc.Core.CoreV1().Pods("default").Delete(a.ctx, "train", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	a.clock.Advance(scaled(karpenterConsolidateAfter + hpNodeShutdownTime))
	if n := a.kubeNodes(); len(n) != 0 || a.target("gpu") != 0 {
		t.Errorf("nodes %+v, target count %d", n, a.target("gpu"))
	}
}

func TestKarpenterIgnoresDaemonSetPods(t *testing.T) {
	a := newAutoscaled(t, true, group{"gpu", "ml.g5.xlarge"})
	a.apply(nodeClasses, nodeClass("gpu", "gpu"))
	a.apply(nodePools, nodePool("gpu", "gpu", nil))
	pods := a.kc.Core.CoreV1().Pods("default")

	// A DaemonSet pod with nowhere to run does not grow the group.
	daemon := func(name, node string) *corev1.Pod {
		p := testPod(name, requesting("cpu", "100m"))
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "1", Controller: aws.Bool(true)}}
		p.Spec.NodeName = node
		return p
	}
	ok(pods.Create(a.ctx, daemon("agent-pending", ""), metav1.CreateOptions{})).must(t)
	if got := a.target("gpu"); got != 0 {
		t.Errorf("a DaemonSet pod grew the group to %d", got)
	}
	if err := pods.Delete(a.ctx, "agent-pending", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	a.createPods([]podSpec{limiting("nvidia.com/gpu", "1")}, "train")
	a.advance(hpNodeBootTime)
	node := podIn(a.fixture, a.kc.Core, "train").Spec.NodeName
	ok(pods.Create(a.ctx, daemon("agent", node), metav1.CreateOptions{})).must(t)
	a.advance(kubePodStartTime)
	if p := podIn(a.fixture, a.kc.Core, "agent"); p.Status.Phase != corev1.PodRunning {
		t.Errorf("a pod created on its node is %s", p.Status.Phase)
	}
	if err := pods.Delete(a.ctx, "train", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The node runs only a DaemonSet pod: it is empty to Karpenter.
	a.advance(karpenterConsolidateAfter + hpNodeShutdownTime)
	if got := a.target("gpu"); got != 0 {
		t.Errorf("target count %d with only a DaemonSet pod left", got)
	}
	if _, err := pods.Get(a.ctx, "agent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the DaemonSet pod outlived its node: %v", err)
	}
}
