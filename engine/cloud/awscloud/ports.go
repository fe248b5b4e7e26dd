package awscloud

import (
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The SDK clients are the ports. These assertions break the build, rather
// than a run, when an SDK upgrade changes a method the engine relies on.
var (
	_ cloud.SageMaker     = (*sagemaker.Client)(nil)
	_ cloud.EKS           = (*eks.Client)(nil)
	_ cloud.EC2           = (*ec2.Client)(nil)
	_ cloud.IAM           = (*iam.Client)(nil)
	_ cloud.STS           = (*sts.Client)(nil)
	_ cloud.ServiceQuotas = (*servicequotas.Client)(nil)
	_ cloud.S3            = (*s3.Client)(nil)
	_ cloud.FSx           = (*fsx.Client)(nil)
)
