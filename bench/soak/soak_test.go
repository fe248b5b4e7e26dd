package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/sim"
)

// TestFaultSpecsStrikeEveryService: the flags the soak starts the server
// with are faults the simulator takes, a throttle and a 5xx on each of
// its services, Kubernetes included.
func TestFaultSpecsStrikeEveryService(t *testing.T) {
	w, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	specs := faultSpecs(Options{Throttle: 0.1, Unavailable: 0.02})
	struck := map[string][]string{}
	for _, spec := range specs {
		f, err := sim.ParseFault(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, err := w.InjectFault(f); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		struck[f.Service] = append(struck[f.Service], f.Kind)
	}
	for _, svc := range sim.Services() {
		if kinds := struck[svc]; !slices.Equal(kinds, []string{sim.FaultThrottle, sim.FaultError}) {
			t.Errorf("service %s gets %v, want a throttle and an error fault", svc, kinds)
		}
	}
	if !slices.Contains(sim.Services(), "kubernetes") {
		t.Error("no fault strikes Kubernetes")
	}
	if got := faultSpecs(Options{}); len(got) != 0 {
		t.Errorf("no shares, yet faults %v", got)
	}
}

// TestTwiceFindsWhatWasMadeTwice: two live resources with the same
// InstantStart tags are one made twice; untagged, deleting or differently
// tagged ones are not.
func TestTwiceFindsWhatWasMadeTwice(t *testing.T) {
	tags := func(role, zone string) map[string]string {
		return map[string]string{"Name": "c-" + role, "instantstart:cluster-id": "c1", "instantstart:role": role, "instantstart:zone": zone}
	}
	res := []sim.Resource{
		{Service: "ec2", Kind: "vpc", ID: "vpc-1", Tags: tags("vpc", "")},
		{Service: "ec2", Kind: "vpc", ID: "vpc-2", Tags: tags("vpc", "")},
		{Service: "ec2", Kind: "subnet", ID: "subnet-1", Tags: tags("private", "us-west-2a")},
		{Service: "ec2", Kind: "subnet", ID: "subnet-2", Tags: tags("private", "us-west-2b")},
		{Service: "ec2", Kind: "nat-gateway", ID: "nat-1", State: "deleting", Tags: tags("nat", "")},
		{Service: "ec2", Kind: "nat-gateway", ID: "nat-2", State: "available", Tags: tags("nat", "")},
		{Service: "ec2", Kind: "vpc", ID: "vpc-3"},
		{Service: "ec2", Kind: "vpc", ID: "vpc-4"},
		{Service: "fsx", Kind: "file-system", ID: "fs-1", Tags: map[string]string{"instantstart:storage": "s1"}},
		{Service: "fsx", Kind: "file-system", ID: "fs-2", Tags: map[string]string{"instantstart:storage": "s1"}},
	}
	got := twice(res)
	if len(got) != 2 {
		t.Fatalf("made twice: %v, want the VPC and the file system", got)
	}
	for id, ids := range got {
		if want := []string{"vpc-1", "vpc-2"}; strings.Contains(id, "vpc") && !slices.Equal(ids, want) {
			t.Errorf("%s: %v, want %v", id, ids, want)
		}
		if want := []string{"fs-1", "fs-2"}; strings.Contains(id, "file-system") && !slices.Equal(ids, want) {
			t.Errorf("%s: %v, want %v", id, ids, want)
		}
	}
}

func TestRecordFinding(t *testing.T) {
	cases := []struct {
		kind, status string
		want         string // the invariant; empty: none
	}{
		{"cluster", "DELETED", ""},
		{"cluster", "DELETING", invStuck},
		{"cluster", "ACTIVE", invLeaked},
		{"job", "SUCCEEDED", ""},
		{"job", "RUNNING", invStuck},
		{"endpoint", "READY", invLeaked},
		{"endpoint", "DEPLOYING", invStuck},
		{"storage", "AVAILABLE", invLeaked},
		{"model", "READY", ""},
		{"model", "DOWNLOADING", invStuck},
	}
	for _, c := range cases {
		got := ""
		if f := recordFinding(c.kind, "c", record{ID: "x", Name: "n", Status: c.status}); f != nil {
			got = f.invariant
		}
		if got != c.want {
			t.Errorf("%s %s: finding %q, want %q", c.kind, c.status, got, c.want)
		}
	}
}

// TestLeftovers: after the clean-up, only the kept buckets and their
// objects may be new in the world; anything else new is leaked.
func TestLeftovers(t *testing.T) {
	before := []string{"iam role seeded"}
	after := []string{
		"iam role seeded",
		"iam role instantstart-a-s3-csi",
		"s3 bucket a-data",
		"s3 object a-data/datasets/x.json",
		"s3 object a-data/models/m/config.json",
		"s3 bucket b-data",
		"s3 bucket stray",
		"s3 object stray/x",
	}
	kept := func(b string) bool { return b == "a-data" || b == "b-data" }
	leaked, buckets := leftovers(before, after, kept)
	if want := []string{"iam role instantstart-a-s3-csi", "s3 bucket stray", "s3 object stray/x"}; !slices.Equal(leaked, want) {
		t.Errorf("leaked %q, want %q", leaked, want)
	}
	if buckets["a-data"] != 2 || buckets["b-data"] != 0 || len(buckets) != 2 {
		t.Errorf("kept buckets %v, want a-data with 2 objects and an empty b-data", buckets)
	}
}
