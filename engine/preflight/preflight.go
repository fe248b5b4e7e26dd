// Package preflight answers the questions asked before creating anything:
// which regions and zones there are, and which instance types a zone offers
// with their accelerators. Mutations run the same checks themselves.
package preflight

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// Options tune the service.
type Options struct {
	// ReadRetry bounds the retries of a throttled read; zero means
	// ops.DefaultReadRetry. The composition root passes the runner's, which
	// is scaled for the simulator's speed.
	ReadRetry ops.ReadRetry
}

// Service answers preflight queries through the provider ports.
type Service struct {
	regions cloud.Regions
	opts    Options
}

// New returns a Service over regions tuned by opts; the zero Options suit
// AWS.
func New(regions cloud.Regions, opts Options) *Service {
	if opts.ReadRetry.Attempts == 0 {
		opts.ReadRetry = ops.DefaultReadRetry
	}
	return &Service{regions: regions, opts: opts}
}

// provider returns the ports of region (the default region when empty).
// Every answer is read while a client waits, so a throttled read is tried
// again (Options.ReadRetry) before the query fails with it.
func (s *Service) provider(region string) (*cloud.Provider, error) {
	if region == "" {
		region = s.regions.DefaultRegion()
	}
	p, err := s.regions.Provider(region)
	if err != nil {
		return nil, errs.Field("region", "%v", err)
	}
	return cloud.RetryReads(p, s.opts.ReadRetry.Do), nil
}

// Regions lists the regions of the account, sorted.
func (s *Service) Regions(ctx context.Context) ([]string, error) {
	p, err := s.provider("")
	if err != nil {
		return nil, err
	}
	out, err := p.EC2.DescribeRegions(ctx, &ec2.DescribeRegionsInput{})
	if err != nil {
		return nil, errs.FromUpstream(err, "list regions")
	}
	var names []string
	for _, r := range out.Regions {
		names = append(names, aws.ToString(r.RegionName))
	}
	slices.Sort(names)
	return names, nil
}

// Zone is an availability zone.
type Zone struct{ Name, ID string }

// Zones lists the available availability zones of region, sorted by name.
func (s *Service) Zones(ctx context.Context, region string) ([]Zone, error) {
	p, err := s.provider(region)
	if err != nil {
		return nil, err
	}
	out, err := p.EC2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		return nil, errs.FromUpstream(err, "list availability zones")
	}
	var zones []Zone
	for _, z := range out.AvailabilityZones {
		if (z.ZoneType == nil || *z.ZoneType == "availability-zone") && z.State == ec2types.AvailabilityZoneStateAvailable {
			zones = append(zones, Zone{Name: aws.ToString(z.ZoneName), ID: aws.ToString(z.ZoneId)})
		}
	}
	slices.SortFunc(zones, func(a, b Zone) int { return strings.Compare(a.Name, b.Name) })
	return zones, nil
}

// Offering is an instance type offered in a zone, in HyperPod's ml. form.
type Offering struct {
	InstanceType     string
	Zone             string
	AcceleratorCount int
	AcceleratorName  string
	// AcceleratorMemoryGiB is the memory of one accelerator.
	AcceleratorMemoryGiB int
	VCPUs                int
	MemoryGiB            int
}

// InstanceTypes lists what zone offers: accelerated types first (most
// accelerators first), then the rest, each by name.
func (s *Service) InstanceTypes(ctx context.Context, region, zone string) ([]Offering, error) {
	p, err := s.provider(region)
	if err != nil {
		return nil, err
	}
	zones, err := s.Zones(ctx, p.Region)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(zones, func(z Zone) bool { return z.Name == zone }) {
		var names []string
		for _, z := range zones {
			names = append(names, z.Name)
		}
		return nil, errs.Field("zone", "zone %q is not a zone of %s: use one of %s", zone, p.Region, strings.Join(names, ", "))
	}
	var types []ec2types.InstanceType
	var token *string
	for page := range cloud.MaxPages {
		out, err := p.EC2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{
			LocationType: ec2types.LocationTypeAvailabilityZone,
			Filters:      []ec2types.Filter{{Name: aws.String("location"), Values: []string{zone}}},
			NextToken:    token,
		})
		if err != nil {
			return nil, errs.FromUpstream(err, "list instance type offerings")
		}
		for _, o := range out.InstanceTypeOfferings {
			types = append(types, o.InstanceType)
		}
		if token = out.NextToken; aws.ToString(token) == "" {
			break
		}
		if page == cloud.MaxPages-1 {
			return nil, cloud.TooManyPages("DescribeInstanceTypeOfferings")
		}
	}
	var offers []Offering
	// At most 100 types are asked for at once; the answer is followed
	// through its next tokens all the same.
	for chunk := range slices.Chunk(types, 100) {
		err := cloud.Pages("DescribeInstanceTypes", func(token *string) (*string, error) {
			out, err := p.EC2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: chunk, NextToken: token})
			if err != nil {
				return nil, err
			}
			for _, info := range out.InstanceTypes {
				offers = append(offers, offering(zone, info))
			}
			return out.NextToken, nil
		})
		if err != nil {
			return nil, errs.FromUpstream(err, "describe instance types")
		}
	}
	slices.SortFunc(offers, func(a, b Offering) int {
		if a.AcceleratorCount != b.AcceleratorCount {
			return b.AcceleratorCount - a.AcceleratorCount
		}
		return strings.Compare(a.InstanceType, b.InstanceType)
	})
	return offers, nil
}

func offering(zone string, info ec2types.InstanceTypeInfo) Offering {
	o := Offering{InstanceType: "ml." + string(info.InstanceType), Zone: zone}
	if info.VCpuInfo != nil {
		o.VCPUs = int(aws.ToInt32(info.VCpuInfo.DefaultVCpus))
	}
	if info.MemoryInfo != nil {
		o.MemoryGiB = int(aws.ToInt64(info.MemoryInfo.SizeInMiB) / 1024)
	}
	switch {
	case info.GpuInfo != nil && len(info.GpuInfo.Gpus) > 0:
		g := info.GpuInfo.Gpus[0]
		o.AcceleratorCount, o.AcceleratorName = int(aws.ToInt32(g.Count)), aws.ToString(g.Manufacturer)+" "+aws.ToString(g.Name)
		if g.MemoryInfo != nil {
			o.AcceleratorMemoryGiB = int(aws.ToInt32(g.MemoryInfo.SizeInMiB) / 1024)
		}
	case info.NeuronInfo != nil && len(info.NeuronInfo.NeuronDevices) > 0:
		d := info.NeuronInfo.NeuronDevices[0]
		o.AcceleratorCount, o.AcceleratorName = int(aws.ToInt32(d.Count)), "AWS "+aws.ToString(d.Name)
		if d.MemoryInfo != nil {
			o.AcceleratorMemoryGiB = int(aws.ToInt32(d.MemoryInfo.SizeInMiB) / 1024)
		}
	}
	return o
}
