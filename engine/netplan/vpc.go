package netplan

import (
	"fmt"
	"iter"
	"net/netip"
)

// PlanVPC chooses a /16 block for a new VPC that overlaps none of the
// existing VPC blocks (of any size). It tries 10.0.0.0/16 through
// 10.255.0.0/16, then 172.16.0.0/16 through 172.31.0.0/16, then
// 192.168.0.0/16. IPv6 blocks in existing are ignored: they cannot collide
// with IPv4 space.
func PlanVPC(existing []netip.Prefix) (netip.Prefix, error) {
	taken := make([]ipv4Range, 0, len(existing))
	for i, p := range existing {
		if !p.IsValid() {
			return netip.Prefix{}, fmt.Errorf("existing VPC block %d is not a valid CIDR block; pass the VPCs' CIDR blocks as reported by EC2", i)
		}
		if p.Addr().Is4() {
			taken = append(taken, rangeOf(p))
		}
	}
	for c := range vpcCandidates() {
		if !overlapsAny(rangeOf(c), taken) {
			return c, nil
		}
	}
	return netip.Prefix{}, &noFreeRangeError{msg: "no free /16 is left for a new VPC: 10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16 " +
		"are all overlapped by existing VPCs in this region; delete an unused VPC or use an existing VPC"}
}

// vpcCandidates yields the /16 blocks PlanVPC tries, in order: every /16 of
// the three private ranges of RFC 1918.
func vpcCandidates() iter.Seq[netip.Prefix] {
	return func(yield func(netip.Prefix) bool) {
		for b := 0; b <= 255; b++ {
			if !yield(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(b), 0, 0}), 16)) {
				return
			}
		}
		for b := 16; b <= 31; b++ {
			if !yield(netip.PrefixFrom(netip.AddrFrom4([4]byte{172, byte(b), 0, 0}), 16)) {
				return
			}
		}
		yield(netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 168, 0, 0}), 16))
	}
}

// overlapsAny reports whether r overlaps any of taken.
func overlapsAny(r ipv4Range, taken []ipv4Range) bool {
	for _, t := range taken {
		if r.overlaps(t) {
			return true
		}
	}
	return false
}
