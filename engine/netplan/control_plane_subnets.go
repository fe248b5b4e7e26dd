package netplan

import (
	"fmt"
	"net/netip"
)

// Role says whether a subnet routes to the internet directly.
type Role string

const (
	// Public subnets route through an internet gateway; they hold the NAT
	// gateways and internet-facing load balancers.
	Public Role = "public"
	// Private subnets route out through a NAT gateway; they hold the EKS
	// control-plane network interfaces and internal load balancers.
	Private Role = "private"
)

// Subnet is one planned subnet.
type Subnet struct {
	Zone string
	CIDR netip.Prefix
	Role Role
}

// ControlPlaneSubnets is the plan for an EKS control plane: one public and
// one private /24 per zone, public ones first, each group in zone order.
type ControlPlaneSubnets struct {
	Subnets []Subnet
}

// Public returns the public subnets in zone order.
func (c ControlPlaneSubnets) Public() []Subnet { return c.withRole(Public) }

// Private returns the private subnets in zone order.
func (c ControlPlaneSubnets) Private() []Subnet { return c.withRole(Private) }

// CIDRs returns every planned block, in plan order; pass them as used
// blocks to ComputeSubnet.
func (c ControlPlaneSubnets) CIDRs() []netip.Prefix {
	out := make([]netip.Prefix, len(c.Subnets))
	for i, s := range c.Subnets {
		out[i] = s.CIDR
	}
	return out
}

func (c ControlPlaneSubnets) withRole(r Role) []Subnet {
	var out []Subnet
	for _, s := range c.Subnets {
		if s.Role == r {
			out = append(out, s)
		}
	}
	return out
}

const (
	// minControlPlaneZones is what EKS requires of a cluster's subnets.
	minControlPlaneZones = 2
	// privateThirdOctet is where private /24s start. Public /24s sit below
	// it, so at most this many zones fit, and both groups stay inside the
	// first two /20s of the VPC, which ComputeSubnet then skips.
	privateThirdOctet = 16
)

// PlanControlPlaneSubnets plans the subnets of an EKS control plane in vpc,
// which must be an IPv4 /16: a public /24 per zone at x.y.0.0/24,
// x.y.1.0/24, ... and a private /24 per zone from x.y.16.0/24 upward. It
// needs at least two distinct zones, as EKS does.
func PlanControlPlaneSubnets(vpc netip.Prefix, zones []string) (ControlPlaneSubnets, error) {
	if err := checkIPv4("the VPC CIDR", vpc); err != nil {
		return ControlPlaneSubnets{}, err
	}
	if vpc.Bits() != 16 {
		return ControlPlaneSubnets{}, fmt.Errorf("the VPC %s is a /%d; the control-plane plan needs a /16 VPC, such as %s",
			vpc, vpc.Bits(), netip.PrefixFrom(vpc.Addr(), 16).Masked())
	}
	if len(zones) < minControlPlaneZones {
		return ControlPlaneSubnets{}, fmt.Errorf("EKS needs subnets in at least %d availability zones, got %d; add another zone",
			minControlPlaneZones, len(zones))
	}
	if len(zones) > privateThirdOctet {
		return ControlPlaneSubnets{}, fmt.Errorf("at most %d zones fit the control-plane plan, got %d; choose fewer zones",
			privateThirdOctet, len(zones))
	}
	seen := make(map[string]bool, len(zones))
	for _, z := range zones {
		if z == "" {
			return ControlPlaneSubnets{}, fmt.Errorf("a zone name is empty; name each availability zone, such as us-east-1a")
		}
		if seen[z] {
			return ControlPlaneSubnets{}, fmt.Errorf("zone %s is listed twice; list each availability zone once", z)
		}
		seen[z] = true
	}

	base := rangeOf(vpc).first
	plan := ControlPlaneSubnets{Subnets: make([]Subnet, 0, 2*len(zones))}
	for i, z := range zones {
		plan.Subnets = append(plan.Subnets, Subnet{Zone: z, CIDR: prefixAt(base+uint64(i)<<8, 24), Role: Public})
	}
	for i, z := range zones {
		plan.Subnets = append(plan.Subnets, Subnet{Zone: z, CIDR: prefixAt(base+uint64(privateThirdOctet+i)<<8, 24), Role: Private})
	}
	return plan, nil
}
