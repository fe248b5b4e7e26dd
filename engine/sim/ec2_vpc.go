package sim

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// vpcRec is a VPC. Each has a main route table and a default security
// group, made with it and deleted with it.
type vpcRec struct {
	ID               string
	CIDR             string
	CIDRAssocID      string
	DNSSupport       bool
	DNSHostnames     bool
	MainRouteTableID string
	DefaultGroupID   string
}

// parseCIDR parses an IPv4 CIDR block given for parameter, which must be
// written with its network address (10.0.0.0/16, not 10.0.0.1/16).
func parseCIDR(s, parameter string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() || p.Masked() != p {
		return netip.Prefix{}, ec2Error("InvalidParameterValue", "Value (%s) for parameter %s is invalid. This is not a valid CIDR block.", s, parameter)
	}
	return p, nil
}

// CreateVpc creates a VPC with an IPv4 CIDR block of /16 to /28.
func (a *ec2API) CreateVpc(ctx context.Context, in *ec2.CreateVpcInput, _ ...func(*ec2.Options)) (*ec2.CreateVpcOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateVpc", func(t *txn) (*ec2.CreateVpcOutput, error) {
		in := orZero(in)
		if in.CidrBlock == nil {
			return nil, ec2Error("MissingParameter", "Either 'cidrBlock' or 'ipv4IpamPoolId' should be provided.")
		}
		p, err := parseCIDR(*in.CidrBlock, "cidrBlock")
		if err != nil {
			return nil, err
		}
		if p.Bits() < 16 || p.Bits() > 28 {
			return nil, ec2Error("InvalidVpc.Range", "The CIDR '%s' is invalid: a VPC CIDR block must be between /16 and /28.", p)
		}
		tags, err := tagsFromSpecs(ec2types.ResourceTypeVpc, in.TagSpecifications)
		if err != nil {
			return nil, err
		}
		v := &vpcRec{ID: t.newID("vpc"), CIDR: p.String(), CIDRAssocID: t.newID("vpc-cidr-assoc"), DNSSupport: true}
		t.rs.VPCs[v.ID] = v
		t.setTags(v.ID, tags)
		v.MainRouteTableID = t.newRouteTable(v, true).ID
		v.DefaultGroupID = t.newSecurityGroup(v.ID, "default", "default VPC security group").ID
		return &ec2.CreateVpcOutput{Vpc: t.vpcOut(v)}, nil
	})
}

func (t *txn) vpcOut(v *vpcRec) *ec2types.Vpc {
	return &ec2types.Vpc{
		VpcId:     aws.String(v.ID),
		CidrBlock: aws.String(v.CIDR),
		CidrBlockAssociationSet: []ec2types.VpcCidrBlockAssociation{{
			AssociationId:  aws.String(v.CIDRAssocID),
			CidrBlock:      aws.String(v.CIDR),
			CidrBlockState: &ec2types.VpcCidrBlockState{State: ec2types.VpcCidrBlockStateCodeAssociated},
		}},
		State:           ec2types.VpcStateAvailable,
		IsDefault:       aws.Bool(false),
		InstanceTenancy: ec2types.TenancyDefault,
		OwnerId:         aws.String(t.account()),
		Tags:            t.ec2Tags(v.ID),
	}
}

// vpc returns the VPC id names, or EC2's not-found error.
func (t *txn) vpc(id *string) (*vpcRec, error) {
	v := t.rs.VPCs[aws.ToString(id)]
	if v == nil {
		return nil, ec2Error("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", aws.ToString(id))
	}
	return v, nil
}

// DescribeVpcs lists VPCs by id and filters (vpc-id, cidr-block, state,
// tag:<key>, tag-key).
func (a *ec2API) DescribeVpcs(ctx context.Context, in *ec2.DescribeVpcsInput, _ ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeVpcs", func(t *txn) (*ec2.DescribeVpcsOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeVpcs", in.Filters, "vpc-id", "cidr-block", "cidr", "cidr-block-association.cidr-block", "state", "is-default", "owner-id")
		if err != nil {
			return nil, err
		}
		ids := newIDSet(in.VpcIds)
		if id, ok := ids.missing(func(id string) bool { return t.rs.VPCs[id] != nil }); ok {
			return nil, ec2Error("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", id)
		}
		out := &ec2.DescribeVpcsOutput{}
		for _, id := range sortedKeys(t.rs.VPCs) {
			v := t.rs.VPCs[id]
			fields := map[string][]string{
				"vpc-id": {v.ID}, "cidr-block": {v.CIDR}, "cidr": {v.CIDR}, "cidr-block-association.cidr-block": {v.CIDR},
				"state": {"available"}, "is-default": {"false"}, "owner-id": {t.account()},
			}
			if ids.has(id) && fs.match(t.rs.Tags[id], fields) {
				out.Vpcs = append(out.Vpcs, *t.vpcOut(v))
			}
		}
		items, next, err := page(out.Vpcs, in.NextToken, t.pageSize(svcEC2, "DescribeVpcs", in.MaxResults), 1000)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		out.Vpcs, out.NextToken = items, next
		return out, nil
	})
}

// ModifyVpcAttribute sets one DNS attribute of a VPC per call, as EC2
// requires.
func (a *ec2API) ModifyVpcAttribute(ctx context.Context, in *ec2.ModifyVpcAttributeInput, _ ...func(*ec2.Options)) (*ec2.ModifyVpcAttributeOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "ModifyVpcAttribute", func(t *txn) (*ec2.ModifyVpcAttributeOutput, error) {
		in := orZero(in)
		if err := need("ModifyVpcAttributeInput", param{"VpcId", in.VpcId != nil}); err != nil {
			return nil, err
		}
		v, err := t.vpc(in.VpcId)
		if err != nil {
			return nil, err
		}
		set := 0
		for _, attr := range []*ec2types.AttributeBooleanValue{in.EnableDnsHostnames, in.EnableDnsSupport, in.EnableNetworkAddressUsageMetrics} {
			if attr != nil {
				set++
			}
		}
		if set != 1 {
			return nil, ec2Error("InvalidParameterCombination", "Exactly one attribute must be specified per call, got %d.", set)
		}
		switch {
		case in.EnableDnsHostnames != nil:
			on := aws.ToBool(in.EnableDnsHostnames.Value)
			if on && !v.DNSSupport {
				return nil, ec2Error("InvalidParameterValue", "DNS hostnames need DNS support: enable enableDnsSupport on %s first.", v.ID)
			}
			v.DNSHostnames = on
		case in.EnableDnsSupport != nil:
			v.DNSSupport = aws.ToBool(in.EnableDnsSupport.Value)
		}
		return &ec2.ModifyVpcAttributeOutput{}, nil
	})
}

// DeleteVpc deletes a VPC once nothing but its main route table and default
// security group remain in it.
func (a *ec2API) DeleteVpc(ctx context.Context, in *ec2.DeleteVpcInput, _ ...func(*ec2.Options)) (*ec2.DeleteVpcOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DeleteVpc", func(t *txn) (*ec2.DeleteVpcOutput, error) {
		in := orZero(in)
		if err := need("DeleteVpcInput", param{"VpcId", in.VpcId != nil}); err != nil {
			return nil, err
		}
		v, err := t.vpc(in.VpcId)
		if err != nil {
			return nil, err
		}
		if dep := t.vpcDependency(v); dep != "" {
			return nil, ec2Error("DependencyViolation", "The vpc '%s' has dependencies and cannot be deleted (%s).", v.ID, dep)
		}
		for _, id := range []string{v.MainRouteTableID, v.DefaultGroupID, v.ID} {
			delete(t.rs.Tags, id)
		}
		delete(t.rs.RouteTables, v.MainRouteTableID)
		delete(t.rs.SecurityGroups, v.DefaultGroupID)
		delete(t.rs.VPCs, v.ID)
		return &ec2.DeleteVpcOutput{}, nil
	})
}

// vpcDependency names one resource that keeps v from being deleted, or "".
func (t *txn) vpcDependency(v *vpcRec) string {
	for _, id := range sortedKeys(t.rs.Subnets) {
		if t.rs.Subnets[id].VpcID == v.ID {
			return "subnet " + id
		}
	}
	for _, id := range sortedKeys(t.rs.IGWs) {
		if t.rs.IGWs[id].VpcID == v.ID {
			return "attached internet gateway " + id
		}
	}
	for _, id := range sortedKeys(t.rs.SecurityGroups) {
		if g := t.rs.SecurityGroups[id]; g.VpcID == v.ID && id != v.DefaultGroupID {
			return fmt.Sprintf("security group %s (%s)", id, g.Name)
		}
	}
	for _, id := range sortedKeys(t.rs.RouteTables) {
		if t.rs.RouteTables[id].VpcID == v.ID && id != v.MainRouteTableID {
			return "route table " + id
		}
	}
	return ""
}
