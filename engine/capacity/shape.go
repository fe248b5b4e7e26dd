package capacity

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// Shape is what one instance of a type has, as EC2 describes it.
type Shape struct {
	// Accelerators is NVIDIA GPUs, or Neuron devices when Neuron.
	Accelerators int
	// Neuron marks a Trainium (or Inferentia) type.
	Neuron    bool
	EFA       int
	VCPUs     int
	MemoryGiB int
}

// InstanceShape reads what one instance of instanceType (a SageMaker name,
// ml.p5.48xlarge) has: accelerators, EFA interfaces, vCPUs and memory.
// field names the request field a type EC2 does not know is blamed on.
func InstanceShape(ctx context.Context, p *cloud.Provider, instanceType, field string) (Shape, error) {
	ec2Type := strings.TrimPrefix(instanceType, "ml.")
	out, err := p.EC2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{ec2types.InstanceType(ec2Type)}})
	if err != nil {
		return Shape{}, errs.FromUpstream(err, "describe instance type "+ec2Type)
	}
	if len(out.InstanceTypes) == 0 {
		return Shape{}, errs.New(errs.Precondition, "EC2 does not describe instance type %s in this region", ec2Type).WithField(field)
	}
	info := out.InstanceTypes[0]
	var sh Shape
	if info.VCpuInfo != nil {
		sh.VCPUs = int(aws.ToInt32(info.VCpuInfo.DefaultVCpus))
	}
	if info.MemoryInfo != nil {
		sh.MemoryGiB = int(aws.ToInt64(info.MemoryInfo.SizeInMiB) / 1024)
	}
	switch {
	case info.GpuInfo != nil && len(info.GpuInfo.Gpus) > 0:
		for _, g := range info.GpuInfo.Gpus {
			sh.Accelerators += int(aws.ToInt32(g.Count))
		}
	case info.NeuronInfo != nil && len(info.NeuronInfo.NeuronDevices) > 0:
		sh.Neuron = true
		for _, d := range info.NeuronInfo.NeuronDevices {
			sh.Accelerators += int(aws.ToInt32(d.Count))
		}
	}
	if info.NetworkInfo != nil && info.NetworkInfo.EfaSupported != nil && *info.NetworkInfo.EfaSupported && info.NetworkInfo.EfaInfo != nil {
		sh.EFA = int(aws.ToInt32(info.NetworkInfo.EfaInfo.MaximumEfaInterfaces))
	}
	return sh, nil
}
