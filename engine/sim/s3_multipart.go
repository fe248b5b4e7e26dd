package sim

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Multipart uploads, as S3 has them: parts 1 to 10,000, each at least
// s3MinPartSize but the last, completed in ascending order with the ETags
// UploadPart answered. A part keeps its content only while it is at most
// s3KeptBody and the world's budget (s3KeptTotal) has room; the completed
// object keeps the parts' content when it is whole and at most s3KeptBody.

// S3's bounds of a multipart upload.
const (
	s3MaxParts    = 10000
	s3MinPartSize = 5 << 20
)

// s3KeptTotal bounds the content the world keeps of all objects and
// parts together; past it, new objects keep their size and ETag only.
const s3KeptTotal = 64 << 20

// s3UploadRec is one multipart upload in progress.
type s3UploadRec struct {
	Key         string
	Initiated   time.Time
	ContentType string              `json:",omitempty"`
	Parts       map[int32]*s3ObjRec `json:",omitempty"` // by part number
}

// keptS3Bytes is the content the world keeps of objects and parts.
func (st *state) keptS3Bytes() int64 {
	var n int64
	for _, b := range st.Buckets {
		for _, o := range b.Objects {
			n += int64(len(o.Body))
		}
		for _, u := range b.Uploads {
			for _, p := range u.Parts {
				n += int64(len(p.Body))
			}
		}
	}
	return n
}

// keepBody tells whether content of size bytes may be kept.
func (t *txn) keepBody(size int64) bool {
	return size <= s3KeptBody && t.st.keptS3Bytes()+size <= s3KeptTotal
}

// s3NoSuchUpload is S3's answer for an upload id that is not in progress.
func s3NoSuchUpload() error {
	return apiError("NoSuchUpload", "The specified multipart upload does not exist. The upload ID might be invalid, or the multipart upload might have been aborted or completed.")
}

// upload returns the upload of bucket, key and id.
func (a *s3API) upload(t *txn, bucket, key, id *string) (*bucketRec, *s3UploadRec, error) {
	b, err := a.reach(t, aws.ToString(bucket), s3NoSuchBucket)
	if err != nil {
		return nil, nil, err
	}
	u := b.Uploads[aws.ToString(id)]
	if u == nil || u.Key != aws.ToString(key) {
		return nil, nil, s3NoSuchUpload()
	}
	return b, u, nil
}

// CreateMultipartUpload starts an upload and names it by a random id.
func (a *s3API) CreateMultipartUpload(ctx context.Context, in *s3.CreateMultipartUploadInput, _ ...func(*s3.Options)) (*s3.CreateMultipartUploadOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "CreateMultipartUpload", func(t *txn) (*s3.CreateMultipartUploadOutput, error) {
		in := orZero(in)
		if err := need("CreateMultipartUploadInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}); err != nil {
			return nil, err
		}
		if err := checkKey(in.Key); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		var raw [24]byte
		_, _ = rand.Read(raw[:])
		id := hex.EncodeToString(raw[:])
		if b.Uploads == nil {
			b.Uploads = map[string]*s3UploadRec{}
		}
		b.Uploads[id] = &s3UploadRec{Key: *in.Key, Initiated: t.now.UTC().Truncate(time.Second), ContentType: aws.ToString(in.ContentType)}
		return &s3.CreateMultipartUploadOutput{Bucket: in.Bucket, Key: in.Key, UploadId: aws.String(id)}, nil
	})
}

// UploadPart writes one part; the same number again replaces it.
func (a *s3API) UploadPart(ctx context.Context, in *s3.UploadPartInput, _ ...func(*s3.Options)) (*s3.UploadPartOutput, error) {
	in = orZero(in)
	// As PutObject: the body is read before the world's lock is taken.
	var kept bytes.Buffer
	var size int64
	sum := md5.New()
	if in.Body != nil {
		n, err := io.Copy(io.MultiWriter(sum, &limitedBuffer{&kept, s3KeptBody + 1}), in.Body)
		if err != nil {
			return nil, opError(svcS3, "UploadPart", fmt.Errorf("read body: %w", err))
		}
		size = n
	}
	return call(ctx, a.w, svcS3, a.region, "UploadPart", func(t *txn) (*s3.UploadPartOutput, error) {
		if err := need("UploadPartInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}, param{"PartNumber", in.PartNumber != nil}, param{"UploadId", in.UploadId != nil}); err != nil {
			return nil, err
		}
		if n := *in.PartNumber; n < 1 || n > s3MaxParts {
			return nil, apiError("InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive.")
		}
		_, u, err := a.upload(t, in.Bucket, in.Key, in.UploadId)
		if err != nil {
			return nil, err
		}
		p := &s3ObjRec{Size: size, ETag: `"` + hex.EncodeToString(sum.Sum(nil)) + `"`, LastModified: t.now.UTC().Truncate(time.Second)}
		if old := u.Parts[*in.PartNumber]; old != nil {
			old.Body = nil // its room is free for the new part
		}
		if t.keepBody(size) {
			p.Body = bytes.Clone(kept.Bytes())
		}
		if u.Parts == nil {
			u.Parts = map[int32]*s3ObjRec{}
		}
		u.Parts[*in.PartNumber] = p
		return &s3.UploadPartOutput{ETag: aws.String(p.ETag)}, nil
	})
}

// ListParts lists the parts uploaded so far, by number, at most MaxParts
// (1000) a page after PartNumberMarker.
func (a *s3API) ListParts(ctx context.Context, in *s3.ListPartsInput, _ ...func(*s3.Options)) (*s3.ListPartsOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "ListParts", func(t *txn) (*s3.ListPartsOutput, error) {
		in := orZero(in)
		if err := need("ListPartsInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}, param{"UploadId", in.UploadId != nil}); err != nil {
			return nil, err
		}
		_, u, err := a.upload(t, in.Bucket, in.Key, in.UploadId)
		if err != nil {
			return nil, err
		}
		max := int32(s3MaxKeys)
		if in.MaxParts != nil {
			if *in.MaxParts < 0 {
				return nil, apiError("InvalidArgument", "max-parts must be a non-negative integer.")
			}
			max = min(*in.MaxParts, s3MaxKeys)
		}
		var marker int32
		if m := aws.ToString(in.PartNumberMarker); m != "" {
			if _, err := fmt.Sscan(m, &marker); err != nil {
				return nil, apiError("InvalidArgument", "part-number-marker must be a part number.")
			}
		}
		out := &s3.ListPartsOutput{Bucket: in.Bucket, Key: in.Key, UploadId: in.UploadId, MaxParts: aws.Int32(max), PartNumberMarker: in.PartNumberMarker, IsTruncated: aws.Bool(false), StorageClass: s3types.StorageClassStandard}
		for _, n := range slices.Sorted(maps.Keys(u.Parts)) {
			if n <= marker {
				continue
			}
			if int32(len(out.Parts)) == max {
				out.IsTruncated = aws.Bool(true)
				out.NextPartNumberMarker = aws.String(fmt.Sprint(*out.Parts[len(out.Parts)-1].PartNumber))
				break
			}
			p := u.Parts[n]
			out.Parts = append(out.Parts, s3types.Part{PartNumber: aws.Int32(n), ETag: aws.String(p.ETag), Size: aws.Int64(p.Size), LastModified: aws.Time(p.LastModified)})
		}
		return out, nil
	})
}

// CompleteMultipartUpload makes the object of the parts named, in
// ascending order, each with the ETag its upload answered; every part but
// the last is at least 5 MiB. Its ETag is S3's: the MD5 of the parts'
// MD5s, and their count.
func (a *s3API) CompleteMultipartUpload(ctx context.Context, in *s3.CompleteMultipartUploadInput, _ ...func(*s3.Options)) (*s3.CompleteMultipartUploadOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "CompleteMultipartUpload", func(t *txn) (*s3.CompleteMultipartUploadOutput, error) {
		in := orZero(in)
		if err := need("CompleteMultipartUploadInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}, param{"UploadId", in.UploadId != nil}); err != nil {
			return nil, err
		}
		b, u, err := a.upload(t, in.Bucket, in.Key, in.UploadId)
		if err != nil {
			return nil, err
		}
		if in.MultipartUpload == nil || len(in.MultipartUpload.Parts) == 0 {
			return nil, apiError("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: name at least one part.")
		}
		named := in.MultipartUpload.Parts
		if len(named) > s3MaxParts {
			return nil, apiError("MalformedXML", "An upload has at most 10000 parts.")
		}
		sums := md5.New()
		var size int64
		var body bytes.Buffer
		whole := true
		for i := 1; i < len(named); i++ {
			if aws.ToInt32(named[i].PartNumber) <= aws.ToInt32(named[i-1].PartNumber) {
				return nil, apiError("InvalidPartOrder", "The list of parts was not in ascending order. The parts list must be specified in order by part number.")
			}
		}
		for i, np := range named {
			n := aws.ToInt32(np.PartNumber)
			p := u.Parts[n]
			if p == nil || strings.Trim(aws.ToString(np.ETag), `"`) != strings.Trim(p.ETag, `"`) {
				return nil, apiError("InvalidPart", "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag: part %d.", n)
			}
			if i < len(named)-1 && p.Size < s3MinPartSize {
				return nil, apiError("EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size: part %d is %d bytes, and every part but the last is at least 5 MiB.", n, p.Size)
			}
			raw, _ := hex.DecodeString(strings.Trim(p.ETag, `"`))
			sums.Write(raw)
			size += p.Size
			whole = whole && int64(len(p.Body)) == p.Size
			if whole && size <= s3KeptBody {
				body.Write(p.Body)
			}
		}
		etag := fmt.Sprintf(`"%s-%d"`, hex.EncodeToString(sums.Sum(nil)), len(named))
		o := &s3ObjRec{Size: size, ETag: etag, LastModified: t.now.UTC().Truncate(time.Second), ContentType: u.ContentType}
		delete(b.Uploads, *in.UploadId) // its parts' room is free
		if whole && size <= s3KeptBody && t.keepBody(size) {
			o.Body = body.Bytes()
		}
		b.putObject(*in.Key, o)
		return &s3.CompleteMultipartUploadOutput{Bucket: in.Bucket, Key: in.Key, ETag: aws.String(etag),
			Location: aws.String(fmt.Sprintf("https://%s.s3.%s.amazonaws.com/%s", b.Name, b.Region, *in.Key))}, nil
	})
}

// AbortMultipartUpload drops an upload and its parts.
func (a *s3API) AbortMultipartUpload(ctx context.Context, in *s3.AbortMultipartUploadInput, _ ...func(*s3.Options)) (*s3.AbortMultipartUploadOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "AbortMultipartUpload", func(t *txn) (*s3.AbortMultipartUploadOutput, error) {
		in := orZero(in)
		if err := need("AbortMultipartUploadInput", param{"Bucket", in.Bucket != nil}, param{"Key", in.Key != nil}, param{"UploadId", in.UploadId != nil}); err != nil {
			return nil, err
		}
		b, _, err := a.upload(t, in.Bucket, in.Key, in.UploadId)
		if err != nil {
			return nil, err
		}
		delete(b.Uploads, *in.UploadId)
		return &s3.AbortMultipartUploadOutput{}, nil
	})
}
