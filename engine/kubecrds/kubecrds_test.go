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
	// want is each CRD's storage version and kind, the other versions it
	// serves, whether it has a scale subresource and whether it is
	// cluster-scoped.
	want := map[string]struct {
		storage, kind string
		others        []string
		scale         bool
		cluster       bool
	}{
		"hyperpodpytorchjobs.sagemaker.amazonaws.com":                 {"v1", "HyperPodPyTorchJob", nil, false, false},
		"inferenceendpointconfigs.inference.sagemaker.aws.amazon.com": {"v1", "InferenceEndpointConfig", []string{"v1alpha1"}, true, false},
		"jumpstartmodels.inference.sagemaker.aws.amazon.com":          {"v1", "JumpStartModel", []string{"v1alpha1"}, true, false},
		"rayjobs.ray.io":                                        {"v1", "RayJob", nil, false, false},
		"scaledobjects.keda.sh":                                 {"v1alpha1", "ScaledObject", nil, false, false},
		"triggerauthentications.keda.sh":                        {"v1alpha1", "TriggerAuthentication", nil, false, false},
		"hyperpodnodeclasses.karpenter.sagemaker.amazonaws.com": {"v1", "HyperpodNodeClass", nil, false, true},
		"nodepools.karpenter.sh":                                {"v1", "NodePool", nil, false, true},
	}
	if len(all) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(all), len(want))
	}
	for _, c := range all {
		w, found := want[c.Name]
		if !found {
			t.Errorf("unexpected CRD %s", c.Name)
			continue
		}
		if c.Kind != w.kind || c.Namespaced == w.cluster || len(c.Manifest) == 0 {
			t.Errorf("%s: kind %s (namespaced %v), want %s (namespaced %v) with its manifest", c.Name, c.Kind, c.Namespaced, w.kind, !w.cluster)
		}
		v := c.Version(w.storage)
		if v == nil || !v.Storage || !v.StatusSubresource || v.ScaleSubresource != w.scale {
			t.Errorf("%s: want a storage version %s with a status subresource (scale %v), got %+v", c.Name, w.storage, w.scale, v)
		}
		for _, o := range w.others {
			if v := c.Version(o); v == nil || v.Storage || v.ScaleSubresource != w.scale {
				t.Errorf("%s: want %s served beside %s, got %+v", c.Name, o, w.storage, v)
			}
		}
		if len(c.Versions) != 1+len(w.others) {
			t.Errorf("%s: %d versions, want %d", c.Name, len(c.Versions), 1+len(w.others))
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
		"untyped":               {"              properties: {a: {type: string}}", "type: required"},
		"array no items":        {"              type: array", "items: required"},
		"unknown keyword":       {"              type: object\n              oneOf: []", "unknown field"},
		"bad pattern":           {"              type: string\n              pattern: \"(\"", "pattern"},
		"props and addl":        {"              type: object\n              properties: {a: {type: string}}\n              additionalProperties: {type: string}", "mutually exclusive"},
		"required unknown":      {"              type: object\n              required: [b]\n              properties: {a: {type: string}}", `"b" is not one of its properties`},
		"enum of wrong type":    {"              type: integer\n              enum: [a]", "enum[0]"},
		"default of wrong type": {"              type: integer\n              default: a", "default: must be an integer"},
		"default outside enum":  {"              type: string\n              enum: [a]\n              default: b", "not one of its enum"},
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

// inferenceEndpointConfig is an InferenceEndpointConfig as the control
// plane makes one: a model in S3 served by vLLM on one GPU.
func inferenceEndpointConfig() map[string]any {
	return map[string]any{
		"apiVersion": "inference.sagemaker.aws.amazon.com/v1",
		"kind":       "InferenceEndpointConfig",
		"metadata":   map[string]any{"name": "qwen3-8b", "namespace": "models", "labels": map[string]any{"app.kubernetes.io/managed-by": "instantstart"}},
		"spec": map[string]any{
			"modelName":          "qwen3-8b",
			"endpointName":       "qwen3-8b",
			"instanceType":       "ml.g5.12xlarge",
			"replicas":           int64(2),
			"invocationEndpoint": "v1/chat/completions",
			"modelSourceConfig": map[string]any{
				"modelSourceType": "s3",
				"s3Storage":       map[string]any{"bucketName": "shared-bucket", "region": "us-west-2"},
				"modelLocation":   "models/qwen3-8b",
			},
			"worker": map[string]any{
				"image": "vllm/vllm-openai:v0.10.1",
				"args":  []any{"--model", "/opt/ml/model", "--port", "8000"},
				"resources": map[string]any{
					"requests": map[string]any{"nvidia.com/gpu": int64(1), "cpu": "4", "memory": "32Gi"},
					"limits":   map[string]any{"nvidia.com/gpu": int64(1)},
				},
				"modelInvocationPort":  map[string]any{"containerPort": int64(8000), "name": "http"},
				"modelVolumeMount":     map[string]any{"name": "model-weights", "mountPath": "/opt/ml/model"},
				"environmentVariables": []any{map[string]any{"name": "VLLM_LOGGING_LEVEL", "value": "INFO"}},
			},
			"kvCacheSpec":            map[string]any{"enableL1Cache": true, "enableL2Cache": true, "l2CacheSpec": map[string]any{"l2CacheBackend": "tieredstorage"}},
			"intelligentRoutingSpec": map[string]any{"enabled": true, "routingStrategy": "prefixaware"},
			"autoScalingSpec": map[string]any{
				"minReplicaCount": int64(1), "maxReplicaCount": int64(4), "pollingInterval": int64(15), "cooldownPeriod": int64(60),
				"prometheusTrigger": map[string]any{"name": "rps", "query": "sum(rate(vllm:num_requests_total[1m]))", "targetValue": 10.5,
					"serverAddress": "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123abcd"},
			},
			"tlsConfig":    map[string]any{"tlsCertificateOutputS3Uri": "s3://shared-bucket/tls/"},
			"loadBalancer": map[string]any{"healthCheckPath": "/health"},
			"metrics":      map[string]any{"enabled": true, "modelMetrics": map[string]any{"port": int64(8000)}},
		},
		"status": map[string]any{
			"state": "DeploymentInProgress", "replicas": int64(1), "selector": "app=qwen3-8b", "observedGeneration": int64(1),
			"deploymentStatus": map[string]any{"name": "qwen3-8b", "lastUpdated": "2026-03-01T12:00:00Z",
				"status": map[string]any{"replicas": int64(2), "readyReplicas": int64(1)}},
		},
	}
}

// v1alpha1Config is inferenceEndpointConfig in the older, still served
// version, without the fields it lacks.
func v1alpha1Config() map[string]any {
	obj := set(inferenceEndpointConfig(), "apiVersion", "inference.sagemaker.aws.amazon.com/v1alpha1")
	for _, f := range []string{"spec.kvCacheSpec", "spec.intelligentRoutingSpec", "spec.worker.args"} {
		set(obj, f, nil)
	}
	return obj
}

// jumpStartModel is a JumpStartModel of a public hub model.
func jumpStartModel() map[string]any {
	return map[string]any{
		"apiVersion": "inference.sagemaker.aws.amazon.com/v1",
		"kind":       "JumpStartModel",
		"metadata":   map[string]any{"name": "deepseek", "namespace": "models"},
		"spec": map[string]any{
			"model":             map[string]any{"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "modelVersion": "2.0.4", "acceptEula": false},
			"server":            map[string]any{"instanceType": "ml.g5.8xlarge"},
			"sageMakerEndpoint": map[string]any{"name": "deepseek"},
			"replicas":          int64(1),
		},
	}
}

// scaledObject is a KEDA ScaledObject on a Deployment with a Prometheus
// trigger, as the control plane's endpoint autoscaling makes one.
func scaledObject() map[string]any {
	return map[string]any{
		"apiVersion": "keda.sh/v1alpha1",
		"kind":       "ScaledObject",
		"metadata":   map[string]any{"name": "vllm-qwen", "namespace": "models"},
		"spec": map[string]any{
			"scaleTargetRef":  map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm-qwen"},
			"minReplicaCount": int64(1), "maxReplicaCount": int64(4), "pollingInterval": int64(15), "cooldownPeriod": int64(60),
			"triggers": []any{map[string]any{
				"type": "prometheus",
				"metadata": map[string]any{
					"serverAddress": "http://prometheus.monitoring:9090",
					"query":         `sum(rate(vllm:num_requests_total{namespace="models",deployment="vllm-qwen"}[1m]))`,
					"threshold":     "5", "awsRegion": "us-west-2",
				},
				"authenticationRef": map[string]any{"name": "keda-aws"},
			}},
		},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "ScaledObjectReady"}}},
	}
}

func triggerAuthentication() map[string]any {
	return map[string]any{
		"apiVersion": "keda.sh/v1alpha1",
		"kind":       "TriggerAuthentication",
		"metadata":   map[string]any{"name": "keda-aws", "namespace": "models"},
		"spec":       map[string]any{"podIdentity": map[string]any{"provider": "aws", "identityOwner": "keda"}},
	}
}

// hyperpodNodeClass and nodePool are the managed Karpenter objects the
// control plane's autoscaling feature makes (cluster-scoped).
func hyperpodNodeClass() map[string]any {
	return map[string]any{
		"apiVersion": "karpenter.sagemaker.amazonaws.com/v1",
		"kind":       "HyperpodNodeClass",
		"metadata":   map[string]any{"name": "instantstart", "labels": map[string]any{"app.kubernetes.io/managed-by": "instantstart"}},
		"spec":       map[string]any{"instanceGroups": []any{"gpu-a", "gpu-b"}},
	}
}

func nodePool() map[string]any {
	return map[string]any{
		"apiVersion": "karpenter.sh/v1",
		"kind":       "NodePool",
		"metadata":   map[string]any{"name": "instantstart", "labels": map[string]any{"app.kubernetes.io/managed-by": "instantstart"}},
		"spec": map[string]any{
			"template": map[string]any{"spec": map[string]any{
				"nodeClassRef": map[string]any{"group": "karpenter.sagemaker.amazonaws.com", "kind": "HyperpodNodeClass", "name": "instantstart"},
				"requirements": []any{},
			}},
			"disruption": map[string]any{"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s"},
		},
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
		{"a valid InferenceEndpointConfig", inferenceEndpointConfig(), ""},
		{"a valid HyperpodNodeClass", hyperpodNodeClass(), ""},
		{"a HyperpodNodeClass without groups", set(hyperpodNodeClass(), "spec.instanceGroups", nil), "spec.instanceGroups: required"},
		{"a valid NodePool", nodePool(), ""},
		{"a NodePool without its class", set(nodePool(), "spec.template.spec.nodeClassRef", nil), "spec.template.spec.nodeClassRef: required"},
		{"a NodePool's consolidation policy outside the enum", set(nodePool(), "spec.disruption.consolidationPolicy", "Always"), "spec.disruption.consolidationPolicy"},
		{"an FSx InferenceEndpointConfig", set(set(inferenceEndpointConfig(), "spec.modelSourceConfig.s3Storage", nil), "spec.modelSourceConfig.fsxStorage", map[string]any{"fileSystemId": "fs-0123456789abcdef0"}), ""},
		{"an InferenceEndpointConfig's unknown worker field", set(inferenceEndpointConfig(), "spec.worker.gpus", int64(1)), "spec.worker.gpus: unknown field"},
		{"an InferenceEndpointConfig without a worker", set(inferenceEndpointConfig(), "spec.worker", nil), "spec.worker: required"},
		{"a model source left out here", set(inferenceEndpointConfig(), "spec.modelSourceConfig.modelSourceType", "huggingface"), "spec.modelSourceConfig.modelSourceType"},
		{"an S3 source without its region", set(inferenceEndpointConfig(), "spec.modelSourceConfig.s3Storage.region", nil), "s3Storage.region: required"},
		{"a port out of range", set(inferenceEndpointConfig(), "spec.worker.modelInvocationPort.containerPort", int64(70000)), "more than the maximum 65535"},
		{"a bad quantity", set(inferenceEndpointConfig(), "spec.worker.resources.requests.memory", "lots"), "spec.worker.resources.requests.memory"},
		{"a routing strategy outside the enum", set(inferenceEndpointConfig(), "spec.intelligentRoutingSpec.routingStrategy", "random"), "routingStrategy"},
		{"a state outside the enum", set(inferenceEndpointConfig(), "status.state", "Ready"), "status.state"},
		{"an instance type that is not ml.", set(inferenceEndpointConfig(), "spec.instanceType", "g5.12xlarge"), "spec.instanceType"},
		{"a v1alpha1 InferenceEndpointConfig", v1alpha1Config(), ""},
		{"a cache option v1alpha1 lacks", set(v1alpha1Config(), "spec.kvCacheSpec", map[string]any{}), "spec.kvCacheSpec: unknown field"},
		{"worker args v1alpha1 lacks", set(v1alpha1Config(), "spec.worker.args", []any{"--port", "8000"}), "spec.worker.args: unknown field"},
		{"a v1alpha1 one without its instance type", set(v1alpha1Config(), "spec.instanceType", nil), "spec.instanceType: required"},
		{"a valid JumpStartModel", jumpStartModel(), ""},
		{"a JumpStartModel without acceptEula", set(jumpStartModel(), "spec.model.acceptEula", nil), "spec.model.acceptEula: required"},
		{"a JumpStartModel's unknown field", set(jumpStartModel(), "spec.server.gpus", int64(1)), "spec.server.gpus: unknown field"},
		{"a JumpStartModel's bad version", set(jumpStartModel(), "spec.model.modelVersion", "latest"), "spec.model.modelVersion"},
		{"a valid ScaledObject", scaledObject(), ""},
		{"a ScaledObject without triggers", set(scaledObject(), "spec.triggers", []any{}), "fewer than 1 items"},
		{"a ScaledObject's unknown field", set(scaledObject(), "spec.minReplicas", int64(1)), "spec.minReplicas: unknown field"},
		{"a trigger setting that is not a string", set(scaledObject(), "spec.triggers.0.metadata.threshold", int64(5)), "spec.triggers[0].metadata.threshold: must be a string"},
		{"a ScaledObject without its target's name", set(scaledObject(), "spec.scaleTargetRef.name", nil), "spec.scaleTargetRef.name: required"},
		{"a valid TriggerAuthentication", triggerAuthentication(), ""},
		{"a pod identity provider outside the enum", set(triggerAuthentication(), "spec.podIdentity.provider", "aws-irsa"), "spec.podIdentity.provider"},
		{"a TriggerAuthentication's unknown field", set(triggerAuthentication(), "spec.awsSecretManager", map[string]any{}), "spec.awsSecretManager: unknown field"},
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

func TestParseChecksTheScaleSubresource(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
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
      subresources:
        scale: {specReplicasPath: .spec.replicas%s}
      schema:
        openAPIV3Schema: {type: object}
`
	c, err := parse([]byte(strings.ReplaceAll(crd, "%s", ", statusReplicasPath: .status.replicas")))
	if err != nil || !c.Versions[0].ScaleSubresource || c.Versions[0].StatusSubresource {
		t.Fatalf("a scale subresource: %v, %+v", err, c)
	}
	if _, err := parse([]byte(strings.ReplaceAll(crd, "%s", ""))); err == nil || !strings.Contains(err.Error(), "statusReplicasPath") {
		t.Fatalf("a scale subresource without statusReplicasPath: %v", err)
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
