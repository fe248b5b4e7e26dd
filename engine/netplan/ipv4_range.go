package netplan

import "net/netip"

// ipv4Range is an inclusive range of IPv4 addresses held as integers, so that
// planning compares numbers, never strings. first and last are uint64 so that
// last+1 never wraps, even for 255.255.255.255.
type ipv4Range struct {
	first, last uint64
}

// rangeOf returns the addresses p covers. p must be a valid IPv4 prefix; host
// bits are ignored.
func rangeOf(p netip.Prefix) ipv4Range {
	b := p.Masked().Addr().As4()
	first := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	return ipv4Range{first: first, last: first + (uint64(1) << (32 - p.Bits())) - 1}
}

// overlaps reports whether r and o share at least one address.
func (r ipv4Range) overlaps(o ipv4Range) bool {
	return r.first <= o.last && o.first <= r.last
}

// prefixAt returns the prefix of the given length that starts at addr.
func prefixAt(addr uint64, bits int) netip.Prefix {
	a := netip.AddrFrom4([4]byte{byte(addr >> 24), byte(addr >> 16), byte(addr >> 8), byte(addr)})
	return netip.PrefixFrom(a, bits)
}
