package simwire

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/aws/smithy-go/middleware"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/sim"
)

func newWorld(t *testing.T) *sim.World {
	t.Helper()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w, err := sim.New(sim.Options{Seed: 1, Clock: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func startWire(t *testing.T, w *sim.World) aws.Config {
	t.Helper()
	srv := httptest.NewServer(&Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
	t.Cleanup(srv.Close)
	return aws.Config{
		Region:       w.DefaultRegion(),
		Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		BaseEndpoint: aws.String(srv.URL),
		// The SDK's standard retryer stays on, as a real client has it: it
		// retries a connection net/http closed under a read (net.ErrClosed).
	}
}

// withoutMetadata clears ResultMetadata so outputs compare by content.
func withoutMetadata(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		if f := rv.Elem().FieldByName("ResultMetadata"); f.IsValid() {
			f.Set(reflect.ValueOf(middleware.Metadata{}))
		}
	}
	return v
}

// TestJSONServicesMatchDirectCalls drives each call through the real SDK
// client against one world and directly on the port of another world.
func TestJSONServicesMatchDirectCalls(t *testing.T) {
	ctx := context.Background()
	wireWorld, directWorld := newWorld(t), newWorld(t)
	cfg := startWire(t, wireWorld)
	direct, err := directWorld.Provider(directWorld.DefaultRegion())
	if err != nil {
		t.Fatal(err)
	}
	sm, sq, fx := sagemaker.NewFromConfig(cfg), servicequotas.NewFromConfig(cfg), fsx.NewFromConfig(cfg)

	cases := []struct {
		name   string
		wire   func() (any, error)
		direct func(*cloud.Provider) (any, error)
	}{
		{"sagemaker ListClusters", func() (any, error) { return sm.ListClusters(ctx, &sagemaker.ListClustersInput{}) },
			func(p *cloud.Provider) (any, error) {
				return p.SageMaker.ListClusters(ctx, &sagemaker.ListClustersInput{})
			}},
		{"sagemaker ListTrainingPlans", func() (any, error) { return sm.ListTrainingPlans(ctx, &sagemaker.ListTrainingPlansInput{}) },
			func(p *cloud.Provider) (any, error) {
				return p.SageMaker.ListTrainingPlans(ctx, &sagemaker.ListTrainingPlansInput{})
			}},
		{"sagemaker ListMlflowTrackingServers", func() (any, error) {
			return sm.ListMlflowTrackingServers(ctx, &sagemaker.ListMlflowTrackingServersInput{})
		}, func(p *cloud.Provider) (any, error) {
			return p.SageMaker.ListMlflowTrackingServers(ctx, &sagemaker.ListMlflowTrackingServersInput{})
		}},
		{"servicequotas ListServiceQuotas", func() (any, error) {
			return sq.ListServiceQuotas(ctx, &servicequotas.ListServiceQuotasInput{ServiceCode: aws.String("sagemaker")})
		}, func(p *cloud.Provider) (any, error) {
			return p.ServiceQuotas.ListServiceQuotas(ctx, &servicequotas.ListServiceQuotasInput{ServiceCode: aws.String("sagemaker")})
		}},
		{"fsx DescribeFileSystems", func() (any, error) { return fx.DescribeFileSystems(ctx, &fsx.DescribeFileSystemsInput{}) },
			func(p *cloud.Provider) (any, error) {
				return p.FSx.DescribeFileSystems(ctx, &fsx.DescribeFileSystemsInput{})
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, gotErr := c.wire()
			want, wantErr := c.direct(direct)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("wire error %v, direct error %v", gotErr, wantErr)
			}
			if gotErr != nil {
				return
			}
			if !reflect.DeepEqual(withoutMetadata(got), withoutMetadata(want)) {
				t.Errorf("wire answer differs from the direct one:\n wire   %+v\n direct %+v", got, want)
			}
		})
	}
}

func TestMissingClusterIsTypedOnTheClient(t *testing.T) {
	sm := sagemaker.NewFromConfig(startWire(t, newWorld(t)))
	_, err := sm.DescribeCluster(context.Background(), &sagemaker.DescribeClusterInput{ClusterName: aws.String("nope")})
	var nf *smtypes.ResourceNotFound
	if !errors.As(err, &nf) {
		t.Fatalf("DescribeCluster of a missing cluster: got %T %v, want *types.ResourceNotFound", err, err)
	}
}

func TestMalformedRequestsAre400(t *testing.T) {
	w := newWorld(t)
	srv := httptest.NewServer(&Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
	defer srv.Close()
	auth := "AWS4-HMAC-SHA256 Credential=AKID/20260101/" + w.DefaultRegion() + "/sagemaker/aws4_request, SignedHeaders=host, Signature=x"
	cases := []struct{ name, target, body string }{
		{"not JSON", "SageMaker.ListClusters", "{"},
		{"wrong member type", "SageMaker.DescribeCluster", `{"ClusterName": 5}`},
		{"deep nesting", "SageMaker.ListClusters", strings.Repeat("[", 100) + strings.Repeat("]", 100)},
		{"unknown op", "SageMaker.Nope", "{}"},
		{"wrong prefix", "Other.ListClusters", "{}"},
		{"missing required member", "SageMaker.DescribeCluster", "{}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(c.body))
			req.Header.Set("Authorization", auth)
			req.Header.Set("X-Amz-Target", c.target)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status %d, want 400", resp.StatusCode)
			}
		})
	}
}

func TestListenRefusesNonLoopback(t *testing.T) {
	if _, err := Listen("0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("Listen(0.0.0.0:0) = %v, want a loopback refusal", err)
	}
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}
