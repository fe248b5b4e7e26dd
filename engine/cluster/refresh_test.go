package cluster_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/testwait"
)

func TestRefreshRecordsChangesMadeOutsideTheControlPlane(t *testing.T) {
	clock := &simtest.PausableClock{}
	f := newFixtureWith(t, sim.Options{Clock: clock.Now})
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	// The first refresh counts the nodes; the next finds nothing changed.
	if _, err := f.svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c, _ := f.svc.Get(op.Target.ID); c.Nodes == nil || *c.Nodes != (hyperpod.NodeCounts{Ready: 2, Total: 2}) {
		t.Fatalf("nodes %+v, want 2 ready of 2", c.Nodes)
	}
	if n, err := f.svc.Refresh(context.Background()); err != nil || n != 0 {
		t.Fatalf("refresh of an unchanged cluster: %d changes, %v", n, err)
	}
	// Someone deletes the HyperPod cluster with the AWS CLI. The simulator
	// holds still while the refresh looks, so the deletion is seen under way
	// however slow the machine.
	clock.Pause()
	p, _ := f.world.Provider("us-west-2")
	if _, err := p.SageMaker.DeleteCluster(context.Background(), &sagemaker.DeleteClusterInput{ClusterName: aws.String("train-1")}); err != nil {
		t.Fatal(err)
	}
	if n, err := f.svc.Refresh(context.Background()); err != nil || n != 1 {
		t.Fatalf("refresh after an outside change: %d changes, %v", n, err)
	}
	c, _ := f.svc.Get(op.Target.ID)
	if c.HyperPod.Status != "Deleting" {
		t.Fatalf("HyperPod status %q", c.HyperPod.Status)
	}
	clock.Resume()
	// Once it is gone, the record says so and what to do.
	testwait.Eventually(t, "the refresh sees the HyperPod cluster gone", func() bool {
		if _, err := f.svc.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		c, _ = f.svc.Get(op.Target.ID)
		return c.HyperPod.Status == cluster.NotFound
	})
	if !strings.Contains(c.StatusMessage, "no longer exists") {
		t.Fatalf("after the deletion: %q %q", c.HyperPod.Status, c.StatusMessage)
	}
}
