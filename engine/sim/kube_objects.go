package sim

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Reading, writing and comparing the Kubernetes objects the simulated
// controllers keep in the store: a field of an unstructured object
// decoded as JSON would, a typed object in its stored form, whether two
// values encode alike, when a pod's containers started.

// kubeDecodeField decodes a field of an unstructured object into v, as
// JSON would.
func kubeDecodeField(field any, v any) error {
	raw, err := json.Marshal(field)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// kubeSameJSON tells whether a and b encode to the same JSON.
func kubeSameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// kubeToUnstructured is a typed object as the store keeps it.
func kubeToUnstructured(obj any) *unstructured.Unstructured {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		// The controllers build their objects from Go types: they always
		// encode.
		panic(fmt.Sprintf("sim: encode %T: %v", obj, err))
	}
	return &unstructured.Unstructured{Object: content}
}

// kubeContainerStart is when pod's first container started running.
func kubeContainerStart(pod *corev1.Pod, now time.Time) time.Time {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil {
			return cs.State.Running.StartedAt.Time
		}
	}
	return now
}
