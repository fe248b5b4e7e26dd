package sim

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// addressRec is an Elastic IP address. Its association, if any, is the NAT
// gateway that holds it.
type addressRec struct {
	AllocationID string
	PublicIP     string
}

// AllocateAddress allocates an Elastic IP address for use in VPCs.
func (a *ec2API) AllocateAddress(ctx context.Context, in *ec2.AllocateAddressInput, _ ...func(*ec2.Options)) (*ec2.AllocateAddressOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "AllocateAddress", func(t *txn) (*ec2.AllocateAddressOutput, error) {
		in := orZero(in)
		if in.Domain != "" && in.Domain != ec2types.DomainTypeVpc {
			return nil, ec2Error("InvalidParameterValue", "Value (%s) for parameter domain is invalid: only vpc is supported.", in.Domain)
		}
		tags, err := tagsFromSpecs(ec2types.ResourceTypeElasticIp, in.TagSpecifications)
		if err != nil {
			return nil, err
		}
		r := t.nextRand()
		firsts := []uint64{3, 18, 34, 44, 52, 54}
		addr := &addressRec{
			AllocationID: t.newID("eipalloc"),
			PublicIP:     fmt.Sprintf("%d.%d.%d.%d", firsts[r%6], (r>>8)%256, (r>>16)%256, 1+(r>>24)%254),
		}
		t.rs.Addresses[addr.AllocationID] = addr
		t.setTags(addr.AllocationID, tags)
		return &ec2.AllocateAddressOutput{
			AllocationId:       aws.String(addr.AllocationID),
			PublicIp:           aws.String(addr.PublicIP),
			Domain:             ec2types.DomainTypeVpc,
			NetworkBorderGroup: aws.String(t.region),
			PublicIpv4Pool:     aws.String("amazon"),
		}, nil
	})
}

// addressHolder returns the NAT gateway that holds allocation id, or nil.
func (t *txn) addressHolder(id string) *natRec {
	for _, nid := range sortedKeys(t.rs.NATs) {
		if n := t.rs.NATs[nid]; n.AllocationID == id && n.holdsENI(t.now) {
			return n
		}
	}
	return nil
}

func (t *txn) addressOut(addr *addressRec) ec2types.Address {
	out := ec2types.Address{
		AllocationId:       aws.String(addr.AllocationID),
		PublicIp:           aws.String(addr.PublicIP),
		Domain:             ec2types.DomainTypeVpc,
		NetworkBorderGroup: aws.String(t.region),
		PublicIpv4Pool:     aws.String("amazon"),
		Tags:               t.ec2Tags(addr.AllocationID),
	}
	if n := t.addressHolder(addr.AllocationID); n != nil {
		out.AssociationId = aws.String(n.AssocID)
		out.NetworkInterfaceId = aws.String(n.ENI)
		out.NetworkInterfaceOwnerId = aws.String(t.account())
		out.PrivateIpAddress = aws.String(n.PrivateIP)
	}
	return out
}

// DescribeAddresses lists Elastic IPs by allocation id, public IP and
// filters (allocation-id, public-ip, association-id, network-interface-id,
// private-ip-address, domain, tag:<key>, tag-key).
func (a *ec2API) DescribeAddresses(ctx context.Context, in *ec2.DescribeAddressesInput, _ ...func(*ec2.Options)) (*ec2.DescribeAddressesOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeAddresses", func(t *txn) (*ec2.DescribeAddressesOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeAddresses", in.Filters, "allocation-id", "public-ip", "association-id", "network-interface-id", "private-ip-address", "domain")
		if err != nil {
			return nil, err
		}
		ids, ips := newIDSet(in.AllocationIds), newIDSet(in.PublicIps)
		if id, ok := ids.missing(func(id string) bool { return t.rs.Addresses[id] != nil }); ok {
			return nil, ec2Error("InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist", id)
		}
		known := map[string]bool{}
		for _, addr := range t.rs.Addresses {
			known[addr.PublicIP] = true
		}
		if ip, ok := ips.missing(func(ip string) bool { return known[ip] }); ok {
			return nil, ec2Error("InvalidAddress.NotFound", "Address '%s' not found.", ip)
		}
		out := &ec2.DescribeAddressesOutput{}
		for _, id := range sortedKeys(t.rs.Addresses) {
			addr := t.addressOut(t.rs.Addresses[id])
			fields := map[string][]string{
				"allocation-id": {id}, "public-ip": {*addr.PublicIp}, "domain": {"vpc"},
				"association-id": optional(addr.AssociationId), "network-interface-id": optional(addr.NetworkInterfaceId),
				"private-ip-address": optional(addr.PrivateIpAddress),
			}
			if ids.has(id) && ips.has(*addr.PublicIp) && fs.match(t.rs.Tags[id], fields) {
				out.Addresses = append(out.Addresses, addr)
			}
		}
		return out, nil
	})
}

// optional turns an optional string into filter values.
func optional(s *string) []string {
	if s == nil {
		return nil
	}
	return []string{*s}
}

// ReleaseAddress releases an Elastic IP no live NAT gateway holds.
func (a *ec2API) ReleaseAddress(ctx context.Context, in *ec2.ReleaseAddressInput, _ ...func(*ec2.Options)) (*ec2.ReleaseAddressOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "ReleaseAddress", func(t *txn) (*ec2.ReleaseAddressOutput, error) {
		in := orZero(in)
		if in.AllocationId == nil {
			return nil, ec2Error("MissingParameter", "The request must contain the parameter AllocationId")
		}
		addr := t.rs.Addresses[*in.AllocationId]
		if addr == nil {
			return nil, ec2Error("InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist", *in.AllocationId)
		}
		if n := t.addressHolder(addr.AllocationID); n != nil {
			return nil, ec2Error("InvalidIPAddress.InUse", "Address %s is in use by NAT gateway %s.", addr.PublicIP, n.ID)
		}
		delete(t.rs.Tags, addr.AllocationID)
		delete(t.rs.Addresses, addr.AllocationID)
		return &ec2.ReleaseAddressOutput{}, nil
	})
}
