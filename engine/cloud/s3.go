package cloud

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/errs"
)

// HasObjects tells whether bucket holds the object key, or objects under
// it as a folder (a key ending in / always is one).
func HasObjects(ctx context.Context, p *Provider, bucket, key string) (bool, error) {
	out, err := p.S3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(key), MaxKeys: aws.Int32(2)})
	if err != nil {
		return false, errs.FromUpstream(err, fmt.Sprintf("list s3://%s/%s", bucket, key))
	}
	for _, o := range out.Contents {
		k := aws.ToString(o.Key)
		if k == key || strings.HasSuffix(key, "/") || strings.HasPrefix(k, key+"/") {
			return true, nil
		}
	}
	return false, nil
}
