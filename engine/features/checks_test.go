package features_test

import (
	"context"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

// TestUpdateRetriesThrottledReads turns on a feature that is already on
// while HyperPod throttles DescribeCluster: a few throttled reads are tried
// again and the request goes through as a no-op; a lasting throttle fails
// it with UPSTREAM after the bounded tries.
func TestUpdateRetriesThrottledReads(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	on := features.Toggle{Name: hyperpod.NodeAutoRecovery, Enable: true}
	throttle := sim.Fault{Kind: sim.FaultThrottle, Service: "sagemaker", Operation: "DescribeCluster", Count: 2}
	if _, err := f.world.InjectFault(throttle); err != nil {
		t.Fatal(err)
	}
	if op := f.update(t, on); !op.Noop {
		t.Fatal("turning on auto-recovery, which is on, was not a no-op")
	}

	throttle.Count = 0
	if _, err := f.world.InjectFault(throttle); err != nil {
		t.Fatal(err)
	}
	before := f.world.Calls()["sagemaker"]["DescribeCluster"]
	_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{on}, "")
	if e := errs.As(err); e.Code != errs.Upstream || e.UpstreamCode != "ThrottlingException" || !e.Retryable {
		t.Fatalf("update under a lasting throttle: %v", err)
	}
	if got := f.world.Calls()["sagemaker"]["DescribeCluster"] - before; got != ops.DefaultReadRetry.Attempts {
		t.Fatalf("%d tries under a lasting throttle, want the bound %d", got, ops.DefaultReadRetry.Attempts)
	}
}
