package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestTagging(t *testing.T) {
	f := newFixture(t)
	_, err := f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"), TagSpecifications: tagSpec(ec2types.ResourceTypeSubnet, "a", "b")})
	if code := errorCode(t, err); code != "InvalidParameterValue" {
		t.Errorf("tag specification for another resource type: code %q", code)
	}
	n := f.network("10.0.0.0/16", "us-west-2a")
	_, err = f.p.EC2.CreateTags(f.ctx, &ec2.CreateTagsInput{Resources: []string{n.vpc}, Tags: []ec2types.Tag{{Key: aws.String("aws:owner"), Value: aws.String("x")}}})
	if code := errorCode(t, err); code != "InvalidParameterValue" {
		t.Errorf("reserved tag key: code %q", code)
	}
	ok(f.p.EC2.CreateTags(f.ctx, &ec2.CreateTagsInput{
		Resources: []string{n.vpc, n.subnets[0], n.sg},
		Tags:      []ec2types.Tag{{Key: aws.String("instantstart:cluster"), Value: aws.String("hp")}},
	})).must(t)
	filter := []ec2types.Filter{{Name: aws.String("tag:instantstart:cluster"), Values: []string{"hp"}}}
	if got := len(ok(f.p.EC2.DescribeSubnets(f.ctx, &ec2.DescribeSubnetsInput{Filters: filter})).must(t).Subnets); got != 1 {
		t.Errorf("tagged subnets: %d", got)
	}
	if got := len(ok(f.p.EC2.DescribeSecurityGroups(f.ctx, &ec2.DescribeSecurityGroupsInput{Filters: filter})).must(t).SecurityGroups); got != 1 {
		t.Errorf("tagged security groups: %d", got)
	}
}
