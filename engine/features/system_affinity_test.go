package features

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/hyperpod"
)

// TestChartsPreferTheSystemNodes: the operators and controllers
// InstantStart installs with Helm carry the system node group's affinity
// in their values.
func TestChartsPreferTheSystemNodes(t *testing.T) {
	e := &env{c: &hyperpod.Cluster{Region: "us-west-2", EKS: hyperpod.EKS{Name: "c"}}}
	for name, values := range map[string]map[string]any{
		"kuberay-operator":             kubeRayChart.Values,
		"keda":                         kedaChart.Values,
		"aws-load-balancer-controller": loadBalancerControllerChart(e).Values,
	} {
		b, err := json.Marshal(values["affinity"])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"preferredDuringSchedulingIgnoredDuringExecution"`) ||
			!strings.Contains(string(b), `"key":"`+hyperpod.SystemNodeLabel+`","operator":"In","values":["`+hyperpod.SystemNodeValue+`"]`) {
			t.Errorf("%s affinity %s", name, b)
		}
	}
}
