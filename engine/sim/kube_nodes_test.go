package sim

import (
	"fmt"
	"maps"
	"slices"
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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// nodeOf reads the node of a HyperPod instance through the typed client.
func nodeOf(f *fixture, kc kubernetes.Interface, instanceID string) (*corev1.Node, error) {
	return kc.CoreV1().Nodes().Get(f.ctx, "hyperpod-"+instanceID, metav1.GetOptions{})
}

func readyOf(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func TestKubeNodesFollowHyperPod(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	in := h.input("hp", "ml.g5.xlarge", 2, 0)
	in.InstanceGroups[0].KubernetesConfig = &smtypes.ClusterKubernetesConfig{
		Labels: map[string]string{"team": "vision"},
		Taints: []smtypes.ClusterKubernetesTaint{{Key: aws.String("gpu"), Value: aws.String("true"), Effect: smtypes.ClusterKubernetesTaintEffectNoSchedule}},
	}
	ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(t)
	kc := f.kubeClients("eks").Core
	if got := ok(kc.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{})).must(t); len(got.Items) != 0 {
		t.Errorf("booting instances have nodes: %v", got.Items)
	}

	f.advance(hpCreateTime)
	got := ok(kc.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{LabelSelector: kubeLabelComputeType + "=HyperPod"})).must(t)
	views := f.kubeNodes()
	if len(got.Items) != 2 || len(views) != 2 {
		t.Fatalf("%d nodes for %d HyperPod instances", len(got.Items), len(views))
	}
	for _, v := range views {
		n, err := nodeOf(f, kc, v.InstanceID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			kubeLabelComputeType: "HyperPod", hpHealthLabel: HealthSchedulable, kubeLabelGroup: "workers", kubeLabelCluster: "hp",
			"node.kubernetes.io/instance-type": "ml.g5.xlarge", "topology.kubernetes.io/zone": "us-west-2a",
			"topology.kubernetes.io/region": "us-west-2", "kubernetes.io/hostname": n.Name, "team": "vision",
			"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		}
		if !maps.Equal(n.Labels, want) {
			t.Errorf("labels of %s:\n%v\nwant\n%v", n.Name, n.Labels, want)
		}
		if n.Spec.ProviderID != "aws:///us-west-2a/"+v.InstanceID {
			t.Errorf("provider id %q", n.Spec.ProviderID)
		}
		if !slices.Equal(n.Spec.Taints, []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}) {
			t.Errorf("taints %+v", n.Spec.Taints)
		}
		addrs := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: v.PrivateIP}, {Type: corev1.NodeInternalDNS, Address: v.PrivateDNS}}
		if readyOf(n) != corev1.ConditionTrue || !slices.Equal(n.Status.Addresses, addrs) || !n.CreationTimestamp.Time.Equal(v.LaunchTime) {
			t.Errorf("status %+v, created %v", n.Status, n.CreationTimestamp)
		}
		// No device plugin runs: the GPU is not advertised.
		_, gpus := n.Status.Capacity["nvidia.com/gpu"]
		if cpus := n.Status.Capacity[corev1.ResourceCPU]; gpus || cpus.Value() != 4 {
			t.Errorf("capacity %v", n.Status.Capacity)
		}
	}

	if calls := f.w.Calls()[svcKubernetes]; calls["list nodes"] != 2 || calls["get nodes"] != 2 {
		t.Errorf("calls %v", calls)
	}

	// A deleted instance's node goes NotReady while it shuts down, then
	// goes.
	gone := views[0].InstanceID
	ok(f.p.SageMaker.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: []string{gone}})).must(t)
	if n, err := nodeOf(f, kc, gone); err != nil || readyOf(n) != corev1.ConditionFalse {
		t.Errorf("node of an instance shutting down: %v %+v", err, n)
	}
	f.advance(hpNodeShutdownTime)
	if _, err := nodeOf(f, kc, gone); !apierrors.IsNotFound(err) {
		t.Errorf("node of a terminated instance: %v", err)
	}
	if got := ok(kc.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{})).must(t); len(got.Items) != 1 || got.Items[0].Name != "hyperpod-"+views[1].InstanceID {
		t.Errorf("nodes after a deletion: %v", got.Items)
	}
}

func TestKubeNodeHealthLabelAsksHyperPod(t *testing.T) {
	cases := []struct {
		label  string
		update bool // an update of the whole node, not a patch
		takes  time.Duration
		same   bool // the node keeps its instance
	}{
		{HealthUnschedulablePendingReboot, false, hpRecoveryDelay + hpNodeRebootTime, true},
		{HealthUnschedulablePendingReplacement, true, hpRecoveryDelay + hpNodeShutdownTime + hpNodeBootTime, false},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			in := h.input("hp", "ml.g5.xlarge", 1, 0)
			in.NodeRecovery = smtypes.ClusterNodeRecoveryNone // a label works whatever the setting
			f.createReady(in)
			kc := f.kubeClients("eks").Core
			logical := *f.hpNodes("hp")[0].NodeLogicalId
			id := f.kubeNodes()[0].InstanceID
			var n *corev1.Node
			var err error
			if c.update {
				n = ok(nodeOf(f, kc, id)).must(t)
				n.Labels[hpHealthLabel] = c.label
				n.Labels["owner"] = "me"
				n, err = kc.CoreV1().Nodes().Update(f.ctx, n, metav1.UpdateOptions{})
			} else {
				patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q,"owner":"me"}}}`, hpHealthLabel, c.label)
				n, err = kc.CoreV1().Nodes().Patch(f.ctx, "hyperpod-"+id, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := f.kubeNode(id); v.Health != c.label {
				t.Errorf("HyperPod's label is %q", v.Health)
			}
			noExecute := corev1.Taint{Key: hpHealthLabel, Value: c.label, Effect: corev1.TaintEffectNoExecute}
			if n.Labels[hpHealthLabel] != c.label || n.Labels["owner"] != "me" || !slices.Contains(n.Spec.Taints, noExecute) {
				t.Errorf("node after the request: labels %v, taints %v", n.Labels, n.Spec.Taints)
			}

			f.advance(c.takes)
			now := *f.hpNode("hp", logical).InstanceId
			if (now == id) != c.same {
				t.Errorf("instance %s after the recovery, %s before", now, id)
			}
			n = ok(nodeOf(f, kc, now)).must(t)
			if readyOf(n) != corev1.ConditionTrue || n.Labels[hpHealthLabel] != HealthSchedulable || len(n.Spec.Taints) != 0 {
				t.Errorf("node after the recovery: %v %v %v", readyOf(n), n.Labels, n.Spec.Taints)
			}
			if owner, kept := n.Labels["owner"]; kept != c.same || (kept && owner != "me") {
				t.Errorf("the client's label after the recovery: %q", owner)
			}
			if _, err := nodeOf(f, kc, id); c.same == apierrors.IsNotFound(err) {
				t.Errorf("node of the instance before the recovery: %v", err)
			}
		})
	}
}

func TestKubeNodeEditsHyperPodRefuses(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 1, 0))
	kc := f.kubeClients("eks").Core
	id := f.kubeNodes()[0].InstanceID
	nodes := kc.CoreV1().Nodes()
	reboot := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, hpHealthLabel, HealthUnschedulablePendingReboot)
	ok(nodes.Patch(f.ctx, "hyperpod-"+id, types.MergePatchType, []byte(reboot), metav1.PatchOptions{})).must(t)
	f.advance(hpRecoveryDelay) // rebooting: HyperPod takes no new recovery

	before := ok(nodeOf(f, kc, id)).must(t)
	replace := fmt.Sprintf(`{"metadata":{"labels":{%q:%q,"owner":"me"}}}`, hpHealthLabel, HealthUnschedulablePendingReplacement)
	_, err := nodes.Patch(f.ctx, "hyperpod-"+id, types.MergePatchType, []byte(replace), metav1.PatchOptions{})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "on its way back") {
		t.Errorf("replacement of a rebooting node: %v", err)
	}
	if after := ok(nodeOf(f, kc, id)).must(t); after.ResourceVersion != before.ResourceVersion || after.Labels["owner"] != "" {
		t.Errorf("a refused request changed the node: %v", after.Labels)
	}
	if v, _ := f.kubeNode(id); v.Health != HealthUnschedulablePendingReboot {
		t.Errorf("HyperPod's label is %q", v.Health)
	}
}

func TestKubeNodeEditsClientsKeep(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	in := h.input("hp", "ml.g5.xlarge", 1, 0)
	in.InstanceGroups[0].KubernetesConfig = &smtypes.ClusterKubernetesConfig{Labels: map[string]string{"team": "vision"}}
	f.createReady(in)
	kc := f.kubeClients("eks").Core
	name := "hyperpod-" + f.kubeNodes()[0].InstanceID
	nodes := kc.CoreV1().Nodes()

	patch := fmt.Sprintf(`{"metadata":{"labels":{"team":"nlp","owner":"me",%q:"Unschedulable","node.kubernetes.io/instance-type":"big"}},`+
		`"spec":{"unschedulable":true,"taints":[{"key":"dedicated","value":"me","effect":"NoSchedule"}]}}`, hpHealthLabel)
	n := ok(nodes.Patch(f.ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})).must(t)
	check := func(when string, n *corev1.Node) {
		t.Helper()
		l := n.Labels
		if l["team"] != "vision" || l[hpHealthLabel] != HealthSchedulable || l["node.kubernetes.io/instance-type"] != "ml.g5.xlarge" {
			t.Errorf("%s: HyperPod's labels were not restored: %v", when, l)
		}
		if l["owner"] != "me" || !n.Spec.Unschedulable || !slices.Equal(n.Spec.Taints, []corev1.Taint{{Key: "dedicated", Value: "me", Effect: corev1.TaintEffectNoSchedule}}) {
			t.Errorf("%s: the client's changes were lost: %v %v %v", when, l, n.Spec.Unschedulable, n.Spec.Taints)
		}
	}
	check("answer", n)
	check("read", ok(nodes.Get(f.ctx, name, metav1.GetOptions{})).must(t))
	f.w = f.world() // a restarted process on the same storage
	check("after a restart", ok(f.kubeClients("eks").Core.CoreV1().Nodes().Get(f.ctx, name, metav1.GetOptions{})).must(t))

	if _, err := nodes.Create(f.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "mine"}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("create of a node: %v", err)
	}
}

func TestKubeNodeWatch(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	kc := f.kubeClients("eks").Core
	w := ok(kc.CoreV1().Nodes().Watch(f.ctx, metav1.ListOptions{})).must(t)
	defer w.Stop()
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.g5.xlarge", 2, 0))).must(t)
	f.advance(hpCreateTime)
	// The nodes are synced from HyperPod when a client reads them; the
	// watch sees them then.
	ok(kc.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{})).must(t)
	for range 2 {
		select {
		case ev := <-w.ResultChan():
			if n, isNode := ev.Object.(*corev1.Node); ev.Type != "ADDED" || !isNode || !strings.HasPrefix(n.Name, "hyperpod-i-") {
				t.Errorf("event %s %T", ev.Type, ev.Object)
			}
		default:
			t.Fatal("no event for a node that joined")
		}
	}
}

func TestDevicePluginsMakeNodesAdvertiseDevices(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	in := h.input("hp", "ml.p5.48xlarge", 1, 0)
	trn := h.spec("trn", "ml.trn1.32xlarge", 1)
	in.InstanceGroups = append(in.InstanceGroups, trn)
	f.createReady(in)
	kc := f.kubeClients("eks").Core
	capacities := func() map[string]corev1.ResourceList {
		out := map[string]corev1.ResourceList{}
		for _, v := range f.kubeNodes() {
			n := ok(nodeOf(f, kc, v.InstanceID)).must(t)
			if !maps.EqualFunc(n.Status.Capacity, n.Status.Allocatable, func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }) {
				t.Fatalf("node %s: capacity %v, allocatable %v", n.Name, n.Status.Capacity, n.Status.Allocatable)
			}
			out[v.InstanceGroup] = n.Status.Capacity
		}
		return out
	}
	count := func(l corev1.ResourceList, name corev1.ResourceName) int64 {
		q, ok := l[name]
		if !ok {
			return -1
		}
		return q.Value()
	}
	devices := []corev1.ResourceName{kubeResourceGPU, kubeResourceEFA, kubeResourceNeuron}
	for group, c := range capacities() {
		for _, name := range devices {
			if _, ok := c[name]; ok {
				t.Errorf("group %s advertises %s with no device plugin: %v", group, name, c)
			}
		}
	}

	f.devicePlugins("eks")
	want := map[string]map[corev1.ResourceName]int64{
		"workers": {kubeResourceGPU: 8, kubeResourceEFA: 32, kubeResourceNeuron: -1},
		"trn":     {kubeResourceGPU: -1, kubeResourceEFA: 8, kubeResourceNeuron: 16},
	}
	got := capacities()
	for group, byName := range want {
		for name, n := range byName {
			if c := count(got[group], name); c != n {
				t.Errorf("group %s advertises %d of %s, want %d (-1: none)", group, c, name, n)
			}
		}
	}
	ds := ok(kc.AppsV1().DaemonSets("kube-system").List(f.ctx, metav1.ListOptions{})).must(t)
	var names []string
	for _, d := range ds.Items {
		names = append(names, d.Name)
		if d.Status.NumberAvailable != 2 || d.Status.DesiredNumberScheduled != 2 {
			t.Errorf("daemonset %s status %+v", d.Name, d.Status)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"aws-efa-k8s-device-plugin", "neuron-device-plugin", "nvidia-device-plugin"}) {
		t.Errorf("daemonsets %v", names)
	}

	// Uninstalled, the NVIDIA plugin takes the GPUs away with it.
	if err := f.p.Helm.Uninstall(f.ctx, "eks", "kube-system", "nvidia-device-plugin"); err != nil {
		t.Fatal(err)
	}
	f.advance(helmUninstallTime)
	got = capacities()
	if c := count(got["workers"], kubeResourceGPU); c != -1 {
		t.Errorf("%d GPUs advertised with the NVIDIA plugin gone", c)
	}
	if c := count(got["workers"], kubeResourceEFA); c != 32 {
		t.Errorf("%d EFA interfaces advertised, want 32", c)
	}
	if _, err := kc.AppsV1().DaemonSets("kube-system").Get(f.ctx, "nvidia-device-plugin", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the plugin's DaemonSet after uninstall: %v", err)
	}
}
