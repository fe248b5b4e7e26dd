package sim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestResourcesListWhatClientsMade: the inventory lists what a client
// made and must delete, with its state and tags, leaves out what goes
// with another resource, and drops what has finished disappearing.
func TestResourcesListWhatClientsMade(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	ok(f.p.EC2.CreateTags(f.ctx, &ec2.CreateTagsInput{Resources: []string{n.vpc},
		Tags: tagSpec("vpc", "Name", "main")[0].Tags})).must(t)
	f.eksCluster("eks", n)
	ok(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("data"),
		CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: "us-west-2"}})).must(t)
	if err := f.w.PutObjectMeta("data", "datasets/a.json", 10); err != nil {
		t.Fatal(err)
	}
	list := func() []string {
		var out []string
		for _, r := range f.w.Resources() {
			out = append(out, fmt.Sprintf("%s %s %s %s %d", r.Service, r.Kind, r.Name, r.State, r.Items))
		}
		return out
	}
	want := []string{
		"ec2 security-group   0", // the network's "nodes" group: the VPC's default group goes with it
		"ec2 subnet  available 0",
		"ec2 subnet  available 0",
		"ec2 vpc main available 0",
		"eks cluster eks ACTIVE 0",
		"iam role eks-eks-role  0",
		"s3 bucket data  1",
	}
	if got := list(); !slices.Equal(got, want) {
		t.Fatalf("resources:\n%q\nwant\n%q", got, want)
	}
	if r := f.w.Resources()[3]; r.ID != n.vpc || r.Region != "us-west-2" || r.Tags["Name"] != "main" {
		t.Errorf("the VPC: %+v", r)
	}

	ok(f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: aws.String("eks")})).must(t)
	if got := list(); got[4] != "eks cluster eks DELETING 0" {
		t.Errorf("deleting EKS cluster listed as %q", got[4])
	}
	f.clock.Advance(scaled(eksDeleteTime) + 1)
	if got := list(); slices.Contains(got, "eks cluster eks DELETING 0") || len(got) != len(want)-1 {
		t.Errorf("after the EKS cluster is gone: %q", got)
	}
}
