package cluster_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
)

// TestNetworkActsOnlyOnItsOwn makes a second cluster, then deletes the
// first, while EC2's network describes ignore their filters (the
// nofilters fault plays a service or an emulator that does). The second
// cluster gets a network of its own, not the first's VPC, gateways,
// security group or Elastic IP; the delete finds its own VPC and acts only
// on what is tagged as its own, so the second cluster's VPC, subnets,
// route tables, security groups, internet gateway, NAT gateway and
// Elastic IP are all still there.
func TestNetworkActsOnlyOnItsOwn(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	create := func(name string) *hyperpod.Cluster {
		in := validInput()
		in.Name = name
		op, err := f.svc.Create(ctx, "tester", in, "")
		if err != nil {
			t.Fatal(err)
		}
		f.succeeded(t, op)
		c, err := f.svc.Get(op.Target.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	gone := create("train-1")
	ignoreFilters(t, f.world)
	kept := create("train-2")
	a, b := gone.Network, kept.Network
	if a.VpcID == b.VpcID || a.InternetGateway == b.InternetGateway || a.NatGatewayID == b.NatGatewayID || a.SecurityGroupID == b.SecurityGroupID {
		t.Fatalf("train-2 took train-1's network: %+v and %+v", a, b)
	}
	p, err := f.world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	// What cluster train-2 has, each resource by id.
	own := func() map[string]string {
		tagged := []ec2types.Filter{cluster.ByCluster(kept.ID)}
		have := map[string]string{}
		vpcs, err := p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: tagged})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vpcs.Vpcs {
			have[aws.ToString(v.VpcId)] = "vpc"
		}
		subnets, err := p.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: tagged})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subnets.Subnets {
			have[aws.ToString(s.SubnetId)] = "subnet"
		}
		rts, err := p.EC2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{Filters: tagged})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rts.RouteTables {
			have[aws.ToString(r.RouteTableId)] = "route table"
		}
		sgs, err := p.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: tagged})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range sgs.SecurityGroups {
			have[aws.ToString(g.GroupId)] = "security group"
		}
		igws, err := p.EC2.DescribeInternetGateways(ctx, &ec2.DescribeInternetGatewaysInput{Filters: tagged})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range igws.InternetGateways {
			have[aws.ToString(g.InternetGatewayId)] = "internet gateway"
		}
		nats, err := p.EC2.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{Filter: tagged})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nats.NatGateways {
			if n.State == ec2types.NatGatewayStateAvailable {
				have[aws.ToString(n.NatGatewayId)] = "NAT gateway"
			}
		}
		addrs, err := p.EC2.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{Filters: tagged})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range addrs.Addresses {
			have[aws.ToString(a.AllocationId)] = "Elastic IP"
		}
		return have
	}
	f.world.ClearFaults()
	before := own()
	ignoreFilters(t, f.world)
	kinds := map[string]bool{}
	for _, what := range before {
		kinds[what] = true
	}
	if len(kinds) != 7 {
		t.Fatalf("cluster train-2 has %v; want a VPC, subnets, route tables, security groups, an internet gateway, a NAT gateway and an Elastic IP", before)
	}
	del, err := f.svc.Delete(ctx, "tester", gone.ID, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, del)
	f.world.ClearFaults()
	after := own()
	for id, what := range before {
		if _, ok := after[id]; !ok {
			t.Errorf("train-2's %s %s was deleted with train-1", what, id)
		}
	}
	if v, _ := cluster.ClusterVPC(ctx, p, gone.ID); v != nil {
		t.Fatalf("train-1's VPC %s is still there", aws.ToString(v.VpcId))
	}
}

// ignoreFilters makes EC2's network describes ignore their filters (not
// those of zones and offerings, which plan the network).
func ignoreFilters(t *testing.T, w *sim.World) {
	t.Helper()
	for _, op := range []string{"DescribeVpcs", "DescribeSubnets", "DescribeRouteTables", "DescribeSecurityGroups", "DescribeInternetGateways", "DescribeNatGateways", "DescribeAddresses"} {
		if _, err := w.InjectFault(sim.Fault{Kind: sim.FaultNoFilters, Operation: op}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeleteNamesASubnetItDidNotMake: a subnet made by hand in the
// cluster's VPC is left alone, and the delete fails at once naming it
// (waiting would not release it) rather than retrying DependencyViolation
// until its deadline; once it is gone, the delete goes through.
func TestDeleteNamesASubnetItDidNotMake(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	op, err := f.svc.Create(ctx, "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, op)
	c, err := f.svc.Get(op.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.world.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	made, err := p.EC2.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: aws.String(c.Network.VpcID), CidrBlock: aws.String("10.0.250.0/24"), AvailabilityZone: aws.String("us-west-2a")})
	if err != nil {
		t.Fatal(err)
	}
	handMade := aws.ToString(made.Subnet.SubnetId)

	del, err := f.svc.Delete(ctx, "tester", c.ID, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.ended(t, del)
	if end.Status != ops.Failed || end.Error == nil {
		t.Fatalf("delete ended %s: %+v, want it failed on the hand-made subnet", end.Status, end.Error)
	}
	if end.Error.Code != "PRECONDITION" || !strings.Contains(end.Error.Message, handMade) || !strings.Contains(end.Error.Message, c.Network.VpcID) {
		t.Fatalf("delete error %s %q, want PRECONDITION naming %s and the VPC", end.Error.Code, end.Error.Message, handMade)
	}
	if _, err := p.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{handMade}}); err != nil {
		t.Fatalf("the hand-made subnet is gone: %v", err)
	}

	if _, err := p.EC2.DeleteSubnet(ctx, &ec2.DeleteSubnetInput{SubnetId: aws.String(handMade)}); err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.Delete(ctx, "tester", c.ID, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, again)
}
