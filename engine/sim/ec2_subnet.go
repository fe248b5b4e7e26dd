package sim

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// subnetRec is a subnet: a CIDR block of its VPC in one zone.
type subnetRec struct {
	ID     string
	VpcID  string
	CIDR   string
	Zone   string
	ZoneID string
}

// CreateSubnet creates a subnet whose CIDR block lies inside its VPC's,
// overlaps no other subnet of the VPC, and sits in a zone of the region.
func (a *ec2API) CreateSubnet(ctx context.Context, in *ec2.CreateSubnetInput, _ ...func(*ec2.Options)) (*ec2.CreateSubnetOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateSubnet", func(t *txn) (*ec2.CreateSubnetOutput, error) {
		in := orZero(in)
		if err := need("CreateSubnetInput", param{"VpcId", in.VpcId != nil}); err != nil {
			return nil, err
		}
		if in.CidrBlock == nil {
			return nil, ec2Error("MissingParameter", "The request must contain the parameter cidrBlock")
		}
		v, err := t.vpc(in.VpcId)
		if err != nil {
			return nil, err
		}
		zone, err := t.subnetZone(in.AvailabilityZone, in.AvailabilityZoneId)
		if err != nil {
			return nil, err
		}
		p, err := parseCIDR(*in.CidrBlock, "cidrBlock")
		if err != nil {
			return nil, err
		}
		vp := netip.MustParsePrefix(v.CIDR)
		if p.Bits() < vp.Bits() || p.Bits() > 28 || !vp.Contains(p.Addr()) {
			return nil, ec2Error("InvalidSubnet.Range", "The CIDR '%s' is invalid: it must lie inside the VPC's %s and be between /16 and /28.", p, v.CIDR)
		}
		for _, id := range sortedKeys(t.rs.Subnets) {
			s := t.rs.Subnets[id]
			if s.VpcID == v.ID && netip.MustParsePrefix(s.CIDR).Overlaps(p) {
				return nil, ec2Error("InvalidSubnet.Conflict", "The CIDR '%s' conflicts with another subnet (%s, %s).", p, s.ID, s.CIDR)
			}
		}
		tags, err := tagsFromSpecs(ec2types.ResourceTypeSubnet, in.TagSpecifications)
		if err != nil {
			return nil, err
		}
		s := &subnetRec{ID: t.newID("subnet"), VpcID: v.ID, CIDR: p.String(), Zone: zone.Name, ZoneID: zone.ID}
		t.rs.Subnets[s.ID] = s
		t.setTags(s.ID, tags)
		return &ec2.CreateSubnetOutput{Subnet: t.subnetOut(s)}, nil
	})
}

// subnetZone resolves the zone a subnet is asked for; with none, EC2 picks
// one (here: the first).
func (t *txn) subnetZone(name, id *string) (Zone, error) {
	region, _ := t.w.catalog.region(t.region)
	switch {
	case name != nil && id != nil:
		return Zone{}, ec2Error("InvalidParameterCombination", "Specify availabilityZone or availabilityZoneId, not both.")
	case name == nil && id == nil:
		return region.Zones[0], nil
	}
	want, parameter := aws.ToString(name), "availabilityZone"
	if id != nil {
		want, parameter = aws.ToString(id), "availabilityZoneId"
	}
	for _, z := range region.Zones {
		if (name != nil && z.Name == want) || (id != nil && z.ID == want) {
			return z, nil
		}
	}
	return Zone{}, ec2Error("InvalidParameterValue",
		"Value (%s) for parameter %s is invalid. Subnets can currently only be created in the following availability zones: %s.",
		want, parameter, strings.Join(t.w.catalog.zoneNames(t.region), ", "))
}

func (t *txn) subnetOut(s *subnetRec) *ec2types.Subnet {
	return &ec2types.Subnet{
		SubnetId:                aws.String(s.ID),
		SubnetArn:               aws.String(fmt.Sprintf("arn:aws:ec2:%s:%s:subnet/%s", t.region, t.account(), s.ID)),
		VpcId:                   aws.String(s.VpcID),
		CidrBlock:               aws.String(s.CIDR),
		AvailabilityZone:        aws.String(s.Zone),
		AvailabilityZoneId:      aws.String(s.ZoneID),
		AvailableIpAddressCount: aws.Int32(int32(t.freeAddresses(s.ID))),
		State:                   ec2types.SubnetStateAvailable,
		DefaultForAz:            aws.Bool(false),
		MapPublicIpOnLaunch:     aws.Bool(false),
		OwnerId:                 aws.String(t.account()),
		Tags:                    t.ec2Tags(s.ID),
	}
}

// subnet returns the subnet id names, or EC2's not-found error.
func (t *txn) subnet(id *string) (*subnetRec, error) {
	s := t.rs.Subnets[aws.ToString(id)]
	if s == nil {
		return nil, ec2Error("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", aws.ToString(id))
	}
	return s, nil
}

// DescribeSubnets lists subnets by id and filters (vpc-id, subnet-id,
// availability-zone, availability-zone-id, cidr-block, state, tag:<key>,
// tag-key).
func (a *ec2API) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeSubnets", func(t *txn) (*ec2.DescribeSubnetsOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeSubnets", in.Filters, "vpc-id", "subnet-id", "availability-zone", "availability-zone-id",
			"cidr-block", "cidr", "cidrBlock", "state", "default-for-az", "owner-id")
		if err != nil {
			return nil, err
		}
		ids := newIDSet(in.SubnetIds)
		if id, ok := ids.missing(func(id string) bool { return t.rs.Subnets[id] != nil }); ok {
			return nil, ec2Error("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", id)
		}
		out := &ec2.DescribeSubnetsOutput{}
		for _, id := range sortedKeys(t.rs.Subnets) {
			s := t.rs.Subnets[id]
			fields := map[string][]string{
				"vpc-id": {s.VpcID}, "subnet-id": {s.ID}, "availability-zone": {s.Zone}, "availability-zone-id": {s.ZoneID},
				"cidr-block": {s.CIDR}, "cidr": {s.CIDR}, "cidrBlock": {s.CIDR}, "state": {"available"},
				"default-for-az": {"false"}, "owner-id": {t.account()},
			}
			if ids.has(id) && fs.match(t.rs.Tags[id], fields) {
				out.Subnets = append(out.Subnets, *t.subnetOut(s))
			}
		}
		items, next, err := page(out.Subnets, in.NextToken, t.pageSize(svcEC2, "DescribeSubnets", in.MaxResults), 1000)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		out.Subnets, out.NextToken = items, next
		return out, nil
	})
}

// DeleteSubnet deletes a subnet once no NAT gateway, EKS control plane or
// HyperPod cluster has network interfaces in it. Its route table
// association goes with it.
func (a *ec2API) DeleteSubnet(ctx context.Context, in *ec2.DeleteSubnetInput, _ ...func(*ec2.Options)) (*ec2.DeleteSubnetOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DeleteSubnet", func(t *txn) (*ec2.DeleteSubnetOutput, error) {
		in := orZero(in)
		if err := need("DeleteSubnetInput", param{"SubnetId", in.SubnetId != nil}); err != nil {
			return nil, err
		}
		s, err := t.subnet(in.SubnetId)
		if err != nil {
			return nil, err
		}
		if dep := t.subnetDependency(s.ID); dep != "" {
			return nil, ec2Error("DependencyViolation", "The subnet '%s' has dependencies and cannot be deleted (%s).", s.ID, dep)
		}
		for _, rt := range t.rs.RouteTables {
			kept := rt.Assocs[:0]
			for _, as := range rt.Assocs {
				if as.SubnetID != s.ID {
					kept = append(kept, as)
				}
			}
			rt.Assocs = kept
		}
		delete(t.rs.Tags, s.ID)
		delete(t.rs.Subnets, s.ID)
		return &ec2.DeleteSubnetOutput{}, nil
	})
}

// subnetDependency names what still has network interfaces in subnet id.
func (t *txn) subnetDependency(id string) string {
	for _, nid := range sortedKeys(t.rs.NATs) {
		if n := t.rs.NATs[nid]; n.SubnetID == id && n.holdsENI(t.now) {
			return "NAT gateway " + nid
		}
	}
	for _, name := range sortedKeys(t.rs.EKS) {
		for _, sid := range t.rs.EKS[name].SubnetIDs {
			if sid == id {
				return "EKS cluster " + name
			}
		}
	}
	for _, name := range sortedKeys(t.rs.HyperPod) {
		if t.rs.HyperPod[name].usesSubnet(id) {
			return "HyperPod cluster " + name
		}
	}
	return ""
}
