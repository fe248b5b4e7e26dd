package sim

import (
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
)

func TestCreateVpcValidatesCIDR(t *testing.T) {
	cases := []struct {
		cidr *string
		code string
	}{
		{aws.String("10.0.0.0/16"), ""},
		{aws.String("192.168.0.0/28"), ""},
		{aws.String("10.0.0.0/15"), "InvalidVpc.Range"},
		{aws.String("10.0.0.0/29"), "InvalidVpc.Range"},
		{aws.String("10.0.0.1/16"), "InvalidParameterValue"},
		{aws.String("10.0.0.0"), "InvalidParameterValue"},
		{aws.String("banana"), "InvalidParameterValue"},
		{aws.String("2001:db8::/56"), "InvalidParameterValue"},
		{nil, "MissingParameter"},
	}
	f := newFixture(t)
	for _, c := range cases {
		_, err := f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: c.cidr})
		if got := errorCode(t, err); got != c.code {
			t.Errorf("CreateVpc(%v): code %q, want %q", aws.ToString(c.cidr), got, c.code)
		}
	}
}

func TestCreateVpcMakesMainRouteTableAndDefaultGroup(t *testing.T) {
	f := newFixture(t)
	vpc := ok(f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{
		CidrBlock: aws.String("10.0.0.0/16"), TagSpecifications: tagSpec(ec2types.ResourceTypeVpc, "Name", "hp"),
	})).must(t).Vpc
	if !regexp.MustCompile(`^vpc-[0-9a-f]{17}$`).MatchString(*vpc.VpcId) {
		t.Errorf("VPC id %q does not look like EC2's", *vpc.VpcId)
	}
	if vpc.State != ec2types.VpcStateAvailable || len(vpc.Tags) != 1 || *vpc.Tags[0].Value != "hp" {
		t.Errorf("vpc = %+v", vpc)
	}
	filter := []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{*vpc.VpcId}}}
	rts := ok(f.p.EC2.DescribeRouteTables(f.ctx, &ec2.DescribeRouteTablesInput{Filters: filter})).must(t).RouteTables
	if len(rts) != 1 || !*rts[0].Associations[0].Main || *rts[0].Routes[0].GatewayId != "local" {
		t.Errorf("route tables = %+v", rts)
	}
	sgs := ok(f.p.EC2.DescribeSecurityGroups(f.ctx, &ec2.DescribeSecurityGroupsInput{Filters: filter})).must(t).SecurityGroups
	if len(sgs) != 1 || *sgs[0].GroupName != "default" {
		t.Errorf("security groups = %+v", sgs)
	}
}

func TestDescribeVpcsFilters(t *testing.T) {
	f := newFixture(t)
	a := ok(f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"), TagSpecifications: tagSpec(ec2types.ResourceTypeVpc, "team", "ml")})).must(t).Vpc
	b := ok(f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16")})).must(t).Vpc
	ok(f.p.EC2.CreateTags(f.ctx, &ec2.CreateTagsInput{Resources: []string{*b.VpcId}, Tags: []ec2types.Tag{{Key: aws.String("env"), Value: aws.String("dev")}}})).must(t)
	cases := []struct {
		name   string
		filter ec2types.Filter
		want   string
	}{
		{"tag value", ec2types.Filter{Name: aws.String("tag:team"), Values: []string{"ml"}}, *a.VpcId},
		{"tag set by CreateTags", ec2types.Filter{Name: aws.String("tag:env"), Values: []string{"d*"}}, *b.VpcId},
		{"tag key", ec2types.Filter{Name: aws.String("tag-key"), Values: []string{"env"}}, *b.VpcId},
		{"vpc id", ec2types.Filter{Name: aws.String("vpc-id"), Values: []string{*a.VpcId}}, *a.VpcId},
		{"cidr", ec2types.Filter{Name: aws.String("cidr-block"), Values: []string{"10.1.0.0/16"}}, *b.VpcId},
	}
	for _, c := range cases {
		out := ok(f.p.EC2.DescribeVpcs(f.ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{c.filter}})).must(t)
		if len(out.Vpcs) != 1 || *out.Vpcs[0].VpcId != c.want {
			t.Errorf("%s: got %d VPCs, want just %s", c.name, len(out.Vpcs), c.want)
		}
	}
	_, err := f.p.EC2.DescribeVpcs(f.ctx, &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-00000000000000000"}})
	if code := errorCode(t, err); code != "InvalidVpcID.NotFound" {
		t.Errorf("unknown id: code %q", code)
	}
	_, err = f.p.EC2.CreateTags(f.ctx, &ec2.CreateTagsInput{Resources: []string{"subnet-00000000000000000"}, Tags: []ec2types.Tag{{Key: aws.String("k")}}})
	if code := errorCode(t, err); code != "InvalidSubnetID.NotFound" {
		t.Errorf("CreateTags on an unknown id: code %q", code)
	}
}

func TestModifyVpcAttribute(t *testing.T) {
	f := newFixture(t)
	vpc := ok(f.p.EC2.CreateVpc(f.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})).must(t).Vpc
	on := &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}
	ok(f.p.EC2.ModifyVpcAttribute(f.ctx, &ec2.ModifyVpcAttributeInput{VpcId: vpc.VpcId, EnableDnsHostnames: on})).must(t)
	_, err := f.p.EC2.ModifyVpcAttribute(f.ctx, &ec2.ModifyVpcAttributeInput{VpcId: vpc.VpcId, EnableDnsHostnames: on, EnableDnsSupport: on})
	if code := errorCode(t, err); code != "InvalidParameterCombination" {
		t.Errorf("two attributes: code %q", code)
	}
	_, err = f.p.EC2.ModifyVpcAttribute(f.ctx, &ec2.ModifyVpcAttributeInput{})
	var missing *smithy.InvalidParamsError
	if !errorsAs(err, &missing) {
		t.Errorf("no VpcId: err = %v, want the SDK's InvalidParamsError", err)
	}
}

// TestDeleteVpcDependencyOrder tears a full network down in the order EC2
// demands: every step before its last dependency is gone fails with
// DependencyViolation.
func TestDeleteVpcDependencyOrder(t *testing.T) {
	f := newFixture(t)
	ec := f.p.EC2
	n := f.network("10.0.0.0/16", "us-west-2a")
	igw := ok(ec.CreateInternetGateway(f.ctx, nil)).must(t).InternetGateway.InternetGatewayId
	ok(ec.AttachInternetGateway(f.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: igw, VpcId: &n.vpc})).must(t)
	eip := ok(ec.AllocateAddress(f.ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc})).must(t).AllocationId
	nat := ok(ec.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{SubnetId: &n.subnets[0], AllocationId: eip})).must(t).NatGateway.NatGatewayId
	rt := ok(ec.CreateRouteTable(f.ctx, &ec2.CreateRouteTableInput{VpcId: &n.vpc})).must(t).RouteTable.RouteTableId
	assoc := ok(ec.AssociateRouteTable(f.ctx, &ec2.AssociateRouteTableInput{RouteTableId: rt, SubnetId: &n.subnets[0]})).must(t).AssociationId

	deleteVpc := func() error { _, err := ec.DeleteVpc(f.ctx, &ec2.DeleteVpcInput{VpcId: &n.vpc}); return err }
	wantDependency := func(step string, err error) {
		t.Helper()
		if code := errorCode(t, err); code != "DependencyViolation" {
			t.Errorf("%s: code %q, want DependencyViolation", step, code)
		}
	}
	wantDependency("VPC with everything", deleteVpc())
	_, err := ec.DeleteInternetGateway(f.ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: igw})
	wantDependency("attached internet gateway", err)
	_, err = ec.DeleteSubnet(f.ctx, &ec2.DeleteSubnetInput{SubnetId: &n.subnets[0]})
	wantDependency("subnet with a NAT gateway", err)
	_, err = ec.ReleaseAddress(f.ctx, &ec2.ReleaseAddressInput{AllocationId: eip})
	if code := errorCode(t, err); code != "InvalidIPAddress.InUse" {
		t.Errorf("address held by a NAT gateway: code %q", code)
	}
	_, err = ec.DeleteRouteTable(f.ctx, &ec2.DeleteRouteTableInput{RouteTableId: rt})
	wantDependency("associated route table", err)

	ok(ec.DeleteNatGateway(f.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: nat})).must(t)
	_, err = ec.DeleteSubnet(f.ctx, &ec2.DeleteSubnetInput{SubnetId: &n.subnets[0]})
	wantDependency("subnet with a deleting NAT gateway", err)
	f.clock.Advance(scaled(natDeleteTime))
	ok(ec.ReleaseAddress(f.ctx, &ec2.ReleaseAddressInput{AllocationId: eip})).must(t)
	ok(ec.DisassociateRouteTable(f.ctx, &ec2.DisassociateRouteTableInput{AssociationId: assoc})).must(t)
	ok(ec.DeleteRouteTable(f.ctx, &ec2.DeleteRouteTableInput{RouteTableId: rt})).must(t)
	ok(ec.DeleteSubnet(f.ctx, &ec2.DeleteSubnetInput{SubnetId: &n.subnets[0]})).must(t)
	wantDependency("VPC with a security group and a gateway", deleteVpc())
	ok(ec.DeleteSecurityGroup(f.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &n.sg})).must(t)
	wantDependency("VPC with an attached gateway", deleteVpc())
	ok(ec.DetachInternetGateway(f.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: igw, VpcId: &n.vpc})).must(t)
	ok(ec.DeleteInternetGateway(f.ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: igw})).must(t)
	if err := deleteVpc(); err != nil {
		t.Fatalf("DeleteVpc of an empty VPC: %v", err)
	}
	// The main route table and the default group went with the VPC.
	if rts := ok(ec.DescribeRouteTables(f.ctx, nil)).must(t).RouteTables; len(rts) != 0 {
		t.Errorf("route tables left: %d", len(rts))
	}
	if sgs := ok(ec.DescribeSecurityGroups(f.ctx, nil)).must(t).SecurityGroups; len(sgs) != 0 {
		t.Errorf("security groups left: %d", len(sgs))
	}
	_, err = ec.DeleteVpc(f.ctx, &ec2.DeleteVpcInput{VpcId: &n.vpc})
	if code := errorCode(t, err); code != "InvalidVpcID.NotFound" {
		t.Errorf("second DeleteVpc: code %q", code)
	}
}
