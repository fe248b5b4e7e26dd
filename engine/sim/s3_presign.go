package sim

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/cloud"
)

// errNoWireEndpoint is the presigner's answer while the world's AWS
// services are not served on the wire: a presigned URL would point
// nowhere.
var errNoWireEndpoint = fmt.Errorf("%w: the simulator's AWS endpoint is not listening, start the server with --sim-aws-listen 127.0.0.1:<port>", cloud.ErrNoPresignEndpoint)

// SetWireEndpoint says where the world's AWS services are served on the
// wire (http://host:port, see package simwire); "" says nowhere. Presigned
// S3 URLs point there, addressing buckets by path.
func (w *World) SetWireEndpoint(url string) { w.wireEndpoint.Store(&url) }

// WireEndpoint is what SetWireEndpoint last set.
func (w *World) WireEndpoint() string {
	if p := w.wireEndpoint.Load(); p != nil {
		return *p
	}
	return ""
}

// s3PresignAPI presigns with the SDK's own presign client, pointed at the
// world's wire endpoint: the URLs are S3's, query-string signed, and
// expire as S3's do.
type s3PresignAPI struct {
	w      *World
	region string
}

var _ cloud.S3Presign = (*s3PresignAPI)(nil)

func (a *s3PresignAPI) client() (*s3.PresignClient, error) {
	endpoint := a.w.WireEndpoint()
	if endpoint == "" {
		return nil, errNoWireEndpoint
	}
	c := s3.New(s3.Options{
		Region:       a.region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("ASIASIMULATOR", "simulator", ""),
	})
	return s3.NewPresignClient(c), nil
}

func (a *s3PresignAPI) PresignPutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error) {
	c, err := a.client()
	if err != nil {
		return nil, err
	}
	return c.PresignPutObject(ctx, in, opts...)
}

func (a *s3PresignAPI) PresignUploadPart(ctx context.Context, in *s3.UploadPartInput, opts ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error) {
	c, err := a.client()
	if err != nil {
		return nil, err
	}
	return c.PresignUploadPart(ctx, in, opts...)
}
