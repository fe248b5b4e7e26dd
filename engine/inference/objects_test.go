package inference

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/kubecrds"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var (
	testCluster = &hyperpod.Cluster{ID: "c1", Name: "infer-1", Region: "us-west-2", Status: hyperpod.ClusterActive, EKS: hyperpod.EKS{Name: "infer-1-eks"}}
	testBucket  = &hyperpod.Bucket{Name: "infer-1-data", Namespace: "default", ClaimName: "s3-infer-1-data", MountPath: "/s3"}
	g5          = shape{gpus: 4, vcpus: 48, memoryGiB: 192}
)

func selfManaged(engine Engine, form Form) DeployInput {
	return DeployInput{ClusterID: "c1", Name: "chat", Path: SelfManaged, Model: "qwen3-8b", InstanceType: "ml.g5.12xlarge", Replicas: 2,
		GPUsPerReplica: 2, Engine: engine, Image: "vllm/vllm-openai:v0.10.1", Form: form}
}

func managed(source Source) DeployInput {
	in := DeployInput{ClusterID: "c1", Name: "chat", Path: Managed, Model: "qwen3-8b", Source: source, InstanceType: "ml.g5.12xlarge", Replicas: 1,
		GPUsPerReplica: 4, KVCache: &KVCacheInput{L2: ptr(true), L2Backend: "TIERED_STORAGE"}, Routing: &Routing{Enabled: true},
		Autoscaling: &Bounds{Min: 1, Max: 4}, TLSBucket: "infer-1-certs"}
	switch source {
	case FromFSx:
		in.Model, in.FSxFileSystemID = "/models/qwen3-8b", "fs-0123456789abcdef0"
	case FromJumpStart:
		in.Model, in.GPUsPerReplica, in.AcceptEula = "meta-textgeneration-llama-3-1-8b-instruct", 0, true
	}
	return in
}

func ptr[T any](v T) *T { return &v }

// TestObjectsPerPathAndForm builds the objects of each path and service
// form, checks the custom ones against their CRDs and the pod templates
// as a server would, and compares them with golden files.
func TestObjectsPerPathAndForm(t *testing.T) {
	sglang := func(form Form) DeployInput {
		in := selfManaged(SGLang, form)
		in.Image = "lmsysorg/sglang:v0.5.3-cu126"
		return in
	}
	cases := map[string]DeployInput{
		"vllm_cluster_ip":     selfManaged(VLLM, ClusterIP),
		"vllm_load_balancer":  selfManaged(VLLM, LoadBalancer),
		"sglang_model_pool":   sglang(ModelPool),
		"managed_bucket":      managed(FromBucket),
		"managed_fsx":         managed(FromFSx),
		"managed_jumpstart":   managed(FromJumpStart),
		"sglang_cluster_ip_1": sglang(ClusterIP),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if err := checkInput(&in); err != nil {
				t.Fatal(err)
			}
			e := newEndpoint("ep1", testCluster, testBucket, in)
			var actions []action
			var err error
			if in.Path == SelfManaged {
				actions, err = selfManagedActions(e, testBucket.ClaimName, g5)
			} else {
				actions, err = managedActions(e, testBucket, testBucket.ClaimName, testCluster.Region)
			}
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, objectsOf(t, actions))
		})
	}
}

// TestRouterAndScaledObject builds the SGLang router's objects and a KEDA
// ScaledObject, as deployRouter and setEndpointAutoscaling send them.
func TestRouterAndScaledObject(t *testing.T) {
	in := selfManaged(SGLang, ClusterIP)
	if err := checkInput(&in); err != nil {
		t.Fatal(err)
	}
	e := newEndpoint("ep1", testCluster, testBucket, in)
	dep, err := toUnstructured(routerDeployment(e, PowerOfTwo))
	if err != nil {
		t.Fatal(err)
	}
	args, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	got := args[0].(map[string]any)["args"].([]any)
	want := []any{"--service-discovery", "--selector", "app=sglang-chat", "--service-discovery-namespace", "default", "--service-discovery-port", "30000",
		"--policy", "power_of_two", "--host", "0.0.0.0", "--port", "30000", "--prometheus-port", "29000"}
	if len(got) != len(want) {
		t.Fatalf("router args %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("router args %v, want %v", got, want)
		}
	}
	if q := scalingQuery(e, RequestsPerReplica); q != `sum(rate(sglang:num_requests_total{namespace="default",deployment="sglang-chat"}[1m]))` {
		t.Fatalf("query %s", q)
	}
	e.Router = &Router{Name: routerName(e)}
	if q := scalingQuery(e, RouterQueue); q != `sum(sglang_router_queue_length{namespace="default",service="sglang-chat-router"})` {
		t.Fatalf("query %s", q)
	}
}

// objectsOf decodes and checks the objects of actions.
func objectsOf(t *testing.T, actions []action) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, a := range actions {
		u, err := a.decode()
		if err != nil {
			t.Fatal(err)
		}
		switch u.GetKind() {
		case "Deployment":
			tmpl, _, _ := unstructured.NestedMap(u.Object, "spec", "template")
			if err := kubecrds.ValidatePodTemplate(tmpl); err != nil {
				t.Fatalf("the pod template: %v", err)
			}
		case "Service":
		default:
			if err := kubecrds.Validate(u); err != nil {
				t.Fatalf("%s does not pass its CRD: %v", u.GetKind(), err)
			}
		}
		_ = u.DeepCopy() // panics on values that are not JSON's
		out = append(out, map[string]any{"phase": a.Phase, "resource": a.Resource.String(), "object": u.Object})
	}
	return out
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s differs from the built objects (go test -update rewrites it); got:\n%s", path, got)
	}
}
