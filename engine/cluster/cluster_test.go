package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/testwait"
)

// fixture is the engine on the simulator, with no cluster yet.
type fixture struct {
	world  *sim.World
	runner *ops.Runner
	store  *store.Store
	svc    *cluster.Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, sim.Options{})
}

// newFixtureWith is newFixture with a simulator built from opts (its speed
// and region are the fixture's).
func newFixtureWith(t *testing.T, opts sim.Options) *fixture {
	t.Helper()
	a := apptest.New(t, apptest.Options{Sim: opts})
	return &fixture{world: a.World, runner: a.Runner, store: a.Store, svc: a.Clusters}
}

// succeeded follows op to its end and fails the test unless it succeeded.
func (f *fixture) succeeded(t *testing.T, op *ops.Operation) *ops.Operation {
	t.Helper()
	return simtest.Succeeded(t, f.runner, op)
}

// ended follows op to its end, whichever it is.
func (f *fixture) ended(t *testing.T, op *ops.Operation) *ops.Operation {
	t.Helper()
	var end *ops.Operation
	testwait.Eventually(t, "operation "+op.ID+" ends", func() bool {
		var err error
		if end, err = f.runner.Get(op.ID); err != nil {
			t.Fatal(err)
		}
		return end.Status.Terminal()
	})
	return end
}

// forget deletes the record of cluster id and frees its name, as if
// another control plane had made the cluster.
func (f *fixture) forget(t *testing.T, id string) {
	t.Helper()
	c, err := f.svc.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.Update(func(tx *store.Tx) error {
		if err := tx.DeleteIndex(cluster.NameIndex, c.Region+"/"+c.Name); err != nil {
			return err
		}
		return tx.Delete(cluster.RecordKind, id)
	}); err != nil {
		t.Fatal(err)
	}
}

func p5Group() hyperpod.GroupSpec {
	return hyperpod.GroupSpec{Name: "gpu", InstanceTypes: []string{"ml.p5.48xlarge"}, Count: 2, Zone: "us-west-2a"}
}

func validInput() cluster.CreateInput {
	return cluster.CreateInput{Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"}, InstanceGroups: []hyperpod.GroupSpec{p5Group()}}
}

func TestCreateAndDeleteCluster(t *testing.T) {
	f := newFixture(t)
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	c, err := f.svc.Get(op.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != hyperpod.ClusterActive || c.EKS.Status != "ACTIVE" || c.HyperPod.Status != "InService" || c.HyperPod.NodeRecovery != "Automatic" ||
		c.HyperPod.NodeProvisioning != "Continuous" || c.EKS.AuthMode != "API" || c.EKS.OIDCProviderArn == "" {
		t.Fatalf("cluster after create: %+v", c)
	}
	var compute int
	for _, s := range c.Network.Subnets {
		if s.Role == hyperpod.SubnetCompute {
			compute++
			if !strings.HasSuffix(s.CIDR, "/20") || s.Zone != "us-west-2a" {
				t.Fatalf("compute subnet %+v", s)
			}
		}
	}
	if compute != 1 || len(c.Network.Subnets) != 5 || c.Network.NatGatewayID == "" || c.Network.CIDR != "10.0.0.0/16" {
		t.Fatalf("network %+v", c.Network)
	}
	calls := f.world.Calls()
	if calls["sagemaker"]["CreateCluster"] != 1 || calls["eks"]["CreateCluster"] != 1 {
		t.Fatalf("calls %v", calls)
	}

	del, err := f.svc.Delete(context.Background(), "tester", c.ID, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, del)
	c, _ = f.svc.Get(c.ID)
	if c.Status != hyperpod.ClusterDeleted || c.DeletedAt == nil {
		t.Fatalf("after delete: %s", c.Status)
	}
	p, _ := f.world.Provider("us-west-2")
	if v, _ := cluster.ClusterVPC(context.Background(), p, c.ID); v != nil {
		t.Fatalf("the VPC is still there: %s", *v.VpcId)
	}
	// The name is free again.
	again, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatalf("re-create with the same name: %v", err)
	}
	f.succeeded(t, again)
	page, _ := f.svc.List(cluster.ListFilter{}, 10, "")
	if page.TotalCount != 1 || page.Items[0].ID != again.Target.ID {
		t.Fatalf("list shows %d clusters", page.TotalCount)
	}
}

func TestCapacityFaultFailsHyperPodPhaseAndRetryFinishesWithoutNewEKSCluster(t *testing.T) {
	f := newFixture(t)
	fault, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultCapacity, Zone: "us-west-2a"})
	if err != nil {
		t.Fatal(err)
	}
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.ended(t, op)
	hp := end.Phase(cluster.PhaseHyperPod)
	if end.Status != ops.Failed || hp.Status != ops.PhaseFailed || hp.Error.Code != "UPSTREAM" || !strings.Contains(hp.Error.Message, "us-west-2a") {
		t.Fatalf("after the fault: op %s phase %+v", end.Status, hp.Error)
	}
	c, _ := f.svc.Get(op.Target.ID)
	if c.Status != hyperpod.ClusterFailed {
		t.Fatalf("cluster status %s", c.Status)
	}
	if err := f.world.ClearFault(fault.ID); err != nil {
		t.Fatal(err)
	}
	retried, err := f.runner.Retry(op.ID)
	if err != nil {
		t.Fatal(err)
	}
	end = f.succeeded(t, retried)
	// The retry ran the replacement phase again; it deleted the failed
	// cluster, and the runner waited for it to go before creating anew.
	if rp := end.Phase(cluster.PhaseReplaceHyperPod); rp.Status != ops.PhaseSucceeded || rp.Attempt != 1 {
		t.Fatalf("replacement phase after retry: %s attempt %d", rp.Status, rp.Attempt)
	}
	calls := f.world.Calls()
	if calls["eks"]["CreateCluster"] != 1 || calls["sagemaker"]["CreateCluster"] != 2 || calls["sagemaker"]["DeleteCluster"] != 1 {
		t.Fatalf("calls after retry: eks %d sagemaker create %d delete %d", calls["eks"]["CreateCluster"], calls["sagemaker"]["CreateCluster"], calls["sagemaker"]["DeleteCluster"])
	}
	if c, _ := f.svc.Get(op.Target.ID); c.Status != hyperpod.ClusterActive || c.HyperPod.FailureMessage != "" {
		t.Fatalf("cluster after retry: %s %q", c.Status, c.HyperPod.FailureMessage)
	}
}

func TestBadInputIsRefusedBeforeAnythingIsMade(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*cluster.CreateInput)
		code  errs.Code
		field string
		says  string
	}{
		{"invalid name", func(in *cluster.CreateInput) { in.Name = "-bad_name" }, errs.Validation, "input.name", "not valid"},
		{"unknown zone", func(in *cluster.CreateInput) { in.Zones = []string{"us-west-2a", "us-west-2z"} }, errs.Validation, "input.zones[1]", "us-west-2z"},
		{"one zone", func(in *cluster.CreateInput) { in.Zones = []string{"us-west-2a"} }, errs.Validation, "input.zones", "at least two"},
		{"unknown version", func(in *cluster.CreateInput) { in.KubernetesVersion = "1.12" }, errs.Validation, "input.kubernetesVersion", "1.28 to 1.34"},
		{"instance type not offered in zone", func(in *cluster.CreateInput) {
			in.InstanceGroups[0].Zone = "us-west-2d"
			in.Zones = append(in.Zones, "us-west-2d")
		},
			errs.Precondition, "input.instanceGroups[0].instanceType", "us-west-2a"},
		{"unknown instance type", func(in *cluster.CreateInput) { in.InstanceGroups[0].InstanceTypes = []string{"ml.z9.large"} }, errs.Precondition, "input.instanceGroups[0].instanceType", "no zone"},
		{"not an ml type", func(in *cluster.CreateInput) { in.InstanceGroups[0].InstanceTypes = []string{"p5.48xlarge"} }, errs.Validation, "input.instanceGroups[0].instanceType", "ml."},
		{"over quota", func(in *cluster.CreateInput) { in.InstanceGroups[0].Count = 50 }, errs.Precondition, "input.instanceGroups[0].count", "quota"},
		{"bad threads", func(in *cluster.CreateInput) { in.InstanceGroups[0].ThreadsPerCore = 3 }, errs.Validation, "input.instanceGroups[0].threadsPerCore", "1 or 2"},
		{"group zone outside the cluster", func(in *cluster.CreateInput) { in.InstanceGroups[0].Zone = "us-west-2c" }, errs.Validation, "input.instanceGroups[0].zone", "not one of the cluster's zones"},
		{"unknown network interface mode", func(in *cluster.CreateInput) { in.InstanceGroups[0].InterfaceMode = "EFA_PLUS" }, errs.Validation, "input.instanceGroups[0].networkInterfaceMode", "STANDARD, EFA_ONLY"},
		{"flexible type not offered in the zone", func(in *cluster.CreateInput) {
			in.InstanceGroups[0].InstanceTypes = []string{"ml.p5.48xlarge", "ml.p5e.48xlarge"}
		}, errs.Precondition, "input.instanceGroups[0].instanceType", "ml.p5e.48xlarge of group gpu is not offered in us-west-2a"},
		{"instance type listed twice", func(in *cluster.CreateInput) {
			in.InstanceGroups[0].InstanceTypes = []string{"ml.p5.48xlarge", "ml.p5.48xlarge"}
		}, errs.Validation, "input.instanceGroups[0].instanceTypes", "listed twice"},
		{"flexible group on spot", func(in *cluster.CreateInput) {
			in.InstanceGroups[0].InstanceTypes, in.InstanceGroups[0].CapacityType = []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}, hyperpod.Spot
		}, errs.Precondition, "input.instanceGroups[0].capacityType", "flexible"},
		{"label key of HyperPod's", func(in *cluster.CreateInput) {
			in.InstanceGroups[0].Labels = []hyperpod.Label{{Key: "sagemaker.amazonaws.com/node", Value: "x"}}
		}, errs.Validation, "input.instanceGroups[0].labels", "HyperPod's"},
		{"unknown taint effect", func(in *cluster.CreateInput) {
			in.InstanceGroups[0].Taints = []hyperpod.Taint{{Key: "dedicated", Effect: "EVICT"}}
		}, errs.Validation, "input.instanceGroups[0].taints", "EVICT"},
		{"VPC range with host bits", func(in *cluster.CreateInput) { in.VpcCIDR = "10.0.0.1/16" }, errs.Validation, "input.vpcCidr", "10.0.0.0/16"},
		{"VPC range not a /16", func(in *cluster.CreateInput) { in.VpcCIDR = "10.9.0.0/20" }, errs.Validation, "input.vpcCidr", "/16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			in := validInput()
			tc.edit(&in)
			_, err := f.svc.Create(context.Background(), "tester", in, "")
			e := findField(err, tc.field)
			if e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.says) {
				t.Fatalf("got %v (field %q), want %s on %s saying %q", err, fieldsOf(err), tc.code, tc.field, tc.says)
			}
			for svc, ops := range f.world.Calls() {
				for op := range ops {
					if strings.HasPrefix(op, "Create") || strings.HasPrefix(op, "Allocate") {
						t.Fatalf("%s %s was called for a refused request", svc, op)
					}
				}
			}
			if page, _ := f.svc.List(cluster.ListFilter{IncludeDeleted: true}, 10, ""); page.TotalCount != 0 {
				t.Fatalf("a cluster record was made")
			}
		})
	}
}

func TestOverlappingVpcCIDRIsRefused(t *testing.T) {
	f := newFixture(t)
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	in := validInput()
	in.Name, in.VpcCIDR = "other", "10.0.0.0/16"
	_, err = f.svc.Create(context.Background(), "tester", in, "")
	if e := findField(err, "input.vpcCidr"); e == nil || !strings.Contains(e.Message, "overlaps") {
		t.Fatalf("got %v", err)
	}
	in.VpcCIDR = ""
	second, err := f.svc.Create(context.Background(), "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, second)
	c, _ := f.svc.Get(second.Target.ID)
	if c.Network.CIDR != "10.1.0.0/16" {
		t.Fatalf("second cluster's VPC %s, want the next free /16", c.Network.CIDR)
	}
}

func TestDuplicateNameIsRefused(t *testing.T) {
	f := newFixture(t)
	if _, err := f.svc.Create(context.Background(), "tester", validInput(), ""); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if e := findField(err, "input.name"); e == nil || e.Code != errs.Precondition {
		t.Fatalf("got %v", err)
	}
}

func TestImportAdoptsAnExistingCluster(t *testing.T) {
	f := newFixture(t)
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	f.forget(t, op.Target.ID)
	before := f.world.Calls()
	imp, err := f.svc.Import(context.Background(), "tester", cluster.ImportInput{EKSClusterName: "train-1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, imp)
	c, _ := f.svc.Get(imp.Target.ID)
	if !c.Imported || c.Status != hyperpod.ClusterActive || c.HyperPod.Name != "train-1" || c.HyperPod.Status != "InService" || len(c.Network.Subnets) != 4 || c.KubernetesVersion != cluster.DefaultKubernetesVersion {
		t.Fatalf("imported cluster %+v", c)
	}
	after := f.world.Calls()
	for svc, opsBySvc := range after {
		for name, n := range opsBySvc {
			if n != before[svc][name] && !(strings.HasPrefix(name, "Describe") || strings.HasPrefix(name, "List") || strings.HasPrefix(name, "Get") || strings.HasPrefix(name, "list ") || strings.HasPrefix(name, "get ")) {
				t.Fatalf("import called %s %s", svc, name)
			}
		}
	}
	if _, err := f.svc.Import(context.Background(), "tester", cluster.ImportInput{Name: "x", EKSClusterName: "nope"}, ""); errs.CodeOf(err) != errs.Precondition {
		t.Fatalf("import of a missing cluster: %v", err)
	}
}

func findField(err error, field string) *errs.Error {
	var list errs.List
	if errors.As(err, &list) {
		for _, e := range list {
			if e.Field == field {
				return e
			}
		}
		return nil
	}
	var e *errs.Error
	if errors.As(err, &e) && e.Field == field {
		return e
	}
	return nil
}

func fieldsOf(err error) []string {
	var list errs.List
	var out []string
	if errors.As(err, &list) {
		for _, e := range list {
			out = append(out, e.Field)
		}
	}
	var e *errs.Error
	if errors.As(err, &e) {
		out = append(out, e.Field)
	}
	return out
}

func TestIdempotencyKeysReturnTheFirstOperation(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := validInput()
	in.Zones = nil // defaults are filled after the key is checked
	first, err := f.svc.Create(ctx, "alice", in, "k1")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, first)
	again, err := f.svc.Create(ctx, "alice", in, "k1")
	if err != nil || again.ID != first.ID {
		t.Fatalf("retried create: %v %v", again, err)
	}
	other := in
	other.Name = "train-2"
	if _, err := f.svc.Create(ctx, "alice", other, "k1"); errs.CodeOf(err) != errs.Validation {
		t.Fatalf("key reused for another request: %v", err)
	}
	del, err := f.svc.Delete(ctx, "alice", first.Target.ID, cluster.DeleteOptions{}, "k2")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, del)
	if again, err := f.svc.Delete(ctx, "alice", first.Target.ID, cluster.DeleteOptions{}, "k2"); err != nil || again.ID != del.ID {
		t.Fatalf("retried delete: %v %v", again, err)
	}
	imp1, err := f.svc.Import(ctx, "alice", cluster.ImportInput{EKSClusterName: "nope"}, "k3")
	if errs.CodeOf(err) != errs.Precondition || imp1 != nil {
		t.Fatalf("import of a missing cluster: %v", err)
	}
	if calls := f.world.Calls(); calls["eks"]["CreateCluster"] != 1 || calls["sagemaker"]["CreateCluster"] != 1 {
		t.Fatalf("calls %v", calls)
	}
}
