package kubecrds

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestAllParsesEveryCRD(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"hyperpodpytorchjobs.sagemaker.amazonaws.com": "sagemaker.amazonaws.com/v1 HyperPodPyTorchJob",
		"rayjobs.ray.io": "ray.io/v1 RayJob",
	}
	if len(all) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(all), len(want))
	}
	for _, c := range all {
		gvk := c.GroupVersionKind("v1")
		if got := gvk.GroupVersion().String() + " " + gvk.Kind; want[c.Name] != got {
			t.Errorf("%s: %s, want %s", c.Name, got, want[c.Name])
		}
		v := c.Version("v1")
		if v == nil || !v.Storage || !v.StatusSubresource || !c.Namespaced {
			t.Errorf("%s: want a namespaced storage version v1 with a status subresource", c.Name)
		}
		if len(c.Manifest) == 0 {
			t.Errorf("%s: no manifest", c.Name)
		}
	}
}

func TestParseRefusesNonStructuralSchemas(t *testing.T) {
	head := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
`
	cases := map[string]struct{ spec, want string }{
		"untyped":            {"              properties: {a: {type: string}}", "type: required"},
		"array no items":     {"              type: array", "items: required"},
		"unknown keyword":    {"              type: object\n              oneOf: []", "unknown field"},
		"bad pattern":        {"              type: string\n              pattern: \"(\"", "pattern"},
		"props and addl":     {"              type: object\n              properties: {a: {type: string}}\n              additionalProperties: {type: string}", "mutually exclusive"},
		"required unknown":   {"              type: object\n              required: [b]\n              properties: {a: {type: string}}", `"b" is not one of its properties`},
		"enum of wrong type": {"              type: integer\n              enum: [a]", "enum[0]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parse([]byte(head + tc.spec + "\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
	if _, err := parse([]byte(head + "              type: object\n              x-kubernetes-preserve-unknown-fields: true\n")); err != nil {
		t.Fatalf("a valid schema: %v", err)
	}
}

func podTemplate() map[string]any {
	return map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
		"spec": map[string]any{
			"containers": []any{map[string]any{
				"name": "pytorch", "image": "img:1",
				"resources": map[string]any{
					"requests": map[string]any{"nvidia.com/gpu": int64(8)},
					"limits":   map[string]any{"nvidia.com/gpu": int64(8)},
				},
				"volumeMounts": []any{map[string]any{"name": "s3", "mountPath": "/s3"}},
			}},
			"volumes": []any{map[string]any{"name": "s3", "persistentVolumeClaim": map[string]any{"claimName": "s3-shared"}}},
		},
	}
}

func hyperPodJob() map[string]any {
	return map[string]any{
		"apiVersion": "sagemaker.amazonaws.com/v1",
		"kind":       "HyperPodPyTorchJob",
		"metadata":   map[string]any{"name": "llama", "namespace": "default", "labels": map[string]any{"a": "b"}},
		"spec": map[string]any{
			"nprocPerNode": "8",
			"replicaSpecs": []any{map[string]any{"name": "pods", "replicas": int64(2), "template": podTemplate()}},
			"runPolicy": map[string]any{
				"cleanPodPolicy":          "None",
				"jobMaxRetryCount":        int64(5),
				"ttlSecondsAfterFinished": int64(0),
				"restartPolicy": map[string]any{
					"evalPeriodSeconds": int64(21600), "maxFullJobRestarts": int64(1), "numRestartBeforeFullJobRestart": int64(3),
				},
				"logMonitoringConfiguration": []any{map[string]any{
					"name": "throughput", "logPattern": `tokens_per_sec=(\d+)`, "metricThreshold": int64(800), "operator": "lt", "metricEvaluationDataPoints": int64(5),
				}},
			},
		},
	}
}

func rayJob() map[string]any {
	return map[string]any{
		"apiVersion": "ray.io/v1",
		"kind":       "RayJob",
		"metadata":   map[string]any{"name": "grpo", "namespace": "default"},
		"spec": map[string]any{
			"entrypoint":               "python3 -m verl.trainer.main_ppo",
			"runtimeEnvYAML":           "env_vars: {}\n",
			"submissionMode":           "K8sJobMode",
			"shutdownAfterJobFinishes": true,
			"ttlSecondsAfterFinished":  int64(3600),
			"backoffLimit":             int64(2),
			"rayClusterSpec": map[string]any{
				"headGroupSpec": map[string]any{"rayStartParams": map[string]any{"dashboard-host": "0.0.0.0"}, "template": podTemplate()},
				"workerGroupSpecs": []any{map[string]any{
					"groupName": "gpu", "replicas": int64(1), "minReplicas": int64(1), "maxReplicas": int64(1), "rayStartParams": map[string]any{}, "template": podTemplate(),
				}},
			},
		},
		"status": map[string]any{"jobStatus": "RUNNING", "failed": int64(0), "rayClusterStatus": map[string]any{"desiredGPU": "8"}},
	}
}

// set changes obj at a dotted path ("spec.replicaSpecs.0.name"); a nil
// value deletes the field.
func set(obj map[string]any, path string, v any) map[string]any {
	parts := strings.Split(path, ".")
	var cur any = obj
	for _, p := range parts[:len(parts)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			cur = c[p[0]-'0']
		}
	}
	last := parts[len(parts)-1]
	m := cur.(map[string]any)
	if v == nil {
		delete(m, last)
	} else {
		m[last] = v
	}
	return obj
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		obj  map[string]any
		// want is the path and a part of the message; "" for a valid object.
		want string
	}{
		{"a valid HyperPodPyTorchJob", hyperPodJob(), ""},
		{"a valid RayJob", rayJob(), ""},
		{"generateName instead of a name", set(set(hyperPodJob(), "metadata.name", nil), "metadata.generateName", "x-"), ""},
		{"a required field missing", set(hyperPodJob(), "spec.runPolicy.restartPolicy.evalPeriodSeconds", nil), "spec.runPolicy.restartPolicy.evalPeriodSeconds: required"},
		{"a required item field missing", set(hyperPodJob(), "spec.replicaSpecs.0.name", nil), "spec.replicaSpecs[0].name: required"},
		{"an unknown field", set(hyperPodJob(), "spec.runPolicy.maxRetries", int64(3)), "spec.runPolicy.maxRetries: unknown field"},
		{"an unknown top-level field", set(hyperPodJob(), "extra", "x"), "extra: unknown field"},
		{"an unknown metadata field", set(hyperPodJob(), "metadata.label", map[string]any{}), "metadata: "},
		{"no name", set(hyperPodJob(), "metadata.name", nil), "metadata.name: required"},
		{"a string for an integer", set(hyperPodJob(), "spec.replicaSpecs.0.replicas", "2"), "spec.replicaSpecs[0].replicas: must be an integer, not a string"},
		{"a fraction for an integer", set(hyperPodJob(), "spec.runPolicy.jobMaxRetryCount", 1.5), "must be an integer, not a number"},
		{"a whole float for an integer", set(hyperPodJob(), "spec.runPolicy.jobMaxRetryCount", float64(3)), ""},
		{"an integer for a string", set(hyperPodJob(), "spec.nprocPerNode", int64(8)), "spec.nprocPerNode: must be a string, not an integer"},
		{"a value outside the enum", set(hyperPodJob(), "spec.runPolicy.cleanPodPolicy", "Never"), `spec.runPolicy.cleanPodPolicy: "Never" is not one of "None", "Running", "All"`},
		{"an operator outside the enum", set(hyperPodJob(), "spec.runPolicy.logMonitoringConfiguration.0.operator", "<"), "logMonitoringConfiguration[0].operator"},
		{"below the minimum", set(hyperPodJob(), "spec.runPolicy.jobMaxRetryCount", int64(-1)), "less than the minimum 0"},
		{"too long", set(hyperPodJob(), "spec.nprocPerNode", strings.Repeat("9", 17)), "longer than 16 characters"},
		{"a Go slice that is not JSON", set(hyperPodJob(), "spec.replicaSpecs", []map[string]any{}), "not a JSON value"},
		{"null", set(hyperPodJob(), "spec.runPolicy", nil), ""},
		{"a bool for an object", set(hyperPodJob(), "spec.runPolicy", true), "spec.runPolicy: must be an object"},
		{"a map value of the wrong type", set(rayJob(), "spec.rayClusterSpec.headGroupSpec.rayStartParams.num-gpus", int64(8)), "spec.rayClusterSpec.headGroupSpec.rayStartParams.num-gpus: must be a string"},
		{"a submission mode outside the enum", set(rayJob(), "spec.submissionMode", "JobMode"), "spec.submissionMode"},
		{"a worker group without a name", set(rayJob(), "spec.rayClusterSpec.workerGroupSpecs.0.groupName", nil), "workerGroupSpecs[0].groupName: required"},
		{"int-or-string given a bool", set(rayJob(), "status.rayClusterStatus.desiredGPU", true), "must be an integer or a string"},
		{"int-or-string given an integer", set(rayJob(), "status.rayClusterStatus.desiredGPU", int64(8)), ""},
		{"anything in a kept template", set(rayJob(), "spec.rayClusterSpec.headGroupSpec.template.whatever", "x"), ""},
		{"a wrong version", set(rayJob(), "apiVersion", "ray.io/v2"), "does not serve version"},
		{"an unknown kind", set(rayJob(), "kind", "RayService"), "no CRD"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(&unstructured.Unstructured{Object: tc.obj})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestValidateNamesEveryProblem(t *testing.T) {
	obj := set(set(hyperPodJob(), "spec.nprocPerNode", int64(1)), "spec.runPolicy.suspend", "yes")
	var fe FieldErrors
	if err := Validate(&unstructured.Unstructured{Object: obj}); !errors.As(err, &fe) || len(fe) != 2 {
		t.Fatalf("want 2 field errors, got %v", err)
	}
	if fe[0].Path != "spec.nprocPerNode" || fe[1].Path != "spec.runPolicy.suspend" {
		t.Fatalf("paths %q, %q", fe[0].Path, fe[1].Path)
	}
}

func TestValidateIsBounded(t *testing.T) {
	deep := map[string]any{}
	cur := deep
	for range MaxDepth + 5 {
		next := map[string]any{}
		cur["x"] = next
		cur = next
	}
	obj := set(hyperPodJob(), "spec.replicaSpecs.0.template", deep)
	if err := Validate(&unstructured.Unstructured{Object: obj}); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("deep object: %v", err)
	}
	wide := make([]any, MaxNodes+1)
	for i := range wide {
		wide[i] = "v"
	}
	obj = set(rayJob(), "spec.rayClusterSpec.workerGroupSpecs.0.scaleStrategy", map[string]any{"workersToDelete": wide})
	err := Validate(&unstructured.Unstructured{Object: obj})
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("wide object: %v", err)
	}
	many := hyperPodJob()
	for i := range 50 {
		set(many, "spec.unknown"+string(rune('a'+i%26))+string(rune('a'+i/26)), "x")
	}
	var fe FieldErrors
	if err := Validate(&unstructured.Unstructured{Object: many}); !errors.As(err, &fe) || len(fe) != maxErrors {
		t.Fatalf("want %d errors at most, got %v", maxErrors, err)
	}
}

func TestValidatePodTemplate(t *testing.T) {
	cases := []struct {
		name string
		tmpl map[string]any
		want string
	}{
		{"valid", podTemplate(), ""},
		{"unknown field", set(podTemplate(), "spec.containers.0.gpus", int64(8)), "unknown field"},
		{"wrong case", set(podTemplate(), "spec.Volumes", []any{}), "unknown field"},
		{"bad quantity", set(podTemplate(), "spec.containers.0.resources.limits", map[string]any{"nvidia.com/gpu": "eight"}), "PodTemplateSpec"},
		{"no containers", set(podTemplate(), "spec.containers", []any{}), "spec.containers: required"},
		{"no image", set(podTemplate(), "spec.containers.0.image", nil), "spec.containers[0].image: required"},
		{"bad container name", set(podTemplate(), "spec.containers.0.name", "Py_Torch"), "spec.containers[0].name"},
		{"mount of no volume", set(podTemplate(), "spec.volumes", []any{}), `no volume "s3"`},
		{"bad restart policy", set(podTemplate(), "spec.restartPolicy", "Sometimes"), "spec.restartPolicy"},
		{"request above limit", set(podTemplate(), "spec.containers.0.resources.requests", map[string]any{"nvidia.com/gpu": int64(4)}), "must equal its limit"},
		{"duplicate env", set(podTemplate(), "spec.containers.0.env", []any{map[string]any{"name": "A", "value": "1"}, map[string]any{"name": "A", "value": "2"}}), `"A" is set twice`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidatePodTemplate(tc.tmpl)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}
