package cluster_test

import (
	"context"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

// TestCreateRetriesRolesNotYetPropagated has EKS and SageMaker refuse the
// roles the cluster's IAM phase has just made, twice each, as they do
// while IAM's change has not reached them: the create retries those calls
// and succeeds.
func TestCreateRetriesRolesNotYetPropagated(t *testing.T) {
	f := newFixture(t)
	for _, svc := range []string{"eks", "sagemaker"} {
		if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultIAMLag, Service: svc, Operation: "CreateCluster", Count: 2}); err != nil {
			t.Fatal(err)
		}
	}
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	calls := f.world.Calls()
	for _, svc := range []string{"eks", "sagemaker"} {
		if n := calls[svc]["CreateCluster"]; n != 3 {
			t.Errorf("%s CreateCluster was called %d times, want 3 (two refusals, then the create)", svc, n)
		}
	}
	if left := f.world.Faults(); len(left) != 0 {
		t.Errorf("faults left: %+v", left)
	}
}

// TestRoleNeverAssumableFailsAfterPropagationWindow keeps EKS refusing
// the cluster role: the create retries it for IAM's propagation time, then
// fails with EKS's answer and the hint, rather than until the phase's
// deadline.
func TestRoleNeverAssumableFailsAfterPropagationWindow(t *testing.T) {
	f := newFixture(t)
	if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultIAMLag, Service: "eks", Operation: "CreateCluster"}); err != nil {
		t.Fatal(err)
	}
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.ended(t, op)
	if end.Status != ops.Failed || end.Error == nil {
		t.Fatalf("create ended %s: %+v, want it failed", end.Status, end.Error)
	}
	for _, want := range []string{"could not be assumed", "EKS", "CreateCluster", "can take a minute or two"} {
		if !strings.Contains(end.Error.Message, want) {
			t.Errorf("error %q does not say %q", end.Error.Message, want)
		}
	}
	if end.Error.Code != "UPSTREAM" {
		t.Errorf("error code %s, want UPSTREAM", end.Error.Code)
	}
	if n := f.world.Calls()["eks"]["CreateCluster"]; n < 2 {
		t.Errorf("EKS CreateCluster was called %d times: the refusal was not retried", n)
	}
}

func TestIAMLagFaultTakesEKSOrSageMakerOnly(t *testing.T) {
	f := newFixture(t)
	if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultIAMLag, Service: "ec2"}); err == nil || !strings.Contains(err.Error(), "eks or sagemaker") {
		t.Fatalf("an iamlag fault on ec2 = %v, want a refusal naming eks or sagemaker", err)
	}
	parsed, err := sim.ParseFault("iamlag:service=sagemaker,operation=CreateCluster,count=3")
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Kind != sim.FaultIAMLag || parsed.Count != 3 {
		t.Fatalf("parsed %+v", parsed)
	}
}
