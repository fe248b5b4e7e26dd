package sim

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func TestKubePatches(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	deps := kc.Core.AppsV1().Deployments("default")
	ok(deps.Create(f.ctx, deployment("web", 1), metav1.CreateOptions{})).must(t)
	cases := []struct {
		name  string
		pt    types.PatchType
		patch string
		check func(d *appsv1.Deployment) bool
	}{
		{"merge", types.MergePatchType, `{"spec":{"replicas":2}}`, func(d *appsv1.Deployment) bool { return *d.Spec.Replicas == 2 }},
		{"json", types.JSONPatchType, `[{"op":"add","path":"/metadata/labels","value":{"tier":"front"}}]`,
			func(d *appsv1.Deployment) bool { return d.Labels["tier"] == "front" }},
		{"strategic", types.StrategicMergePatchType, `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}}`,
			func(d *appsv1.Deployment) bool {
				c := d.Spec.Template.Spec.Containers
				return len(c) == 2 && c[0].Image == "nginx:2" && c[1].Image == "envoy:1"
			}},
	}
	for _, c := range cases {
		d, err := deps.Patch(f.ctx, "web", c.pt, []byte(c.patch), metav1.PatchOptions{})
		if err != nil || !c.check(d) {
			t.Errorf("%s patch: %v %+v", c.name, err, d)
		}
	}
	if _, err := deps.Patch(f.ctx, "nope", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("patch of a missing object: %v", err)
	}

	// Server-side apply creates what is missing and merges into what is not.
	cms := kc.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	cfg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "settings"}, "data": map[string]any{"a": "1"},
	}}
	ok(cms.Apply(f.ctx, "settings", cfg, metav1.ApplyOptions{FieldManager: "test"})).must(t)
	cfg.Object["data"] = map[string]any{"b": "2"}
	got := ok(cms.Apply(f.ctx, "settings", cfg, metav1.ApplyOptions{FieldManager: "test"})).must(t)
	if data, _, _ := unstructured.NestedStringMap(got.Object, "data"); data["a"] != "1" || data["b"] != "2" {
		t.Errorf("applied config map data: %v", data)
	}

	jobs := kc.Dynamic.Resource(hyperPodJobs).Namespace("default")
	ok(jobs.Create(f.ctx, hyperPodJob("train"), metav1.CreateOptions{})).must(t)
	if _, err := jobs.Patch(f.ctx, "train", types.StrategicMergePatchType, []byte(`{"spec":{}}`), metav1.PatchOptions{}); !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic patch of a custom resource: %v", err)
	}
	job := ok(jobs.Patch(f.ctx, "train", types.MergePatchType, []byte(`{"spec":{"nprocPerNode":"8"}}`), metav1.PatchOptions{})).must(t)
	if v, _, _ := unstructured.NestedString(job.Object, "spec", "nprocPerNode"); v != "8" || job.GetGeneration() != 2 {
		t.Errorf("merge-patched job: %v", job.Object)
	}
}
