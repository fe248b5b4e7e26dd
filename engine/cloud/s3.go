package cloud

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/errs"
)

// HasObjects tells whether bucket holds the object key, or objects under
// it as a folder (a key ending in / always is one). Each question is one
// key long: key itself sorts first among the keys it prefixes, and the
// folder's first object first under key+"/", whatever siblings such as
// key-old/ hold.
func HasObjects(ctx context.Context, p *Provider, bucket, key string) (bool, error) {
	prefixes := []string{key}
	if !strings.HasSuffix(key, "/") {
		prefixes = append(prefixes, key+"/")
	}
	for i, prefix := range prefixes {
		out, err := p.S3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix), MaxKeys: aws.Int32(1)})
		if err != nil {
			return false, errs.FromUpstream(err, fmt.Sprintf("list s3://%s/%s", bucket, prefix))
		}
		for _, o := range out.Contents {
			// The first answer holds key itself, or a sibling that only
			// shares its start; the folder's holds what is under it.
			if k := aws.ToString(o.Key); k == key || i == len(prefixes)-1 {
				return true, nil
			}
		}
	}
	return false, nil
}

// ErrNoPresignEndpoint is an S3Presign's answer when the URLs it would
// sign have nowhere to point (a simulator whose S3 is not served).
var ErrNoPresignEndpoint = errors.New("no S3 endpoint to presign for")
