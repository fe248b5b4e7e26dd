package cluster

import (
	"context"
	"net/netip"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// Tag keys put on everything the control plane makes, so Observe can find
// it again after a restart.
const (
	tagClusterID = "instantstart:cluster-id"
	tagRole      = "instantstart:role"
	tagZone      = "instantstart:zone"
)

func tags(clusterID, name, role string, extra ...ec2types.Tag) []ec2types.Tag {
	return append([]ec2types.Tag{
		{Key: aws.String("Name"), Value: aws.String(name)},
		{Key: aws.String(tagClusterID), Value: aws.String(clusterID)},
		{Key: aws.String(tagRole), Value: aws.String(role)},
	}, extra...)
}

func tagSpec(rt ec2types.ResourceType, clusterID, name, role string, extra ...ec2types.Tag) []ec2types.TagSpecification {
	return []ec2types.TagSpecification{{ResourceType: rt, Tags: tags(clusterID, name, role, extra...)}}
}

func byCluster(clusterID string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String("tag:" + tagClusterID), Values: []string{clusterID}}
}

func filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}

func tagValue(tt []ec2types.Tag, key string) string {
	for _, t := range tt {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value)
		}
	}
	return ""
}

type vpcRange struct {
	id   string
	cidr netip.Prefix
}

// regionVPCs lists the IPv4 ranges of every VPC in the region.
func regionVPCs(ctx context.Context, p *cloud.Provider) ([]vpcRange, error) {
	vpcs, err := cloud.AllVpcs(ctx, p.EC2, ec2.DescribeVpcsInput{})
	if err != nil {
		return nil, errs.FromUpstream(err, "list VPCs")
	}
	var vs []vpcRange
	for _, v := range vpcs {
		if pfx, err := netip.ParsePrefix(aws.ToString(v.CidrBlock)); err == nil {
			vs = append(vs, vpcRange{id: aws.ToString(v.VpcId), cidr: pfx})
		}
		for _, a := range v.CidrBlockAssociationSet {
			if pfx, err := netip.ParsePrefix(aws.ToString(a.CidrBlock)); err == nil && pfx.String() != aws.ToString(v.CidrBlock) {
				vs = append(vs, vpcRange{id: aws.ToString(v.VpcId), cidr: pfx})
			}
		}
	}
	return vs, nil
}

// ownedBy tells whether tags mark a resource as made for cluster
// clusterID. Lookups filter by tag on the server and check again here:
// a service (or an emulator) that ignores a filter must not hand the
// control plane another cluster's resources.
func ownedBy(tt []ec2types.Tag, clusterID string) bool {
	return clusterID != "" && tagValue(tt, tagClusterID) == clusterID
}

// clusterVPC finds the VPC made for the cluster, or nil.
func clusterVPC(ctx context.Context, p *cloud.Provider, clusterID string) (*ec2types.Vpc, error) {
	vpcs, err := cloud.AllVpcs(ctx, p.EC2, ec2.DescribeVpcsInput{Filters: []ec2types.Filter{byCluster(clusterID)}})
	if err != nil {
		return nil, err
	}
	for i := range vpcs {
		if ownedBy(vpcs[i].Tags, clusterID) {
			return &vpcs[i], nil
		}
	}
	return nil, nil
}

// vpcSubnets lists the subnets of a VPC.
func vpcSubnets(ctx context.Context, p *cloud.Provider, vpcID string) ([]ec2types.Subnet, error) {
	all, err := cloud.AllSubnets(ctx, p.EC2, ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{filter("vpc-id", vpcID)}})
	if err != nil {
		return nil, err
	}
	var in []ec2types.Subnet
	for _, s := range all {
		if aws.ToString(s.VpcId) == vpcID {
			in = append(in, s)
		}
	}
	return in, nil
}

// clusterRouteTable finds the route table made for the cluster with role.
func clusterRouteTable(ctx context.Context, p *cloud.Provider, clusterID, role string) (*ec2types.RouteTable, error) {
	rts, err := cloud.AllRouteTables(ctx, p.EC2, ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{byCluster(clusterID), filter("tag:"+tagRole, role)}})
	if err != nil {
		return nil, err
	}
	for i := range rts {
		if rt := &rts[i]; ownedBy(rt.Tags, clusterID) && tagValue(rt.Tags, tagRole) == role {
			return rt, nil
		}
	}
	return nil, nil
}

func associated(rt *ec2types.RouteTable, subnetID string) bool {
	for _, a := range rt.Associations {
		if aws.ToString(a.SubnetId) == subnetID {
			return true
		}
	}
	return false
}

func hasDefaultRoute(rt *ec2types.RouteTable) bool {
	for _, r := range rt.Routes {
		if aws.ToString(r.DestinationCidrBlock) == "0.0.0.0/0" && r.State != ec2types.RouteStateBlackhole {
			return true
		}
	}
	return false
}
