package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/kubecrds"
)

var (
	endpointConfigsResource = schema.GroupVersionResource{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "inferenceendpointconfigs"}
	jumpStartModelsResource = schema.GroupVersionResource{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "jumpstartmodels"}
)

// inferenceBucket is the bucket inferenceFixture's models are in.
const inferenceBucket = "shared-bucket"

// inferenceFixture is a HyperPod cluster "hp" of one ml.g5.xlarge node
// whose GPU its device plugin advertises, the bucket inferenceBucket, the
// S3 CSI driver, and the clients of its EKS cluster "eks". The inference
// add-on is not installed.
func inferenceFixture(t *testing.T) (*fixture, *cloud.KubeClients) {
	f := newFixture(t)
	h := f.hyperPod()
	f.devicePlugins("eks")
	f.createReady(h.input("hp", "ml.g5.xlarge", 1, 0))
	f.bucket(inferenceBucket)
	kc := f.kubeClients("eks")
	ok(kc.Core.StorageV1().CSIDrivers().Create(f.ctx, testCSIDriver("s3.csi.aws.com"), metav1.CreateOptions{})).must(t)
	return f, kc
}

// inferenceAddon installs the inference operator's add-on and waits until
// it is ACTIVE.
func (f *fixture) inferenceAddon() {
	f.t.Helper()
	ok(f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("eks"), AddonName: aws.String(kubeInferenceOperatorAddon)})).must(f.t)
	f.advance(addonCreateTime)
}

// testEndpointConfig is an InferenceEndpointConfig of model qwen3-8b in
// inferenceBucket, as the control plane makes one, checked against its CRD.
func testEndpointConfig(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "inference.sagemaker.aws.amazon.com/v1", "kind": "InferenceEndpointConfig",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec": map[string]any{
			"modelName": name, "endpointName": name, "instanceType": "ml.g5.xlarge", "replicas": int64(1),
			"modelSourceConfig": map[string]any{
				"modelSourceType": "s3", "modelLocation": "models/qwen3-8b",
				"s3Storage": map[string]any{"bucketName": inferenceBucket, "region": "us-west-2"},
			},
			"worker": map[string]any{
				"image": "763104351884.dkr.ecr.us-west-2.amazonaws.com/djl-inference:0.32.0-lmi14.0.0-cu124",
				"resources": map[string]any{
					"requests": map[string]any{"nvidia.com/gpu": "1", "cpu": "2", "memory": "8Gi"},
					"limits":   map[string]any{"nvidia.com/gpu": "1"},
				},
				"modelInvocationPort":  map[string]any{"containerPort": int64(8000), "name": "http"},
				"modelVolumeMount":     map[string]any{"name": "model-weights", "mountPath": "/opt/ml/model"},
				"environmentVariables": []any{map[string]any{"name": "OPTION_MODEL_ID", "value": "/opt/ml/model"}},
			},
			"loadBalancer": map[string]any{"healthCheckPath": "/health"},
		},
	}}
	if err := kubecrds.Validate(obj); err != nil {
		t.Fatalf("the test's InferenceEndpointConfig does not pass its CRD: %v", err)
	}
	return obj
}

// inferenceObject reads an object of resource r in namespace default.
func inferenceObject(f *fixture, kc *cloud.KubeClients, r schema.GroupVersionResource, name string) *unstructured.Unstructured {
	f.t.Helper()
	return ok(kc.Dynamic.Resource(r).Namespace("default").Get(f.ctx, name, metav1.GetOptions{})).must(f.t)
}

// inferenceState is the object's status.state and deploymentStatus.message.
func inferenceState(f *fixture, kc *cloud.KubeClients, r schema.GroupVersionResource, name string) (string, string) {
	f.t.Helper()
	obj := inferenceObject(f, kc, r, name)
	state, _, _ := unstructured.NestedString(obj.Object, "status", "state")
	msg, _, _ := unstructured.NestedString(obj.Object, "status", "deploymentStatus", "message")
	return state, msg
}

// deploymentOf reads Deployment name of namespace default, nil if there is
// none.
func deploymentOf(f *fixture, kc *cloud.KubeClients, name string) *appsv1.Deployment {
	f.t.Helper()
	d, err := kc.Core.AppsV1().Deployments("default").Get(f.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return ok(d, err).must(f.t)
}

// makeReady brings Deployment name to all its replicas ready. The
// simulator's Deployment controller does it once the workers load their
// model; without one, the test writes the status the controller would.
func makeReady(f *fixture, kc *cloud.KubeClients, name string) {
	f.t.Helper()
	f.advance(30 * time.Minute)
	d := deploymentOf(f, kc, name)
	if d.Status.ReadyReplicas >= *d.Spec.Replicas {
		return
	}
	pods := ok(kc.Core.CoreV1().Pods("default").List(f.ctx, metav1.ListOptions{LabelSelector: "app=" + name})).must(f.t).Items
	if len(pods) > 0 {
		f.t.Fatalf("Deployment %s has %d pods and %d of %d replicas ready after 30 minutes: %+v", name, len(pods), d.Status.ReadyReplicas, *d.Spec.Replicas, pods[0].Status)
	}
	n := *d.Spec.Replicas
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, ReadyReplicas: n, AvailableReplicas: n, UpdatedReplicas: n}
	ok(kc.Core.AppsV1().Deployments("default").UpdateStatus(f.ctx, d, metav1.UpdateOptions{})).must(f.t)
}

func TestInferenceOperatorNeedsItsAddon(t *testing.T) {
	f, kc := inferenceFixture(t)
	ok(kc.Dynamic.Resource(endpointConfigsResource).Namespace("default").Create(f.ctx, testEndpointConfig(t, "qwen"), metav1.CreateOptions{})).must(t)
	f.advance(time.Hour)
	if obj := inferenceObject(f, kc, endpointConfigsResource, "qwen"); obj.Object["status"] != nil {
		t.Errorf("without the add-on the object got a status: %v", obj.Object["status"])
	}
	if d := deploymentOf(f, kc, "qwen"); d != nil {
		t.Errorf("without the add-on a Deployment was made: %+v", d)
	}
	f.inferenceAddon()
	if state, _ := inferenceState(f, kc, endpointConfigsResource, "qwen"); state != inferencePending {
		t.Errorf("once the add-on is ACTIVE the state is %q, want %s", state, inferencePending)
	}
	if d := deploymentOf(f, kc, "qwen"); d != nil {
		t.Errorf("a Deployment while pending: %+v", d)
	}
	f.advance(inferencePrepareTime)
	if state, _ := inferenceState(f, kc, endpointConfigsResource, "qwen"); state != inferenceInProgress {
		t.Errorf("after the preparation the state is %q, want %s", state, inferenceInProgress)
	}
	if deploymentOf(f, kc, "qwen") == nil {
		t.Error("no Deployment once in progress")
	}
}

func TestInferenceEndpointConfigBecomesADeploymentAndAService(t *testing.T) {
	f, kc := inferenceFixture(t)
	f.inferenceAddon()
	created := ok(kc.Dynamic.Resource(endpointConfigsResource).Namespace("default").Create(f.ctx, testEndpointConfig(t, "qwen"), metav1.CreateOptions{})).must(t)
	f.advance(inferencePrepareTime)
	d := deploymentOf(f, kc, "qwen")
	if d == nil {
		t.Fatal("no Deployment qwen")
	}
	owner := metav1.GetControllerOf(d)
	if owner == nil || owner.Kind != "InferenceEndpointConfig" || owner.UID != created.GetUID() || owner.APIVersion != inferenceGroupVersion {
		t.Errorf("Deployment's controller = %+v", owner)
	}
	if *d.Spec.Replicas != 1 || d.Spec.Selector.MatchLabels["app"] != "qwen" || d.Spec.Template.Labels["app"] != "qwen" {
		t.Errorf("replicas %d, selector %v, template labels %v", *d.Spec.Replicas, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("containers: %+v", pod.Containers)
	}
	c := pod.Containers[0]
	gpus := c.Resources.Limits[kubeResourceGPU]
	if c.Name != "worker" || !strings.HasSuffix(c.Image, "djl-inference:0.32.0-lmi14.0.0-cu124") || gpus.Value() != 1 ||
		len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8000 ||
		len(c.Env) != 1 || c.Env[0].Name != "OPTION_MODEL_ID" {
		t.Errorf("worker container = %+v", c)
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/health" || p.HTTPGet.Port.IntValue() != 8000 {
		t.Errorf("readiness probe = %+v", c.ReadinessProbe)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != "model-weights" || c.VolumeMounts[0].MountPath != "/opt/ml/model" || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("mounts = %+v", c.VolumeMounts)
	}
	if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "qwen-model" {
		t.Fatalf("volumes = %+v", pod.Volumes)
	}
	terms := pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchExpressions) != 1 || terms[0].MatchExpressions[0].Key != "node.kubernetes.io/instance-type" ||
		terms[0].MatchExpressions[0].Values[0] != "ml.g5.xlarge" {
		t.Errorf("node affinity = %+v", terms)
	}
	core := kc.Core.CoreV1()
	svc := ok(core.Services("default").Get(f.ctx, "qwen", metav1.GetOptions{})).must(t)
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Selector["app"] != "qwen" || len(svc.Spec.Ports) != 1 ||
		svc.Spec.Ports[0].Name != "http" || svc.Spec.Ports[0].Port != 8000 || svc.Spec.Ports[0].TargetPort.IntValue() != 8000 || metav1.GetControllerOf(svc) == nil {
		t.Errorf("Service = %+v", svc)
	}
	f.advance(time.Second) // the claim binds at the next settle
	claim := ok(core.PersistentVolumeClaims("default").Get(f.ctx, "qwen-model", metav1.GetOptions{})).must(t)
	pv := ok(core.PersistentVolumes().Get(f.ctx, "qwen-default-model", metav1.GetOptions{})).must(t)
	if claim.Status.Phase != corev1.ClaimBound || claim.Spec.VolumeName != pv.Name || pv.Spec.CSI == nil || pv.Spec.CSI.Driver != "s3.csi.aws.com" ||
		pv.Spec.CSI.VolumeAttributes["bucketName"] != inferenceBucket || kubeMountPrefix(pv.Spec.MountOptions) != "models/qwen3-8b/" ||
		pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
		t.Errorf("claim %s (%s), PV %+v", claim.Status.Phase, claim.Spec.VolumeName, pv.Spec)
	}
	if state, _ := inferenceState(f, kc, endpointConfigsResource, "qwen"); state != inferenceInProgress {
		t.Errorf("state %q before the replicas are ready, want %s", state, inferenceInProgress)
	}
	makeReady(f, kc, "qwen")
	obj := inferenceObject(f, kc, endpointConfigsResource, "qwen")
	status, _ := obj.Object["status"].(map[string]any)
	if status["state"] != inferenceComplete || status["selector"] != "app=qwen" || status["replicas"] != int64(1) || status["observedGeneration"] != int64(1) {
		t.Errorf("status once ready = %v", status)
	}
	if name, _, _ := unstructured.NestedString(obj.Object, "status", "deploymentStatus", "name"); name != "qwen" {
		t.Errorf("deploymentStatus.name = %q", name)
	}
	if err := kubecrds.Validate(obj); err != nil {
		t.Errorf("the status written does not pass the CRD: %v", err)
	}
	f.advance(time.Minute)
	if again := inferenceObject(f, kc, endpointConfigsResource, "qwen"); again.GetResourceVersion() != obj.GetResourceVersion() {
		t.Errorf("the status was written again though nothing changed: %v, then %v", obj.Object["status"], again.Object["status"])
	}
	// Scaling the Deployment (as KEDA does) is left alone; a new spec
	// brings its replicas back to the spec's.
	d = deploymentOf(f, kc, "qwen")
	d.Spec.Replicas = new(int32(0))
	ok(kc.Core.AppsV1().Deployments("default").Update(f.ctx, d, metav1.UpdateOptions{})).must(t)
	f.advance(time.Minute)
	if d := deploymentOf(f, kc, "qwen"); *d.Spec.Replicas != 0 {
		t.Errorf("the operator undid a scale to 0: %d replicas", *d.Spec.Replicas)
	}
	obj = inferenceObject(f, kc, endpointConfigsResource, "qwen")
	if err := unstructured.SetNestedField(obj.Object, int64(2), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	ok(kc.Dynamic.Resource(endpointConfigsResource).Namespace("default").Update(f.ctx, obj, metav1.UpdateOptions{})).must(t)
	if d := deploymentOf(f, kc, "qwen"); *d.Spec.Replicas != 2 {
		t.Errorf("after spec.replicas 2 the Deployment has %d", *d.Spec.Replicas)
	}
}

func TestDeletingAnEndpointConfigDeletesWhatItMade(t *testing.T) {
	f, kc := inferenceFixture(t)
	f.inferenceAddon()
	r := kc.Dynamic.Resource(endpointConfigsResource).Namespace("default")
	ok(r.Create(f.ctx, testEndpointConfig(t, "qwen"), metav1.CreateOptions{})).must(t)
	f.advance(inferencePrepareTime)
	core := kc.Core.CoreV1()
	f.advance(time.Second)
	if deploymentOf(f, kc, "qwen") == nil {
		t.Fatal("no Deployment")
	}
	if err := r.Delete(f.ctx, "qwen", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := deploymentOf(f, kc, "qwen"); d != nil {
		t.Errorf("the Deployment outlived its InferenceEndpointConfig")
	}
	if _, err := core.Services("default").Get(f.ctx, "qwen", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Service outlived its InferenceEndpointConfig: %v", err)
	}
	if _, err := core.PersistentVolumeClaims("default").Get(f.ctx, "qwen-model", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the claim outlived its InferenceEndpointConfig: %v", err)
	}
	if _, err := core.PersistentVolumes().Get(f.ctx, "qwen-default-model", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the model's volume outlived its InferenceEndpointConfig: %v", err)
	}
}

func TestEndpointConfigFailsWhenItsWorkersCannotComeUp(t *testing.T) {
	f, kc := inferenceFixture(t)
	f.inferenceAddon()
	r := kc.Dynamic.Resource(endpointConfigsResource).Namespace("default")
	ok(r.Create(f.ctx, testEndpointConfig(t, "qwen"), metav1.CreateOptions{})).must(t)
	f.advance(inferencePrepareTime)
	// A worker in CrashLoopBackOff, as a Deployment's pod reports it; its
	// scheduler is none the simulator plays, so nothing else touches it.
	core := kc.Core.CoreV1()
	p := testPod("qwen-7d4b9c8f6d-x2x9z")
	p.Labels = map[string]string{"app": "qwen"}
	p.Spec.SchedulerName = "elsewhere"
	p = ok(core.Pods("default").Create(f.ctx, p, metav1.CreateOptions{})).must(t)
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "worker", RestartCount: 3,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container=worker"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
			Message: "torch.OutOfMemoryError: CUDA out of memory"}},
	}}
	ok(core.Pods("default").UpdateStatus(f.ctx, p, metav1.UpdateOptions{})).must(t)
	state, msg := inferenceState(f, kc, endpointConfigsResource, "qwen")
	if state != inferenceFailed || !strings.Contains(msg, "CrashLoopBackOff") || !strings.Contains(msg, "CUDA out of memory") {
		t.Errorf("state %q, message %q; want %s for the crash", state, msg, inferenceFailed)
	}
	events := ok(core.Events("default").List(f.ctx, metav1.ListOptions{})).must(t).Items
	warned := 0
	for _, e := range events {
		if e.InvolvedObject.Kind == "InferenceEndpointConfig" && e.Type == corev1.EventTypeWarning && e.Reason == "CrashLoopBackOff" {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d Warning events of the crash, want 1: %+v", warned, events)
	}
	// The failure lasts though the pod goes, until a replacement is ready.
	if err := core.Pods("default").Delete(f.ctx, p.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.advance(time.Second)
	if state, _ := inferenceState(f, kc, endpointConfigsResource, "qwen"); state != inferenceFailed {
		t.Errorf("state %q once the crashing pod is gone, want it still %s", state, inferenceFailed)
	}
}

func TestEndpointConfigFailsPastItsDeployTime(t *testing.T) {
	f, kc := inferenceFixture(t)
	f.inferenceAddon()
	obj := testEndpointConfig(t, "qwen")
	if err := unstructured.SetNestedField(obj.Object, int64(600), "spec", "maxDeployTimeInSeconds"); err != nil {
		t.Fatal(err)
	}
	// More GPUs than any node has: the worker stays unschedulable.
	for _, f := range []string{"limits", "requests"} {
		if err := unstructured.SetNestedField(obj.Object, map[string]any{"nvidia.com/gpu": "8"}, "spec", "worker", "resources", f); err != nil {
			t.Fatal(err)
		}
	}
	ok(kc.Dynamic.Resource(endpointConfigsResource).Namespace("default").Create(f.ctx, obj, metav1.CreateOptions{})).must(t)
	f.advance(inferencePrepareTime)
	if state, _ := inferenceState(f, kc, endpointConfigsResource, "qwen"); state != inferenceInProgress {
		t.Fatalf("state %q, want %s", state, inferenceInProgress)
	}
	f.advance(590 * time.Second)
	if state, _ := inferenceState(f, kc, endpointConfigsResource, "qwen"); state != inferenceInProgress {
		t.Errorf("state %q before maxDeployTimeInSeconds, want %s", state, inferenceInProgress)
	}
	f.advance(10 * time.Second)
	state, msg := inferenceState(f, kc, endpointConfigsResource, "qwen")
	if state != inferenceFailed || !strings.Contains(msg, "maxDeployTimeInSeconds (600 s)") {
		t.Errorf("state %q, message %q past maxDeployTimeInSeconds", state, msg)
	}
}

func TestEndpointConfigOfAMissingFileSystemFails(t *testing.T) {
	f, kc := inferenceFixture(t)
	f.inferenceAddon()
	obj := testEndpointConfig(t, "qwen")
	obj.Object["spec"].(map[string]any)["modelSourceConfig"] = map[string]any{
		"modelSourceType": "fsx", "modelLocation": "qwen3-8b", "fsxStorage": map[string]any{"fileSystemId": "fs-0123456789abcdef0"},
	}
	ok(kc.Dynamic.Resource(endpointConfigsResource).Namespace("default").Create(f.ctx, obj, metav1.CreateOptions{})).must(t)
	f.advance(inferencePrepareTime)
	if state, _ := inferenceState(f, kc, endpointConfigsResource, "qwen"); state != inferenceFailed {
		t.Errorf("state %q, want %s", state, inferenceFailed)
	}
	conds, _, _ := unstructured.NestedSlice(inferenceObject(f, kc, endpointConfigsResource, "qwen").Object, "status", "conditions")
	found := false
	for _, c := range conds {
		m := c.(map[string]any)
		if m["type"] == inferenceFailed && m["status"] == "True" && m["reason"] == "FileSystemNotFound" && strings.Contains(m["message"].(string), "fs-0123456789abcdef0") {
			found = true
		}
	}
	if !found {
		t.Errorf("conditions = %v, want DeploymentFailed for the missing file system", conds)
	}
	if deploymentOf(f, kc, "qwen") != nil {
		t.Error("a Deployment for a missing file system")
	}
}

func TestJumpStartModelServesOnTheInstanceTypesGPUs(t *testing.T) {
	f, kc := inferenceFixture(t)
	f.inferenceAddon()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "inference.sagemaker.aws.amazon.com/v1", "kind": "JumpStartModel",
		"metadata": map[string]any{"name": "deepseek", "namespace": "default"},
		"spec": map[string]any{
			"model":             map[string]any{"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "acceptEula": true},
			"server":            map[string]any{"instanceType": "ml.g5.xlarge"},
			"sageMakerEndpoint": map[string]any{"name": "deepseek"},
		},
	}}
	if err := kubecrds.Validate(obj); err != nil {
		t.Fatal(err)
	}
	ok(kc.Dynamic.Resource(jumpStartModelsResource).Namespace("default").Create(f.ctx, obj, metav1.CreateOptions{})).must(t)
	f.advance(inferencePrepareTime)
	d := deploymentOf(f, kc, "deepseek")
	if d == nil {
		t.Fatal("no Deployment deepseek")
	}
	c := d.Spec.Template.Spec.Containers[0]
	gpus := c.Resources.Limits[kubeResourceGPU]
	if c.Name != "worker" || c.Image != "763104351884.dkr.ecr.us-west-2.amazonaws.com/djl-inference:0.32.0-lmi14.0.0-cu124" ||
		gpus.Value() != 1 || c.Ports[0].ContainerPort != jumpStartPort || *d.Spec.Replicas != 1 {
		t.Errorf("JumpStart worker = %+v, %d replicas", c, *d.Spec.Replicas)
	}
	svc := ok(kc.Core.CoreV1().Services("default").Get(f.ctx, "deepseek", metav1.GetOptions{})).must(t)
	if svc.Spec.Ports[0].Port != jumpStartPort || metav1.GetControllerOf(svc).Kind != "JumpStartModel" {
		t.Errorf("JumpStart Service = %+v", svc.Spec)
	}
	makeReady(f, kc, "deepseek")
	if state, _ := inferenceState(f, kc, jumpStartModelsResource, "deepseek"); state != inferenceComplete {
		t.Errorf("state %q once ready, want %s", state, inferenceComplete)
	}
}
