package sim

import (
	"net/netip"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestElasticAddresses(t *testing.T) {
	f := newFixture(t)
	a := ok(f.p.EC2.AllocateAddress(f.ctx, &ec2.AllocateAddressInput{TagSpecifications: tagSpec(ec2types.ResourceTypeElasticIp, "Name", "nat-a")})).must(t)
	if ip, err := netip.ParseAddr(*a.PublicIp); err != nil || !ip.Is4() || a.Domain != ec2types.DomainTypeVpc {
		t.Errorf("address = %s %s", *a.PublicIp, a.Domain)
	}
	ok(f.p.EC2.AllocateAddress(f.ctx, nil)).must(t)
	byTag := ok(f.p.EC2.DescribeAddresses(f.ctx, &ec2.DescribeAddressesInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:Name"), Values: []string{"nat-a"}}},
	})).must(t).Addresses
	if len(byTag) != 1 || *byTag[0].AllocationId != *a.AllocationId || byTag[0].AssociationId != nil {
		t.Errorf("by tag = %+v", byTag)
	}
	ok(f.p.EC2.ReleaseAddress(f.ctx, &ec2.ReleaseAddressInput{AllocationId: a.AllocationId})).must(t)
	_, err := f.p.EC2.ReleaseAddress(f.ctx, &ec2.ReleaseAddressInput{AllocationId: a.AllocationId})
	if code := errorCode(t, err); code != "InvalidAllocationID.NotFound" {
		t.Errorf("second release: code %q", code)
	}
	_, err = f.p.EC2.DescribeAddresses(f.ctx, &ec2.DescribeAddressesInput{PublicIps: []string{*a.PublicIp}})
	if code := errorCode(t, err); code != "InvalidAddress.NotFound" {
		t.Errorf("released address by IP: code %q", code)
	}
}
