package sim

import (
	"fmt"
	"hash/fnv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The event recorder of the simulated controllers: the events they report
// of the objects they act on, as core/v1 Events.

// kubeEventsKey is the resource key of events.
const kubeEventsKey = "v1/events"

// kubeRecordEvent records an event of obj by component, as a controller's
// event recorder does, once for a given type, reason and message: the
// event's name is derived from them, so a controller that meets the same
// problem at every settle reports it once.
func kubeRecordEvent(s *kubeSession, obj *unstructured.Unstructured, typ, reason, message, component string) {
	name := fmt.Sprintf("%s.%s", obj.GetName(), kubeShortHash(string(obj.GetUID())+"\x00"+typ+"\x00"+reason+"\x00"+message))
	if cur, _ := s.get(kubeEventsKey, obj.GetNamespace(), name); cur != nil {
		return
	}
	stamp := metav1.NewTime(s.t.now).Format(time.RFC3339)
	ev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata": map[string]any{"name": name, "namespace": obj.GetNamespace()},
		"involvedObject": map[string]any{
			"apiVersion": obj.GetAPIVersion(), "kind": obj.GetKind(), "name": obj.GetName(),
			"namespace": obj.GetNamespace(), "uid": string(obj.GetUID()),
		},
		"reason": reason, "message": message, "type": typ,
		"firstTimestamp": stamp, "lastTimestamp": stamp, "count": int64(1),
		"source":             map[string]any{"component": component},
		"reportingComponent": component,
	}}
	s.put(kubeEventsKey, nil, s.stamp(ev, s.t.now))
}

// kubeShortHash is a short, stable digest of text, for names derived from
// it.
func kubeShortHash(text string) string {
	h := fnv.New64a()
	h.Write([]byte(text))
	return fmt.Sprintf("%016x", h.Sum64())
}
