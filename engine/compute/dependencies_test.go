package compute_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// neuronCores sums what the cluster's Kubernetes nodes advertise of
// aws.amazon.com/neuron.
func (f *fixture) neuronCores(t *testing.T) int64 {
	t.Helper()
	p, _ := f.world.Provider("us-west-2")
	kc, err := p.Kubernetes.Clients(context.Background(), f.cluster.EKS.Name)
	if err != nil {
		t.Fatal(err)
	}
	list, err := kc.Core.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, n := range list.Items {
		q := n.Status.Allocatable[corev1.ResourceName("aws.amazon.com/neuron")]
		total += q.Value()
	}
	return total
}

func dependencyNamed(deps []hyperpod.Dependency, name string) *hyperpod.Dependency {
	if i := slices.IndexFunc(deps, func(d hyperpod.Dependency) bool { return d.Name == name }); i >= 0 {
		return &deps[i]
	}
	return nil
}

// TestAddingATrainiumGroupInstallsTheNeuronPlugin: the cluster was made
// with a GPU group only, so it has no Neuron device plugin. Adding the
// first Trainium group installs it before the group's nodes join, and the
// cluster refresher then shows it among the cluster's dependencies. A GPU
// group needs nothing more and gets no such phase.
func TestAddingATrainiumGroupInstallsTheNeuronPlugin(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c, _ := f.clusters.Get(f.cluster.ID)
	if dependencyNamed(c.Dependencies, "neuron-device-plugin") != nil {
		t.Fatalf("a cluster with no Trainium group lists the Neuron plugin: %+v", c.Dependencies)
	}

	gpu := workers()
	gpu.ClusterID = f.cluster.ID
	op, err := f.svc.Add(ctx, "tester", gpu, "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.succeeded(t, op); end.Phase("cluster-dependencies") != nil {
		t.Fatalf("a GPU group got a dependencies phase: %+v", end.Phases)
	}

	trn := compute.AddInput{ClusterID: f.cluster.ID, GroupSpec: hyperpod.GroupSpec{Name: "trainium", InstanceTypes: []string{"ml.trn1.32xlarge"}, Count: 1, Zone: "us-west-2a"}}
	op, err = f.svc.Add(ctx, "tester", trn, "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.succeeded(t, op)
	p := end.Phase("cluster-dependencies")
	if p == nil || p.Status != ops.PhaseSucceeded {
		t.Fatalf("the dependencies phase of a Trainium group: %+v", p)
	}
	if g := end.Phase("instance-group"); g == nil || !slices.Contains(g.DependsOn, "cluster-dependencies") {
		t.Fatalf("the group does not wait for its dependencies: %+v", g)
	}
	if n := f.neuronCores(t); n == 0 {
		t.Fatal("the Trainium node advertises no aws.amazon.com/neuron")
	}

	if _, err := f.clusters.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ = f.clusters.Get(f.cluster.ID)
	if d := dependencyNamed(c.Dependencies, "neuron-device-plugin"); d == nil || d.Status != hyperpod.DependencyInstalled {
		t.Fatalf("after the refresh the cluster's dependencies are %+v", c.Dependencies)
	}
}
