package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestCreateSubnetValidation(t *testing.T) {
	f := newFixture(t)
	vpc := ok(f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})).must(t).Vpc
	ok(f.p.EC2.CreateSubnet(f.ctx, &ec2.CreateSubnetInput{VpcId: vpc.VpcId, CidrBlock: aws.String("10.0.0.0/20"), AvailabilityZone: aws.String("us-west-2a")})).must(t)
	cases := []struct {
		name       string
		cidr, zone string
		zoneID     string
		vpc        string
		code       string
	}{
		{"fits", "10.0.16.0/20", "us-west-2b", "", "", ""},
		{"by zone id", "10.0.32.0/24", "", "usw2-az4", "", ""},
		{"overlaps", "10.0.8.0/24", "us-west-2a", "", "", "InvalidSubnet.Conflict"},
		{"contains another", "10.0.0.0/17", "us-west-2a", "", "", "InvalidSubnet.Conflict"},
		{"outside the VPC", "10.1.0.0/24", "us-west-2a", "", "", "InvalidSubnet.Range"},
		{"too small", "10.0.64.0/29", "us-west-2a", "", "", "InvalidSubnet.Range"},
		{"bad CIDR", "10.0.64.0/33", "us-west-2a", "", "", "InvalidParameterValue"},
		{"unknown zone", "10.0.64.0/24", "us-west-2e", "", "", "InvalidParameterValue"},
		{"zone of another region", "10.0.64.0/24", "us-east-1a", "", "", "InvalidParameterValue"},
		{"unknown VPC", "10.0.64.0/24", "us-west-2a", "", "vpc-00000000000000000", "InvalidVpcID.NotFound"},
	}
	for _, c := range cases {
		in := &ec2.CreateSubnetInput{VpcId: vpc.VpcId, CidrBlock: aws.String(c.cidr)}
		if c.zone != "" {
			in.AvailabilityZone = aws.String(c.zone)
		}
		if c.zoneID != "" {
			in.AvailabilityZoneId = aws.String(c.zoneID)
		}
		if c.vpc != "" {
			in.VpcId = aws.String(c.vpc)
		}
		_, err := f.p.EC2.CreateSubnet(f.ctx, in)
		if got := errorCode(t, err); got != c.code {
			t.Errorf("%s: code %q, want %q (%v)", c.name, got, c.code, err)
		}
	}
}

func TestDescribeSubnetsFilters(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b", "us-west-2b")
	ok(f.p.EC2.CreateTags(f.ctx, &ec2.CreateTagsInput{Resources: n.subnets[:1], Tags: []ec2types.Tag{{Key: aws.String("tier"), Value: aws.String("public")}}})).must(t)
	count := func(filters ...ec2types.Filter) int {
		return len(ok(f.p.EC2.DescribeSubnets(f.ctx, &ec2.DescribeSubnetsInput{Filters: filters})).must(t).Subnets)
	}
	if got := count(ec2types.Filter{Name: aws.String("vpc-id"), Values: []string{n.vpc}}); got != 3 {
		t.Errorf("vpc-id: %d subnets", got)
	}
	if got := count(ec2types.Filter{Name: aws.String("availability-zone"), Values: []string{"us-west-2b"}}); got != 2 {
		t.Errorf("availability-zone: %d subnets", got)
	}
	if got := count(ec2types.Filter{Name: aws.String("tag:tier"), Values: []string{"public"}}); got != 1 {
		t.Errorf("tag: %d subnets", got)
	}
	s := ok(f.p.EC2.DescribeSubnets(f.ctx, &ec2.DescribeSubnetsInput{SubnetIds: n.subnets[:1]})).must(t).Subnets[0]
	if *s.AvailableIpAddressCount != 4091 || *s.AvailabilityZoneId != "usw2-az1" {
		t.Errorf("subnet = %d free IPs, zone id %s", *s.AvailableIpAddressCount, *s.AvailabilityZoneId)
	}
}
