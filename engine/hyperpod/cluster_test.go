package hyperpod_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

func TestRequireActive(t *testing.T) {
	for _, status := range []hyperpod.ClusterStatus{hyperpod.ClusterCreating, hyperpod.ClusterFailed, hyperpod.ClusterDeleting, hyperpod.ClusterDeleted, hyperpod.ClusterImporting} {
		c := &hyperpod.Cluster{Name: "train-1", Status: status}
		err := c.RequireActive("input.clusterId", "jobs can be submitted")
		e := errs.As(err)
		if err == nil || e.Code != errs.Precondition || e.Field != "input.clusterId" {
			t.Fatalf("%s: err = %v (%+v); want PRECONDITION on input.clusterId", status, err, e)
		}
		if want := "cluster train-1 is " + string(status) + "; jobs can be submitted only while it is ACTIVE"; e.Message != want {
			t.Fatalf("%s: message %q; want %q", status, e.Message, want)
		}
	}
	if err := (&hyperpod.Cluster{Status: hyperpod.ClusterActive}).RequireActive("clusterId", "features can change"); err != nil {
		t.Fatalf("an ACTIVE cluster was refused: %v", err)
	}
}

func TestWhatIsReadOffTheRecord(t *testing.T) {
	c := &hyperpod.Cluster{
		EKS: hyperpod.EKS{OIDCProviderArn: "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC", OIDCIssuer: "https://oidc.eks.us-west-2.amazonaws.com/id/ABC"},
		Network: hyperpod.Network{Subnets: []hyperpod.Subnet{
			{ID: "subnet-pub", Zone: "us-west-2a", Role: hyperpod.SubnetPublic},
			{ID: "subnet-c1", Zone: "us-west-2a", Role: hyperpod.SubnetCompute},
			{ID: "subnet-priv", Zone: "us-west-2b", Role: hyperpod.SubnetPrivate},
			{ID: "subnet-c2", Zone: "us-west-2b", Role: hyperpod.SubnetCompute},
		}},
	}
	if got := c.AccountID(); got != "123456789012" {
		t.Errorf("AccountID() = %q; want the account of the OIDC provider's ARN", got)
	}
	if got := c.OIDCIssuerHost(); got != "oidc.eks.us-west-2.amazonaws.com/id/ABC" {
		t.Errorf("OIDCIssuerHost() = %q; want the issuer without https://", got)
	}
	var ids []string
	for _, sn := range c.ComputeSubnets() {
		ids = append(ids, sn.ID)
	}
	if !slices.Equal(ids, []string{"subnet-c1", "subnet-c2"}) {
		t.Errorf("ComputeSubnets() = %v; want the compute subnets in order", ids)
	}
	empty := &hyperpod.Cluster{}
	if empty.AccountID() != "" || len(empty.ComputeSubnets()) != 0 {
		t.Errorf("a cluster with no OIDC provider or subnets: account %q, compute subnets %v; want none", empty.AccountID(), empty.ComputeSubnets())
	}
}

// A record stored while a group named one "instanceType" reads as a group
// of that one type; one that lists its types keeps them.
func TestARecordWithASingleInstanceTypeIsRead(t *testing.T) {
	const stored = `{"id":"c1","name":"train-1","status":"ACTIVE","instanceGroups":[` +
		`{"name":"gpu","instanceType":"ml.p5.48xlarge","count":2},` +
		`{"name":"flex","instanceTypes":["ml.g5.xlarge","ml.g5.2xlarge"],"count":1}]}`
	var c hyperpod.Cluster
	if err := json.Unmarshal([]byte(stored), &c); err != nil {
		t.Fatal(err)
	}
	if c.ID != "c1" || c.Status != hyperpod.ClusterActive || len(c.InstanceGroups) != 2 {
		t.Fatalf("cluster = %+v", c)
	}
	if got := c.InstanceGroups[0].InstanceTypes; !slices.Equal(got, []string{"ml.p5.48xlarge"}) || c.InstanceGroups[0].Count != 2 {
		t.Errorf("the single-type group reads as %v count %d", got, c.InstanceGroups[0].Count)
	}
	if got := c.InstanceGroups[1].InstanceTypes; !slices.Equal(got, []string{"ml.g5.xlarge", "ml.g5.2xlarge"}) || !c.InstanceGroups[1].Flexible() {
		t.Errorf("the flexible group reads as %v", got)
	}
}

func TestRequireBucket(t *testing.T) {
	c := &hyperpod.Cluster{Name: "train-1", Status: hyperpod.ClusterActive}
	err := c.RequireBucket(nil, "input.clusterId", "models live in it")
	e := errs.As(err)
	if err == nil || e.Code != errs.Precondition || e.Field != "input.clusterId" ||
		e.Message != "cluster train-1 has no shared bucket ready; models live in it: add it first (addStorage with kind S3)" {
		t.Fatalf("no bucket: %v (%+v)", err, e)
	}
	if err := c.RequireBucket(&hyperpod.Bucket{Name: "b"}, "input.clusterId", "models live in it"); err != nil {
		t.Fatalf("a ready bucket was refused: %v", err)
	}
}
