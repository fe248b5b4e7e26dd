package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// publicNetwork is a network whose VPC has an internet gateway.
func (f *fixture) publicNetwork() network {
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	igw := ok(f.p.EC2.CreateInternetGateway(f.ctx, nil)).must(f.t).InternetGateway.InternetGatewayId
	ok(f.p.EC2.AttachInternetGateway(f.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: igw, VpcId: &n.vpc})).must(f.t)
	return n
}

func (f *fixture) natState(id *string) ec2types.NatGatewayState {
	out := ok(f.p.EC2.DescribeNatGateways(f.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{*id}})).must(f.t)
	return out.NatGateways[0].State
}

func TestNatGatewayLifecycle(t *testing.T) {
	f := newFixture(t)
	n := f.publicNetwork()
	eip := ok(f.p.EC2.AllocateAddress(f.ctx, nil)).must(t).AllocationId
	nat := ok(f.p.EC2.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{
		SubnetId: &n.subnets[0], AllocationId: eip, TagSpecifications: tagSpec(ec2types.ResourceTypeNatgateway, "Name", "nat-a"),
	})).must(t).NatGateway
	if nat.State != ec2types.NatGatewayStatePending || *nat.VpcId != n.vpc || len(nat.Tags) != 1 {
		t.Fatalf("new NAT gateway = %+v", nat)
	}
	steps := []struct {
		advance  float64 // in units of the scaled duration
		want     ec2types.NatGatewayState
		deleteIt bool
	}{
		{0.99, ec2types.NatGatewayStatePending, false},
		{0.01, ec2types.NatGatewayStateAvailable, true},
		{0, ec2types.NatGatewayStateDeleting, false},
		{1, ec2types.NatGatewayStateDeleted, false},
	}
	for i, s := range steps {
		d := scaled(natCreateTime)
		if i >= 2 {
			d = scaled(natDeleteTime)
		}
		f.clock.Advance(timeFraction(d, s.advance))
		if got := f.natState(nat.NatGatewayId); got != s.want {
			t.Fatalf("step %d: state %s, want %s", i, got, s.want)
		}
		if s.deleteIt {
			ok(f.p.EC2.DeleteNatGateway(f.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: nat.NatGatewayId})).must(t)
		}
	}
	byState := ok(f.p.EC2.DescribeNatGateways(f.ctx, &ec2.DescribeNatGatewaysInput{
		Filter: []ec2types.Filter{{Name: aws.String("state"), Values: []string{"pending", "available"}}},
	})).must(t)
	if len(byState.NatGateways) != 0 {
		t.Errorf("state filter returned a deleted gateway")
	}
	f.clock.Advance(natGoneAfter + scaled(natDeleteTime))
	_, err := f.p.EC2.DescribeNatGateways(f.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{*nat.NatGatewayId}})
	if code := errorCode(t, err); code != "InvalidNatGatewayID.NotFound" {
		t.Errorf("an hour after deletion: code %q", code)
	}
}

func TestNatGatewayClientTokenIsIdempotent(t *testing.T) {
	f := newFixture(t)
	n := f.publicNetwork()
	eip := ok(f.p.EC2.AllocateAddress(f.ctx, nil)).must(t).AllocationId
	in := &ec2.CreateNatGatewayInput{SubnetId: &n.subnets[0], AllocationId: eip, ClientToken: aws.String("op-1/nat/1")}
	first := ok(f.p.EC2.CreateNatGateway(f.ctx, in)).must(t).NatGateway
	again := ok(f.p.EC2.CreateNatGateway(f.ctx, in)).must(t).NatGateway
	if *first.NatGatewayId != *again.NatGatewayId {
		t.Errorf("retry made a second gateway: %s then %s", *first.NatGatewayId, *again.NatGatewayId)
	}
	if all := ok(f.p.EC2.DescribeNatGateways(f.ctx, nil)).must(t).NatGateways; len(all) != 1 {
		t.Errorf("%d gateways, want 1", len(all))
	}
	_, err := f.p.EC2.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{SubnetId: &n.subnets[1], AllocationId: eip, ClientToken: in.ClientToken})
	if code := errorCode(t, err); code != "IdempotentParameterMismatch" {
		t.Errorf("token reused with other parameters: code %q", code)
	}
	_, err = f.p.EC2.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{SubnetId: &n.subnets[1], AllocationId: eip})
	if code := errorCode(t, err); code != "Resource.AlreadyAssociated" {
		t.Errorf("address already held: code %q", code)
	}
	addr := ok(f.p.EC2.DescribeAddresses(f.ctx, &ec2.DescribeAddressesInput{AllocationIds: []string{*eip}})).must(t).Addresses[0]
	if addr.AssociationId == nil || addr.NetworkInterfaceId == nil {
		t.Errorf("held address shows no association: %+v", addr)
	}
}

func TestNatGatewayWithoutInternetGatewayFails(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a")
	eip := ok(f.p.EC2.AllocateAddress(f.ctx, nil)).must(t).AllocationId
	nat := ok(f.p.EC2.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{SubnetId: &n.subnets[0], AllocationId: eip})).must(t).NatGateway
	f.clock.Advance(scaled(natCreateTime))
	got := ok(f.p.EC2.DescribeNatGateways(f.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{*nat.NatGatewayId}})).must(t).NatGateways[0]
	if got.State != ec2types.NatGatewayStateFailed || aws.ToString(got.FailureCode) != "Gateway.NotAttached" {
		t.Errorf("NAT gateway = %s (%s)", got.State, aws.ToString(got.FailureCode))
	}
	// A failed gateway has let go of its address and subnet.
	ok(f.p.EC2.ReleaseAddress(f.ctx, &ec2.ReleaseAddressInput{AllocationId: eip})).must(t)
}
