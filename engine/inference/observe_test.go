package inference

import (
	"strings"
	"testing"
)

// A status is worked out from what was observed, and again from the record
// whenever an operation changes what is wanted: READY only when every
// wanted replica is ready.
func TestStatusIsWorkedOutFromWhatIsWantedAndReady(t *testing.T) {
	for _, tc := range []struct {
		name            string
		e               Endpoint
		change          change
		status          Status
		messageIncludes string
	}{
		{"scaled up from 1 to 2 with 1 ready", Endpoint{Status: Ready, Replicas: 1, ReadyReplicas: 1, Form: ClusterIP}, change{Replicas: ptr(2)}, Degraded, "1 of 2 replicas ready"},
		{"scaled down from 2 to 1 with 2 ready", Endpoint{Status: Degraded, Replicas: 2, ReadyReplicas: 2, Form: ClusterIP}, change{Replicas: ptr(1)}, Ready, ""},
		{"scaled to 0", Endpoint{Status: Ready, Replicas: 1, ReadyReplicas: 1, Form: ClusterIP}, change{Replicas: ptr(0)}, ScaledToZero, "scaled to 0"},
		{"scaled up from 0", Endpoint{Status: ScaledToZero, Replicas: 0, Form: ClusterIP}, change{Replicas: ptr(2)}, Deploying, "0 of 2"},
		{"a new image keeps a fully ready endpoint READY until the refresh reads the rollout", Endpoint{Status: Ready, Replicas: 1, ReadyReplicas: 1, Form: ClusterIP}, change{Image: ptr("vllm/vllm-openai:v0.11.0")}, Ready, ""},
		{"a deleting endpoint keeps its status", Endpoint{Status: Deleting, Replicas: 1, ReadyReplicas: 1}, change{Replicas: ptr(3)}, Deleting, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e
			apply(&e, &tc.change)
			if e.Status != tc.status {
				t.Fatalf("status %s (%q); want %s", e.Status, e.StatusMessage, tc.status)
			}
			if tc.messageIncludes != "" && !strings.Contains(e.StatusMessage, tc.messageIncludes) {
				t.Fatalf("message %q; want it to say %q", e.StatusMessage, tc.messageIncludes)
			}
		})
	}
}

func TestAnEndpointAskedForNoReplicaIsNotReady(t *testing.T) {
	o := &observed{replicas: 0, ready: 0, pods: []Pod{}}
	judge(&Endpoint{Form: ClusterIP}, o)
	if o.status != ScaledToZero {
		t.Fatalf("0 replicas observed as %s; want %s", o.status, ScaledToZero)
	}
}
