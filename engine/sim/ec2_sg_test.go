package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestSecurityGroups(t *testing.T) {
	f := newFixture(t)
	ec := f.p.EC2
	n := f.network("10.0.0.0/16")
	_, err := ec.CreateSecurityGroup(f.ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("nodes"), Description: aws.String("again"), VpcId: &n.vpc})
	if code := errorCode(t, err); code != "InvalidGroup.Duplicate" {
		t.Errorf("duplicate name: code %q", code)
	}
	efa := ok(ec.CreateSecurityGroup(f.ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String("efa"), Description: aws.String("EFA"), VpcId: &n.vpc,
		TagSpecifications: tagSpec(ec2types.ResourceTypeSecurityGroup, "role", "efa"),
	})).must(t).GroupId
	self := ec2types.IpPermission{IpProtocol: aws.String("-1"), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: efa}}}
	https := ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(443), ToPort: aws.Int32(443),
		IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/16")}}}
	out := ok(ec.AuthorizeSecurityGroupIngress(f.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: efa, IpPermissions: []ec2types.IpPermission{self, https}})).must(t)
	if !*out.Return || len(out.SecurityGroupRules) != 2 {
		t.Errorf("authorize = %+v", out)
	}
	_, err = ec.AuthorizeSecurityGroupIngress(f.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: efa, IpPermissions: []ec2types.IpPermission{https}})
	if code := errorCode(t, err); code != "InvalidPermission.Duplicate" {
		t.Errorf("duplicate rule: code %q", code)
	}
	byName := ok(ec.DescribeSecurityGroups(f.ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		{Name: aws.String("group-name"), Values: []string{"efa"}}, {Name: aws.String("vpc-id"), Values: []string{n.vpc}},
	}})).must(t).SecurityGroups
	if len(byName) != 1 || len(byName[0].IpPermissions) != 2 || len(byName[0].IpPermissionsEgress) != 1 {
		t.Fatalf("efa group = %+v", byName)
	}
	// A group referenced by another group's rule cannot go.
	ok(ec.AuthorizeSecurityGroupIngress(f.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &n.sg, IpPermissions: []ec2types.IpPermission{
		{IpProtocol: aws.String("-1"), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: efa}}},
	}})).must(t)
	_, err = ec.DeleteSecurityGroup(f.ctx, &ec2.DeleteSecurityGroupInput{GroupId: efa})
	if code := errorCode(t, err); code != "DependencyViolation" {
		t.Errorf("referenced group: code %q", code)
	}
	def := ok(ec.DescribeSecurityGroups(f.ctx, &ec2.DescribeSecurityGroupsInput{GroupNames: []string{"default"}})).must(t).SecurityGroups[0]
	_, err = ec.DeleteSecurityGroup(f.ctx, &ec2.DeleteSecurityGroupInput{GroupId: def.GroupId})
	if code := errorCode(t, err); code != "CannotDelete" {
		t.Errorf("default group: code %q", code)
	}
	_, err = ec.DeleteSecurityGroup(f.ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String("sg-00000000000000000")})
	if code := errorCode(t, err); code != "InvalidGroup.NotFound" {
		t.Errorf("unknown group: code %q", code)
	}
}
