package sim

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// instanceSpec is what EC2 reports of an instance type.
type instanceSpec struct {
	vcpus, memoryGiB int
	// accelerators: count, maker, name and memory per accelerator in GiB;
	// neuron marks AWS Trainium (reported as NeuronInfo, not GpuInfo).
	accelerators, acceleratorGiB int
	maker, name                  string
	neuron                       bool
}

// instanceSpecs are the simulated instance types, with their real figures.
var instanceSpecs = map[string]instanceSpec{
	"p5.48xlarge":   {192, 2048, 8, 80, "nvidia", "H100", false},
	"p5e.48xlarge":  {192, 2048, 8, 141, "nvidia", "H200", false},
	"p4d.24xlarge":  {96, 1152, 8, 40, "nvidia", "A100", false},
	"p4de.24xlarge": {96, 1152, 8, 80, "nvidia", "A100", false},
	"g5.xlarge":     {4, 16, 1, 24, "nvidia", "A10G", false},
	"g5.12xlarge":   {48, 192, 4, 24, "nvidia", "A10G", false},
	"g5.48xlarge":   {192, 768, 8, 24, "nvidia", "A10G", false},
	"g6.12xlarge":   {48, 192, 4, 24, "nvidia", "L4", false},
	"g6e.12xlarge":  {48, 384, 4, 48, "nvidia", "L40S", false},
	"trn1.32xlarge": {128, 512, 16, 32, "aws", "Trainium", true},
	"trn2.48xlarge": {192, 2048, 16, 96, "aws", "Trainium2", true},
	"m5.large":      {2, 8, 0, 0, "", "", false},
	"m5.xlarge":     {4, 16, 0, 0, "", "", false},
	"m5.2xlarge":    {8, 32, 0, 0, "", "", false},
	"c5.4xlarge":    {16, 32, 0, 0, "", "", false},
	"t3.medium":     {2, 4, 0, 0, "", "", false},
}

func (a *ec2API) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeInstanceTypes", func(t *txn) (*ec2.DescribeInstanceTypesOutput, error) {
		in := orZero(in)
		names := make([]string, 0, len(in.InstanceTypes))
		for _, it := range in.InstanceTypes {
			if _, ok := instanceSpecs[string(it)]; !ok {
				return nil, ec2Error("InvalidInstanceType", "The following supplied instance types do not exist: [%s]", it)
			}
			names = append(names, string(it))
		}
		if len(names) == 0 {
			for name := range instanceSpecs {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		// EC2 answers at most 100 types a page.
		names, next, err := page(names, in.NextToken, t.pageSize(svcEC2, "DescribeInstanceTypes", in.MaxResults), 100)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		out := &ec2.DescribeInstanceTypesOutput{NextToken: next}
		for _, name := range names {
			out.InstanceTypes = append(out.InstanceTypes, instanceTypeInfo(name, instanceSpecs[name]))
		}
		return out, nil
	})
}

func instanceTypeInfo(name string, s instanceSpec) ec2types.InstanceTypeInfo {
	info := ec2types.InstanceTypeInfo{
		InstanceType: ec2types.InstanceType(name),
		VCpuInfo:     &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(int32(s.vcpus))},
		MemoryInfo:   &ec2types.MemoryInfo{SizeInMiB: aws.Int64(int64(s.memoryGiB) * 1024)},
		NetworkInfo:  networkInfo(networkOf(name)),
	}
	if s.accelerators == 0 {
		return info
	}
	mib := int32(s.acceleratorGiB * 1024)
	if s.neuron {
		info.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{
			Count: aws.Int32(int32(s.accelerators)), Name: aws.String(s.name),
			MemoryInfo: &ec2types.NeuronDeviceMemoryInfo{SizeInMiB: aws.Int32(mib)}}},
			TotalNeuronDeviceMemoryInMiB: aws.Int32(mib * int32(s.accelerators))}
		return info
	}
	info.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
		Count: aws.Int32(int32(s.accelerators)), Manufacturer: aws.String(s.maker), Name: aws.String(s.name),
		MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(mib)}}},
		TotalGpuMemoryInMiB: aws.Int32(mib * int32(s.accelerators))}
	return info
}

func networkInfo(n instanceNetwork) *ec2types.NetworkInfo {
	info := &ec2types.NetworkInfo{
		MaximumNetworkInterfaces: aws.Int32(int32(n.maxENIs)), Ipv4AddressesPerInterface: aws.Int32(int32(n.ipv4PerENI)),
		EfaSupported: aws.Bool(n.efas > 0),
	}
	if n.efas > 0 {
		info.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(int32(n.efas))}
	}
	return info
}

func (a *ec2API) DescribeRegions(ctx context.Context, in *ec2.DescribeRegionsInput, _ ...func(*ec2.Options)) (*ec2.DescribeRegionsOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeRegions", func(t *txn) (*ec2.DescribeRegionsOutput, error) {
		out := &ec2.DescribeRegionsOutput{}
		for _, r := range t.w.catalog.regions {
			out.Regions = append(out.Regions, ec2types.Region{RegionName: aws.String(r.Name),
				Endpoint: aws.String("ec2." + r.Name + ".amazonaws.com"), OptInStatus: aws.String("opt-in-not-required")})
		}
		return out, nil
	})
}
