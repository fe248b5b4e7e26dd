package awscloud

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
)

func TestNewDefaultRegion(t *testing.T) {
	tests := []struct {
		name      string
		option    string
		envRegion string
		want      string
		wantErr   string
	}{
		{name: "from the option", option: "eu-west-1", want: "eu-west-1"},
		{name: "from AWS_REGION", envRegion: "us-west-2", want: "us-west-2"},
		{name: "the option wins over AWS_REGION", option: "eu-west-1", envRegion: "us-west-2", want: "eu-west-1"},
		{name: "GovCloud", option: "us-gov-west-1", want: "us-gov-west-1"},
		{name: "none anywhere", wantErr: "set --region or AWS_REGION"},
		{name: "a malformed option", option: "Frankfurt", wantErr: `unknown AWS region "Frankfurt"`},
		{name: "a malformed AWS_REGION", envRegion: "us_east_1", wantErr: `unknown AWS region "us_east_1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateAWSEnv(t)
			t.Setenv("AWS_REGION", tt.envRegion)
			r, err := New(context.Background(), Options{DefaultRegion: tt.option})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New = %v, %v; want error containing %q", r, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := r.DefaultRegion(); got != tt.want {
				t.Fatalf("DefaultRegion() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestProviderIsCachedPerRegion(t *testing.T) {
	isolateAWSEnv(t)
	srv, seen := fakeAWS(t, http.StatusBadRequest, "application/x-amz-json-1.1",
		`{"__type":"ValidationException","message":"no such cluster"}`)
	r := newTestRegions(t, srv.URL)

	west, err := r.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if west != again {
		t.Error("Provider(us-west-2) built a second provider; want the cached one")
	}
	east, err := r.Provider("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if east == west {
		t.Fatal("Provider(us-east-1) returned the us-west-2 provider")
	}

	for _, tt := range []struct {
		region string
		p      *cloud.Provider
	}{{"us-west-2", west}, {"us-east-1", east}} {
		if tt.p.Name != "aws" || tt.p.Region != tt.region {
			t.Errorf("provider = {Name: %q, Region: %q}; want {aws, %s}", tt.p.Name, tt.p.Region, tt.region)
		}
		if tt.p.SageMaker == nil || tt.p.EKS == nil || tt.p.EC2 == nil || tt.p.IAM == nil || tt.p.STS == nil || tt.p.ServiceQuotas == nil {
			t.Errorf("provider for %s has a nil port: %+v", tt.region, tt.p)
		}
		// The region a port's calls are signed for is its client's.
		_, err := tt.p.SageMaker.DescribeCluster(context.Background(), &sagemaker.DescribeClusterInput{ClusterName: aws.String("c")})
		if apiErr, ok := errors.AsType[smithy.APIError](err); !ok || apiErr.ErrorCode() != "ValidationException" {
			t.Fatalf("DescribeCluster = %v; want the fake endpoint's ValidationException", err)
		}
		req := lastRequest(t, seen)
		if scope := "/" + tt.region + "/sagemaker/aws4_request"; !strings.Contains(req.authorization, scope) {
			t.Errorf("SageMaker call of the %s provider signed as %q; want the scope %s", tt.region, req.authorization, scope)
		}
	}
}

func TestProviderConcurrentCallsShareOneProvider(t *testing.T) {
	isolateAWSEnv(t)
	r := newTestRegions(t, "http://127.0.0.1:1")
	const callers = 16
	got := make([]*cloud.Provider, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			p, err := r.Provider("ap-northeast-1")
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		})
	}
	wg.Wait()
	for i := 1; i < callers; i++ {
		if got[i] != got[0] {
			t.Fatalf("caller %d got a different provider than caller 0", i)
		}
	}
}

func TestProviderRejectsBadRegions(t *testing.T) {
	isolateAWSEnv(t)
	r := newTestRegions(t, "http://127.0.0.1:1")
	tests := []struct {
		region  string
		wantErr string
	}{
		{region: "", wantErr: "no AWS region given; name a region such as us-east-1"},
		{region: "mars", wantErr: `unknown AWS region "mars"`},
		{region: "US-EAST-1", wantErr: `unknown AWS region "US-EAST-1"`},
		{region: "us-east-1a", wantErr: `unknown AWS region "us-east-1a"`},
		{region: " us-east-1", wantErr: `unknown AWS region " us-east-1"`},
		{region: "us-east-1.evil.example", wantErr: "unknown AWS region"},
	}
	for _, tt := range tests {
		t.Run(tt.region, func(t *testing.T) {
			p, err := r.Provider(tt.region)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Provider(%q) = %v, %v; want error containing %q", tt.region, p, err, tt.wantErr)
			}
		})
	}
}
