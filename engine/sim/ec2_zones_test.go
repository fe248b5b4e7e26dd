package sim

import (
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestDescribeAvailabilityZones(t *testing.T) {
	f := newFixture(t)
	zones := ok(f.p.EC2.DescribeAvailabilityZones(f.ctx, nil)).must(t).AvailabilityZones
	var got []string
	for _, z := range zones {
		if z.State != ec2types.AvailabilityZoneStateAvailable || *z.ZoneType != "availability-zone" || *z.RegionName != "us-west-2" {
			t.Errorf("zone %s: state %s type %s region %s", *z.ZoneName, z.State, *z.ZoneType, *z.RegionName)
		}
		got = append(got, *z.ZoneName+"="+*z.ZoneId)
	}
	want := []string{"us-west-2a=usw2-az1", "us-west-2b=usw2-az2", "us-west-2c=usw2-az3", "us-west-2d=usw2-az4"}
	if !equalStrings(got, want) {
		t.Errorf("zones = %v, want %v", got, want)
	}
	one := ok(f.p.EC2.DescribeAvailabilityZones(f.ctx, &ec2.DescribeAvailabilityZonesInput{ZoneIds: []string{"usw2-az3"}})).must(t)
	if len(one.AvailabilityZones) != 1 || *one.AvailabilityZones[0].ZoneName != "us-west-2c" {
		t.Errorf("by zone id: %v", one.AvailabilityZones)
	}
	_, err := f.p.EC2.DescribeAvailabilityZones(f.ctx, &ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-west-2z"}})
	if code := errorCode(t, err); code != "InvalidParameterValue" {
		t.Errorf("unknown zone: code %q", code)
	}
}

// offeredZones asks which zones of the fixture's region offer typ.
func offeredZones(f *fixture, typ string) []string {
	out := ok(f.p.EC2.DescribeInstanceTypeOfferings(f.ctx, &ec2.DescribeInstanceTypeOfferingsInput{
		LocationType: ec2types.LocationTypeAvailabilityZone,
		Filters:      []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{typ}}},
	})).must(f.t)
	var zones []string
	for _, o := range out.InstanceTypeOfferings {
		zones = append(zones, *o.Location)
	}
	sort.Strings(zones)
	return zones
}

func TestInstanceTypeOfferingsVaryByZone(t *testing.T) {
	cases := []struct {
		region, typ string
		want        []string
	}{
		{"us-west-2", "p5.48xlarge", []string{"us-west-2a", "us-west-2b", "us-west-2c"}},
		{"us-east-1", "p5.48xlarge", []string{"us-east-1a", "us-east-1c"}},
		{"us-west-2", "trn2.48xlarge", []string{"us-west-2d"}},
		{"us-east-2", "trn2.48xlarge", []string{"us-east-2b"}},
		{"eu-west-1", "trn2.48xlarge", nil},
		{"ap-northeast-1", "g5.xlarge", []string{"ap-northeast-1a", "ap-northeast-1c", "ap-northeast-1d"}},
		{"us-east-1", "m5.xlarge", []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}},
		{"us-west-2", "ml.p5.48xlarge", nil}, // EC2 names have no ml. prefix
	}
	for _, c := range cases {
		t.Run(c.region+"/"+c.typ, func(t *testing.T) {
			f := newFixture(t)
			f.p = ok(f.w.Provider(c.region)).must(t)
			if got := offeredZones(f, c.typ); !equalStrings(got, c.want) {
				t.Errorf("zones = %v, want %v", got, c.want)
			}
		})
	}
}

func TestInstanceTypeOfferingsFiltersAndPages(t *testing.T) {
	f := newFixture(t)
	byLocation := ok(f.p.EC2.DescribeInstanceTypeOfferings(f.ctx, &ec2.DescribeInstanceTypeOfferingsInput{
		LocationType: ec2types.LocationTypeAvailabilityZone,
		Filters: []ec2types.Filter{
			{Name: aws.String("location"), Values: []string{"us-west-2d"}},
			{Name: aws.String("instance-type"), Values: []string{"p*", "trn*"}},
		},
	})).must(t)
	var types []string
	for _, o := range byLocation.InstanceTypeOfferings {
		types = append(types, string(o.InstanceType))
	}
	if want := []string{"p4d.24xlarge", "trn1.32xlarge", "trn2.48xlarge"}; !equalStrings(types, want) {
		t.Errorf("us-west-2d accelerators = %v, want %v", types, want)
	}

	region := ok(f.p.EC2.DescribeInstanceTypeOfferings(f.ctx, nil)).must(t)
	if len(region.InstanceTypeOfferings) != 16 || region.InstanceTypeOfferings[0].LocationType != ec2types.LocationTypeRegion {
		t.Errorf("region offerings: %d, first %v", len(region.InstanceTypeOfferings), region.InstanceTypeOfferings[0])
	}

	var all []ec2types.InstanceTypeOffering
	in := &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone, MaxResults: aws.Int32(7)}
	for pages := 0; ; pages++ {
		out := ok(f.p.EC2.DescribeInstanceTypeOfferings(f.ctx, in)).must(t)
		all = append(all, out.InstanceTypeOfferings...)
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	whole := ok(f.p.EC2.DescribeInstanceTypeOfferings(f.ctx, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone})).must(t)
	if len(all) != len(whole.InstanceTypeOfferings) {
		t.Errorf("paged %d offerings, unpaged %d", len(all), len(whole.InstanceTypeOfferings))
	}

	_, err := f.p.EC2.DescribeInstanceTypeOfferings(f.ctx, &ec2.DescribeInstanceTypeOfferingsInput{
		Filters: []ec2types.Filter{{Name: aws.String("vcpus"), Values: []string{"8"}}},
	})
	if code := errorCode(t, err); code != "InvalidParameterValue" {
		t.Errorf("unsupported filter: code %q", code)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
