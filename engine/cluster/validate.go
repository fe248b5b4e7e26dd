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
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/netplan"
)

var (
	clusterNamePattern = regexp.MustCompile(`^[a-zA-Z]([a-zA-Z0-9-]{0,38}[a-zA-Z0-9])?$`)
	groupNamePattern   = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)
	versionPattern     = regexp.MustCompile(`^1\.(2[89]|3[0-4])$`)
)

// DefaultKubernetesVersion is used when a request names none.
const DefaultKubernetesVersion = "1.33"

var deepHealthChecks = []string{"InstanceStress", "InstanceConnectivity"}

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
	names := map[string]bool{}
	for i := range in.InstanceGroups {
		g := &in.InstanceGroups[i]
		field := func(f string) string { return fmt.Sprintf("input.instanceGroups[%d].%s", i, f) }
		if !groupNamePattern.MatchString(g.Name) {
			bad = append(bad, errs.Field(field("name"), "instance group name %q is not valid: use 1-63 letters, digits and hyphens, starting and ending with a letter or digit", g.Name))
		}
		if names[g.Name] {
			bad = append(bad, errs.Field(field("name"), "instance group name %q is used twice: give each group its own name", g.Name))
		}
		names[g.Name] = true
		if !strings.HasPrefix(g.InstanceType, "ml.") {
			bad = append(bad, errs.Field(field("instanceType"), "instance type %q is not a HyperPod type: use the ml. form, for example ml.p5.48xlarge", g.InstanceType))
		}
		if g.Count < 0 || g.Count > 1000 {
			bad = append(bad, errs.Field(field("count"), "count %d is out of range: use 0 to 1000", g.Count))
		}
		if g.MinCount < 0 || g.MinCount > g.Count {
			bad = append(bad, errs.Field(field("minCount"), "minimum count %d must be between 0 and the count (%d)", g.MinCount, g.Count))
		}
		if g.CapacityType == "" {
			g.CapacityType = OnDemand
		}
		if g.CapacityType != OnDemand && g.CapacityType != Spot {
			bad = append(bad, errs.Field(field("capacityType"), "capacity type %q is not one of ON_DEMAND, SPOT", g.CapacityType))
		}
		if g.ThreadsPerCore == 0 {
			g.ThreadsPerCore = defaultThreadsPerCore(g.InstanceType)
		}
		if g.ThreadsPerCore != 1 && g.ThreadsPerCore != 2 {
			bad = append(bad, errs.Field(field("threadsPerCore"), "threads per core must be 1 or 2, not %d", g.ThreadsPerCore))
		}
		if g.VolumeSizeGB == 0 {
			g.VolumeSizeGB = 500
		}
		if g.VolumeSizeGB < 50 || g.VolumeSizeGB > 16384 {
			bad = append(bad, errs.Field(field("volumeSizeGb"), "EBS volume size %d GiB is out of range: use 50 to 16384", g.VolumeSizeGB))
		}
		for _, c := range g.DeepHealthChecks {
			if !slices.Contains(deepHealthChecks, c) {
				bad = append(bad, errs.Field(field("deepHealthChecks"), "deep health check %q is not one of %s", c, strings.Join(deepHealthChecks, ", ")))
			}
		}
	}
	return bad
}

// defaultThreadsPerCore is 2 on the p4, p5 and p6 families, else 1.
func defaultThreadsPerCore(instanceType string) int {
	t := strings.TrimPrefix(instanceType, "ml.")
	for _, fam := range []string{"p4", "p5", "p6"} {
		if strings.HasPrefix(t, fam) {
			return 2
		}
	}
	return 1
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

// checkOfferings fails with PRECONDITION for instance types not offered in
// their group's zone, naming the zones that do offer them.
func checkOfferings(ctx context.Context, p *cloud.Provider, in *CreateInput) error {
	if len(in.InstanceGroups) == 0 {
		return nil
	}
	var types []string
	for _, g := range in.InstanceGroups {
		t := strings.TrimPrefix(g.InstanceType, "ml.")
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	offered := map[string][]string{} // instance type -> zones
	var token *string
	for {
		out, err := p.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{
			LocationType: ec2types.LocationTypeAvailabilityZone,
			Filters:      []ec2types.Filter{{Name: aws.String("instance-type"), Values: types}},
			NextToken:    token,
		})
		if err != nil {
			return errs.FromUpstream(err, "list instance type offerings")
		}
		for _, o := range out.InstanceTypeOfferings {
			t := string(o.InstanceType)
			offered[t] = append(offered[t], aws.ToString(o.Location))
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	var bad errs.List
	for i, g := range in.InstanceGroups {
		zones := offered[strings.TrimPrefix(g.InstanceType, "ml.")]
		if slices.Contains(zones, g.Zone) {
			continue
		}
		slices.Sort(zones)
		where := "in no zone of " + p.Region + ": choose another instance type"
		if len(zones) > 0 {
			where = "only in " + strings.Join(zones, ", ") + ": choose one of those zones or another instance type"
		}
		e := errs.New(errs.Precondition, "instance type %s of group %s is not offered in %s; it is offered %s", g.InstanceType, g.Name, g.Zone, where)
		bad = append(bad, e.WithField(fmt.Sprintf("input.instanceGroups[%d].instanceType", i)))
	}
	return bad.Err()
}

// checkQuotas fails with PRECONDITION when the groups ask for more instances
// of a type than the account's HyperPod cluster quota allows.
func checkQuotas(ctx context.Context, p *cloud.Provider, in *CreateInput) error {
	want := map[string]int{}
	for _, g := range in.InstanceGroups {
		want[g.InstanceType] += g.Count
	}
	if len(want) == 0 {
		return nil
	}
	quota := map[string]float64{}
	var token *string
	for {
		out, err := p.ServiceQuotas.ListServiceQuotas(ctx, &servicequotas.ListServiceQuotasInput{ServiceCode: aws.String("sagemaker"), NextToken: token})
		if err != nil {
			return errs.FromUpstream(err, "read SageMaker service quotas")
		}
		for _, q := range out.Quotas {
			if t, ok := strings.CutSuffix(aws.ToString(q.QuotaName), " for cluster usage"); ok && q.Value != nil {
				quota[t] = *q.Value
			}
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	var bad errs.List
	for i, g := range in.InstanceGroups {
		limit, known := quota[g.InstanceType]
		if !known || float64(want[g.InstanceType]) <= limit {
			continue
		}
		e := errs.New(errs.Precondition, "the account's quota \"%s for cluster usage\" in %s is %v, but the instance groups ask for %d; request a quota increase in Service Quotas or lower the count",
			g.InstanceType, p.Region, limit, want[g.InstanceType])
		bad = append(bad, e.WithField(fmt.Sprintf("input.instanceGroups[%d].count", i)))
		delete(want, g.InstanceType) // report each type once
	}
	return bad.Err()
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
