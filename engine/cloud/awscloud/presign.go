package awscloud

import (
	"context"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/cloud"
)

// s3PresignPort serves cloud.S3Presign with the methods of an
// *s3.PresignClient held as method values, as ports_gen.go holds the
// clients' (see portgen): the presign client never enters an interface.
type s3PresignPort struct {
	presignPutObject  func(context.Context, *s3.PutObjectInput, ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error)
	presignUploadPart func(context.Context, *s3.UploadPartInput, ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error)
}

var _ cloud.S3Presign = (*s3PresignPort)(nil)

func newS3PresignPort(c *s3.PresignClient) *s3PresignPort {
	return &s3PresignPort{presignPutObject: c.PresignPutObject, presignUploadPart: c.PresignUploadPart}
}

func (p *s3PresignPort) PresignPutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error) {
	return p.presignPutObject(ctx, in, optFns...)
}

func (p *s3PresignPort) PresignUploadPart(ctx context.Context, in *s3.UploadPartInput, optFns ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error) {
	return p.presignUploadPart(ctx, in, optFns...)
}
