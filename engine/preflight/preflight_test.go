package preflight

import (
	"context"
	"reflect"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

func TestPreflightAnswersFromTheProvider(t *testing.T) {
	world, err := sim.New(sim.Options{DefaultRegion: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	s := New(world, Options{})
	ctx := context.Background()
	regions, err := s.Regions(ctx)
	if err != nil || len(regions) != len(sim.DefaultCatalog()) {
		t.Fatalf("regions %v %v", regions, err)
	}
	zones, err := s.Zones(ctx, "")
	if err != nil || len(zones) != 4 || zones[0].Name != "us-west-2a" || zones[0].ID == "" {
		t.Fatalf("zones %+v %v", zones, err)
	}
	offers, err := s.InstanceTypes(ctx, "us-west-2", "us-west-2a")
	if err != nil {
		t.Fatal(err)
	}
	first := offers[0]
	if first.AcceleratorCount < 8 || first.InstanceType[:3] != "ml." || first.AcceleratorMemoryGiB == 0 {
		t.Fatalf("first offering %+v: accelerated types come first", first)
	}
	var p5, trn2, cpu bool
	for _, o := range offers {
		switch o.InstanceType {
		case "ml.p5.48xlarge":
			p5 = o.AcceleratorCount == 8 && o.AcceleratorName == "nvidia H100" && o.AcceleratorMemoryGiB == 80
		case "ml.trn2.48xlarge":
			trn2 = true
		case "ml.m5.xlarge":
			cpu = o.AcceleratorCount == 0 && o.VCPUs == 4 && o.MemoryGiB == 16
		}
	}
	if !p5 || trn2 || !cpu {
		t.Fatalf("us-west-2a offers p5 %v trn2 %v (want not offered) cpu %v: %+v", p5, trn2, cpu, offers)
	}
	if _, err := s.InstanceTypes(ctx, "us-west-2", "us-west-2z"); errs.CodeOf(err) != errs.Validation {
		t.Fatalf("unknown zone: %v", err)
	}
	if _, err := s.Zones(ctx, "mars-1"); errs.CodeOf(err) != errs.Validation {
		t.Fatalf("unknown region: %v", err)
	}
}

func TestEverySimulatedInstanceTypeIsDescribed(t *testing.T) {
	world, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(world, Options{})
	for _, r := range sim.DefaultCatalog() {
		for _, z := range r.Zones {
			if _, err := s.InstanceTypes(context.Background(), r.Name, z.Name); err != nil {
				t.Fatalf("%s: %v", z.Name, err)
			}
		}
	}
}

func TestPreflightRetriesThrottledReads(t *testing.T) {
	world, err := sim.New(sim.Options{DefaultRegion: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	s := New(world, Options{ReadRetry: ops.DefaultReadRetry.Scaled(1000)})
	ctx := context.Background()
	throttle := sim.Fault{Kind: sim.FaultThrottle, Service: "ec2", Operation: "DescribeAvailabilityZones", Count: 2}
	if _, err := world.InjectFault(throttle); err != nil {
		t.Fatal(err)
	}
	if zones, err := s.Zones(ctx, ""); err != nil || len(zones) != 4 {
		t.Fatalf("zones after two throttled reads: %+v %v", zones, err)
	}
	throttle.Count = 0
	if _, err := world.InjectFault(throttle); err != nil {
		t.Fatal(err)
	}
	before := world.Calls()["ec2"]["DescribeAvailabilityZones"]
	_, err = s.Zones(ctx, "")
	if e := errs.As(err); e.Code != errs.Upstream || e.UpstreamCode != "RequestLimitExceeded" {
		t.Fatalf("zones under a lasting throttle: %v", err)
	}
	if got := world.Calls()["ec2"]["DescribeAvailabilityZones"] - before; got != s.opts.ReadRetry.Attempts {
		t.Fatalf("%d tries under a lasting throttle, want the bound %d", got, s.opts.ReadRetry.Attempts)
	}
}

// TestInstanceTypesAreReadOnePageAtATime: with EC2 answering one item a
// page, a zone offers the same instance types as without.
func TestInstanceTypesAreReadOnePageAtATime(t *testing.T) {
	read := func(faults ...sim.Fault) []Offering {
		world, err := sim.New(sim.Options{DefaultRegion: "us-west-2"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range faults {
			if _, err := world.InjectFault(f); err != nil {
				t.Fatal(err)
			}
		}
		offers, err := New(world, Options{}).InstanceTypes(context.Background(), "us-west-2", "us-west-2a")
		if err != nil {
			t.Fatal(err)
		}
		return offers
	}
	want := read()
	got := read(sim.Fault{Kind: sim.FaultSmallPages, Service: "ec2", Operation: "DescribeInstanceTypes", Value: 1})
	if len(want) < 2 || !reflect.DeepEqual(got, want) {
		t.Fatalf("one type a page: %d offerings, want the %d of one full page", len(got), len(want))
	}
}
