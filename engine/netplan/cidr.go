package netplan

import (
	"fmt"
	"net/netip"
)

// ParseCIDR parses an IPv4 CIDR block such as "10.0.0.0/16". It rejects
// IPv6 blocks and blocks with host bits set, and its errors say what to
// write instead.
func ParseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not a CIDR block; write an IPv4 block such as 10.0.0.0/16: %w", s, err)
	}
	if !p.Addr().Is4() {
		return netip.Prefix{}, fmt.Errorf("%q is not an IPv4 block; InstantStart plans IPv4 networks only, write a block such as 10.0.0.0/16", s)
	}
	if m := p.Masked(); m != p {
		return netip.Prefix{}, fmt.Errorf("%q has host bits set; use %s", s, m)
	}
	return p, nil
}

// Overlaps reports whether a and b share at least one address. Prefixes of
// different address families never overlap.
func Overlaps(a, b netip.Prefix) bool {
	return a.Overlaps(b)
}

// Contains reports whether inner lies entirely within outer. Prefixes of
// different address families never contain each other.
func Contains(outer, inner netip.Prefix) bool {
	if !outer.IsValid() || !inner.IsValid() || outer.Addr().BitLen() != inner.Addr().BitLen() {
		return false
	}
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Masked().Addr())
}

// checkIPv4 returns an error naming what when p is not a valid, canonical
// IPv4 prefix.
func checkIPv4(what string, p netip.Prefix) error {
	switch {
	case !p.IsValid():
		return fmt.Errorf("%s is not set to a valid CIDR block; pass an IPv4 block such as 10.0.0.0/16", what)
	case !p.Addr().Is4():
		return fmt.Errorf("%s %s is not IPv4; InstantStart plans IPv4 networks only, use a block such as 10.0.0.0/16", what, p)
	case p.Masked() != p:
		return fmt.Errorf("%s %s has host bits set; use %s", what, p, p.Masked())
	}
	return nil
}
