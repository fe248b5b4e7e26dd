package cluster_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

func throttleZones(t *testing.T, f *fixture, count int) {
	t.Helper()
	if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultThrottle, Service: "ec2", Operation: "DescribeAvailabilityZones", Count: count}); err != nil {
		t.Fatal(err)
	}
}

func TestCreateRetriesThrottledChecks(t *testing.T) {
	for _, throttles := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d throttles", throttles), func(t *testing.T) {
			f := newFixture(t)
			throttleZones(t, f, throttles)
			op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
			if err != nil {
				t.Fatalf("submission failed after %d throttled reads: %v", throttles, err)
			}
			if got := f.world.Calls()["ec2"]["DescribeAvailabilityZones"]; got != throttles+1 {
				t.Fatalf("DescribeAvailabilityZones called %d times, want %d", got, throttles+1)
			}
			f.succeeded(t, op)
		})
	}
}

func TestCreateFailsUpstreamWhenTheThrottleLasts(t *testing.T) {
	f := newFixture(t)
	throttleZones(t, f, 0)
	_, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	e := errs.As(err)
	if e.Code != errs.Upstream || e.UpstreamCode != "RequestLimitExceeded" || !e.Retryable {
		t.Fatalf("want a retryable UPSTREAM RequestLimitExceeded, got %s %q retryable=%v: %v", e.Code, e.UpstreamCode, e.Retryable, err)
	}
	calls := f.world.Calls()
	if got, want := calls["ec2"]["DescribeAvailabilityZones"], ops.DefaultReadRetry.Attempts; got != want {
		t.Fatalf("DescribeAvailabilityZones called %d times, want the bound %d", got, want)
	}
	if page, _ := f.svc.List(cluster.ListFilter{}, 10, ""); page.TotalCount != 0 || calls["ec2"]["CreateVpc"] != 0 {
		t.Fatalf("a failed check left %d clusters and %d VPCs", page.TotalCount, calls["ec2"]["CreateVpc"])
	}
}
