package cluster

import (
	"slices"
	"testing"
)

func TestTrainiumGroupsGetTheNeuronPlugin(t *testing.T) {
	got := func(types ...string) []string {
		var names []string
		for _, d := range wantedDependencies(types) {
			names = append(names, d.name)
		}
		return names
	}
	base := []string{"health-monitoring-agent", "nvidia-device-plugin", "efa-device-plugin"}
	if g := got("ml.p5.48xlarge"); !slices.Equal(g, base) {
		t.Fatalf("for p5: %v", g)
	}
	if g := got("ml.m5.xlarge", "ml.trn1.32xlarge"); !slices.Equal(g, append(base, "neuron-device-plugin")) {
		t.Fatalf("for trn1: %v", g)
	}
}
