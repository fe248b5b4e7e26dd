package compute_test

import (
	"context"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

// TestChecksRetryThrottledReads scales the fixture's group to the count it
// has while HyperPod throttles DescribeCluster: a few throttled reads are
// tried again and the request goes through; a lasting throttle fails it
// with UPSTREAM after the bounded tries.
func TestChecksRetryThrottledReads(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	g := f.groupNamed(t, "gpu")
	throttle := sim.Fault{Kind: sim.FaultThrottle, Service: "sagemaker", Operation: "DescribeCluster", Count: 2}
	if _, err := f.world.InjectFault(throttle); err != nil {
		t.Fatal(err)
	}
	op, err := f.svc.Scale(ctx, "tester", g.ID, g.Count, "")
	if err != nil {
		t.Fatalf("scaling after two throttled reads: %v", err)
	}
	if end := f.succeeded(t, op); !end.Noop {
		t.Fatal("scaling to the actual count was not a no-op")
	}

	throttle.Count = 0
	if _, err := f.world.InjectFault(throttle); err != nil {
		t.Fatal(err)
	}
	before := f.world.Calls()["sagemaker"]["DescribeCluster"]
	_, err = f.svc.Scale(ctx, "tester", g.ID, g.Count, "")
	if e := errs.As(err); e.Code != errs.Upstream || e.UpstreamCode != "ThrottlingException" || !e.Retryable {
		t.Fatalf("scaling under a lasting throttle: %v", err)
	}
	if got := f.world.Calls()["sagemaker"]["DescribeCluster"] - before; got != ops.DefaultReadRetry.Attempts {
		t.Fatalf("%d tries under a lasting throttle, want the bound %d", got, ops.DefaultReadRetry.Attempts)
	}
}
