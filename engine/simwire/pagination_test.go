package simwire

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/aws/smithy-go"
)

// TestPaginationTokensPassThrough pages Service Quotas one at a time
// through the wire and directly, and wants the same pages and tokens.
func TestPaginationTokensPassThrough(t *testing.T) {
	ctx := context.Background()
	wireWorld, directWorld := newWorld(t), newWorld(t)
	sq := servicequotas.NewFromConfig(startWire(t, wireWorld))
	direct, err := directWorld.Provider(directWorld.DefaultRegion())
	if err != nil {
		t.Fatal(err)
	}
	var wireToken, directToken *string
	for page := 0; ; page++ {
		in := func(tok *string) *servicequotas.ListServiceQuotasInput {
			return &servicequotas.ListServiceQuotasInput{ServiceCode: aws.String("sagemaker"), MaxResults: aws.Int32(1), NextToken: tok}
		}
		got, err := sq.ListServiceQuotas(ctx, in(wireToken))
		if err != nil {
			t.Fatalf("page %d over the wire: %v", page, err)
		}
		want, err := direct.ServiceQuotas.ListServiceQuotas(ctx, in(directToken))
		if err != nil {
			t.Fatalf("page %d directly: %v", page, err)
		}
		if !reflect.DeepEqual(withoutMetadata(got), withoutMetadata(want)) {
			t.Fatalf("page %d differs:\n wire   %+v\n direct %+v", page, got, want)
		}
		wireToken, directToken = got.NextToken, want.NextToken
		if wireToken == nil {
			if page == 0 {
				t.Fatal("one quota a page gave a single page: the test pages nothing")
			}
			return
		}
		if page > 1000 {
			t.Fatal("pagination does not end")
		}
	}
}

// TestErrorCodesMatch sends calls the simulator refuses and wants the
// same error code and type on the client as directly.
func TestErrorCodesMatch(t *testing.T) {
	ctx := context.Background()
	wireWorld, directWorld := newWorld(t), newWorld(t)
	sm := sagemaker.NewFromConfig(startWire(t, wireWorld))
	direct, err := directWorld.Provider(directWorld.DefaultRegion())
	if err != nil {
		t.Fatal(err)
	}
	create := &sagemaker.CreateClusterInput{
		ClusterName:  aws.String("hp"),
		Orchestrator: &smtypes.ClusterOrchestrator{Eks: &smtypes.ClusterOrchestratorEksConfig{ClusterArn: aws.String("arn:aws:eks:us-west-2:123456789012:cluster/none")}},
		InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{{
			InstanceGroupName: aws.String("g"), InstanceType: smtypes.ClusterInstanceTypeMlP548xlarge, InstanceCount: aws.Int32(1),
			ExecutionRole: aws.String("arn:aws:iam::123456789012:role/none"),
		}},
	}
	cases := []struct {
		name   string
		wire   func() error
		direct func() error
	}{
		{"DescribeCluster of a missing cluster",
			func() error {
				_, err := sm.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String("nope")})
				return err
			},
			func() error {
				_, err := direct.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String("nope")})
				return err
			}},
		{"DeleteCluster of a missing cluster",
			func() error {
				_, err := sm.DeleteCluster(ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("nope")})
				return err
			},
			func() error {
				_, err := direct.SageMaker.DeleteCluster(ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("nope")})
				return err
			}},
		{"CreateCluster on a missing EKS cluster",
			func() error { _, err := sm.CreateCluster(ctx, create); return err },
			func() error { _, err := direct.SageMaker.CreateCluster(ctx, create); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gotErr, wantErr := c.wire(), c.direct()
			var got, want smithy.APIError
			if !errors.As(wantErr, &want) {
				t.Fatalf("the direct call must fail with an API error, got %v", wantErr)
			}
			if !errors.As(gotErr, &got) {
				t.Fatalf("wire error %v is no API error", gotErr)
			}
			if got.ErrorCode() != want.ErrorCode() || got.ErrorMessage() != want.ErrorMessage() {
				t.Errorf("wire %s %q, direct %s %q", got.ErrorCode(), got.ErrorMessage(), want.ErrorCode(), want.ErrorMessage())
			}
			if reflect.TypeOf(got) != reflect.TypeOf(want) {
				t.Errorf("wire error type %T, direct %T", got, want)
			}
		})
	}
}
