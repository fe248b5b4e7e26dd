package inference

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/hyperpod"
)

// TestRouterPrefersTheSystemNodes: the SGLang router asks for no
// accelerator and prefers the system node group's nodes, without
// requiring them (a cluster may have none).
func TestRouterPrefersTheSystemNodes(t *testing.T) {
	in := selfManaged(SGLang, ClusterIP)
	if err := checkInput(&in); err != nil {
		t.Fatal(err)
	}
	dep := routerDeployment(newEndpoint("ep1", testCluster, testBucket, in), CacheAware)
	aff := dep.Spec.Template.Spec.Affinity
	if aff == nil || aff.NodeAffinity == nil || aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil ||
		len(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("router affinity %+v", aff)
	}
	req := aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Preference.MatchExpressions[0]
	if req.Key != hyperpod.SystemNodeLabel || req.Operator != corev1.NodeSelectorOpIn || len(req.Values) != 1 || req.Values[0] != hyperpod.SystemNodeValue {
		t.Fatalf("router prefers %+v", req)
	}
}
