package sim

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// routeTableRec is a route table of a VPC. It always has the local route;
// the main table of a VPC has the main association.
type routeTableRec struct {
	ID     string
	VpcID  string
	Main   bool
	Routes []routeRec
	Assocs []assocRec
}

type routeRec struct {
	Dest         string
	GatewayID    string `json:",omitempty"` // "local" or an internet gateway
	NatGatewayID string `json:",omitempty"`
	Origin       string
}

type assocRec struct {
	ID       string
	SubnetID string `json:",omitempty"`
	Main     bool
}

// newRouteTable creates a route table for v with its local route.
func (t *txn) newRouteTable(v *vpcRec, main bool) *routeTableRec {
	rt := &routeTableRec{
		ID: t.newID("rtb"), VpcID: v.ID, Main: main,
		Routes: []routeRec{{Dest: v.CIDR, GatewayID: "local", Origin: string(ec2types.RouteOriginCreateRouteTable)}},
	}
	if main {
		rt.Assocs = []assocRec{{ID: t.newID("rtbassoc"), Main: true}}
	}
	t.rs.RouteTables[rt.ID] = rt
	return rt
}

func (t *txn) routeTable(id *string) (*routeTableRec, error) {
	rt := t.rs.RouteTables[aws.ToString(id)]
	if rt == nil {
		return nil, ec2Error("InvalidRouteTableID.NotFound", "The routeTable ID '%s' does not exist", aws.ToString(id))
	}
	return rt, nil
}

// routeState is blackhole when the route's target is gone or detached.
func (t *txn) routeState(rt *routeTableRec, r routeRec) ec2types.RouteState {
	switch {
	case r.NatGatewayID != "":
		if n := t.rs.NATs[r.NatGatewayID]; n == nil || !n.holdsENI(t.now) {
			return ec2types.RouteStateBlackhole
		}
	case r.GatewayID != "" && r.GatewayID != "local":
		if g := t.rs.IGWs[r.GatewayID]; g == nil || g.VpcID != rt.VpcID {
			return ec2types.RouteStateBlackhole
		}
	}
	return ec2types.RouteStateActive
}

func (t *txn) routeTableOut(rt *routeTableRec) *ec2types.RouteTable {
	out := &ec2types.RouteTable{
		RouteTableId: aws.String(rt.ID),
		VpcId:        aws.String(rt.VpcID),
		OwnerId:      aws.String(t.account()),
		Tags:         t.ec2Tags(rt.ID),
	}
	for _, r := range rt.Routes {
		route := ec2types.Route{
			DestinationCidrBlock: aws.String(r.Dest),
			Origin:               ec2types.RouteOrigin(r.Origin),
			State:                t.routeState(rt, r),
		}
		if r.GatewayID != "" {
			route.GatewayId = aws.String(r.GatewayID)
		}
		if r.NatGatewayID != "" {
			route.NatGatewayId = aws.String(r.NatGatewayID)
		}
		out.Routes = append(out.Routes, route)
	}
	for _, as := range rt.Assocs {
		assoc := ec2types.RouteTableAssociation{
			RouteTableAssociationId: aws.String(as.ID),
			RouteTableId:            aws.String(rt.ID),
			Main:                    aws.Bool(as.Main),
			AssociationState:        &ec2types.RouteTableAssociationState{State: ec2types.RouteTableAssociationStateCodeAssociated},
		}
		if as.SubnetID != "" {
			assoc.SubnetId = aws.String(as.SubnetID)
		}
		out.Associations = append(out.Associations, assoc)
	}
	return out
}

// CreateRouteTable creates a route table in a VPC.
func (a *ec2API) CreateRouteTable(ctx context.Context, in *ec2.CreateRouteTableInput, _ ...func(*ec2.Options)) (*ec2.CreateRouteTableOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateRouteTable", func(t *txn) (*ec2.CreateRouteTableOutput, error) {
		in := orZero(in)
		if err := need("CreateRouteTableInput", param{"VpcId", in.VpcId != nil}); err != nil {
			return nil, err
		}
		v, err := t.vpc(in.VpcId)
		if err != nil {
			return nil, err
		}
		tags, err := tagsFromSpecs(ec2types.ResourceTypeRouteTable, in.TagSpecifications)
		if err != nil {
			return nil, err
		}
		rt := t.newRouteTable(v, false)
		t.setTags(rt.ID, tags)
		return &ec2.CreateRouteTableOutput{RouteTable: t.routeTableOut(rt), ClientToken: in.ClientToken}, nil
	})
}

// CreateRoute adds a route to an internet gateway attached to the table's
// VPC or to a NAT gateway of that VPC.
func (a *ec2API) CreateRoute(ctx context.Context, in *ec2.CreateRouteInput, _ ...func(*ec2.Options)) (*ec2.CreateRouteOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateRoute", func(t *txn) (*ec2.CreateRouteOutput, error) {
		in := orZero(in)
		if err := need("CreateRouteInput", param{"RouteTableId", in.RouteTableId != nil}); err != nil {
			return nil, err
		}
		if in.DestinationCidrBlock == nil {
			return nil, ec2Error("MissingParameter", "The request must contain the parameter destinationCidrBlock")
		}
		rt, err := t.routeTable(in.RouteTableId)
		if err != nil {
			return nil, err
		}
		dest, err := parseCIDR(*in.DestinationCidrBlock, "destinationCidrBlock")
		if err != nil {
			return nil, err
		}
		r := routeRec{Dest: dest.String(), Origin: string(ec2types.RouteOriginCreateRoute)}
		switch {
		case in.GatewayId != nil && in.NatGatewayId != nil, in.GatewayId == nil && in.NatGatewayId == nil:
			return nil, ec2Error("InvalidParameterCombination", "Specify exactly one route target: gatewayId or natGatewayId.")
		case in.GatewayId != nil:
			g, err := t.igw(in.GatewayId)
			if err != nil {
				return nil, err
			}
			if g.VpcID != rt.VpcID {
				return nil, ec2Error("InvalidParameterValue", "route table %s and network gateway %s belong to different networks", rt.ID, g.ID)
			}
			r.GatewayID = g.ID
		default:
			n := t.rs.NATs[*in.NatGatewayId]
			if n == nil {
				return nil, ec2Error("InvalidNatGatewayID.NotFound", "The NAT gateway ID '%s' does not exist", *in.NatGatewayId)
			}
			if n.VpcID != rt.VpcID {
				return nil, ec2Error("InvalidParameterValue", "route table %s and NAT gateway %s belong to different networks", rt.ID, n.ID)
			}
			r.NatGatewayID = n.ID
		}
		for _, old := range rt.Routes {
			if old.Dest == r.Dest {
				return nil, ec2Error("RouteAlreadyExists", "The route identified by %s already exists.", r.Dest)
			}
		}
		rt.Routes = append(rt.Routes, r)
		return &ec2.CreateRouteOutput{Return: aws.Bool(true)}, nil
	})
}

// AssociateRouteTable associates a route table with a subnet of its VPC.
func (a *ec2API) AssociateRouteTable(ctx context.Context, in *ec2.AssociateRouteTableInput, _ ...func(*ec2.Options)) (*ec2.AssociateRouteTableOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "AssociateRouteTable", func(t *txn) (*ec2.AssociateRouteTableOutput, error) {
		in := orZero(in)
		if err := need("AssociateRouteTableInput", param{"RouteTableId", in.RouteTableId != nil}); err != nil {
			return nil, err
		}
		if in.SubnetId == nil {
			return nil, ec2Error("MissingParameter", "The request must contain the parameter subnetId")
		}
		rt, err := t.routeTable(in.RouteTableId)
		if err != nil {
			return nil, err
		}
		s, err := t.subnet(in.SubnetId)
		if err != nil {
			return nil, err
		}
		if s.VpcID != rt.VpcID {
			return nil, ec2Error("InvalidParameterValue", "Route table %s and subnet %s belong to different networks", rt.ID, s.ID)
		}
		for _, other := range t.rs.RouteTables {
			for _, as := range other.Assocs {
				if as.SubnetID == s.ID {
					return nil, ec2Error("Resource.AlreadyAssociated", "the specified association for route table %s conflicts with an existing association (%s)", rt.ID, as.ID)
				}
			}
		}
		as := assocRec{ID: t.newID("rtbassoc"), SubnetID: s.ID}
		rt.Assocs = append(rt.Assocs, as)
		return &ec2.AssociateRouteTableOutput{
			AssociationId:    aws.String(as.ID),
			AssociationState: &ec2types.RouteTableAssociationState{State: ec2types.RouteTableAssociationStateCodeAssociated},
		}, nil
	})
}

// DisassociateRouteTable removes a subnet association.
func (a *ec2API) DisassociateRouteTable(ctx context.Context, in *ec2.DisassociateRouteTableInput, _ ...func(*ec2.Options)) (*ec2.DisassociateRouteTableOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DisassociateRouteTable", func(t *txn) (*ec2.DisassociateRouteTableOutput, error) {
		in := orZero(in)
		if err := need("DisassociateRouteTableInput", param{"AssociationId", in.AssociationId != nil}); err != nil {
			return nil, err
		}
		for _, rt := range t.rs.RouteTables {
			for i, as := range rt.Assocs {
				if as.ID != *in.AssociationId {
					continue
				}
				if as.Main {
					return nil, ec2Error("InvalidParameterValue", "cannot disassociate the main route table association %s", as.ID)
				}
				rt.Assocs = append(rt.Assocs[:i:i], rt.Assocs[i+1:]...)
				return &ec2.DisassociateRouteTableOutput{}, nil
			}
		}
		return nil, ec2Error("InvalidAssociationID.NotFound", "The association ID '%s' does not exist", *in.AssociationId)
	})
}

// DeleteRouteTable deletes a route table that is neither main nor
// associated with a subnet.
func (a *ec2API) DeleteRouteTable(ctx context.Context, in *ec2.DeleteRouteTableInput, _ ...func(*ec2.Options)) (*ec2.DeleteRouteTableOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DeleteRouteTable", func(t *txn) (*ec2.DeleteRouteTableOutput, error) {
		in := orZero(in)
		if err := need("DeleteRouteTableInput", param{"RouteTableId", in.RouteTableId != nil}); err != nil {
			return nil, err
		}
		rt, err := t.routeTable(in.RouteTableId)
		if err != nil {
			return nil, err
		}
		if len(rt.Assocs) > 0 {
			return nil, ec2Error("DependencyViolation", "The routeTable '%s' has dependencies and cannot be deleted (it is the main table or associated with a subnet).", rt.ID)
		}
		delete(t.rs.Tags, rt.ID)
		delete(t.rs.RouteTables, rt.ID)
		return &ec2.DeleteRouteTableOutput{}, nil
	})
}

// DescribeRouteTables lists route tables by id and filters (vpc-id,
// route-table-id, association.subnet-id, association.main,
// association.route-table-association-id, route.destination-cidr-block,
// route.gateway-id, route.nat-gateway-id, tag:<key>, tag-key).
func (a *ec2API) DescribeRouteTables(ctx context.Context, in *ec2.DescribeRouteTablesInput, _ ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeRouteTables", func(t *txn) (*ec2.DescribeRouteTablesOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeRouteTables", in.Filters, "vpc-id", "route-table-id", "association.subnet-id", "association.main",
			"association.route-table-association-id", "association.route-table-id", "route.destination-cidr-block",
			"route.gateway-id", "route.nat-gateway-id", "owner-id")
		if err != nil {
			return nil, err
		}
		ids := newIDSet(in.RouteTableIds)
		if id, ok := ids.missing(func(id string) bool { return t.rs.RouteTables[id] != nil }); ok {
			return nil, ec2Error("InvalidRouteTableID.NotFound", "The routeTable ID '%s' does not exist", id)
		}
		out := &ec2.DescribeRouteTablesOutput{}
		for _, id := range sortedKeys(t.rs.RouteTables) {
			rt := t.rs.RouteTables[id]
			fields := map[string][]string{"vpc-id": {rt.VpcID}, "route-table-id": {rt.ID}, "owner-id": {t.account()}}
			for _, as := range rt.Assocs {
				fields["association.route-table-association-id"] = append(fields["association.route-table-association-id"], as.ID)
				fields["association.route-table-id"] = []string{rt.ID}
				if as.SubnetID != "" {
					fields["association.subnet-id"] = append(fields["association.subnet-id"], as.SubnetID)
				}
				if as.Main {
					fields["association.main"] = []string{"true"}
				}
			}
			if !rt.Main {
				fields["association.main"] = append(fields["association.main"], "false")
			}
			for _, r := range rt.Routes {
				fields["route.destination-cidr-block"] = append(fields["route.destination-cidr-block"], r.Dest)
				if r.GatewayID != "" {
					fields["route.gateway-id"] = append(fields["route.gateway-id"], r.GatewayID)
				}
				if r.NatGatewayID != "" {
					fields["route.nat-gateway-id"] = append(fields["route.nat-gateway-id"], r.NatGatewayID)
				}
			}
			if ids.has(id) && fs.match(t.rs.Tags[id], fields) {
				out.RouteTables = append(out.RouteTables, *t.routeTableOut(rt))
			}
		}
		items, next, err := page(out.RouteTables, in.NextToken, t.pageSize(svcEC2, "DescribeRouteTables", in.MaxResults), 1000)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		out.RouteTables, out.NextToken = items, next
		return out, nil
	})
}
