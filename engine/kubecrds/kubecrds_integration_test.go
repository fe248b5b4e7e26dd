//go:build integration

package kubecrds

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/instantstart/instantstart/engine/kubetest"
)

// TestIntegrationValidateAgreesWithTheRealServer sends the objects the
// unit tests validate to a real API server with the CRDs installed, asking
// it to refuse unknown fields rather than prune them: what Validate
// accepts the server stores unchanged, and what Validate refuses the
// server refuses too.
func TestIntegrationValidateAgreesWithTheRealServer(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	var manifests [][]byte
	for _, c := range all {
		manifests = append(manifests, c.Manifest)
	}
	srv := kubetest.Start(t, kubetest.Options{CRDs: manifests})
	ctx := kubetest.Context(t)
	core, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "models"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name  string
		obj   map[string]any
		valid bool
	}{
		{"a HyperPodPyTorchJob", hyperPodJob(), true},
		{"a RayJob", rayJob(), true},
		{"an InferenceEndpointConfig", inferenceEndpointConfig(), true},
		{"an FSx InferenceEndpointConfig", set(set(inferenceEndpointConfig(), "spec.modelSourceConfig.s3Storage", nil), "spec.modelSourceConfig.fsxStorage", map[string]any{"fileSystemId": "fs-0123456789abcdef0"}), true},
		{"a v1alpha1 InferenceEndpointConfig", v1alpha1Config(), true},
		{"a JumpStartModel", jumpStartModel(), true},
		{"a ScaledObject", scaledObject(), true},
		{"a TriggerAuthentication", triggerAuthentication(), true},
		{"a HyperpodNodeClass", hyperpodNodeClass(), true},
		{"a NodePool", nodePool(), true},
		{"a NodePool without its class", set(nodePool(), "spec.template.spec.nodeClassRef", nil), false},
		{"a NodePool's consolidation policy outside the enum", set(nodePool(), "spec.disruption.consolidationPolicy", "Always"), false},
		{"an unknown field", set(hyperPodJob(), "spec.runPolicy.maxRetries", int64(3)), false},
		{"a required field missing", set(hyperPodJob(), "spec.runPolicy.restartPolicy.evalPeriodSeconds", nil), false},
		{"a string for an integer", set(hyperPodJob(), "spec.replicaSpecs.0.replicas", "2"), false},
		{"a value outside the enum", set(hyperPodJob(), "spec.runPolicy.cleanPodPolicy", "Never"), false},
		{"below the minimum", set(hyperPodJob(), "spec.runPolicy.jobMaxRetryCount", int64(-1)), false},
		{"too long", set(hyperPodJob(), "spec.nprocPerNode", strings.Repeat("9", 17)), false},
		{"a RayJob's submission mode outside the enum", set(rayJob(), "spec.submissionMode", "JobMode"), false},
		{"an InferenceEndpointConfig's unknown worker field", set(inferenceEndpointConfig(), "spec.worker.gpus", int64(1)), false},
		{"an InferenceEndpointConfig without a worker", set(inferenceEndpointConfig(), "spec.worker", nil), false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: tc.obj}
			// Each case its own name, as several share a builder.
			obj.SetName(obj.GetName() + "-" + string(rune('a'+i)))
			verr := Validate(obj)
			if (verr == nil) != tc.valid {
				t.Fatalf("Validate: %v, want valid=%v", verr, tc.valid)
			}
			crd, _, err := Lookup(obj.GetAPIVersion(), obj.GetKind())
			if err != nil {
				t.Fatal(err)
			}
			var res dynamic.ResourceInterface = dyn.Resource(crd.GroupVersionResource(obj.GroupVersionKind().Version))
			if crd.Namespaced {
				res = dyn.Resource(crd.GroupVersionResource(obj.GroupVersionKind().Version)).Namespace(obj.GetNamespace())
			}
			stored, err := res.Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"})
			if !tc.valid {
				if err == nil {
					t.Fatalf("the server stored what Validate refuses (%v)", verr)
				}
				if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
					t.Fatalf("the server refused for another reason than the object: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("the server refused what Validate accepts: %v", err)
			}
			// The server adds the schemas' defaults; nothing sent may be
			// dropped or changed.
			if path, ok := keeps(normal(t, tc.obj["spec"]), normal(t, stored.Object["spec"]), "spec"); !ok {
				t.Errorf("the server did not keep %s as sent:\n sent %v\n  got %v", path, tc.obj["spec"], stored.Object["spec"])
			}
		})
	}
}

// normal returns v as JSON decodes it (float64 numbers, []any, map[string]any).
func normal(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// keeps says whether got holds everything in sent with the same values
// (got may have more object fields), and if not, the first path where it
// differs.
func keeps(sent, got any, path string) (string, bool) {
	switch s := sent.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, v := range s {
			if p, ok := keeps(v, g[k], path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return path, false
		}
		for i := range s {
			if p, ok := keeps(s[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	default:
		return path, reflect.DeepEqual(sent, got)
	}
}
