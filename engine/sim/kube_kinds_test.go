package sim

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestKubeCustomResources(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	// The kinds the control plane uses, as their CRDs name them.
	kinds := []struct {
		apiVersion, kind, resource string
		clusterScoped              bool
	}{
		{"karpenter.sh/v1", "NodePool", "nodepools", true},
		{"karpenter.sagemaker.amazonaws.com/v1", "HyperpodNodeClass", "hyperpodnodeclasses", true},
		{"kubeflow.org/v1", "PyTorchJob", "pytorchjobs", false},
		{"sagemaker.amazonaws.com/v1", "HyperPodPyTorchJob", "hyperpodpytorchjobs", false},
		{"inference.sagemaker.aws.amazon.com/v1", "InferenceEndpointConfig", "inferenceendpointconfigs", false},
		{"inference.sagemaker.aws.amazon.com/v1", "JumpStartModel", "jumpstartmodels", false},
	}
	if len(kinds) != len(kubeCustomResources) {
		t.Errorf("%d custom resources served, %d expected", len(kubeCustomResources), len(kinds))
	}
	for _, k := range kinds {
		gv, err := schema.ParseGroupVersion(k.apiVersion)
		if err != nil {
			t.Fatal(err)
		}
		gvr, kind := gv.WithResource(k.resource), k.kind
		ns := "default"
		if k.clusterScoped {
			ns = ""
		}
		r := kc.Dynamic.Resource(gvr).Namespace(ns)
		if got, err := r.List(f.ctx, metav1.ListOptions{}); err != nil || len(got.Items) != 0 {
			t.Errorf("%s: empty list: %v %v", gvr, err, got)
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "one"}, "spec": map[string]any{}}}
		obj.SetGroupVersionKind(gvr.GroupVersion().WithKind(kind))
		ok(r.Create(f.ctx, obj, metav1.CreateOptions{})).must(t)
		got, err := r.List(f.ctx, metav1.ListOptions{})
		if err != nil || len(got.Items) != 1 || got.Items[0].GetKind() != kind || got.GetKind() != kind+"List" {
			t.Errorf("%s: list after a create: %v %+v", gvr, err, got)
		}
		obj.SetName("two")
		obj.SetKind("Wrong")
		if _, err := r.Create(f.ctx, obj, metav1.CreateOptions{}); !apierrors.IsBadRequest(err) {
			t.Errorf("%s: create of another kind: %v", gvr, err)
		}
	}
	unknown := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	if _, err := kc.Dynamic.Resource(unknown).Namespace("default").List(f.ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list of an unserved resource: %v", err)
	}
	if _, err := kc.Dynamic.Resource(unknown).Get(f.ctx, "x", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get of an unserved resource: %v", err)
	}
	// Typed and dynamic clients see one store.
	ok(kc.Core.CoreV1().ConfigMaps("default").Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shared"}}, metav1.CreateOptions{})).must(t)
	if _, err := kc.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default").Get(f.ctx, "shared", metav1.GetOptions{}); err != nil {
		t.Errorf("a typed object through the dynamic client: %v", err)
	}
}
