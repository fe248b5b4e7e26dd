package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The pod statuses a settle writes: Pending and why, bound, Running.

// store saves the pod's new version, if it changed.
func (sc *kubeScheduler) store(p *kubeSchedPod) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&p.pod)
	if err != nil {
		// A pod decoded from its stored form always encodes again.
		panic(fmt.Sprintf("sim: encode pod %s: %v", p.key(), err))
	}
	if cur := sc.stored(p); cur != nil {
		sc.s.put(kubePodsKey, cur, &unstructured.Unstructured{Object: content})
	}
}

// remove deletes the pod.
func (sc *kubeScheduler) remove(p *kubeSchedPod) {
	if cur := sc.stored(p); cur != nil {
		sc.s.remove(kubePodsKey, cur)
	}
}

// stored is the pod as stored, nil if it is not: the version a change
// replaces.
func (sc *kubeScheduler) stored(p *kubeSchedPod) *unstructured.Unstructured {
	cur, _ := sc.s.get(kubePodsKey, p.pod.Namespace, p.pod.Name)
	return cur
}

// pending marks p Pending, not scheduled for reason, with message.
func (sc *kubeScheduler) pending(p *kubeSchedPod, reason, message string) {
	st := &p.pod.Status
	for _, c := range st.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == reason && c.Message == message &&
			st.Phase == corev1.PodPending && st.QOSClass != "" {
			return // as it is
		}
	}
	st.Phase = corev1.PodPending
	if st.QOSClass == "" {
		st.QOSClass = kubeQOSClass(&p.pod.Spec)
	}
	kubeSetPodCondition(st, corev1.PodScheduled, corev1.ConditionFalse, reason, message, sc.s.t.now)
	sc.store(p)
}

// boundStatus records that p is bound to n (nil when its node is not
// known) now, and returns when it will run.
func (sc *kubeScheduler) boundStatus(p *kubeSchedPod, n *kubeSchedNode) time.Time {
	s := sc.s
	now := s.t.now
	at := s.t.after(kubePodStartTime)
	if s.rec.PodStarts == nil {
		s.rec.PodStarts = map[string]time.Time{}
	}
	s.rec.PodStarts[string(p.pod.UID)] = at
	st := &p.pod.Status
	st.Phase = corev1.PodPending
	if st.QOSClass == "" {
		st.QOSClass = kubeQOSClass(&p.pod.Spec)
	}
	kubeSetPodCondition(st, corev1.PodScheduled, corev1.ConditionTrue, "", "", now)
	kubeSetPodCondition(st, corev1.PodReadyToStartContainers, corev1.ConditionFalse, "", "", now)
	kubeSetPodCondition(st, corev1.PodInitialized, corev1.ConditionTrue, "", "", now)
	var names []string
	st.ContainerStatuses = nil
	for _, c := range p.pod.Spec.Containers {
		names = append(names, c.Name)
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}},
		})
	}
	notReady := fmt.Sprintf("containers with unready status: [%s]", strings.Join(names, " "))
	kubeSetPodCondition(st, corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", notReady, now)
	kubeSetPodCondition(st, corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", notReady, now)
	if n != nil && n.hostIP != "" {
		st.HostIP, st.HostIPs = n.hostIP, []corev1.HostIP{{IP: n.hostIP}}
		if p.pod.Spec.HostNetwork {
			st.PodIP, st.PodIPs = n.hostIP, []corev1.PodIP{{IP: n.hostIP}}
		}
	}
	started := metav1.NewTime(now)
	st.StartTime = &started
	sc.store(p)
	return at
}

// kubeRunningStatus makes pod Running since at: its containers started and
// ready.
func kubeRunningStatus(pod *corev1.Pod, at time.Time) {
	st := &pod.Status
	st.Phase = corev1.PodRunning
	for _, c := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		kubeSetPodCondition(st, c, corev1.ConditionTrue, "", "", at)
	}
	started := metav1.NewTime(at)
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: true, Started: new(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		})
	}
}

// kubeSetPodCondition sets a pod condition; its transition time moves only
// when its status changes.
func kubeSetPodCondition(st *corev1.PodStatus, typ corev1.PodConditionType, status corev1.ConditionStatus, reason, message string, at time.Time) {
	c := corev1.PodCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(at)}
	for i, old := range st.Conditions {
		if old.Type != typ {
			continue
		}
		if old.Status == status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		st.Conditions[i] = c
		return
	}
	st.Conditions = append(st.Conditions, c)
}

// kubeQOSClass is the quality of service class the API server gives a pod:
// Guaranteed when every container's cpu and memory requests equal limits
// that are set, BestEffort when none has any, else Burstable.
func kubeQOSClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	some, guaranteed := false, true
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
			some = true
		}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			limit, ok := c.Resources.Limits[name]
			request, set := c.Resources.Requests[name]
			if !ok || (set && request.Cmp(limit) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !some:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}
