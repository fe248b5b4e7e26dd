package netplan

import (
	"fmt"
	"net/netip"
)

// computeSubnetBits is the size of every accelerator-fleet subnet: 4096
// addresses, enough for the many IPs an EFA-enabled node takes.
const computeSubnetBits = 20

// ComputeSubnet places the /20 subnet for an accelerator fleet in zone: the
// first aligned /20 inside vpc that overlaps none of used (every subnet
// already in the VPC, of any size and alignment). Every capacity path uses
// it, so two fleets never get the same block. zone only names the place in
// the error; IPv6 blocks in used are ignored.
func ComputeSubnet(vpc netip.Prefix, zone string, used []netip.Prefix) (netip.Prefix, error) {
	if err := checkIPv4("the VPC CIDR", vpc); err != nil {
		return netip.Prefix{}, err
	}
	if vpc.Bits() > computeSubnetBits {
		return netip.Prefix{}, fmt.Errorf("the VPC %s is smaller than a /%d, so it cannot hold a compute subnet in %s; use a VPC of /%d or larger",
			vpc, computeSubnetBits, zone, computeSubnetBits)
	}
	taken := make([]ipv4Range, 0, len(used))
	for i, p := range used {
		if !p.IsValid() {
			return netip.Prefix{}, fmt.Errorf("used subnet %d is not a valid CIDR block; pass the subnets' CIDR blocks as reported by EC2", i)
		}
		if p.Addr().Is4() {
			taken = append(taken, rangeOf(p))
		}
	}

	const size = uint64(1) << (32 - computeSubnetBits)
	space := rangeOf(vpc)
	for start := space.first; start+size-1 <= space.last; {
		candidate := ipv4Range{first: start, last: start + size - 1}
		// Jump past the furthest-reaching block in the way, rounded up to
		// the next /20 boundary, instead of stepping one /20 at a time.
		next := start
		for _, t := range taken {
			if candidate.overlaps(t) && t.last+1 > next {
				next = t.last + 1
			}
		}
		if next == start {
			return prefixAt(start, computeSubnetBits), nil
		}
		start = (next + size - 1) &^ (size - 1)
	}
	return netip.Prefix{}, &noFreeRangeError{msg: fmt.Sprintf(
		"the VPC %s has no free /%d left for a compute subnet in %s; delete unused subnets or use another VPC",
		vpc, computeSubnetBits, zone)}
}
