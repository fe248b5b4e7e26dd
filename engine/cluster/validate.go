package cluster

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/netplan"
)

var (
	clusterNamePattern = regexp.MustCompile(`^[a-zA-Z]([a-zA-Z0-9-]{0,38}[a-zA-Z0-9])?$`)
	versionPattern     = regexp.MustCompile(`^1\.(2[89]|3[0-4])$`)
)

// DefaultKubernetesVersion is used when a request names none.
const DefaultKubernetesVersion = "1.33"

// normalize fills defaults and checks the shape of in without calling AWS.
func normalize(in *CreateInput) errs.List {
	var bad errs.List
	in.Name = strings.TrimSpace(in.Name)
	if !clusterNamePattern.MatchString(in.Name) || strings.Contains(in.Name, "--") {
		bad = append(bad, errs.Field("input.name", "cluster name %q is not valid: use 1-40 letters, digits and single hyphens, starting with a letter and not ending with a hyphen", in.Name))
	}
	if in.KubernetesVersion == "" {
		in.KubernetesVersion = DefaultKubernetesVersion
	}
	if !versionPattern.MatchString(in.KubernetesVersion) {
		bad = append(bad, errs.Field("input.kubernetesVersion", "Kubernetes version %q is not supported by HyperPod: use 1.28 to 1.34", in.KubernetesVersion))
	}
	seen := map[string]bool{}
	for i, z := range in.Zones {
		if seen[z] {
			bad = append(bad, errs.Field(fmt.Sprintf("input.zones[%d]", i), "zone %s is listed twice: list each zone once", z))
		}
		seen[z] = true
	}
	if in.VpcCIDR != "" {
		p, err := netplan.ParseCIDR(in.VpcCIDR)
		switch {
		case err != nil:
			bad = append(bad, errs.Field("input.vpcCidr", "%v", err))
		case p.Bits() != 16:
			bad = append(bad, errs.Field("input.vpcCidr", "VPC range %s must be a /16 (for example 10.42.0.0/16) so that the control plane and compute subnets fit", in.VpcCIDR))
		}
	}
	sys := SystemNodesInput{}
	if in.SystemNodes != nil {
		sys = *in.SystemNodes
	}
	bad = append(bad, normalizeSystemNodes(&sys, "input.systemNodes.")...)
	in.SystemNodes = &sys
	names := map[string]bool{}
	for i := range in.InstanceGroups {
		g := &in.InstanceGroups[i]
		field := func(f string) string { return fmt.Sprintf("input.instanceGroups[%d].%s", i, f) }
		bad = append(bad, groupspec.Normalize(g, field, groupspec.CreatingCluster)...)
		if names[g.Name] {
			bad = append(bad, errs.Field(field("name"), "instance group name %q is used twice: give each group its own name", g.Name))
		}
		names[g.Name] = true
	}
	return bad
}

// checkAgainstRegion checks zones, instance type offerings and quotas in the
// region, filling default zones. Every failure is reported at once.
func checkAgainstRegion(ctx context.Context, p *cloud.Provider, in *CreateInput) error {
	azs, err := p.EC2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		return errs.FromUpstream(err, "list availability zones")
	}
	var zones []string
	for _, z := range azs.AvailabilityZones {
		if z.ZoneType == nil || *z.ZoneType == "availability-zone" {
			zones = append(zones, aws.ToString(z.ZoneName))
		}
	}
	slices.Sort(zones)
	if len(in.Zones) == 0 && len(zones) >= 2 {
		in.Zones = zones[:2]
	}
	var bad errs.List
	if len(in.Zones) < 2 {
		bad = append(bad, errs.Field("input.zones", "EKS needs at least two availability zones: add another of %s", strings.Join(zones, ", ")))
	}
	for i, z := range in.Zones {
		if !slices.Contains(zones, z) {
			bad = append(bad, errs.Field(fmt.Sprintf("input.zones[%d]", i), "zone %q is not a zone of %s: use one of %s", z, p.Region, strings.Join(zones, ", ")))
		}
	}
	for i := range in.InstanceGroups {
		g := &in.InstanceGroups[i]
		if g.Zone == "" && len(in.Zones) > 0 {
			g.Zone = in.Zones[0]
		}
		if !slices.Contains(in.Zones, g.Zone) {
			bad = append(bad, errs.Field(fmt.Sprintf("input.instanceGroups[%d].zone", i), "zone %q of instance group %s is not one of the cluster's zones (%s)", g.Zone, g.Name, strings.Join(in.Zones, ", ")))
		}
	}
	if len(bad) > 0 {
		return bad
	}
	if err := checkOfferings(ctx, p, in); err != nil {
		return err
	}
	return checkQuotas(ctx, p, in)
}

// demands are the instance groups of in, as capacity checks take them:
// every instance type of a group, the count on its first, the one a group
// runs when it can. A flexible group's later types must be offered in its
// zone too, as addInstanceGroup checks.
func demands(in *CreateInput) []capacity.Demand {
	var out []capacity.Demand
	for i, g := range in.InstanceGroups {
		for j, t := range g.InstanceTypes {
			d := capacity.Demand{Field: fmt.Sprintf("input.instanceGroups[%d]", i), Group: g.Name, InstanceType: t, Zone: g.Zone}
			if j == 0 {
				d.Count = g.Count
			}
			out = append(out, d)
		}
	}
	return out
}

// checkOfferings fails with PRECONDITION for instance types not offered in
// their group's zone, naming the zones that do offer them.
func checkOfferings(ctx context.Context, p *cloud.Provider, in *CreateInput) error {
	return capacity.CheckOfferings(ctx, p, demands(in))
}

// checkQuotas fails with PRECONDITION when the groups, with what the
// account's clusters already use, ask for more instances of a type than
// the account's HyperPod cluster quota allows.
func checkQuotas(ctx context.Context, p *cloud.Provider, in *CreateInput) error {
	// A type no instances are asked of (a flexible group's later choices)
	// draws on no quota.
	d := slices.DeleteFunc(demands(in), func(d capacity.Demand) bool { return d.Count == 0 })
	if len(d) == 0 {
		return nil
	}
	inUse, err := capacity.Usage(ctx, p)
	if err != nil {
		return err
	}
	return capacity.CheckQuotas(ctx, p, d, inUse)
}

// checkVpcCIDR fails when a requested VPC range overlaps a VPC of the region.
func checkVpcCIDR(ctx context.Context, p *cloud.Provider, cidr string) error {
	if cidr == "" {
		return nil
	}
	want := netip.MustParsePrefix(cidr)
	existing, err := regionVPCs(ctx, p)
	if err != nil {
		return err
	}
	for _, v := range existing {
		if netplan.Overlaps(want, v.cidr) {
			return errs.Field("input.vpcCidr", "VPC range %s overlaps %s of %s in %s: choose a range that overlaps no VPC, or leave vpcCidr out to have one chosen", cidr, v.cidr, v.id, p.Region)
		}
	}
	return nil
}
