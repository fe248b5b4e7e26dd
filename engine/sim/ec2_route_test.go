package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestRoutesToGatewaysAndAssociations(t *testing.T) {
	f := newFixture(t)
	ec := f.p.EC2
	n := f.publicNetwork()
	igws := ok(ec.DescribeInternetGateways(f.ctx, &ec2.DescribeInternetGatewaysInput{
		Filters: []ec2types.Filter{{Name: aws.String("attachment.vpc-id"), Values: []string{n.vpc}}},
	})).must(t).InternetGateways
	if len(igws) != 1 {
		t.Fatalf("%d gateways attached to %s", len(igws), n.vpc)
	}
	igw := igws[0].InternetGatewayId
	eip := ok(ec.AllocateAddress(f.ctx, nil)).must(t).AllocationId
	nat := ok(ec.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{SubnetId: &n.subnets[0], AllocationId: eip})).must(t).NatGateway.NatGatewayId
	public := ok(ec.CreateRouteTable(f.ctx, &ec2.CreateRouteTableInput{VpcId: &n.vpc})).must(t).RouteTable.RouteTableId
	private := ok(ec.CreateRouteTable(f.ctx, &ec2.CreateRouteTableInput{VpcId: &n.vpc})).must(t).RouteTable.RouteTableId
	ok(ec.CreateRoute(f.ctx, &ec2.CreateRouteInput{RouteTableId: public, DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: igw})).must(t)
	ok(ec.CreateRoute(f.ctx, &ec2.CreateRouteInput{RouteTableId: private, DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: nat})).must(t)
	_, err := ec.CreateRoute(f.ctx, &ec2.CreateRouteInput{RouteTableId: public, DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: igw})
	if code := errorCode(t, err); code != "RouteAlreadyExists" {
		t.Errorf("duplicate route: code %q", code)
	}
	assoc := ok(ec.AssociateRouteTable(f.ctx, &ec2.AssociateRouteTableInput{RouteTableId: private, SubnetId: &n.subnets[1]})).must(t)
	if assoc.AssociationId == nil || assoc.AssociationState.State != ec2types.RouteTableAssociationStateCodeAssociated {
		t.Errorf("association = %+v", assoc)
	}
	_, err = ec.AssociateRouteTable(f.ctx, &ec2.AssociateRouteTableInput{RouteTableId: public, SubnetId: &n.subnets[1]})
	if code := errorCode(t, err); code != "Resource.AlreadyAssociated" {
		t.Errorf("second association of a subnet: code %q", code)
	}
	bySubnet := ok(ec.DescribeRouteTables(f.ctx, &ec2.DescribeRouteTablesInput{
		Filters: []ec2types.Filter{{Name: aws.String("association.subnet-id"), Values: []string{n.subnets[1]}}},
	})).must(t).RouteTables
	if len(bySubnet) != 1 || *bySubnet[0].RouteTableId != *private {
		t.Fatalf("route tables of subnet: %+v", bySubnet)
	}
	if r := bySubnet[0].Routes[1]; *r.NatGatewayId != *nat || r.State != ec2types.RouteStateActive {
		t.Errorf("NAT route = %+v", r)
	}
	// A route to a gateway that is gone turns into a blackhole.
	ok(ec.DeleteNatGateway(f.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: nat})).must(t)
	f.clock.Advance(scaled(natDeleteTime))
	rt := ok(ec.DescribeRouteTables(f.ctx, &ec2.DescribeRouteTablesInput{RouteTableIds: []string{*private}})).must(t).RouteTables[0]
	if rt.Routes[1].State != ec2types.RouteStateBlackhole {
		t.Errorf("route to a deleted NAT gateway is %s", rt.Routes[1].State)
	}
	_, err = ec.DisassociateRouteTable(f.ctx, &ec2.DisassociateRouteTableInput{AssociationId: aws.String("rtbassoc-00000000000000000")})
	if code := errorCode(t, err); code != "InvalidAssociationID.NotFound" {
		t.Errorf("unknown association: code %q", code)
	}
}
