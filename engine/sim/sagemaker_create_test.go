package sim

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/smithy-go"
)

func TestCreateHyperPodClusterValidation(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	validation := new(smithy.APIError)
	cases := []struct {
		name string
		edit func(in *sagemaker.CreateClusterInput)
		want any // nil: success; *smithy.APIError: ValidationException; else the typed error
	}{
		{"valid", func(*sagemaker.CreateClusterInput) {}, nil},
		{"bad name", func(in *sagemaker.CreateClusterInput) { in.ClusterName = aws.String("my_cluster") }, validation},
		{"name with a trailing hyphen", func(in *sagemaker.CreateClusterInput) { in.ClusterName = aws.String("hp-") }, validation},
		{"instance type not offered in the zone", func(in *sagemaker.CreateClusterInput) {
			in.VpcConfig.Subnets = []string{h.net.subnets[1]} // us-west-2d has no p5
		}, validation},
		{"EC2 name instead of SageMaker's", func(in *sagemaker.CreateClusterInput) { in.InstanceGroups[0].InstanceType = "p5.48xlarge" }, validation},
		{"negative count", func(in *sagemaker.CreateClusterInput) { in.InstanceGroups[0].InstanceCount = aws.Int32(-1) }, validation},
		{"unknown execution role", func(in *sagemaker.CreateClusterInput) {
			in.InstanceGroups[0].ExecutionRole = aws.String("arn:aws:iam::123456789012:role/nope")
		}, validation},
		{"unknown EKS cluster", func(in *sagemaker.CreateClusterInput) {
			in.Orchestrator.Eks.ClusterArn = aws.String("arn:aws:eks:us-west-2:123456789012:cluster/nope")
		}, validation},
		{"unknown subnet", func(in *sagemaker.CreateClusterInput) { in.VpcConfig.Subnets = []string{"subnet-00000000000000000"} }, validation},
		{"unknown security group", func(in *sagemaker.CreateClusterInput) {
			in.VpcConfig.SecurityGroupIds = []string{"sg-00000000000000000"}
		}, validation},
		{"bad node recovery", func(in *sagemaker.CreateClusterInput) { in.NodeRecovery = "Sometimes" }, validation},
		{"bad lifecycle bucket", func(in *sagemaker.CreateClusterInput) {
			in.InstanceGroups[0].LifeCycleConfig.SourceS3Uri = aws.String("s3://my-bucket/eks")
		}, validation},
		{"type and requirements", func(in *sagemaker.CreateClusterInput) {
			in.InstanceGroups[0].InstanceRequirements = &smtypes.ClusterInstanceRequirements{InstanceTypes: []smtypes.ClusterInstanceType{"ml.g5.xlarge"}}
		}, validation},
		{"over the quota", func(in *sagemaker.CreateClusterInput) { in.InstanceGroups[0].InstanceCount = aws.Int32(5) }, new(*smtypes.ResourceLimitExceeded)},
		{"no instance count", func(in *sagemaker.CreateClusterInput) { in.InstanceGroups[0].InstanceCount = nil }, new(*smithy.InvalidParamsError)},
	}
	for i, c := range cases {
		in := h.input("hp"+string(rune('a'+i)), "ml.p5.48xlarge", 2, 0)
		c.edit(in)
		_, err := f.p.SageMaker.CreateCluster(f.ctx, in)
		switch {
		case c.want == nil:
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		case c.want == validation:
			if code := errorCode(t, err); code != "ValidationException" {
				t.Errorf("%s: code %q, want ValidationException (%v)", c.name, code, err)
			}
		case !errors.As(err, c.want):
			t.Errorf("%s: err = %v, want %T", c.name, err, c.want)
		}
	}
	var inUse *smtypes.ResourceInUse
	if _, err := f.p.SageMaker.CreateCluster(f.ctx, h.input("hpa", "ml.g5.xlarge", 1, 0)); !errors.As(err, &inUse) {
		t.Errorf("duplicate name: %v", err)
	}
}

func TestFlexibleInstanceGroupPicksAnOfferedType(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	in := h.input("flex", "", 0, 1) // us-west-2d: trn2 and p4d, no p5
	in.InstanceGroups = []smtypes.ClusterInstanceGroupSpecification{{
		InstanceGroupName: aws.String("flex"), InstanceCount: aws.Int32(1), ExecutionRole: aws.String(h.role),
		InstanceRequirements: &smtypes.ClusterInstanceRequirements{InstanceTypes: []smtypes.ClusterInstanceType{"ml.p5.48xlarge", "ml.trn2.48xlarge"}},
	}}
	ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(t)
	g := f.hpStatus("flex").InstanceGroups[0]
	if len(g.InstanceTypeDetails) != 1 || g.InstanceTypeDetails[0].InstanceType != "ml.trn2.48xlarge" {
		t.Errorf("flexible group runs %+v", g.InstanceTypeDetails)
	}
}
