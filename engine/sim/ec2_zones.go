package sim

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// DescribeAvailabilityZones lists the zones of the region from the catalog.
func (a *ec2API) DescribeAvailabilityZones(ctx context.Context, in *ec2.DescribeAvailabilityZonesInput, _ ...func(*ec2.Options)) (*ec2.DescribeAvailabilityZonesOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeAvailabilityZones", func(t *txn) (*ec2.DescribeAvailabilityZonesOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeAvailabilityZones", in.Filters, "zone-name", "zone-id", "region-name", "state", "zone-type")
		if err != nil {
			return nil, err
		}
		for _, name := range in.ZoneNames {
			if z, ok := t.w.catalog.zone(t.region, name); !ok || z.Name != name {
				return nil, ec2Error("InvalidParameterValue", "Invalid availability zone: [%s]", name)
			}
		}
		for _, id := range in.ZoneIds {
			if z, ok := t.w.catalog.zone(t.region, id); !ok || z.ID != id {
				return nil, ec2Error("InvalidParameterValue", "Invalid availability zone id: [%s]", id)
			}
		}
		names, ids := newIDSet(in.ZoneNames), newIDSet(in.ZoneIds)
		region, _ := t.w.catalog.region(t.region)
		out := &ec2.DescribeAvailabilityZonesOutput{}
		for _, z := range region.Zones {
			fields := map[string][]string{
				"zone-name": {z.Name}, "zone-id": {z.ID}, "region-name": {t.region},
				"state": {"available"}, "zone-type": {"availability-zone"},
			}
			if !names.has(z.Name) || !ids.has(z.ID) || !fs.match(nil, fields) {
				continue
			}
			out.AvailabilityZones = append(out.AvailabilityZones, ec2types.AvailabilityZone{
				ZoneName:           aws.String(z.Name),
				ZoneId:             aws.String(z.ID),
				RegionName:         aws.String(t.region),
				State:              ec2types.AvailabilityZoneStateAvailable,
				ZoneType:           aws.String("availability-zone"),
				OptInStatus:        ec2types.AvailabilityZoneOptInStatusOptInNotRequired,
				GroupName:          aws.String(t.region),
				NetworkBorderGroup: aws.String(t.region),
			})
		}
		return out, nil
	})
}

// DescribeInstanceTypeOfferings lists which instance types the region, or
// each of its zones, offers. Like EC2, LocationType defaults to region.
func (a *ec2API) DescribeInstanceTypeOfferings(ctx context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeInstanceTypeOfferings", func(t *txn) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeInstanceTypeOfferings", in.Filters, "location", "instance-type")
		if err != nil {
			return nil, err
		}
		if in.MaxResults != nil && (*in.MaxResults < 5 || *in.MaxResults > 1000) {
			return nil, ec2Error("InvalidParameterValue", "MaxResults must be between 5 and 1000")
		}
		region, _ := t.w.catalog.region(t.region)
		var all []ec2types.InstanceTypeOffering
		add := func(lt ec2types.LocationType, location, typ string) {
			if fs.match(nil, map[string][]string{"location": {location}, "instance-type": {typ}}) {
				all = append(all, ec2types.InstanceTypeOffering{
					InstanceType: ec2types.InstanceType(typ), Location: aws.String(location), LocationType: lt,
				})
			}
		}
		switch lt := in.LocationType; lt {
		case "", ec2types.LocationTypeRegion:
			seen := map[string]bool{}
			for _, z := range region.Zones {
				for _, typ := range z.InstanceTypes {
					seen[typ] = true
				}
			}
			for _, typ := range sortedKeys(seen) {
				add(ec2types.LocationTypeRegion, t.region, typ)
			}
		case ec2types.LocationTypeAvailabilityZone, ec2types.LocationTypeAvailabilityZoneId:
			for _, z := range region.Zones {
				location := z.Name
				if lt == ec2types.LocationTypeAvailabilityZoneId {
					location = z.ID
				}
				for _, typ := range z.InstanceTypes {
					add(lt, location, typ)
				}
			}
		default:
			return nil, ec2Error("InvalidParameterValue", "Value (%s) for parameter locationType is invalid.", lt)
		}
		items, next, err := page(all, in.NextToken, t.pageSize(svcEC2, "DescribeInstanceTypeOfferings", in.MaxResults), 1000)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		return &ec2.DescribeInstanceTypeOfferingsOutput{InstanceTypeOfferings: items, NextToken: next}, nil
	})
}
