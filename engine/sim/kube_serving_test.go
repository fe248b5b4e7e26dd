package sim

import (
	"io"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
)

// servingClaim is the claim of inferenceBucket servingFixture makes, as the
// control plane's shared-bucket claim.
const servingClaim = "s3-shared"

// servingFixture is inferenceFixture with a PersistentVolume of the S3 CSI
// driver on inferenceBucket, bound to claim servingClaim of namespace
// default, and a model models/<name>/ of the given bytes for each entry
// of models (two objects: its config and its weights).
func servingFixture(t *testing.T, models map[string]int64) (*fixture, *cloud.KubeClients) {
	f, kc := inferenceFixture(t)
	pv := testPV("s3-pv", "s3.csi.aws.com", nil)
	pv.Spec.CSI.VolumeAttributes = map[string]string{"bucketName": inferenceBucket}
	ok(kc.Core.CoreV1().PersistentVolumes().Create(f.ctx, pv, metav1.CreateOptions{})).must(t)
	ok(kc.Core.CoreV1().PersistentVolumeClaims("default").Create(f.ctx, testClaim(servingClaim, "s3-pv", "10Gi"), metav1.CreateOptions{})).must(t)
	for name, n := range models {
		f.modelObjects(name, n)
	}
	f.advance(time.Second)
	return f, kc
}

// modelObjects stores, without their bytes, the objects of a model of n
// bytes under models/<name>/ in inferenceBucket.
func (f *fixture) modelObjects(name string, n int64) {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	b := f.w.st.Buckets[inferenceBucket]
	if b.Objects == nil {
		b.Objects = map[string]*s3ObjRec{}
	}
	config := min(n, 1024)
	b.Objects["models/"+name+"/config.json"] = &s3ObjRec{Size: config, LastModified: f.clock.Now()}
	b.Objects["models/"+name+"/model.safetensors"] = &s3ObjRec{Size: n - config, LastModified: f.clock.Now()}
}

// serverDeployment is a Deployment of replicas model servers of model as
// the control plane makes them: engine "vllm" or "sglang", the model read
// from the shared bucket's claim at /s3. Its pods request no GPU, so that
// several fit the fixture's one node.
func serverDeployment(name, engine, model string, replicas int32) *appsv1.Deployment {
	c := corev1.Container{Name: "server", Image: "vllm/vllm-openai:v0.10.1",
		Command: []string{"vllm", "serve", "/s3/models/" + model},
		Args:    []string{"--served-model-name", model, "--tensor-parallel-size", "1", "--host", "0.0.0.0", "--port", "8000"},
		Ports:   []corev1.ContainerPort{{Name: "http", ContainerPort: 8000}},
		VolumeMounts: []corev1.VolumeMount{{Name: "s3", MountPath: "/s3", ReadOnly: true},
			{Name: "dshm", MountPath: "/dev/shm"}},
	}
	if engine == "sglang" {
		c.Image = "lmsysorg/sglang:v0.4.9"
		c.Command = []string{"python3", "-m", "sglang.launch_server"}
		c.Args = []string{"--model-path", "/s3/models/" + model, "--served-model-name", model, "--tp", "1", "--host", "0.0.0.0", "--port", "30000"}
		c.Ports[0].ContainerPort = 30000
	}
	d := servingDeployment(name, c.Image, replicas)
	spec := &d.Spec.Template.Spec
	spec.Containers = []corev1.Container{c}
	spec.Volumes = []corev1.Volume{
		{Name: "s3", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: servingClaim, ReadOnly: true}}},
		{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
	}
	return d
}

// startServers creates d and returns, once its pods run, when their
// models will be loaded, bytes being the model's size. The clock ends on
// the pods' start.
func (f *fixture) startServers(kc *cloud.KubeClients, d *appsv1.Deployment, bytes int64) time.Time {
	f.t.Helper()
	ok(kc.Core.AppsV1().Deployments("default").Create(f.ctx, d, metav1.CreateOptions{})).must(f.t)
	created := f.clock.Now()
	f.advanceTo(created.Add(scaled(kubePodStartTime)))
	for _, p := range f.deploymentPods(kc, d.Name) {
		if p.Status.Phase != corev1.PodRunning {
			f.t.Fatalf("pod %s is %s %+v after its start time", p.Name, p.Status.Phase, p.Status.Conditions)
		}
	}
	return created.Add(scaled(kubePodStartTime) + scaled(kubeModelLoadTime(bytes)))
}

// podLog reads the whole log of a pod of namespace default.
func (f *fixture) podLog(kc *cloud.KubeClients, pod string) string {
	f.t.Helper()
	rc := ok(kc.Logs.Stream(f.ctx, "default", pod, &corev1.PodLogOptions{})).must(f.t)
	defer rc.Close()
	return string(ok(io.ReadAll(rc)).must(f.t))
}

func deploymentCondition(d *appsv1.Deployment, typ appsv1.DeploymentConditionType) appsv1.DeploymentCondition {
	for _, c := range d.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return appsv1.DeploymentCondition{}
}

// TestModelServerReadyAfterItsLoad: a server runs but is not Ready while
// it loads its model, for a time that grows with the model's bytes; it is
// Ready from the moment the load ends, which the Deployment's status
// records even when nobody looked then, and its log tells the load.
func TestModelServerReadyAfterItsLoad(t *testing.T) {
	for _, c := range []struct {
		name, engine string
		bytes        int64
		loadedLine   string
	}{
		{"small vllm model", "vllm", 1 << 30, "Model loading took 1.0000 GiB"},
		{"large sglang model", "sglang", 60 << 30, "The server is fired up and ready to roll!"},
		{"no model in the bucket", "vllm", 0, "Application startup complete."},
	} {
		t.Run(c.name, func(t *testing.T) {
			models := map[string]int64{}
			if c.bytes > 0 {
				models["qwen3-8b"] = c.bytes
			}
			f, kc := servingFixture(t, models)
			loadedAt := f.startServers(kc, serverDeployment("chat", c.engine, "qwen3-8b", 1), c.bytes)
			if want := scaled(kubeModelLoadBase + time.Duration(float64(c.bytes)/kubeModelLoadRate*float64(time.Second))); loadedAt.Sub(f.clock.Now()) != want {
				t.Fatalf("load time %v, want %v", loadedAt.Sub(f.clock.Now()), want)
			}
			f.advanceTo(loadedAt.Add(-time.Millisecond))
			p := f.deploymentPods(kc, "chat")[0]
			if kubePodReady(&p) || p.Status.Phase != corev1.PodRunning {
				t.Fatalf("pod %s Ready=%v before its model is loaded", p.Status.Phase, kubePodReady(&p))
			}
			if log := f.podLog(kc, p.Name); strings.Contains(log, c.loadedLine) || log == "" {
				t.Fatalf("log while loading:\n%s", log)
			}
			if d := deploymentOf(f, kc, "chat"); d.Status.ReadyReplicas != 0 || deploymentCondition(d, appsv1.DeploymentAvailable).Status != corev1.ConditionFalse {
				t.Fatalf("Deployment while loading: %+v", d.Status)
			}
			f.advance(time.Hour) // nobody looks at the load's end
			p = f.deploymentPods(kc, "chat")[0]
			if !kubePodReady(&p) {
				t.Fatalf("pod not Ready after its load: %+v", p.Status.Conditions)
			}
			d := deploymentOf(f, kc, "chat")
			avail := deploymentCondition(d, appsv1.DeploymentAvailable)
			if d.Status.ReadyReplicas != 1 || avail.Status != corev1.ConditionTrue || !avail.LastTransitionTime.Time.Equal(loadedAt.Truncate(time.Second)) {
				t.Fatalf("Deployment after the load: %+v, Available since %v, want since %v", d.Status, avail.LastTransitionTime, loadedAt)
			}
			if log := f.podLog(kc, p.Name); !strings.Contains(log, c.loadedLine) {
				t.Fatalf("log once loaded:\n%s", log)
			}
		})
	}
}

// TestGPUOOMFaultCrashLoops: the servers of the Deployment a gpuoom fault
// names exit at the end of their load with CUDA out of memory in their log
// and wait in CrashLoopBackOff; another namespace's fault spares them; once
// the fault is cleared they load again and become Ready.
func TestGPUOOMFaultCrashLoops(t *testing.T) {
	f, kc := servingFixture(t, map[string]int64{"qwen3-8b": 1 << 30})
	fault := ok(ParseFault("gpuoom:deployment=oom")).must(t)
	oom := ok(f.w.InjectFault(fault)).must(t)
	ok(f.w.InjectFault(Fault{Kind: FaultGPUOOM, Namespace: "other", Deployment: "fine"})).must(t)
	ok(kc.Core.AppsV1().Deployments("default").Create(f.ctx, serverDeployment("fine", "vllm", "qwen3-8b", 1), metav1.CreateOptions{})).must(t)
	loadedAt := f.startServers(kc, serverDeployment("oom", "vllm", "qwen3-8b", 1), 1<<30)
	f.advanceTo(loadedAt)
	p := f.deploymentPods(kc, "oom")[0]
	cs := p.Status.ContainerStatuses[0]
	if kubePodReady(&p) || cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" || cs.RestartCount != 1 ||
		cs.LastTerminationState.Terminated == nil || !strings.Contains(cs.LastTerminationState.Terminated.Message, "CUDA out of memory") {
		t.Fatalf("struck server: ready %v, %+v", kubePodReady(&p), cs)
	}
	if log := f.podLog(kc, p.Name); !strings.Contains(log, "torch.OutOfMemoryError: CUDA out of memory") {
		t.Fatalf("log of the struck server:\n%s", log)
	}
	if fine := f.deploymentPods(kc, "fine")[0]; !kubePodReady(&fine) {
		t.Fatalf("the fault of another namespace struck: %+v", fine.Status.ContainerStatuses)
	}
	f.advance(time.Minute)
	if p := f.deploymentPods(kc, "oom")[0]; p.Status.ContainerStatuses[0].RestartCount != 1 {
		t.Fatalf("restarts counted again while it waits: %+v", p.Status.ContainerStatuses[0])
	}
	if err := f.w.ClearFault(oom.ID); err != nil {
		t.Fatal(err)
	}
	cleared := f.clock.Now()
	p = f.deploymentPods(kc, "oom")[0]
	if cs := p.Status.ContainerStatuses[0]; kubePodReady(&p) || cs.State.Running == nil {
		t.Fatalf("after the fault is cleared the server loads again: %+v", cs)
	}
	f.advanceTo(cleared.Add(scaled(kubeModelLoadTime(1 << 30))))
	if p := f.deploymentPods(kc, "oom")[0]; !kubePodReady(&p) {
		t.Fatalf("not Ready once loaded again: %+v", p.Status.ContainerStatuses)
	}
}

// TestServingPodsComeBackAfterTheirNodeIsLost: a node fault that replaces
// the node under a Deployment deletes its pod; the Deployment makes
// another, Pending while no node fits, then bound to the new node.
func TestServingPodsComeBackAfterTheirNodeIsLost(t *testing.T) {
	f, kc := servingFixture(t, map[string]int64{"qwen3-8b": 1 << 30})
	d := serverDeployment("chat", "vllm", "qwen3-8b", 1)
	d.Spec.Template.Spec.Containers[0].Resources.Limits = resourceList([]string{"nvidia.com/gpu", "1"})
	f.startServers(kc, d, 1<<30)
	before := f.deploymentPods(kc, "chat")[0]
	ok(f.w.InjectFault(Fault{Kind: FaultNode, Cluster: "hp", Recovery: recoverReplace})).must(t)
	var pending bool
	for range 120 {
		f.advance(10 * time.Second)
		pods := f.deploymentPods(kc, "chat")
		if len(pods) != 1 {
			t.Fatalf("%d pods", len(pods))
		}
		p := pods[0]
		if p.Name == before.Name {
			continue
		}
		if p.Spec.NodeName == "" {
			pending = true
			continue
		}
		if p.Spec.NodeName == before.Spec.NodeName || kubeDeploymentName(&p) != "chat" {
			t.Fatalf("replacement %s on %s, owned by %q", p.Name, p.Spec.NodeName, kubeDeploymentName(&p))
		}
		if !pending {
			t.Fatal("the replacement was never Pending while no node fitted")
		}
		return
	}
	t.Fatal("the Deployment's pod never came back on the new node")
}
