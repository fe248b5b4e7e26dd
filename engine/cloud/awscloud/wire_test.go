package awscloud

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	sagemakertypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/smithy-go"
)

// These tests drive the real SDK clients that Provider hands out against a
// loopback server, to pin down the wire protocol each port speaks.

const sageMakerClusterArn = "arn:aws:sagemaker:us-west-2:123456789012:cluster/abcd1234efgh"

func TestSageMakerDescribeClusterOnTheWire(t *testing.T) {
	isolateAWSEnv(t)
	srv, seen := fakeAWS(t, http.StatusOK, "application/x-amz-json-1.1",
		`{"ClusterName":"demo","ClusterStatus":"InService","ClusterArn":"`+sageMakerClusterArn+`"}`)
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}

	out, err := p.SageMaker.DescribeCluster(context.Background(), &sagemaker.DescribeClusterInput{ClusterName: aws.String("demo")})
	if err != nil {
		t.Fatalf("DescribeCluster: %v", err)
	}

	req := lastRequest(t, seen)
	assertAWSJSONRequest(t, req, "SageMaker.DescribeCluster", map[string]any{"ClusterName": "demo"})
	if got := aws.ToString(out.ClusterName); got != "demo" {
		t.Errorf("ClusterName = %q; want demo", got)
	}
	if out.ClusterStatus != sagemakertypes.ClusterStatusInservice {
		t.Errorf("ClusterStatus = %q; want InService", out.ClusterStatus)
	}
	if got := aws.ToString(out.ClusterArn); got != sageMakerClusterArn {
		t.Errorf("ClusterArn = %q; want %s", got, sageMakerClusterArn)
	}
}

func TestSageMakerErrorCodeOnTheWire(t *testing.T) {
	isolateAWSEnv(t)
	srv, seen := fakeAWS(t, http.StatusBadRequest, "application/x-amz-json-1.1",
		`{"__type":"ResourceNotFound","message":"Cluster demo not found"}`)
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}

	_, err = p.SageMaker.DescribeCluster(context.Background(), &sagemaker.DescribeClusterInput{ClusterName: aws.String("demo")})

	assertAWSJSONRequest(t, lastRequest(t, seen), "SageMaker.DescribeCluster", map[string]any{"ClusterName": "demo"})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("DescribeCluster error = %v (%T); want a smithy.APIError", err, err)
	}
	if apiErr.ErrorCode() != "ResourceNotFound" {
		t.Errorf("ErrorCode() = %q; want ResourceNotFound", apiErr.ErrorCode())
	}
	if !strings.Contains(apiErr.ErrorMessage(), "Cluster demo not found") {
		t.Errorf("ErrorMessage() = %q; want the service's message", apiErr.ErrorMessage())
	}
	var notFound *sagemakertypes.ResourceNotFound
	if !errors.As(err, &notFound) {
		t.Errorf("DescribeCluster error = %T; want it to wrap *types.ResourceNotFound", err)
	}
}

func TestEKSDescribeClusterOnTheWire(t *testing.T) {
	isolateAWSEnv(t)
	const arn = "arn:aws:eks:us-west-2:123456789012:cluster/demo"
	srv, seen := fakeAWS(t, http.StatusOK, "application/json",
		`{"cluster":{"name":"demo","status":"ACTIVE","arn":"`+arn+`"}}`)
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}

	out, err := p.EKS.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String("demo")})
	if err != nil {
		t.Fatalf("DescribeCluster: %v", err)
	}

	req := lastRequest(t, seen)
	if req.method != http.MethodGet || req.path != "/clusters/demo" {
		t.Errorf("request = %s %s; want GET /clusters/demo", req.method, req.path)
	}
	assertSigned(t, req, "eks")
	if out.Cluster == nil {
		t.Fatal("Cluster is nil")
	}
	if got := aws.ToString(out.Cluster.Name); got != "demo" {
		t.Errorf("Cluster.Name = %q; want demo", got)
	}
	if out.Cluster.Status != ekstypes.ClusterStatusActive {
		t.Errorf("Cluster.Status = %q; want ACTIVE", out.Cluster.Status)
	}
	if got := aws.ToString(out.Cluster.Arn); got != arn {
		t.Errorf("Cluster.Arn = %q; want %s", got, arn)
	}
}

// TestEndpointFromEnvironment checks that, with no BaseEndpoint option, the
// standard AWS_ENDPOINT_URL_<SERVICE> variable points a client elsewhere.
func TestEndpointFromEnvironment(t *testing.T) {
	isolateAWSEnv(t)
	srv, seen := fakeAWS(t, http.StatusOK, "application/x-amz-json-1.1",
		`{"ClusterName":"demo","ClusterStatus":"Creating","ClusterArn":"`+sageMakerClusterArn+`"}`)
	t.Setenv("AWS_ENDPOINT_URL_SAGEMAKER", srv.URL)
	t.Setenv("AWS_REGION", "eu-west-1")
	r, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Provider(r.DefaultRegion())
	if err != nil {
		t.Fatal(err)
	}

	out, err := p.SageMaker.DescribeCluster(context.Background(), &sagemaker.DescribeClusterInput{ClusterName: aws.String("demo")})
	if err != nil {
		t.Fatalf("DescribeCluster: %v", err)
	}

	assertAWSJSONRequest(t, lastRequest(t, seen), "SageMaker.DescribeCluster", map[string]any{"ClusterName": "demo"})
	if out.ClusterStatus != sagemakertypes.ClusterStatusCreating {
		t.Errorf("ClusterStatus = %q; want Creating", out.ClusterStatus)
	}
}

// assertAWSJSONRequest checks an awsJson1_1 call: POST /, the operation in
// X-Amz-Target, the input as a JSON body, and a SigV4 signature.
func assertAWSJSONRequest(t *testing.T, req seenRequest, target string, wantBody map[string]any) {
	t.Helper()
	if req.method != http.MethodPost || req.path != "/" {
		t.Errorf("request = %s %s; want POST /", req.method, req.path)
	}
	if req.target != target {
		t.Errorf("X-Amz-Target = %q; want %q", req.target, target)
	}
	var body map[string]any
	if err := json.Unmarshal(req.body, &body); err != nil {
		t.Fatalf("request body %q is not JSON: %v", req.body, err)
	}
	if !reflect.DeepEqual(body, wantBody) {
		t.Errorf("request body = %s; want %v", req.body, wantBody)
	}
	assertSigned(t, req, "sagemaker")
}

// assertSigned checks that the request carries a SigV4 signature made with
// the test credentials for service in the test's region.
func assertSigned(t *testing.T, req seenRequest, service string) {
	t.Helper()
	want := "AWS4-HMAC-SHA256 Credential=AKIDTESTTESTTEST/"
	if !strings.HasPrefix(req.authorization, want) || !strings.Contains(req.authorization, "/"+service+"/aws4_request") {
		t.Errorf("Authorization = %q; want a SigV4 signature for %s with the test key", req.authorization, service)
	}
}
