package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Model servers. A settle plays them after the pods start:
//
//   - a serving pod is one whose first container runs vLLM (vllm serve
//     <model>), SGLang (sglang.launch_server --model-path <model>), the
//     inference operator's worker (container "worker", its model at its
//     read-only volume mount), or the SGLang router
//     (sglang_router.launch_router);
//   - it is Running but not Ready while it loads its model: for
//     kubeModelLoadBase plus the model's size (the bytes under its path in
//     the bucket its volume is bound to) at kubeModelLoadRate, divided by
//     the world's speed; a router is ready at once;
//   - a gpuoom fault on its Deployment makes the load fail: the container
//     exits with torch.OutOfMemoryError (its log says so,
//     kube_serving_logs.go) and waits in CrashLoopBackOff; once the fault
//     is cleared, the next settle restarts it and it loads again;
//   - an imagepull fault on its image keeps it Pending, its container
//     waiting in ErrImagePull (kube_sched.go's start asks kubeUnpullable).
//
// The settle is woken when a load ends (kubeScheduler.later), so that the
// Deployment's status and the operator's follow at that moment. Left out:
// probes other than the load (a ready server stays ready), back-off
// delays (a crashed server waits in CrashLoopBackOff until its fault is
// cleared, one restart counted per crash).

// Model load of a serving pod (real time).
const (
	kubeModelLoadBase = 30 * time.Second
	kubeModelLoadRate = 500 << 20 // bytes a second
)

// kubeServingKind is what a pod serves: "vllm", "sglang", "worker",
// "router", or "" for none.
func kubeServingKind(pod *corev1.Pod) string {
	if len(pod.Spec.Containers) == 0 {
		return ""
	}
	c := &pod.Spec.Containers[0]
	cmd := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
	switch {
	case strings.Contains(cmd, "sglang_router.launch_router"):
		return "router"
	case strings.Contains(cmd, "sglang.launch_server"):
		return "sglang"
	case len(c.Command) >= 2 && c.Command[0] == "vllm" && c.Command[1] == "serve":
		return "vllm"
	case c.Name == "worker" && kubeDeploymentOwner(pod) != "":
		return "worker"
	}
	return ""
}

// kubeArg is the value of flag in args, "" when absent.
func kubeArg(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// servingModelPath is the path a server loads its model from.
func servingModelPath(pod *corev1.Pod, kind string) string {
	c := &pod.Spec.Containers[0]
	switch kind {
	case "vllm":
		if len(c.Command) > 2 {
			return c.Command[2]
		}
		if len(c.Args) > 0 && !strings.HasPrefix(c.Args[0], "-") {
			return c.Args[0]
		}
	case "sglang":
		return kubeArg(append(slices.Clone(c.Command), c.Args...), "--model-path")
	case "worker":
		for _, m := range c.VolumeMounts {
			if m.ReadOnly {
				return m.MountPath
			}
		}
	}
	return ""
}

// modelBytes is the size of the model a serving pod loads: 0 when its
// path is not on a bucket (a JumpStart worker's emptyDir, FSx).
func (s *kubeSession) modelBytes(pod *corev1.Pod, kind string) int64 {
	p := servingModelPath(pod, kind)
	if p == "" {
		return 0
	}
	bucket, prefix, err := s.bucketPathOf(pod, &pod.Spec.Containers[0], p)
	if err != nil {
		return 0
	}
	b := s.t.st.Buckets[bucket]
	if b == nil {
		return 0
	}
	var n int64
	for key, o := range b.Objects {
		if strings.HasPrefix(key, prefix) {
			n += o.Size
		}
	}
	return n
}

// kubeModelLoadTime is how long loading n bytes takes (real time).
func kubeModelLoadTime(n int64) time.Duration {
	return kubeModelLoadBase + time.Duration(float64(n)/kubeModelLoadRate*float64(time.Second))
}

// kubeUnpullable returns the imagepull fault that strikes pod's images,
// and the image, or -1.
func (t *txn) kubeUnpullable(pod *corev1.Pod) (int, string) {
	for i, f := range t.st.Faults {
		if f.Kind != FaultImagePull || !f.inRegion(t.region) {
			continue
		}
		for _, c := range pod.Spec.Containers {
			if c.Image == f.Image {
				return i, c.Image
			}
		}
	}
	return -1, ""
}

// kubePullFailedStatus keeps pod Pending with its container waiting on an
// image that cannot be pulled.
func kubePullFailedStatus(pod *corev1.Pod, image, message string) {
	st := &pod.Status
	st.Phase = corev1.PodPending
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}
		if c.Image == image {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ErrImagePull",
				Message: fmt.Sprintf("failed to pull and unpack image %q: %s", image, message)}
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
}

// playServing plays the model servers (see the top of this file).
func (sc *kubeScheduler) playServing() {
	s := sc.s
	live := map[string]bool{}
	for _, p := range sc.pods {
		live[string(p.pod.UID)] = true
	}
	for uid := range s.rec.ServerStarts {
		if !live[uid] {
			delete(s.rec.ServerStarts, uid)
		}
	}
	for uid := range s.rec.ServerBytes {
		if !live[uid] {
			delete(s.rec.ServerBytes, uid)
		}
	}
	for _, p := range sc.pods {
		kind := kubeServingKind(&p.pod)
		if kind == "" || !p.active() || p.pod.Status.Phase != corev1.PodRunning || len(p.pod.Status.ContainerStatuses) == 0 {
			continue
		}
		cs := &p.pod.Status.ContainerStatuses[0]
		if _, ok := s.rec.ServerBytes[string(p.pod.UID)]; !ok && kind != "router" {
			// A server reads its model's size once, as it starts: a settle
			// (every API call) does not walk the bucket again.
			if s.rec.ServerBytes == nil {
				s.rec.ServerBytes = map[string]int64{}
			}
			s.rec.ServerBytes[string(p.pod.UID)] = s.modelBytes(&p.pod, kind)
		}
		load := s.serverLoad(&p.pod, kind)
		if w := cs.State.Waiting; w != nil && w.Reason == kubeCrashLoopBackOff && !load.oom {
			// The fault is gone: the kubelet's next restart loads the
			// model again, from now.
			if s.rec.ServerStarts == nil {
				s.rec.ServerStarts = map[string]time.Time{}
			}
			s.rec.ServerStarts[string(p.pod.UID)] = s.t.now
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(s.t.now)}}
			load = s.serverLoad(&p.pod, kind)
		}
		st := &p.pod.Status
		unready := "containers with unready status: [" + cs.Name + "]"
		switch {
		case s.t.now.Before(load.loadedAt):
			kubeSetPodCondition(st, corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", unready, load.started)
			kubeSetPodCondition(st, corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", unready, load.started)
			cs.Ready = false
			sc.later = append(sc.later, load.loadedAt)
		case load.oom:
			kubeSetPodCondition(st, corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", unready, load.started)
			kubeSetPodCondition(st, corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", unready, load.started)
			if cs.State.Waiting == nil {
				cs.RestartCount++
			}
			cs.Ready = false
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: kubeCrashLoopBackOff,
				Message: "back-off 10s restarting failed container=" + cs.Name + " pod=" + p.pod.Name + "_" + p.pod.Namespace + "(" + string(p.pod.UID) + ")"}}
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
				Message: kubeCUDAOutOfMemory, StartedAt: metav1.NewTime(load.started), FinishedAt: metav1.NewTime(load.loadedAt)}}
		default:
			kubeSetPodCondition(st, corev1.ContainersReady, corev1.ConditionTrue, "", "", load.loadedAt)
			kubeSetPodCondition(st, corev1.PodReady, corev1.ConditionTrue, "", "", load.loadedAt)
			cs.Ready = true
			if cs.State.Running == nil {
				cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(load.started)}}
			}
		}
		sc.store(p)
	}
}

// kubeCrashLoopBackOff is the kubelet's reason for a container it waits
// to restart.
const kubeCrashLoopBackOff = "CrashLoopBackOff"

// kubeCUDAOutOfMemory is how a model server out of GPU memory ends, in its
// last state and its log.
const kubeCUDAOutOfMemory = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. " +
	"GPU 0 has a total capacity of 22.05 GiB of which 1.12 GiB is free. Of the allocated memory 20.13 GiB is allocated by PyTorch"

// kubeServerLoad is a model server's load: when its container started,
// the bytes it loads, when it is done (at once for a router), and whether
// a gpuoom fault makes it fail then.
type kubeServerLoad struct {
	started, loadedAt time.Time
	bytes             int64
	oom               bool
}

// serverLoad computes the load of serving pod pod, a server of kind.
func (s *kubeSession) serverLoad(pod *corev1.Pod, kind string) kubeServerLoad {
	l := kubeServerLoad{started: s.serverStart(pod)}
	l.loadedAt = l.started
	if kind != "router" {
		bytes, ok := s.rec.ServerBytes[string(pod.UID)]
		if !ok {
			bytes = s.modelBytes(pod, kind)
		}
		l.bytes = bytes
		l.loadedAt = l.started.Add(s.t.w.scale(kubeModelLoadTime(l.bytes)))
	}
	deployment := kubeDeploymentName(pod)
	for _, f := range s.t.st.Faults {
		if f.Kind == FaultGPUOOM && f.inRegion(s.t.region) && deployment != "" && f.Deployment == deployment &&
			(f.Namespace == "" || f.Namespace == pod.Namespace) && kind != "router" {
			l.oom = true
		}
	}
	return l
}

// serverStart is when a serving pod's container last started.
func (s *kubeSession) serverStart(pod *corev1.Pod) time.Time {
	if at, ok := s.rec.ServerStarts[string(pod.UID)]; ok {
		return at
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReadyToStartContainers {
			return c.LastTransitionTime.Time // started before the simulator kept the moment
		}
	}
	return s.t.now
}

// kubeDeploymentName is the name of the Deployment that controls pod.
func kubeDeploymentName(pod *corev1.Pod) string {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "Deployment" && o.Controller != nil && *o.Controller {
			return o.Name
		}
	}
	return ""
}
