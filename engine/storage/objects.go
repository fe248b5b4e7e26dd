package storage

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/errs"
)

// Bounds of a browse of the shared bucket.
const (
	// MaxObjectsPage is the most entries one page holds: what one
	// ListObjectsV2 call returns.
	MaxObjectsPage = 1000
	// maxKeyLength is S3's bound on a key, and so on a prefix or cursor.
	maxKeyLength = 1024
	// delimiter makes folders of the keys.
	delimiter = "/"
	// pastFolder sorts after every key inside a folder: the greatest
	// character there is.
	pastFolder = "\U0010FFFF"
)

// Entry is one object or folder of the shared bucket.
type Entry struct {
	// Key is the object's key, or the folder's prefix (ending in "/").
	Key    string
	Folder bool
	// Size, Modified, ETag and StorageClass describe an object.
	Size         int64
	Modified     *time.Time
	ETag         string
	StorageClass string
}

// ObjectPage is one page of a browse: the objects and folders right under
// a prefix, in key order.
type ObjectPage struct {
	Bucket  string
	Prefix  string
	Entries []Entry
	HasNext bool
}

// Objects lists the objects and folders of the cluster's shared bucket right
// under prefix ("" = the top; a folder's prefix ends with "/"), first at a
// time, after the key or folder after ("" = from the start).
func (s *Service) Objects(ctx context.Context, clusterID, prefix string, first int, after string) (*ObjectPage, error) {
	switch {
	case first < 1 || first > MaxObjectsPage:
		return nil, errs.Field("first", "first must be between 1 and %d, got %d", MaxObjectsPage, first)
	case len(prefix) > maxKeyLength || !utf8.ValidString(prefix):
		return nil, errs.Field("prefix", "a prefix is valid UTF-8 of at most %d bytes, as S3 keys are", maxKeyLength)
	case len(after) > maxKeyLength || !utf8.ValidString(after):
		return nil, errs.Field("after", "after is the key of the last entry of the previous page (pageInfo.endCursor)")
	case after != "" && !strings.HasPrefix(after, prefix):
		return nil, errs.Field("after", "after %q is not under prefix %q: pass pageInfo.endCursor of a page of the same prefix", after, prefix)
	}
	_, p, err := s.clusters.Reach(clusterID, true)
	if err != nil {
		return nil, errs.NotFoundOn(err, "clusterId")
	}
	shared, err := s.SharedStorage(clusterID)
	if err != nil {
		return nil, err
	}
	if shared == nil || shared.Status == Deleted {
		return nil, errs.New(errs.Precondition, "the cluster has no shared bucket; add one with addStorage (kind S3)").WithField("clusterId")
	}
	in := &s3.ListObjectsV2Input{Bucket: aws.String(shared.S3.Bucket), Prefix: aws.String(prefix), Delimiter: aws.String(delimiter), MaxKeys: aws.Int32(int32(first))}
	if after != "" {
		start := after
		if after != prefix && strings.HasSuffix(after, delimiter) {
			start = after + pastFolder // past everything in that folder
		}
		in.StartAfter = aws.String(start)
	}
	out, err := p.S3.ListObjectsV2(ctx, in)
	if err != nil {
		if isBucketMissing(err) {
			return nil, errs.New(errs.Precondition, "the shared bucket %s no longer exists; remove the storage and add it again", shared.S3.Bucket)
		}
		return nil, errs.FromUpstream(err, "list bucket "+shared.S3.Bucket)
	}
	page := &ObjectPage{Bucket: shared.S3.Bucket, Prefix: prefix, HasNext: aws.ToBool(out.IsTruncated)}
	for _, o := range out.Contents {
		page.Entries = append(page.Entries, Entry{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), Modified: o.LastModified,
			ETag: strings.Trim(aws.ToString(o.ETag), `"`), StorageClass: string(o.StorageClass)})
	}
	for _, cp := range out.CommonPrefixes {
		page.Entries = append(page.Entries, Entry{Key: aws.ToString(cp.Prefix), Folder: true})
	}
	slices.SortFunc(page.Entries, func(a, b Entry) int { return cmp.Compare(a.Key, b.Key) })
	return page, nil
}
