package sim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
)

// Labels HyperPod puts on the Kubernetes nodes of its instances.
const (
	kubeLabelComputeType = "sagemaker.amazonaws.com/compute-type"
	kubeLabelDeepHealth  = "sagemaker.amazonaws.com/deep-health-check-status"
	kubeLabelGroup       = "sagemaker.amazonaws.com/instance-group-name"
	kubeLabelCluster     = "sagemaker.amazonaws.com/cluster-name"
)

// kubeMaxPods is the pod capacity of a node.
const kubeMaxPods = 110

// kubeNodeOwned is what a node sync set on a node: the labels, and the
// taints as "key:effect".
type kubeNodeOwned struct {
	Labels []string `json:",omitempty"`
	Taints []string `json:",omitempty"`
}

// kubeNodeName is the name of the node of a HyperPod instance.
func kubeNodeName(instanceID string) string { return "hyperpod-" + instanceID }

// nodeName is the name of v's node: a managed node group's instance
// registers under its private DNS name, as the kubelet of an EKS AMI does.
func (v NodeView) nodeName() string {
	if v.Nodegroup != "" {
		return v.PrivateDNS
	}
	return kubeNodeName(v.InstanceID)
}

// kubeJoined tells whether a HyperPod instance has a node: from when its
// kubelet registers, which is when HyperPod first labels its health, until
// HyperPod no longer lists it.
func kubeJoined(v NodeView) bool { return v.InstanceID != "" && (v.Health != "" || v.Nodegroup != "") }

// serveNode answers a request on nodes other than a watch. Clients cannot
// create nodes: they come from HyperPod, and every request syncs them
// first (see kubeServer.call and kubeSession.settle).
func (srv *kubeServer) serveNode(action k8stesting.Action, r kubeReq) (runtime.Object, error) {
	switch a := action.(type) {
	case k8stesting.CreateActionImpl:
		name := ""
		if m, ok := a.Object.(metav1.Object); ok {
			name = m.GetName()
		}
		return nil, srv.call(r.op(), func(*kubeSession) error { return kubeNodeCreateForbidden(r, name) })
	case k8stesting.UpdateActionImpl, k8stesting.PatchActionImpl:
		return srv.modifyNode(action, r)
	}
	var out runtime.Object
	err := srv.call(r.op(), func(s *kubeSession) error {
		var err error
		out, err = s.serve(action, r)
		return err
	})
	return out, err
}

func kubeNodeCreateForbidden(r kubeReq, name string) error {
	return apierrors.NewForbidden(r.gvr.GroupResource(), name,
		errors.New("a HyperPod node registers itself when its instance joins the cluster; add instances to an instance group instead"))
}

// modifyNode answers an update or patch of a node. What HyperPod owns
// (its labels, taints, provider id, status) it sets again whatever the
// client sent, except that a health label of UnschedulablePendingReboot or
// UnschedulablePendingReplacement goes to HyperPod, which is how a user
// asks it to reboot or replace the node. Other changes are kept.
func (srv *kubeServer) modifyNode(action k8stesting.Action, r kubeReq) (runtime.Object, error) {
	srv.nodeMu.Lock()
	defer srv.nodeMu.Unlock()
	name, dryRun := kubeTarget(action)
	var next *unstructured.Unstructured
	var out runtime.Object
	var ask, instance string
	err := srv.call(r.op(), func(s *kubeSession) error {
		cur, err := s.mustGet(r, name)
		if p, ok := action.(k8stesting.PatchActionImpl); ok && apierrors.IsNotFound(err) && p.PatchType == types.ApplyPatchType {
			return kubeNodeCreateForbidden(r, name)
		}
		if err != nil {
			return err
		}
		if next, err = kubeNextVersion(r, action, cur); err != nil {
			return err
		}
		if dryRun {
			out, err = kubeOutput(next, r.typed)
			return err
		}
		label := next.GetLabels()[hpHealthLabel]
		if label != cur.GetLabels()[hpHealthLabel] && (label == HealthUnschedulablePendingReboot || label == HealthUnschedulablePendingReplacement) {
			// Only HyperPod's nodes: a managed node group's keeps the label.
			if ask, instance = label, kubeInstanceOf(s.views, name); instance != "" {
				return nil
			}
			ask = ""
		}
		out, err = s.storeNode(r, s.views, next)
		return err
	})
	if err != nil || ask == "" {
		return out, err
	}
	if err := srv.w.SetNodeHealthLabel(srv.region, srv.name, instance, ask); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("HyperPod did not take %s=%s for node %s: %v", hpHealthLabel, ask, name, err))
	}
	err = srv.call("", func(s *kubeSession) error {
		var err error
		out, err = s.storeNode(r, s.views, next)
		return err
	})
	return out, err
}

// storeNode stores a client's new version of a node, with what HyperPod
// owns set from views.
func (s *kubeSession) storeNode(r kubeReq, views []NodeView, next *unstructured.Unstructured) (runtime.Object, error) {
	node, err := s.syncNodes(views, next)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, apierrors.NewNotFound(r.gvr.GroupResource(), next.GetName())
	}
	return kubeOutput(node, r.typed)
}

func kubeInstanceOf(views []NodeView, node string) string {
	for _, v := range views {
		if v.Nodegroup == "" && kubeNodeName(v.InstanceID) == node {
			return v.InstanceID
		}
	}
	return ""
}

// syncNodes brings the stored nodes in line with HyperPod: a node for each
// instance that joined, none for the others. edited, when set, is a
// client's new version of a node, which the sync starts from instead of
// the stored one; syncNodes returns it as stored, or nil if HyperPod no
// longer has its instance.
func (s *kubeSession) syncNodes(views []NodeView, edited *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	joined := map[string]NodeView{}
	for _, v := range views {
		if kubeJoined(v) {
			joined[v.nodeName()] = v
		}
	}
	stored, err := s.list(kubeNodesKey, "")
	if err != nil {
		return nil, err
	}
	for _, cur := range stored {
		if _, ok := joined[cur.GetName()]; !ok {
			s.remove(kubeNodesKey, cur)
			delete(s.rec.NodeOwned, cur.GetName())
		}
	}
	var result *unstructured.Unstructured
	for _, name := range slices.Sorted(maps.Keys(joined)) {
		cur, err := s.get(kubeNodesKey, "", name)
		if err != nil {
			return nil, err
		}
		base := cur
		if edited != nil && edited.GetName() == name {
			base = edited
		}
		next, err := s.hyperPodNode(joined[name], base)
		if err != nil {
			return nil, err
		}
		obj := s.put(kubeNodesKey, cur, next)
		if edited != nil && edited.GetName() == name {
			result = obj
		}
	}
	return result, nil
}

// hyperPodNode is base (nil for a new node) with what HyperPod and the
// kubelet own set from v. It takes back what the last sync set and HyperPod
// no longer does, and keeps what clients added.
func (s *kubeSession) hyperPodNode(v NodeView, base *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	name := v.nodeName()
	var node corev1.Node
	if base != nil {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(base.Object, &node); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("decode node %s: %w", name, err))
		}
	}
	if s.rec.NodeOwned == nil {
		s.rec.NodeOwned = map[string]kubeNodeOwned{}
	}
	before := s.rec.NodeOwned[name]

	labels := maps.Clone(node.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, k := range before.Labels {
		delete(labels, k)
	}
	ownLabels := s.kubeNodeLabels(v)
	maps.Copy(labels, ownLabels)

	ownTaints := make([]corev1.Taint, 0, len(v.Taints))
	owned := map[string]bool{}
	for _, tn := range v.Taints {
		ownTaints = append(ownTaints, corev1.Taint{Key: tn.Key, Value: tn.Value, Effect: corev1.TaintEffect(tn.Effect)})
		owned[tn.Key+":"+tn.Effect] = true
	}
	taints := slices.Clone(ownTaints)
	for _, tn := range node.Spec.Taints {
		key := tn.Key + ":" + string(tn.Effect)
		if !owned[key] && !slices.Contains(before.Taints, key) {
			taints = append(taints, tn)
		}
	}

	node.APIVersion, node.Kind = "v1", "Node"
	node.Name = name
	node.Labels = labels
	node.Spec.ProviderID = "aws:///" + v.Zone + "/" + v.InstanceID
	node.Spec.Taints = taints
	node.Status = s.kubeNodeStatus(v, node.Status)
	s.rec.NodeOwned[name] = kubeNodeOwned{Labels: slices.Sorted(maps.Keys(ownLabels)), Taints: slices.Sorted(maps.Keys(owned))}

	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&node)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encode node %s: %w", name, err))
	}
	obj := &unstructured.Unstructured{Object: content}
	if base == nil {
		created := v.LaunchTime
		if created.IsZero() {
			created = s.t.now
		}
		s.stamp(obj, created)
	}
	return obj, nil
}

// kubeNodeLabels are the labels HyperPod and the kubelet set on the node of
// v: the instance group's, then the well-known ones, which win.
func (s *kubeSession) kubeNodeLabels(v NodeView) map[string]string {
	l := maps.Clone(v.Labels)
	if l == nil {
		l = map[string]string{}
	}
	name := v.nodeName()
	if v.Nodegroup != "" {
		// EKS's labels of a managed node group's node, then the group's.
		l[kubeLabelNodegroup] = v.Nodegroup
		l[kubeLabelCapacityType] = v.CapacityType
		l["node.kubernetes.io/instance-type"] = v.InstanceType
		l["topology.kubernetes.io/zone"] = v.Zone
		l["topology.kubernetes.io/region"] = s.rec.Region
		l["kubernetes.io/hostname"] = name
		l["kubernetes.io/os"] = "linux"
		l["kubernetes.io/arch"] = "amd64"
		return l
	}
	l[kubeLabelComputeType] = "HyperPod"
	l[hpHealthLabel] = v.Health
	if v.DeepHealth != "" {
		l[kubeLabelDeepHealth] = v.DeepHealth
	}
	l[kubeLabelGroup] = v.InstanceGroup
	l[kubeLabelCluster] = v.HyperPodCluster
	l["node.kubernetes.io/instance-type"] = "ml." + strings.TrimPrefix(v.InstanceType, "ml.")
	l["topology.kubernetes.io/zone"] = v.Zone
	l["topology.kubernetes.io/region"] = s.rec.Region
	l["kubernetes.io/hostname"] = name
	l["kubernetes.io/os"] = "linux"
	l["kubernetes.io/arch"] = "amd64"
	return l
}

// kubeNodeStatus is the status the kubelet of v reports: Ready while the
// instance runs. Condition times move only when the condition changes, so
// that a sync with nothing new stores nothing.
func (s *kubeSession) kubeNodeStatus(v NodeView, old corev1.NodeStatus) corev1.NodeStatus {
	ready, reason, message := corev1.ConditionFalse, "KubeletNotReady", fmt.Sprintf("the instance is %s", v.Status)
	if v.Status == string(smtypes.ClusterInstanceStatusRunning) {
		ready, reason, message = corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"
	}
	since := metav1.NewTime(s.t.now)
	for _, c := range old.Conditions {
		if c.Type == corev1.NodeReady && c.Status == ready {
			since = c.LastTransitionTime
		}
	}
	var addresses []corev1.NodeAddress
	if v.PrivateIP != "" {
		addresses = append(addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: v.PrivateIP})
	}
	if v.PrivateDNS != "" {
		addresses = append(addresses, corev1.NodeAddress{Type: corev1.NodeInternalDNS, Address: v.PrivateDNS})
	}
	capacity := s.advertisedCapacity(v.InstanceType)
	return corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity.DeepCopy(),
		Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: ready, Reason: reason, Message: message,
			LastHeartbeatTime: since, LastTransitionTime: since,
		}},
		Addresses: addresses,
		NodeInfo: corev1.NodeSystemInfo{
			KubeletVersion: "v" + s.eks.Version + ".0-eks", OperatingSystem: "linux", Architecture: "amd64",
		},
	}
}

// The extended resources device plugins advertise on nodes.
const (
	kubeResourceGPU    corev1.ResourceName = "nvidia.com/gpu"
	kubeResourceEFA    corev1.ResourceName = "vpc.amazonaws.com/efa"
	kubeResourceNeuron corev1.ResourceName = "aws.amazon.com/neuron"
)

// kubeNodeCapacity is what an instance of instanceType (a SageMaker or EC2
// name) has to offer: its vCPUs, memory and accelerators (nvidia.com/gpu,
// or aws.amazon.com/neuron devices for Trainium), its EFA interfaces
// (vpc.amazonaws.com/efa, as many as its network cards carry), and pods.
// A node advertises the extended ones only while the device plugin that
// finds them runs (see kubeSession.advertisedCapacity); Karpenter plans
// with all of them, as it reads them from the instance type.
func kubeNodeCapacity(instanceType string) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(kubeMaxPods, resource.DecimalSI)}
	typ := strings.TrimPrefix(instanceType, "ml.")
	spec, ok := instanceSpecs[typ]
	if !ok {
		return out
	}
	if efa := networkOf(typ).efas; efa > 0 {
		out[kubeResourceEFA] = *resource.NewQuantity(int64(efa), resource.DecimalSI)
	}
	out[corev1.ResourceCPU] = *resource.NewQuantity(int64(spec.vcpus), resource.DecimalSI)
	out[corev1.ResourceMemory] = *resource.NewQuantity(int64(spec.memoryGiB)<<30, resource.BinarySI)
	if spec.accelerators > 0 {
		name := kubeResourceGPU
		if spec.neuron {
			name = kubeResourceNeuron
		}
		out[name] = *resource.NewQuantity(int64(spec.accelerators), resource.DecimalSI)
	}
	return out
}

// advertisedCapacity is the capacity a node of instanceType reports in
// the session's cluster: the instance's, without the extended resources
// whose device plugin is not deployed there.
func (s *kubeSession) advertisedCapacity(instanceType string) corev1.ResourceList {
	out := kubeNodeCapacity(instanceType)
	advertised := s.t.helmAdvertised(s.rec.Region, s.eks)
	for _, name := range []corev1.ResourceName{kubeResourceGPU, kubeResourceEFA, kubeResourceNeuron} {
		if !advertised[string(name)] {
			delete(out, name)
		}
	}
	return out
}
