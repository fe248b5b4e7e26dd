package cluster_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/testwait"
)

// installedDependencies are the dependencies of a cluster with no
// Trainium group, all installed.
var installedDependencies = []hyperpod.Dependency{
	{Name: "health-monitoring-agent", Kind: hyperpod.DependencyHelm, Version: "1.0.742", Status: hyperpod.DependencyInstalled},
	{Name: "nvidia-device-plugin", Kind: hyperpod.DependencyHelm, Version: "0.17.1", Status: hyperpod.DependencyInstalled},
	{Name: "efa-device-plugin", Kind: hyperpod.DependencyHelm, Version: "v0.5.6", Status: hyperpod.DependencyInstalled},
}

// advertised sums what the cluster's nodes advertise of name.
func (f *fixture) advertised(t *testing.T, eks string, name corev1.ResourceName) (nodes int, total int64) {
	t.Helper()
	p, _ := f.world.Provider("us-west-2")
	kc, err := p.Kubernetes.Clients(context.Background(), eks)
	if err != nil {
		t.Fatal(err)
	}
	// HyperPod's nodes only: the system node group's have no accelerators.
	list, err := kc.Core.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "sagemaker.amazonaws.com/compute-type=HyperPod"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list.Items {
		q := n.Status.Allocatable[name]
		total += q.Value()
	}
	return len(list.Items), total
}

// uninstall removes the release of dependency name and waits, with a
// deadline, until it is gone.
func (f *fixture) uninstall(t *testing.T, eks, name string) {
	t.Helper()
	p, _ := f.world.Provider("us-west-2")
	chart := cluster.DependencyChart(name)
	ctx := context.Background()
	if err := p.Helm.Uninstall(ctx, eks, chart.Namespace, chart.Release); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the release of "+name+" is gone", func() bool {
		r, err := p.Helm.Release(ctx, eks, chart.Namespace, chart.Release)
		return err == nil && r == nil
	})
}

func TestCreateInstallsTheDependenciesAndNodesAdvertiseDevices(t *testing.T) {
	f := newFixture(t)
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.succeeded(t, op)
	if p := end.Phase(cluster.PhaseDependencies); p == nil || p.Status != ops.PhaseSucceeded {
		t.Fatalf("dependencies phase %+v", p)
	}
	c, _ := f.svc.Get(op.Target.ID)
	if !slices.Equal(c.Dependencies, installedDependencies) {
		t.Fatalf("dependencies %+v", c.Dependencies)
	}
	if n := f.world.Calls()["helm"]["Install"]; n != 3 {
		t.Fatalf("%d helm installs, want 3", n)
	}
	// Two p5.48xlarge nodes: 8 GPUs and 32 EFA interfaces each.
	if nodes, gpus := f.advertised(t, "train-1", "nvidia.com/gpu"); nodes != 2 || gpus != 16 {
		t.Fatalf("%d nodes advertise %d GPUs, want 2 and 16", nodes, gpus)
	}
	if _, efa := f.advertised(t, "train-1", "vpc.amazonaws.com/efa"); efa != 64 {
		t.Fatalf("nodes advertise %d EFA interfaces, want 64", efa)
	}

	// Without the NVIDIA plugin the nodes advertise no GPU.
	f.uninstall(t, "train-1", "nvidia-device-plugin")
	if _, gpus := f.advertised(t, "train-1", "nvidia.com/gpu"); gpus != 0 {
		t.Fatalf("%d GPUs advertised with no device plugin", gpus)
	}
}

func TestRetryReinstallsARemovedDependency(t *testing.T) {
	f := newFixture(t)
	fault, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultCapacity, Zone: "us-west-2a"})
	if err != nil {
		t.Fatal(err)
	}
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.ended(t, op); end.Status != ops.Failed || end.Phase(cluster.PhaseDependencies).Status != ops.PhaseSucceeded {
		t.Fatalf("create ended %s, dependencies %s", end.Status, end.Phase(cluster.PhaseDependencies).Status)
	}
	f.uninstall(t, "train-1", "nvidia-device-plugin")
	if err := f.world.ClearFault(fault.ID); err != nil {
		t.Fatal(err)
	}
	retried, err := f.runner.Retry(op.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, retried)
	if n := f.world.Calls()["helm"]["Install"]; n != 4 {
		t.Fatalf("%d helm installs, want 3 and the one reinstalled", n)
	}
	c, _ := f.svc.Get(op.Target.ID)
	if !slices.Equal(c.Dependencies, installedDependencies) {
		t.Fatalf("dependencies after retry %+v", c.Dependencies)
	}
	if nodes, gpus := f.advertised(t, "train-1", "nvidia.com/gpu"); nodes != 2 || gpus != 16 {
		t.Fatalf("%d nodes advertise %d GPUs after retry", nodes, gpus)
	}
}

func TestImportInstallsMissingDependencies(t *testing.T) {
	f := newFixture(t)
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.forget(t, op.Target.ID)
	f.uninstall(t, "train-1", "health-monitoring-agent")
	f.uninstall(t, "train-1", "efa-device-plugin")
	if _, efa := f.advertised(t, "train-1", "vpc.amazonaws.com/efa"); efa != 0 {
		t.Fatalf("%d EFA interfaces advertised with no device plugin", efa)
	}
	imp, err := f.svc.Import(context.Background(), "tester", cluster.ImportInput{EKSClusterName: "train-1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, imp)
	if n := f.world.Calls()["helm"]["Install"]; n != 5 {
		t.Fatalf("%d helm installs, want 3 and the 2 missing", n)
	}
	c, _ := f.svc.Get(imp.Target.ID)
	if !slices.Equal(c.Dependencies, installedDependencies) {
		t.Fatalf("dependencies after import %+v", c.Dependencies)
	}
	if _, efa := f.advertised(t, "train-1", "vpc.amazonaws.com/efa"); efa != 64 {
		t.Fatalf("nodes advertise %d EFA interfaces after import, want 64", efa)
	}
}

// TestRefreshShowsABrokenDependencyAndRepairReinstallsIt: a dependency
// removed outside InstantStart after the creation succeeded shows on the
// next refresh, with what to do, and repairClusterDependencies reinstalls
// it; a second repair finds nothing to do.
func TestRefreshShowsABrokenDependencyAndRepairReinstallsIt(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	op, err := f.svc.Create(ctx, "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	id := op.Target.ID
	f.uninstall(t, "train-1", "nvidia-device-plugin")
	if _, err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ := f.svc.Get(id)
	if i := slices.IndexFunc(c.Dependencies, func(d hyperpod.Dependency) bool { return d.Name == "nvidia-device-plugin" }); i < 0 || c.Dependencies[i].Status != hyperpod.DependencyMissing {
		t.Fatalf("after the removal the dependencies are %+v", c.Dependencies)
	}
	if !strings.Contains(c.StatusMessage, "nvidia-device-plugin is MISSING") || !strings.Contains(c.StatusMessage, "repairClusterDependencies") {
		t.Fatalf("status message %q", c.StatusMessage)
	}

	repair, err := f.svc.RepairDependencies(ctx, "tester", id, "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.succeeded(t, repair); end.Noop {
		t.Fatal("the repair of a missing dependency was a no-op")
	}
	c, _ = f.svc.Get(id)
	if !slices.Equal(c.Dependencies, installedDependencies) || c.Status != hyperpod.ClusterActive {
		t.Fatalf("after the repair: %s, dependencies %+v", c.Status, c.Dependencies)
	}
	if _, err := f.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _ = f.svc.Get(id); c.StatusMessage != "" {
		t.Fatalf("after the repair the status message is %q", c.StatusMessage)
	}
	again, err := f.svc.RepairDependencies(ctx, "tester", id, "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.succeeded(t, again); !end.Noop {
		t.Fatal("a repair with nothing to do was not a no-op")
	}
}
