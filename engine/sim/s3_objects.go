package sim

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// s3NoSuchKey is S3's answer for a key that does not exist.
func s3NoSuchKey() error {
	return &s3types.NoSuchKey{Message: aws.String("The specified key does not exist.")}
}

// checkKey applies S3's key rules: 1 to 1024 bytes of UTF-8.
func checkKey(key *string) error {
	if key == nil || *key == "" || len(*key) > 1024 {
		return apiError("KeyTooLongError", "An object key is 1 to 1024 bytes long.")
	}
	return nil
}

// PutObject writes an object. The world keeps its content up to
// s3KeptBody bytes (while s3KeptTotal has room) and its size whatever it
// is.
func (a *s3API) PutObject(ctx context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	in = orZero(in)
	// The body is read before the call takes the world's lock: only its
	// size, its hash and its first s3KeptBody bytes are kept.
	var kept bytes.Buffer
	var size int64
	sum := md5.New()
	if in.Body != nil {
		n, err := io.Copy(io.MultiWriter(sum, &limitedBuffer{&kept, s3KeptBody + 1}), in.Body)
		if err != nil {
			return nil, opError(svcS3, "PutObject", fmt.Errorf("read body: %w", err))
		}
		size = n
	}
	return call(ctx, a.w, svcS3, a.region, "PutObject", func(t *txn) (*s3.PutObjectOutput, error) {
		if err := need("PutObjectInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}); err != nil {
			return nil, err
		}
		if err := checkKey(in.Key); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		o := &s3ObjRec{Size: size, ETag: `"` + hex.EncodeToString(sum.Sum(nil)) + `"`, LastModified: t.now.UTC().Truncate(time.Second), ContentType: aws.ToString(in.ContentType)}
		if old := b.Objects[*in.Key]; old != nil {
			old.Body = nil // its room is free for the new content
		}
		if t.keepBody(size) {
			o.Body = bytes.Clone(kept.Bytes())
		}
		b.putObject(*in.Key, o)
		return &s3.PutObjectOutput{ETag: aws.String(o.ETag), Size: aws.Int64(size)}, nil
	})
}

func (b *bucketRec) putObject(key string, o *s3ObjRec) {
	if b.Objects == nil {
		b.Objects = map[string]*s3ObjRec{}
	}
	b.Objects[key] = o
}

// limitedBuffer keeps the first n bytes written to it and drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	n   int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// PutObjectMeta writes an object of size bytes to bucket name whose
// content is not kept: what a pod's upload leaves, as the simulated
// Kubernetes writes it. The bucket must exist.
func (w *World) PutObjectMeta(bucket, key string, size int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.st.Buckets[bucket]
	if b == nil {
		return s3NoSuchBucket(bucket)
	}
	sum := md5.Sum(fmt.Appendf(nil, "%s/%s/%d", bucket, key, size))
	b.putObject(key, &s3ObjRec{Size: size, ETag: `"` + hex.EncodeToString(sum[:]) + `"`, LastModified: w.clock().UTC().Truncate(time.Second)})
	return w.save()
}

// object returns the object of in's bucket and key.
func (a *s3API) object(t *txn, bucket, key *string, missing func() error) (*s3ObjRec, error) {
	b, err := a.reach(t, aws.ToString(bucket), s3NoSuchBucket)
	if err != nil {
		return nil, err
	}
	o := b.Objects[aws.ToString(key)]
	if o == nil {
		return nil, missing()
	}
	return o, nil
}

// HeadObject reads an object's metadata; 404 NotFound without a body when
// the key is missing.
func (a *s3API) HeadObject(ctx context.Context, in *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "HeadObject", func(t *txn) (*s3.HeadObjectOutput, error) {
		// What pods wrote by now is there.
		t.playPodPrograms()
		in := orZero(in)
		if err := need("HeadObjectInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}); err != nil {
			return nil, err
		}
		o, err := a.object(t, in.Bucket, in.Key, func() error { return &s3types.NotFound{Message: aws.String("Not Found")} })
		if err != nil {
			return nil, err
		}
		return &s3.HeadObjectOutput{ContentLength: aws.Int64(o.Size), ETag: aws.String(o.ETag), LastModified: aws.Time(o.LastModified), ContentType: contentType(o), StorageClass: s3types.StorageClassStandard}, nil
	})
}

func contentType(o *s3ObjRec) *string {
	if o.ContentType != "" {
		return aws.String(o.ContentType)
	}
	return aws.String("binary/octet-stream")
}

// GetObject reads an object: its kept content, or filler of its size.
func (a *s3API) GetObject(ctx context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "GetObject", func(t *txn) (*s3.GetObjectOutput, error) {
		// What pods wrote by now is there.
		t.playPodPrograms()
		in := orZero(in)
		if err := need("GetObjectInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}); err != nil {
			return nil, err
		}
		o, err := a.object(t, in.Bucket, in.Key, s3NoSuchKey)
		if err != nil {
			return nil, err
		}
		var body io.Reader = bytes.NewReader(bytes.Clone(o.Body))
		if int64(len(o.Body)) != o.Size {
			body = io.LimitReader(zeroReader{}, o.Size)
		}
		return &s3.GetObjectOutput{Body: io.NopCloser(body), ContentLength: aws.Int64(o.Size), ETag: aws.String(o.ETag), LastModified: aws.Time(o.LastModified), ContentType: contentType(o)}, nil
	})
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// DeleteObject deletes an object; a missing key is no error, as in S3.
func (a *s3API) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, _ ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "DeleteObject", func(t *txn) (*s3.DeleteObjectOutput, error) {
		in := orZero(in)
		if err := need("DeleteObjectInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		delete(b.Objects, aws.ToString(in.Key))
		return &s3.DeleteObjectOutput{}, nil
	})
}

// DeleteObjects deletes up to 1000 keys; Quiet leaves the deleted ones
// out of the answer.
func (a *s3API) DeleteObjects(ctx context.Context, in *s3.DeleteObjectsInput, _ ...func(*s3.Options)) (*s3.DeleteObjectsOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "DeleteObjects", func(t *txn) (*s3.DeleteObjectsOutput, error) {
		in := orZero(in)
		if err := need("DeleteObjectsInput", param{"Bucket", in.Bucket != nil}, param{"Delete", in.Delete != nil}); err != nil {
			return nil, err
		}
		if n := len(in.Delete.Objects); n == 0 || n > s3MaxKeys {
			return nil, apiError("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: a request deletes 1 to 1000 keys, not %d.", n)
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		out := &s3.DeleteObjectsOutput{}
		for _, id := range in.Delete.Objects {
			if err := checkKey(id.Key); err != nil {
				out.Errors = append(out.Errors, s3types.Error{Key: id.Key, Code: aws.String("InvalidArgument"), Message: aws.String("An object key is 1 to 1024 bytes long.")})
				continue
			}
			delete(b.Objects, *id.Key)
			if !aws.ToBool(in.Delete.Quiet) {
				out.Deleted = append(out.Deleted, s3types.DeletedObject{Key: id.Key})
			}
		}
		return out, nil
	})
}

// ListObjectsV2 lists keys in order under Prefix, rolling the keys that
// share a prefix up to the next Delimiter into common prefixes, at most
// MaxKeys (1000) entries a page. The continuation token is the last entry
// returned, which the next page starts past (past every key under it for
// a common prefix).
func (a *s3API) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return call(ctx, a.w, svcS3, a.region, "ListObjectsV2", func(t *txn) (*s3.ListObjectsV2Output, error) {
		// What pods wrote by now is there.
		t.playPodPrograms()
		in := orZero(in)
		if err := need("ListObjectsV2Input", param{"Bucket", in.Bucket != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		max := s3MaxKeys
		if in.MaxKeys != nil {
			if *in.MaxKeys < 0 {
				return nil, apiError("InvalidArgument", "max-keys must be a non-negative integer.")
			}
			max = min(int(*in.MaxKeys), s3MaxKeys)
		}
		prefix, delim := aws.ToString(in.Prefix), aws.ToString(in.Delimiter)
		after, skipUnder := aws.ToString(in.StartAfter), ""
		if tok := aws.ToString(in.ContinuationToken); tok != "" {
			raw, err := base64.RawURLEncoding.DecodeString(tok)
			if err != nil || len(raw) < 2 || (raw[0] != 'k' && raw[0] != 'p') {
				return nil, apiError("InvalidArgument", "The continuation token provided is incorrect.")
			}
			after = string(raw[1:])
			if raw[0] == 'p' {
				skipUnder = after
			}
		}
		out := &s3.ListObjectsV2Output{Name: in.Bucket, Prefix: in.Prefix, Delimiter: in.Delimiter, MaxKeys: aws.Int32(int32(max)), StartAfter: in.StartAfter, ContinuationToken: in.ContinuationToken}
		var last string
		var lastIsPrefix bool
		n := 0
		for _, key := range sortedKeys(b.Objects) {
			if !strings.HasPrefix(key, prefix) || key <= after || (skipUnder != "" && strings.HasPrefix(key, skipUnder)) {
				continue
			}
			common := ""
			if delim != "" {
				if i := strings.Index(key[len(prefix):], delim); i >= 0 {
					common = key[:len(prefix)+i+len(delim)]
				}
			}
			if common != "" && lastIsPrefix && common == last {
				continue
			}
			if n == max {
				out.IsTruncated = aws.Bool(true)
				kind := byte('k')
				if lastIsPrefix {
					kind = 'p'
				}
				out.NextContinuationToken = aws.String(base64.RawURLEncoding.EncodeToString(append([]byte{kind}, last...)))
				break
			}
			n++
			if common != "" {
				out.CommonPrefixes = append(out.CommonPrefixes, s3types.CommonPrefix{Prefix: aws.String(common)})
				last, lastIsPrefix = common, true
				continue
			}
			o := b.Objects[key]
			out.Contents = append(out.Contents, s3types.Object{Key: aws.String(key), Size: aws.Int64(o.Size), ETag: aws.String(o.ETag), LastModified: aws.Time(o.LastModified), StorageClass: s3types.ObjectStorageClassStandard})
			last, lastIsPrefix = key, false
		}
		if out.IsTruncated == nil {
			out.IsTruncated = aws.Bool(false)
		}
		out.KeyCount = aws.Int32(int32(n))
		return out, nil
	})
}
