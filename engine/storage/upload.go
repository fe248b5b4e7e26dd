package storage

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// Uploads put data into the shared bucket without other tools: the engine
// signs S3 URLs (presigned, short-lived) and a browser or script sends the
// bytes straight to S3, never through the control plane. Only datasets/
// and code/ take uploads; models/, checkpoints/ and outputs/ are written
// by the cluster. A large file goes by parts (a multipart upload) so that
// a broken upload resumes: UploadedParts says which parts S3 holds, and
// only the rest are sent again.
//
// Signing and the multipart calls answer at once, as S3 does: they are
// not staged operations. What they change (an upload in progress, an
// object) is S3's to keep, and each call is safe to repeat: a part sent
// twice replaces itself, and a completed or aborted upload answers
// NoSuchUpload, which says so.

// CodePrefix is where a person's code goes in the shared bucket.
const CodePrefix = "code/"

// UploadPrefixes are the folders that take uploads.
var UploadPrefixes = []string{DatasetsPrefix, CodePrefix}

// Bounds of uploads.
const (
	// UploadURLExpiry is how long a signed URL works.
	UploadURLExpiry = 15 * time.Minute
	// MaxUploadKeys is the most keys one request signs.
	MaxUploadKeys = 1000
	// MaxParts is S3's most parts of a multipart upload; part numbers are
	// 1 to MaxParts.
	MaxParts = 10000
	// MinPartSize is S3's least size of a part but the last.
	MinPartSize = 5 << 20
	// maxUploadIDLength bounds an upload id S3 gave (S3's are a few
	// hundred characters).
	maxUploadIDLength = 1024
)

// CheckUploadKey refuses, at field, a key that is not a plain path under
// datasets/ or code/: an empty segment (a leading /, //, a trailing /), a
// . or .. segment, a backslash, a control character, invalid UTF-8, or
// more than 1024 bytes.
func CheckUploadKey(field, key string) error {
	bad := func(why string) error {
		return errs.Field(field, "key %q %s", errs.Clip(key), why)
	}
	switch {
	case key == "":
		return errs.Field(field, "a key is needed: datasets/<path> or code/<path>")
	case len(key) > maxKeyLength:
		return bad(fmt.Sprintf("is %d bytes; an S3 key is at most %d", len(key), maxKeyLength))
	case !utf8.ValidString(key):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(key, '\\'):
		return bad("holds a backslash: separate folders with /")
	case strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }):
		return bad("holds a control character")
	}
	under := ""
	for _, p := range UploadPrefixes {
		if strings.HasPrefix(key, p) {
			under = p
		}
	}
	if under == "" {
		return bad(fmt.Sprintf("is not under %s: uploads go to datasets/ or code/ only (models/, checkpoints/ and outputs/ are written by the cluster)", strings.Join(UploadPrefixes, " or ")))
	}
	for _, seg := range strings.Split(key[len(under):], "/") {
		switch seg {
		case "":
			return bad("has an empty path segment (a leading, doubled or trailing /): name a file, as datasets/<folder>/<file>")
		case ".", "..":
			return bad(fmt.Sprintf("has a %q segment: name the file by its plain path", seg))
		}
	}
	return nil
}

// UploadURL is a signed PUT of one object.
type UploadURL struct {
	Key       string
	URL       string
	ExpiresAt time.Time
}

// PartURL is a signed PUT of one part of a multipart upload.
type PartURL struct {
	PartNumber int
	URL        string
	ExpiresAt  time.Time
}

// UploadedPart is a part S3 holds of an upload in progress.
type UploadedPart struct {
	PartNumber int
	ETag       string
	Size       int64
}

// CompletedPart names a part to assemble: its number and the ETag its PUT
// answered.
type CompletedPart struct {
	PartNumber int
	ETag       string
}

// uploadBucket is the cluster's shared bucket, ready to take uploads, and
// the ports that reach it.
func (s *Service) uploadBucket(clusterID string) (*cloud.Provider, string, error) {
	_, p, err := s.clusters.Reach(clusterID, true)
	if err != nil {
		return nil, "", errs.NotFoundOn(err, "clusterId")
	}
	shared, err := s.SharedStorage(clusterID)
	if err != nil {
		return nil, "", err
	}
	switch {
	case shared == nil || shared.Status == Deleted:
		return nil, "", errs.New(errs.Precondition, "the cluster has no shared bucket to upload to; add one with addStorage (kind S3) first").WithField("clusterId")
	case shared.Status != Available:
		return nil, "", errs.New(errs.Precondition, "the shared bucket %s is %s, not AVAILABLE: follow its addStorage (or removeStorage) operation, then upload", shared.S3.Bucket, shared.Status).WithField("clusterId")
	}
	return p, shared.S3.Bucket, nil
}

// presignError maps a presigner's error.
func presignError(err error, bucket string) error {
	if errors.Is(err, cloud.ErrNoPresignEndpoint) {
		return errs.New(errs.Precondition, "cannot sign an upload URL: %v", err)
	}
	return errs.FromUpstream(err, "sign an upload to bucket "+bucket)
}

// multipartError maps S3's answer to a multipart call.
func multipartError(err error, bucket, action string) error {
	if errs.IsAPICode(err, "NoSuchUpload") {
		return errs.New(errs.NotFound, "no upload in progress with that uploadId for that key: it was completed or aborted, or never started; start another with createMultipartUpload").WithField("uploadId")
	}
	if isBucketMissing(err) {
		return errs.New(errs.Precondition, "the shared bucket %s no longer exists; remove the storage and add it again", bucket)
	}
	return errs.FromUpstream(err, action+" in bucket "+bucket)
}

// UploadURLs signs a PUT for each key, under datasets/ or code/ of the
// cluster's shared bucket, valid for UploadURLExpiry.
func (s *Service) UploadURLs(ctx context.Context, clusterID string, keys []string) ([]UploadURL, error) {
	if len(keys) == 0 || len(keys) > MaxUploadKeys {
		return nil, errs.Field("keys", "name 1 to %d keys, not %d", MaxUploadKeys, len(keys))
	}
	for i, k := range keys {
		if err := CheckUploadKey(fmt.Sprintf("keys[%d]", i), k); err != nil {
			return nil, err
		}
	}
	p, bucket, err := s.uploadBucket(clusterID)
	if err != nil {
		return nil, err
	}
	out := make([]UploadURL, 0, len(keys))
	for _, k := range keys {
		req, err := p.S3Presign.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)}, s3.WithPresignExpires(UploadURLExpiry))
		if err != nil {
			return nil, presignError(err, bucket)
		}
		out = append(out, UploadURL{Key: k, URL: req.URL, ExpiresAt: expiresAt(req.URL)})
	}
	return out, nil
}

// expiresAt is when a presigned URL stops working: its X-Amz-Date plus
// its X-Amz-Expires.
func expiresAt(raw string) time.Time {
	u, err := url.Parse(raw)
	if err != nil {
		return time.Now().Add(UploadURLExpiry).UTC().Truncate(time.Second)
	}
	q := u.Query()
	t, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return time.Now().Add(UploadURLExpiry).UTC().Truncate(time.Second)
	}
	var secs int
	if _, err := fmt.Sscan(q.Get("X-Amz-Expires"), &secs); err != nil {
		secs = int(UploadURLExpiry / time.Second)
	}
	return t.Add(time.Duration(secs) * time.Second)
}

// StartMultipartUpload starts a multipart upload of key and returns its
// upload id.
func (s *Service) StartMultipartUpload(ctx context.Context, clusterID, key string) (string, error) {
	if err := CheckUploadKey("key", key); err != nil {
		return "", err
	}
	p, bucket, err := s.uploadBucket(clusterID)
	if err != nil {
		return "", err
	}
	out, err := p.S3.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return "", multipartError(err, bucket, "start an upload of "+key)
	}
	return aws.ToString(out.UploadId), nil
}

// checkUpload checks a key and upload id.
func checkUpload(key, uploadID string) error {
	if err := CheckUploadKey("key", key); err != nil {
		return err
	}
	if uploadID == "" || len(uploadID) > maxUploadIDLength || strings.ContainsFunc(uploadID, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return errs.Field("uploadId", "uploadId is the id createMultipartUpload returned (printable ASCII, at most %d characters)", maxUploadIDLength)
	}
	return nil
}

// PartURLs signs a PUT for each part number of an upload in progress,
// valid for UploadURLExpiry.
func (s *Service) PartURLs(ctx context.Context, clusterID, key, uploadID string, parts []int) ([]PartURL, error) {
	if err := checkUpload(key, uploadID); err != nil {
		return nil, err
	}
	if len(parts) == 0 || len(parts) > MaxUploadKeys {
		return nil, errs.Field("partNumbers", "name 1 to %d part numbers a request, not %d; ask again for more", MaxUploadKeys, len(parts))
	}
	seen := make(map[int]bool, len(parts))
	for i, n := range parts {
		if n < 1 || n > MaxParts {
			return nil, errs.Field(fmt.Sprintf("partNumbers[%d]", i), "part number %d is not between 1 and %d (S3's bounds)", n, MaxParts)
		}
		if seen[n] {
			return nil, errs.Field(fmt.Sprintf("partNumbers[%d]", i), "part number %d is named twice", n)
		}
		seen[n] = true
	}
	p, bucket, err := s.uploadBucket(clusterID)
	if err != nil {
		return nil, err
	}
	out := make([]PartURL, 0, len(parts))
	for _, n := range parts {
		req, err := p.S3Presign.PresignUploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(uploadID), PartNumber: aws.Int32(int32(n))}, s3.WithPresignExpires(UploadURLExpiry))
		if err != nil {
			return nil, presignError(err, bucket)
		}
		out = append(out, PartURL{PartNumber: n, URL: req.URL, ExpiresAt: expiresAt(req.URL)})
	}
	return out, nil
}

// UploadedParts lists the parts S3 holds of an upload in progress, by
// number: what a resumed upload need not send again.
func (s *Service) UploadedParts(ctx context.Context, clusterID, key, uploadID string) ([]UploadedPart, error) {
	if err := checkUpload(key, uploadID); err != nil {
		return nil, err
	}
	p, bucket, err := s.uploadBucket(clusterID)
	if err != nil {
		return nil, err
	}
	var parts []UploadedPart
	in := &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(uploadID)}
	// At most MaxParts parts, 1000 a page: the loop ends.
	for range MaxParts/1000 + 1 {
		out, err := p.S3.ListParts(ctx, in)
		if err != nil {
			return nil, multipartError(err, bucket, "list the parts of "+key)
		}
		for _, pt := range out.Parts {
			parts = append(parts, UploadedPart{PartNumber: int(aws.ToInt32(pt.PartNumber)), ETag: aws.ToString(pt.ETag), Size: aws.ToInt64(pt.Size)})
		}
		if !aws.ToBool(out.IsTruncated) || aws.ToString(out.NextPartNumberMarker) == "" {
			break
		}
		in.PartNumberMarker = out.NextPartNumberMarker
	}
	return parts, nil
}

// CompleteMultipartUpload assembles the object from parts, in ascending
// order, and returns it as the bucket browser lists it.
func (s *Service) CompleteMultipartUpload(ctx context.Context, clusterID, key, uploadID string, parts []CompletedPart) (*Entry, error) {
	if err := checkUpload(key, uploadID); err != nil {
		return nil, err
	}
	if len(parts) == 0 || len(parts) > MaxParts {
		return nil, errs.Field("parts", "name 1 to %d parts, not %d", MaxParts, len(parts))
	}
	done := make([]s3types.CompletedPart, 0, len(parts))
	for i, pt := range parts {
		field := fmt.Sprintf("parts[%d]", i)
		switch {
		case pt.PartNumber < 1 || pt.PartNumber > MaxParts:
			return nil, errs.Field(field+".partNumber", "part number %d is not between 1 and %d", pt.PartNumber, MaxParts)
		case i > 0 && pt.PartNumber <= parts[i-1].PartNumber:
			return nil, errs.Field(field+".partNumber", "parts go in ascending order of partNumber, each once: %d follows %d", pt.PartNumber, parts[i-1].PartNumber)
		case pt.ETag == "" || len(pt.ETag) > 128:
			return nil, errs.Field(field+".etag", "etag is the ETag header the part's PUT answered")
		}
		done = append(done, s3types.CompletedPart{PartNumber: aws.Int32(int32(pt.PartNumber)), ETag: aws.String(pt.ETag)})
	}
	p, bucket, err := s.uploadBucket(clusterID)
	if err != nil {
		return nil, err
	}
	_, err = p.S3.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(uploadID),
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: done}})
	switch {
	case errs.IsAPICode(err, "InvalidPart"):
		return nil, errs.New(errs.Precondition, "S3 holds no such part, or its ETag differs: %s; list the parts with uploadedParts and send the missing ones again", errs.Clip(err.Error())).WithField("parts")
	case errs.IsAPICode(err, "EntityTooSmall"):
		return nil, errs.New(errs.Precondition, "every part but the last must be at least 5 MiB: %s", errs.Clip(err.Error())).WithField("parts")
	case err != nil:
		return nil, multipartError(err, bucket, "complete the upload of "+key)
	}
	head, err := p.S3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, errs.FromUpstream(err, "read the uploaded object "+key)
	}
	return &Entry{Key: key, Size: aws.ToInt64(head.ContentLength), Modified: head.LastModified, ETag: strings.Trim(aws.ToString(head.ETag), `"`), StorageClass: string(head.StorageClass)}, nil
}

// AbortMultipartUpload drops an upload in progress and the parts S3 holds
// of it.
func (s *Service) AbortMultipartUpload(ctx context.Context, clusterID, key, uploadID string) error {
	if err := checkUpload(key, uploadID); err != nil {
		return err
	}
	p, bucket, err := s.uploadBucket(clusterID)
	if err != nil {
		return err
	}
	if _, err := p.S3.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(uploadID)}); err != nil {
		return multipartError(err, bucket, "abort the upload of "+key)
	}
	return nil
}
