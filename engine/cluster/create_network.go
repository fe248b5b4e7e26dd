package cluster

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/netplan"
	"github.com/instantstart/instantstart/engine/ops"
)

// network builds the phases that make the cluster's VPC: the VPC with its
// internet gateway, the control plane's subnets and security group, the NAT
// gateway, and the compute subnets.
type network struct {
	p         *cloud.Provider
	clusterID string
	name      string
	in        *CreateInput
}

// vpc: a /16 that overlaps no VPC of the region, with DNS hostnames and an
// attached internet gateway.
func (n *network) observeVPC(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	v, err := clusterVPC(ctx, n.p, n.clusterID)
	if err != nil || v == nil {
		return ops.Observation{State: ops.Absent}, err
	}
	igw, err := n.internetGateway(ctx)
	if err != nil {
		return ops.Observation{}, err
	}
	if igw == "" || v.State != ec2types.VpcStateAvailable {
		return ops.Observation{State: ops.Absent, Message: "VPC " + aws.ToString(v.VpcId) + " is missing its internet gateway"}, nil
	}
	return ops.Observation{State: ops.Done, Message: "VPC " + aws.ToString(v.VpcId) + " " + aws.ToString(v.CidrBlock),
		Output: vpcOutput{VpcID: aws.ToString(v.VpcId), CIDR: aws.ToString(v.CidrBlock), InternetGatewayID: igw}}, nil
}

func (n *network) internetGateway(ctx context.Context) (string, error) {
	igws, err := cloud.AllInternetGateways(ctx, n.p.EC2, ec2.DescribeInternetGatewaysInput{Filters: []ec2types.Filter{byCluster(n.clusterID)}})
	if err != nil {
		return "", err
	}
	for _, g := range igws {
		if ownedBy(g.Tags, n.clusterID) && len(g.Attachments) > 0 {
			return aws.ToString(g.InternetGatewayId), nil
		}
	}
	return "", nil
}

func (n *network) applyVPC(ctx context.Context, _ *ops.Run) (any, error) {
	v, err := clusterVPC(ctx, n.p, n.clusterID)
	if err != nil {
		return nil, err
	}
	if v == nil {
		cidr, err := n.planVPC(ctx)
		if err != nil {
			return nil, err
		}
		out, err := n.p.EC2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String(cidr.String()),
			TagSpecifications: tagSpec(ec2types.ResourceTypeVpc, n.clusterID, n.name, "vpc")})
		if err != nil {
			return nil, err
		}
		v = out.Vpc
	}
	vpcID := aws.ToString(v.VpcId)
	if _, err := n.p.EC2.ModifyVpcAttribute(ctx, &ec2.ModifyVpcAttributeInput{VpcId: v.VpcId, EnableDnsHostnames: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}}); err != nil {
		return nil, err
	}
	igws, err := cloud.AllInternetGateways(ctx, n.p.EC2, ec2.DescribeInternetGatewaysInput{Filters: []ec2types.Filter{byCluster(n.clusterID)}})
	if err != nil {
		return nil, err
	}
	var igw *ec2types.InternetGateway
	for i := range igws {
		if ownedBy(igws[i].Tags, n.clusterID) {
			igw = &igws[i]
			break
		}
	}
	if igw == nil {
		out, err := n.p.EC2.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{
			TagSpecifications: tagSpec(ec2types.ResourceTypeInternetGateway, n.clusterID, n.name, "igw")})
		if err != nil {
			return nil, err
		}
		igw = out.InternetGateway
	}
	if len(igw.Attachments) == 0 {
		if _, err := n.p.EC2.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: igw.InternetGatewayId, VpcId: v.VpcId}); err != nil {
			return nil, err
		}
	}
	return vpcOutput{VpcID: vpcID, CIDR: aws.ToString(v.CidrBlock), InternetGatewayID: aws.ToString(igw.InternetGatewayId)}, nil
}

func (n *network) planVPC(ctx context.Context) (netip.Prefix, error) {
	existing, err := regionVPCs(ctx, n.p)
	if err != nil {
		return netip.Prefix{}, err
	}
	if n.in.VpcCIDR != "" {
		want := netip.MustParsePrefix(n.in.VpcCIDR)
		for _, v := range existing {
			if netplan.Overlaps(want, v.cidr) {
				return netip.Prefix{}, errs.New(errs.Precondition, "VPC range %s now overlaps %s of %s; delete the cluster and create it with another vpcCidr", want, v.cidr, v.id)
			}
		}
		return want, nil
	}
	var ranges []netip.Prefix
	for _, v := range existing {
		ranges = append(ranges, v.cidr)
	}
	cidr, err := netplan.PlanVPC(ranges)
	if err != nil {
		return netip.Prefix{}, errs.Wrap(errs.Precondition, err, "%v", err)
	}
	return cidr, nil
}

// subnets: a public and a private /24 per zone, the public route table to
// the internet gateway, and the nodes' security group.
func (n *network) observeSubnets(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	vpc, plan, err := n.controlPlanePlan(run)
	if err != nil {
		return ops.Observation{}, err
	}
	vpcID := vpc.VpcID
	have, err := vpcSubnets(ctx, n.p, vpcID)
	if err != nil {
		return ops.Observation{}, err
	}
	var made []hyperpod.Subnet
	for _, want := range plan.Subnets {
		s := findSubnet(have, want.CIDR.String())
		if s == nil {
			return ops.Observation{State: ops.Absent}, nil
		}
		made = append(made, hyperpod.Subnet{ID: aws.ToString(s.SubnetId), Zone: want.Zone, CIDR: want.CIDR.String(), Role: roleOf(want.Role)})
	}
	rt, err := clusterRouteTable(ctx, n.p, n.clusterID, "public")
	if err != nil || rt == nil || !hasDefaultRoute(rt) {
		return ops.Observation{State: ops.Absent}, err
	}
	for _, s := range made {
		if s.Role == hyperpod.SubnetPublic && !associated(rt, s.ID) {
			return ops.Observation{State: ops.Absent}, nil
		}
	}
	sg, err := n.securityGroup(ctx, vpcID)
	if err != nil || sg == "" {
		return ops.Observation{State: ops.Absent}, err
	}
	return ops.Observation{State: ops.Done, Message: fmt.Sprintf("%d subnets in %d zones", len(made), len(n.in.Zones)),
		Output: subnetsOutput{Subnets: made, SecurityGroupID: sg, PublicRouteTableID: aws.ToString(rt.RouteTableId)}}, nil
}

// controlPlanePlan reads the vpc phase's output and plans the control
// plane's subnets in its range.
func (n *network) controlPlanePlan(run *ops.Run) (vpcOutput, netplan.ControlPlaneSubnets, error) {
	vpc, cidr, err := vpcOf(run)
	if err != nil {
		return vpc, netplan.ControlPlaneSubnets{}, err
	}
	plan, err := netplan.PlanControlPlaneSubnets(cidr, n.in.Zones)
	return vpc, plan, err
}

// vpcOf reads the vpc phase's output and its range.
func vpcOf(run *ops.Run) (vpcOutput, netip.Prefix, error) {
	vpc, err := outputOf[vpcOutput](run, phaseVPC)
	if err != nil {
		return vpc, netip.Prefix{}, err
	}
	cidr, err := netip.ParsePrefix(vpc.CIDR)
	if err != nil {
		return vpc, netip.Prefix{}, errs.New(errs.Internal, "the %s phase left no VPC range (%q); retry the operation", phaseVPC, vpc.CIDR)
	}
	return vpc, cidr, nil
}

func roleOf(r netplan.Role) hyperpod.SubnetRole {
	if r == netplan.Public {
		return hyperpod.SubnetPublic
	}
	return hyperpod.SubnetPrivate
}

func findSubnet(have []ec2types.Subnet, cidr string) *ec2types.Subnet {
	for i := range have {
		if aws.ToString(have[i].CidrBlock) == cidr {
			return &have[i]
		}
	}
	return nil
}

func (n *network) securityGroup(ctx context.Context, vpcID string) (string, error) {
	sgs, err := cloud.AllSecurityGroups(ctx, n.p.EC2, ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("vpc-id", vpcID), byCluster(n.clusterID)}})
	if err != nil {
		return "", err
	}
	for _, g := range sgs {
		if ownedBy(g.Tags, n.clusterID) && aws.ToString(g.VpcId) == vpcID {
			return aws.ToString(g.GroupId), nil
		}
	}
	return "", nil
}

func (n *network) applySubnets(ctx context.Context, run *ops.Run) (any, error) {
	vpc, plan, err := n.controlPlanePlan(run)
	if err != nil {
		return nil, err
	}
	vpcID := vpc.VpcID
	have, err := vpcSubnets(ctx, n.p, vpcID)
	if err != nil {
		return nil, err
	}
	var public []string
	for _, want := range plan.Subnets {
		s := findSubnet(have, want.CIDR.String())
		if s == nil {
			role := string(want.Role)
			out, err := n.p.EC2.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: aws.String(vpcID), CidrBlock: aws.String(want.CIDR.String()),
				AvailabilityZone:  aws.String(want.Zone),
				TagSpecifications: tagSpec(ec2types.ResourceTypeSubnet, n.clusterID, n.name+"-"+role+"-"+want.Zone, role, ec2types.Tag{Key: aws.String(tagZone), Value: aws.String(want.Zone)})})
			if err != nil {
				return nil, err
			}
			s = out.Subnet
		}
		if want.Role == netplan.Public {
			public = append(public, aws.ToString(s.SubnetId))
		}
	}
	if err := n.ensureRouteTable(ctx, vpcID, "public", public, &ec2.CreateRouteInput{GatewayId: aws.String(vpc.InternetGatewayID)}); err != nil {
		return nil, err
	}
	sg, err := n.securityGroup(ctx, vpcID)
	if err != nil {
		return nil, err
	}
	if sg == "" {
		out, err := n.p.EC2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String(n.name + "-nodes"), VpcId: aws.String(vpcID),
			Description:       aws.String("HyperPod nodes of cluster " + n.name + ": all traffic between members (EFA and NCCL need it)"),
			TagSpecifications: tagSpec(ec2types.ResourceTypeSecurityGroup, n.clusterID, n.name+"-nodes", "nodes")})
		if err != nil {
			return nil, err
		}
		sg = aws.ToString(out.GroupId)
		if _, err := n.p.EC2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: out.GroupId,
			IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("-1"), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: out.GroupId}}}}}); err != nil {
			return nil, err
		}
	}
	return subnetsOutput{SecurityGroupID: sg}, nil
}

// ensureRouteTable makes the cluster's route table with role, its default
// route (route names the target) and its associations with subnets.
func (n *network) ensureRouteTable(ctx context.Context, vpcID, role string, subnets []string, route *ec2.CreateRouteInput) error {
	rt, err := clusterRouteTable(ctx, n.p, n.clusterID, role)
	if err != nil {
		return err
	}
	if rt == nil {
		out, err := n.p.EC2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: aws.String(vpcID),
			TagSpecifications: tagSpec(ec2types.ResourceTypeRouteTable, n.clusterID, n.name+"-"+role, role)})
		if err != nil {
			return err
		}
		rt = out.RouteTable
	}
	if !hasDefaultRoute(rt) {
		route.RouteTableId, route.DestinationCidrBlock = rt.RouteTableId, aws.String("0.0.0.0/0")
		if _, err := n.p.EC2.CreateRoute(ctx, route); err != nil && !errs.IsAPICode(err, "RouteAlreadyExists") {
			return err
		}
	}
	for _, s := range subnets {
		if associated(rt, s) {
			continue
		}
		if _, err := n.p.EC2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: rt.RouteTableId, SubnetId: aws.String(s)}); err != nil &&
			!errs.IsAPICode(err, "Resource.AlreadyAssociated") {
			return err
		}
	}
	return nil
}

// nat-gateway: an Elastic IP and NAT gateway in the first public subnet,
// and the private route table through it.
func (n *network) observeNAT(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	nat, err := n.natGateway(ctx)
	if err != nil || nat == nil {
		return ops.Observation{State: ops.Absent}, err
	}
	id := aws.ToString(nat.NatGatewayId)
	switch nat.State {
	case ec2types.NatGatewayStatePending:
		return ops.Observation{State: ops.Pending, Message: "NAT gateway " + id + " is pending"}, nil
	case ec2types.NatGatewayStateFailed:
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Upstream, "NAT gateway %s failed: %s; delete the cluster and create it again", id, aws.ToString(nat.FailureMessage))}, nil
	case ec2types.NatGatewayStateAvailable:
	default:
		return ops.Observation{State: ops.Absent}, nil
	}
	rt, err := clusterRouteTable(ctx, n.p, n.clusterID, "private")
	if err != nil || rt == nil || !hasDefaultRoute(rt) {
		return ops.Observation{State: ops.Absent}, err
	}
	private, err := subnetsOf(run, hyperpod.SubnetPrivate)
	if err != nil {
		return ops.Observation{}, err
	}
	for _, s := range private {
		if !associated(rt, s.ID) {
			return ops.Observation{State: ops.Absent}, nil
		}
	}
	return ops.Observation{State: ops.Done, Message: "NAT gateway " + id + " available",
		Output: natOutput{NatGatewayID: id, PrivateRouteTableID: aws.ToString(rt.RouteTableId)}}, nil
}

func (n *network) natGateway(ctx context.Context) (*ec2types.NatGateway, error) {
	gws, err := cloud.AllNatGateways(ctx, n.p.EC2, ec2.DescribeNatGatewaysInput{Filter: []ec2types.Filter{byCluster(n.clusterID)}})
	if err != nil {
		return nil, err
	}
	for i := range gws {
		if s := gws[i].State; ownedBy(gws[i].Tags, n.clusterID) && s != ec2types.NatGatewayStateDeleted && s != ec2types.NatGatewayStateDeleting {
			return &gws[i], nil
		}
	}
	return nil, nil
}

func (n *network) applyNAT(ctx context.Context, run *ops.Run) (any, error) {
	vpc, err := outputOf[vpcOutput](run, phaseVPC)
	if err != nil {
		return nil, err
	}
	public, err := subnetsOf(run, hyperpod.SubnetPublic)
	if err != nil {
		return nil, err
	}
	privateSubnets, err := subnetsOf(run, hyperpod.SubnetPrivate)
	if err != nil {
		return nil, err
	}
	nat, err := n.natGateway(ctx)
	if err != nil {
		return nil, err
	}
	if nat == nil {
		if len(public) == 0 {
			return nil, errs.New(errs.Internal, "the subnets phase left no public subnet: retry the operation")
		}
		alloc, err := n.address(ctx)
		if err != nil {
			return nil, err
		}
		out, err := n.p.EC2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: aws.String(public[0].ID), AllocationId: aws.String(alloc),
			ClientToken:       aws.String(run.ClientToken()),
			TagSpecifications: tagSpec(ec2types.ResourceTypeNatgateway, n.clusterID, n.name+"-nat", "nat")})
		if err != nil {
			return nil, err
		}
		nat = out.NatGateway
	}
	var private []string
	for _, s := range privateSubnets {
		private = append(private, s.ID)
	}
	err = n.ensureRouteTable(ctx, vpc.VpcID, "private", private, &ec2.CreateRouteInput{NatGatewayId: nat.NatGatewayId})
	return natOutput{NatGatewayID: aws.ToString(nat.NatGatewayId)}, err
}

// address returns the cluster's Elastic IP, allocating it once.
func (n *network) address(ctx context.Context) (string, error) {
	out, err := n.p.EC2.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{Filters: []ec2types.Filter{byCluster(n.clusterID)}})
	if err != nil {
		return "", err
	}
	for _, a := range out.Addresses {
		if ownedBy(a.Tags, n.clusterID) {
			return aws.ToString(a.AllocationId), nil
		}
	}
	a, err := n.p.EC2.AllocateAddress(ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc,
		TagSpecifications: tagSpec(ec2types.ResourceTypeElasticIp, n.clusterID, n.name+"-nat", "nat")})
	if err != nil {
		return "", err
	}
	return aws.ToString(a.AllocationId), nil
}

// subnetsOf reads the control plane's subnets of role from the subnets
// phase's output.
func subnetsOf(run *ops.Run, role hyperpod.SubnetRole) ([]hyperpod.Subnet, error) {
	all, err := outputOf[subnetsOutput](run, phaseSubnets)
	if err != nil {
		return nil, err
	}
	var out []hyperpod.Subnet
	for _, s := range all.Subnets {
		if s.Role == role {
			out = append(out, s)
		}
	}
	return out, nil
}

// computeZones are the zones that need a compute subnet: those of the
// instance groups, or the first zone when there are none.
func (n *network) computeZones() []string {
	var zones []string
	for _, g := range n.in.InstanceGroups {
		if !slices.Contains(zones, g.Zone) {
			zones = append(zones, g.Zone)
		}
	}
	if len(zones) == 0 {
		zones = n.in.Zones[:1]
	}
	return zones
}

// compute-subnet: a /20 per zone of the instance groups, placed by
// netplan.ComputeSubnet and routed through the NAT gateway.
func (n *network) observeCompute(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	vpc, err := outputOf[vpcOutput](run, phaseVPC)
	if err != nil {
		return ops.Observation{}, err
	}
	have, err := vpcSubnets(ctx, n.p, vpc.VpcID)
	if err != nil {
		return ops.Observation{}, err
	}
	rt, err := clusterRouteTable(ctx, n.p, n.clusterID, "private")
	if err != nil || rt == nil {
		return ops.Observation{State: ops.Absent}, err
	}
	var made []hyperpod.Subnet
	for _, zone := range n.computeZones() {
		s := computeSubnetIn(have, zone)
		if s == nil || !associated(rt, aws.ToString(s.SubnetId)) {
			return ops.Observation{State: ops.Absent}, nil
		}
		made = append(made, hyperpod.Subnet{ID: aws.ToString(s.SubnetId), Zone: zone, CIDR: aws.ToString(s.CidrBlock), Role: hyperpod.SubnetCompute})
	}
	return ops.Observation{State: ops.Done, Message: fmt.Sprintf("%d compute subnet(s)", len(made)), Output: subnetsOutput{Subnets: made}}, nil
}

func computeSubnetIn(have []ec2types.Subnet, zone string) *ec2types.Subnet {
	for i := range have {
		if tagValue(have[i].Tags, tagRole) == "compute" && aws.ToString(have[i].AvailabilityZone) == zone {
			return &have[i]
		}
	}
	return nil
}

func (n *network) applyCompute(ctx context.Context, run *ops.Run) (any, error) {
	vpc, cidr, err := vpcOf(run)
	if err != nil {
		return nil, err
	}
	nat, err := outputOf[natOutput](run, phaseNAT)
	if err != nil {
		return nil, err
	}
	vpcID := vpc.VpcID
	var ids []string
	for _, zone := range n.computeZones() {
		s, err := n.computeSubnet(ctx, vpcID, cidr, zone, true)
		if err != nil {
			return nil, err
		}
		ids = append(ids, aws.ToString(s.SubnetId))
	}
	return nil, n.ensureRouteTable(ctx, vpcID, "private", ids, &ec2.CreateRouteInput{NatGatewayId: aws.String(nat.NatGatewayID)})
}

// computeSubnet finds the compute subnet of zone in the VPC or, when create
// is true and there is none, makes it: a /20 placed by
// netplan.ComputeSubnet, the one function every capacity path uses. It
// returns nil when there is none and create is false.
func (n *network) computeSubnet(ctx context.Context, vpcID string, vpc netip.Prefix, zone string, create bool) (*ec2types.Subnet, error) {
	have, err := vpcSubnets(ctx, n.p, vpcID)
	if err != nil {
		return nil, err
	}
	if s := computeSubnetIn(have, zone); s != nil || !create {
		return s, nil
	}
	var used []netip.Prefix
	for _, h := range have {
		if p, err := netip.ParsePrefix(aws.ToString(h.CidrBlock)); err == nil {
			used = append(used, p)
		}
	}
	cidr, err := netplan.ComputeSubnet(vpc, zone, used)
	if err != nil {
		return nil, errs.Wrap(errs.Precondition, err, "%v", err)
	}
	out, err := n.p.EC2.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: aws.String(vpcID), CidrBlock: aws.String(cidr.String()), AvailabilityZone: aws.String(zone),
		TagSpecifications: tagSpec(ec2types.ResourceTypeSubnet, n.clusterID, n.name+"-compute-"+zone, "compute", ec2types.Tag{Key: aws.String(tagZone), Value: aws.String(zone)})})
	if err != nil {
		return nil, err
	}
	return out.Subnet, nil
}
