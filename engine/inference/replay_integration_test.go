//go:build integration

package inference_test

import (
	"context"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/kubecrds"
	"github.com/instantstart/instantstart/engine/kubetest"
	"github.com/instantstart/instantstart/engine/simtest"
)

// replayed are the resources the engine writes, in the order a server
// needs them (namespaces and accounts before what names them).
var replayed = []struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}{
	{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, false},
	{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, true},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, true},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, true},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, false},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, false},
	{schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}, false},
	{schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}, false},
	{schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, true},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, true},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
	{schema.GroupVersionResource{Version: "v1", Resource: "services"}, true},
	{schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "triggerauthentications"}, true},
	{schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects"}, true},
	{schema.GroupVersionResource{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "inferenceendpointconfigs"}, true},
	{schema.GroupVersionResource{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "jumpstartmodels"}, true},
}

// TestIntegrationEngineObjectsAreAcceptedByARealServer runs inference
// flows on the simulator (a self-managed SGLang endpoint on the shared
// bucket, its router with its account and RBAC, KEDA autoscaling), then
// sends every object the engine wrote there (those labelled as managed by
// InstantStart) to a real API server with strict field validation, and
// checks the router's account can do what the router does and no more.
func TestIntegrationEngineObjectsAreAcceptedByARealServer(t *testing.T) {
	f := newFixture(t)
	f.enable(t, features.Toggle{Name: hyperpod.KEDA, Enable: true},
		features.Toggle{Name: hyperpod.Observability, Enable: true, Settings: &features.Settings{WorkspaceArn: "arn:aws:aps:us-west-2:123456789012:workspace/ws-1111"}})
	in := f.vllm("chat", inference.ClusterIP)
	in.Engine, in.Image = inference.SGLang, "lmsysorg/sglang:v0.5.3-cu126"
	e := f.ready(t, f.deploy(t, in).ID)
	ctx := context.Background()
	op, err := f.svc.DeployRouter(ctx, "tester", e.ID, inference.RoundRobin, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	op, err = f.svc.SetAutoscaling(ctx, "tester", e.ID, inference.AutoscalingInput{Bounds: inference.Bounds{Min: 1, Max: 3}, Trigger: inference.RequestsPerReplica, Target: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	simKube := f.kube(t)

	all, err := kubecrds.All()
	if err != nil {
		t.Fatal(err)
	}
	var crds [][]byte
	for _, c := range all {
		crds = append(crds, c.Manifest)
	}
	srv := kubetest.Start(t, kubetest.Options{CRDs: crds})
	real, err := dynamic.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	rctx := kubetest.Context(t)

	sent := map[string]int{}
	for _, r := range replayed {
		list, err := simKube.Dynamic.Resource(r.gvr).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=instantstart"})
		if err != nil {
			t.Fatalf("list %s on the simulator: %v", r.gvr.Resource, err)
		}
		for i := range list.Items {
			obj := asSent(&list.Items[i])
			var res dynamic.ResourceInterface = real.Resource(r.gvr)
			if r.namespaced {
				ensureNamespace(t, real, obj.GetNamespace())
				res = real.Resource(r.gvr).Namespace(obj.GetNamespace())
			}
			if _, err := res.Create(rctx, obj, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
				t.Errorf("the real server refused %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				continue
			}
			sent[r.gvr.Resource]++
		}
	}
	t.Logf("replayed %v", sent)
	for _, want := range []string{"deployments", "services", "serviceaccounts", "roles", "rolebindings", "scaledobjects", "triggerauthentications"} {
		if sent[want] == 0 {
			t.Errorf("no %s made by the engine on the simulator to replay (replayed %v)", want, sent)
		}
	}

	// The router's account reads pods in its namespace and nothing else.
	router := e.Workload + "-router"
	cfg := rest.CopyConfig(srv.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + e.Namespace + ":" + router}
	as, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := as.CoreV1().Pods(e.Namespace).List(rctx, metav1.ListOptions{}); err != nil {
		t.Errorf("the router's account listing pods in %s: %v, want allowed", e.Namespace, err)
	}
	if _, err := as.CoreV1().Secrets(e.Namespace).List(rctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the router's account listing secrets: %v, want forbidden", err)
	}
	if _, err := as.CoreV1().Pods("kube-system").List(rctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the router's account listing pods in kube-system: %v, want forbidden", err)
	}
}

// asSent is obj as a client sends it: without what the server assigns
// (identity, versions, timestamps, status).
func asSent(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp"} {
		unstructured.RemoveNestedField(out.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(out.Object, "status")
	if out.GetKind() == "Service" {
		// Assigned by the server from its own range.
		unstructured.RemoveNestedField(out.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(out.Object, "spec", "clusterIPs")
	}
	return out
}

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

func ensureNamespace(t *testing.T, real dynamic.Interface, name string) {
	t.Helper()
	if name == "" || slices.Contains([]string{"default", "kube-system", "kube-public"}, name) {
		return
	}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	if _, err := real.Resource(namespacesGVR).Create(kubetest.Context(t), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}
