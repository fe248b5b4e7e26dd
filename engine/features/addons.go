package features

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// The inference operator's add-on and the service account its controller
// runs as, which its execution role trusts.
const (
	inferenceAddon          = "amazon-sagemaker-hyperpod-inference"
	inferenceNamespace      = "hyperpod-inference-system"
	inferenceServiceAccount = "hyperpod-inference-operator-controller-manager"
)

// The observability add-on and its metrics collector's identity.
const (
	observabilityAddon          = "amazon-sagemaker-hyperpod-observability"
	observabilityNamespace      = "hyperpod-observability"
	observabilityServiceAccount = "hyperpod-observability-operator-otel-collector"
	prometheusWritePolicy       = "arn:aws:iam::aws:policy/AmazonPrometheusRemoteWriteAccess"
	prometheusQueryPolicy       = "arn:aws:iam::aws:policy/AmazonPrometheusQueryAccess"
	// kedaOperatorServiceAccount is the service account KEDA's chart runs
	// its operator as; the ScaledObjects' AWS triggers use its identity.
	kedaOperatorServiceAccount = "keda-operator"
)

// The Mountpoint for S3 CSI driver's add-on and its controller's service
// account.
const (
	s3CSIAddon          = "aws-mountpoint-s3-csi-driver"
	fsxCSIAddon         = "aws-fsx-csi-driver"
	s3CSINamespace      = "kube-system"
	s3CSIServiceAccount = "s3-csi-driver-sa"
)

// needOIDC refuses a feature whose role trusts the cluster's OIDC provider
// on a cluster that has none.
func needOIDC(e *env, feature, field string) error {
	if e.c.EKS.OIDCProviderArn == "" || e.c.OIDCIssuerHost() == "" {
		return errs.New(errs.Precondition, "cluster %s has no IAM OIDC provider, which the %s role trusts; import the cluster again once its EKS cluster has one", e.c.Name, feature).WithField(field)
	}
	return nil
}

// checkBucketName refuses what is not an S3 bucket name.
func checkBucketName(field, bucket, what string) *errs.Error {
	switch {
	case bucket == "":
		return errs.Field(field, "give the S3 bucket %s (its name, without s3://)", what)
	case cloud.BucketNameProblem(bucket) != "":
		return errs.Field(field, "%q is not an S3 bucket name: %s", bucket, cloud.BucketNameProblem(bucket))
	}
	return nil
}

func checkInferenceOperator(_ context.Context, e *env) error {
	f := "input.inferenceOperator.tlsCertificateBucket"
	if err := checkBucketName(f, e.settings.Bucket, "the operator keeps its endpoints' TLS certificates in"); err != nil {
		return err
	}
	return needOIDC(e, "inference operator", f)
}

// inferencePolicy lets the inference operator keep certificates in its
// bucket, pull model images, register SageMaker endpoints, and front
// endpoints with load balancers and certificates.
func inferencePolicy(e *env) policyDocument {
	b := e.settings.Bucket
	return policyDocument{Version: "2012-10-17", Statement: []statement{
		{Effect: "Allow", Action: []string{"s3:ListBucket", "s3:GetBucketLocation"}, Resource: []string{"arn:aws:s3:::" + b}},
		{Effect: "Allow", Action: []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject"}, Resource: []string{"arn:aws:s3:::" + b + "/*"}},
		{Effect: "Allow", Action: []string{"ecr:GetAuthorizationToken", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"}, Resource: []string{"*"}},
		{Effect: "Allow", Action: []string{"sagemaker:CreateEndpoint", "sagemaker:CreateEndpointConfig", "sagemaker:CreateModel", "sagemaker:DeleteEndpoint",
			"sagemaker:DeleteEndpointConfig", "sagemaker:DeleteModel", "sagemaker:DescribeEndpoint", "sagemaker:DescribeEndpointConfig", "sagemaker:DescribeModel",
			"sagemaker:UpdateEndpoint", "sagemaker:DescribeHubContent", "sagemaker:DescribeClusterNode", "sagemaker:ListClusterNodes"},
			Resource: []string{fmt.Sprintf("arn:aws:sagemaker:%s:%s:*", e.c.Region, e.c.AccountID())}},
		{Effect: "Allow", Action: []string{"elasticloadbalancing:Describe*", "acm:ImportCertificate", "acm:DeleteCertificate", "acm:DescribeCertificate",
			"cloudwatch:PutMetricData", "logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"}, Resource: []string{"*"}},
	}}
}

var workspacePattern = regexp.MustCompile(`^arn:aws[a-z-]*:aps:([a-z0-9-]+):(\d{12}):workspace/(ws-[a-zA-Z0-9-]+)$`)

func checkObservability(_ context.Context, e *env) error {
	f, arn := "input.observability.prometheusWorkspaceArn", e.settings.WorkspaceArn
	m := workspacePattern.FindStringSubmatch(arn)
	switch {
	case arn == "":
		return errs.Field(f, "give the ARN of the Amazon Managed Service for Prometheus workspace the metrics go to (arn:aws:aps:<region>:<account>:workspace/ws-...); create one with aws amp create-workspace")
	case m == nil:
		return errs.Field(f, "%q is not an Amazon Managed Service for Prometheus workspace ARN (arn:aws:aps:<region>:<account>:workspace/ws-...)", arn)
	case m[1] != e.c.Region:
		return errs.Field(f, "workspace %s is in %s; use a workspace in the cluster's region %s", m[3], m[1], e.c.Region)
	}
	return nil
}

// observabilityValues configure the add-on to write to the workspace arn.
func observabilityValues(arn string) map[string]any {
	endpoint := ""
	if m := workspacePattern.FindStringSubmatch(arn); m != nil {
		endpoint = fmt.Sprintf("https://aps-workspaces.%s.amazonaws.com/workspaces/%s", m[1], m[3])
	}
	return map[string]any{"ampWorkspace": map[string]any{"prometheusEndpoint": endpoint, "arn": arn}}
}

func checkS3CSIDriver(_ context.Context, e *env) error {
	f := "input.s3CsiDriver.buckets"
	var bad errs.List
	if len(e.settings.Buckets) == 0 {
		bad = append(bad, errs.Field(f, "name the S3 buckets pods may mount (their names, without s3://)"))
	}
	for i, b := range e.settings.Buckets {
		field := fmt.Sprintf("%s[%d]", f, i)
		if err := checkBucketName(field, b, "to mount"); err != nil {
			bad = append(bad, err)
		} else if slices.Index(e.settings.Buckets, b) != i {
			bad = append(bad, errs.Field(field, "bucket %s is named twice", b))
		}
	}
	if len(bad) > 0 {
		return bad
	}
	return needOIDC(e, "S3 CSI driver", f)
}

// mountPolicy lets the driver list, read and write the buckets.
func mountPolicy(buckets []string) policyDocument {
	var whole, objects []string
	for _, b := range buckets {
		whole = append(whole, "arn:aws:s3:::"+b)
		objects = append(objects, "arn:aws:s3:::"+b+"/*")
	}
	return policyDocument{Version: "2012-10-17", Statement: []statement{
		{Effect: "Allow", Action: []string{"s3:ListBucket"}, Resource: whole},
		{Effect: "Allow", Action: []string{"s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"}, Resource: objects},
	}}
}
