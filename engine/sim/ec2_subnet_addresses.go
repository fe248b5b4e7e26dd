package sim

import (
	"encoding/binary"
	"net/netip"
	"slices"
)

// ipRange is a run of consecutive private addresses of a subnet, counted
// from its first usable address (AWS reserves the first four addresses of a
// subnet and the last one).
type ipRange struct {
	First, Count int
}

// usable is how many private addresses the subnet can hand out.
func (s *subnetRec) usable() int {
	p := netip.MustParsePrefix(s.CIDR)
	return 1<<(32-p.Bits()) - 5
}

// addr is the address at offset i of the subnet's usable addresses.
func (s *subnetRec) addr(i int) string {
	base := netip.MustParsePrefix(s.CIDR).Addr().As4()
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(base[:])+4+uint32(i))
	return netip.AddrFrom4(b).String()
}

// offset is the inverse of addr; ok is false for an address outside the
// subnet's usable ones.
func (s *subnetRec) offset(ip string) (int, bool) {
	a, err := netip.ParseAddr(ip)
	p := netip.MustParsePrefix(s.CIDR)
	if err != nil || !a.Is4() || !p.Contains(a) {
		return 0, false
	}
	base, v := p.Addr().As4(), a.As4()
	i := int(binary.BigEndian.Uint32(v[:])) - int(binary.BigEndian.Uint32(base[:])) - 4
	return i, i >= 0 && i < s.usable()
}

// subnetLeases lists the addresses in use in subnet id: those of the NAT
// gateways that still hold their network interface, those of the managed
// node groups' instances, and those of the HyperPod instances that exist
// (booting, running or shutting down). An
// address is held as long as its holder exists, so it comes back to the
// subnet when the holder goes.
func (t *txn) subnetLeases(id string) []ipRange {
	s := t.rs.Subnets[id]
	if s == nil {
		return nil
	}
	var held []ipRange
	single := func(ip string) {
		if i, ok := s.offset(ip); ok {
			held = append(held, ipRange{i, 1})
		}
	}
	for _, nid := range sortedKeys(t.rs.NATs) {
		if n := t.rs.NATs[nid]; n.SubnetID == id && n.holdsENI(t.now) {
			single(n.PrivateIP)
		}
	}
	for _, name := range sortedKeys(t.rs.HyperPod) {
		for _, g := range t.rs.HyperPod[name].Groups {
			for _, n := range g.Nodes {
				switch {
				case n.InstanceID == "" || n.SubnetID != id:
				case len(n.Addresses) > 0:
					held = append(held, n.Addresses...)
				default: // a node saved before nodes held all their addresses
					single(n.PrivateIP)
				}
			}
		}
	}
	for _, name := range sortedKeys(t.rs.EKS) {
		for _, g := range t.rs.EKS[name].Nodegroups {
			for _, n := range g.Nodes {
				if n.SubnetID == id && n.live(t.now) {
					single(n.PrivateIP)
				}
			}
		}
	}
	slices.SortFunc(held, func(a, b ipRange) int { return a.First - b.First })
	return held
}

// freeAddresses is how many private addresses of subnet id are free.
func (t *txn) freeAddresses(id string) int {
	s := t.rs.Subnets[id]
	if s == nil {
		return 0
	}
	used := 0
	for _, r := range t.subnetLeases(id) {
		used += r.Count
	}
	return max(0, s.usable()-used)
}

// leaseAddresses takes the n lowest free addresses of subnet id, as EC2
// hands them out, or reports false, taking none, when fewer are free.
func (t *txn) leaseAddresses(id string, n int) ([]ipRange, bool) {
	s := t.rs.Subnets[id]
	if s == nil || n <= 0 {
		return nil, n <= 0
	}
	var out []ipRange
	next := 0 // the first offset not yet known to be taken
	take := func(end int) {
		if k := min(end-next, n); k > 0 {
			out = append(out, ipRange{next, k})
			n -= k
		}
	}
	for _, r := range t.subnetLeases(id) {
		take(r.First)
		next = max(next, r.First+r.Count)
	}
	take(s.usable())
	if n > 0 {
		return nil, false
	}
	return out, true
}

// leaseAddress takes one free address of subnet id, for a NAT gateway's
// network interface.
func (t *txn) leaseAddress(id string) (string, bool) {
	r, ok := t.leaseAddresses(id, 1)
	if !ok {
		return "", false
	}
	return t.rs.Subnets[id].addr(r[0].First), true
}
