package simwire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/sim"
)

// s3Wire is a world with a bucket, served on the wire, its presigner
// pointed there, and the SDK's S3 client on the wire.
type s3Wire struct {
	url    string
	ports  *cloud.Provider // the world's own ports
	client *s3.Client      // the SDK over the wire
	bucket string
}

func newS3Wire(t *testing.T) *s3Wire {
	t.Helper()
	w, err := sim.New(sim.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
	t.Cleanup(srv.Close)
	w.SetWireEndpoint(srv.URL)
	p, err := w.Provider(w.DefaultRegion())
	if err != nil {
		t.Fatal(err)
	}
	cfg := startWire(t, w)
	cfg.BaseEndpoint = aws.String(srv.URL)
	sw := &s3Wire{url: srv.URL, ports: p, bucket: "upload-test-data", client: s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })}
	if _, err := p.S3.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(sw.bucket)}); err != nil {
		t.Fatal(err)
	}
	return sw
}

// send sends a presigned request with body, as a browser would, and
// returns the answer's status, ETag and body.
func send(t *testing.T, req *v4.PresignedHTTPRequest, body []byte) (int, string, string) {
	t.Helper()
	r, err := http.NewRequest(req.Method, req.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range req.SignedHeader {
		if !strings.EqualFold(k, "host") {
			r.Header[k] = vs
		}
	}
	r.Header.Set("Origin", "http://127.0.0.1:3099")
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK && res.Header.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Errorf("an answer to a browser does not expose ETag: %v", res.Header)
	}
	return res.StatusCode, res.Header.Get("ETag"), string(b)
}

// TestPresignedPutThroughTheWire presigns a PutObject with the SDK's
// presign client, sends it with net/http, and lists and reads the object
// back with the SDK's S3 client.
func TestPresignedPutThroughTheWire(t *testing.T) {
	ctx := context.Background()
	sw := newS3Wire(t)
	req, err := sw.ports.S3Presign.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(sw.bucket), Key: aws.String("datasets/train.jsonl")}, s3.WithPresignExpires(15*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(req.URL, sw.url+"/"+sw.bucket+"/datasets/train.jsonl?") || !strings.Contains(req.URL, "X-Amz-Signature=") {
		t.Fatalf("presigned URL %s is not a path-style, query-signed URL of the wire endpoint", req.URL)
	}
	content := []byte(`{"text": "hello"}` + "\n")
	if status, etag, body := send(t, req, content); status != http.StatusOK || etag == "" {
		t.Fatalf("presigned PUT answered %d, ETag %q: %s", status, etag, body)
	}
	list, err := sw.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(sw.bucket), Prefix: aws.String("datasets/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Contents) != 1 || aws.ToString(list.Contents[0].Key) != "datasets/train.jsonl" || aws.ToInt64(list.Contents[0].Size) != int64(len(content)) {
		t.Fatalf("ListObjectsV2 over the wire: %+v", list.Contents)
	}
	got, err := sw.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(sw.bucket), Key: aws.String("datasets/train.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if !bytes.Equal(b, content) {
		t.Fatalf("GetObject over the wire read %q, want %q", b, content)
	}

	// Signed long ago for 15 minutes, the URL has expired.
	expired := *req
	expired.URL = regexp.MustCompile(`X-Amz-Date=\d{8}T\d{6}Z`).ReplaceAllString(req.URL, "X-Amz-Date=20200101T000000Z")
	if status, _, body := send(t, &expired, content); status != http.StatusForbidden || !strings.Contains(body, "expired") {
		t.Fatalf("an expired presigned PUT answered %d: %s", status, body)
	}
}

// TestCORSPreflight answers a browser's preflight as a bucket whose CORS
// rule allows a PUT from any origin.
func TestCORSPreflight(t *testing.T) {
	sw := newS3Wire(t)
	r, _ := http.NewRequest(http.MethodOptions, sw.url+"/"+sw.bucket+"/datasets/a.txt?X-Amz-Signature=x", nil)
	r.Header.Set("Origin", "http://127.0.0.1:3099")
	r.Header.Set("Access-Control-Request-Method", "PUT")
	r.Header.Set("Access-Control-Request-Headers", "content-type")
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	h := res.Header
	if res.StatusCode != http.StatusOK || h.Get("Access-Control-Allow-Origin") == "" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "PUT") ||
		h.Get("Access-Control-Allow-Headers") != "content-type" || h.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Fatalf("preflight answered %d %v", res.StatusCode, h)
	}
}

// TestMultipartUploadResumesThroughTheWire starts an upload with the SDK,
// sends the first part to a presigned URL, then, as a browser that lost
// track, asks which parts are done, sends only the rest and completes.
func TestMultipartUploadResumesThroughTheWire(t *testing.T) {
	ctx := context.Background()
	sw := newS3Wire(t)
	key := aws.String("datasets/big.bin")
	created, err := sw.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(sw.bucket), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	id := created.UploadId
	parts := [][]byte{bytes.Repeat([]byte("a"), 5<<20), []byte("the last part")}
	sendPart := func(n int32) string {
		t.Helper()
		req, err := sw.ports.S3Presign.PresignUploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: id, PartNumber: aws.Int32(n)})
		if err != nil {
			t.Fatal(err)
		}
		status, etag, body := send(t, req, parts[n-1])
		if status != http.StatusOK || etag == "" {
			t.Fatalf("part %d answered %d: %s", n, status, body)
		}
		return etag
	}
	sendPart(1)

	// The resume: the parts done, from S3.
	done, err := sw.client.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Parts) != 1 || aws.ToInt32(done.Parts[0].PartNumber) != 1 || aws.ToInt64(done.Parts[0].Size) != 5<<20 {
		t.Fatalf("ListParts after part 1: %+v", done.Parts)
	}
	etag2 := sendPart(2)
	completed := []s3types.CompletedPart{{PartNumber: aws.Int32(1), ETag: done.Parts[0].ETag}, {PartNumber: aws.Int32(2), ETag: aws.String(etag2)}}

	// Out of order, the parts are refused.
	_, err = sw.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: id,
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: []s3types.CompletedPart{completed[1], completed[0]}}})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "InvalidPartOrder" {
		t.Fatalf("parts out of order: %v, want InvalidPartOrder", err)
	}
	out, err := sw.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: id,
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: completed}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(aws.ToString(out.ETag), `-2"`) {
		t.Fatalf("a two-part object's ETag is %s", aws.ToString(out.ETag))
	}
	head, err := sw.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(sw.bucket), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(parts[0]) + len(parts[1])); aws.ToInt64(head.ContentLength) != want {
		t.Fatalf("the object is %d bytes, want %d", aws.ToInt64(head.ContentLength), want)
	}
	// The upload is over: its parts are gone.
	if _, err := sw.client.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: id}); !errors.As(err, &api) || api.ErrorCode() != "NoSuchUpload" {
		t.Fatalf("ListParts of a completed upload: %v, want NoSuchUpload", err)
	}
}

// TestMultipartUploadRefusesSmallPartsAndAborts: a part under 5 MiB but
// the last fails Complete; an aborted upload is gone.
func TestMultipartUploadRefusesSmallPartsAndAborts(t *testing.T) {
	ctx := context.Background()
	sw := newS3Wire(t)
	key := aws.String("code/train.py")
	created, err := sw.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(sw.bucket), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	var etags []string
	for n := int32(1); n <= 2; n++ {
		out, err := sw.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: created.UploadId, PartNumber: aws.Int32(n), Body: strings.NewReader("small")})
		if err != nil {
			t.Fatalf("UploadPart %d over the wire: %v", n, err)
		}
		etags = append(etags, aws.ToString(out.ETag))
	}
	_, err = sw.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: created.UploadId,
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: []s3types.CompletedPart{{PartNumber: aws.Int32(1), ETag: &etags[0]}, {PartNumber: aws.Int32(2), ETag: &etags[1]}}}})
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "EntityTooSmall" {
		t.Fatalf("a small first part: %v, want EntityTooSmall", err)
	}
	if _, err := sw.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: created.UploadId}); err != nil {
		t.Fatal(err)
	}
	if _, err := sw.client.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(sw.bucket), Key: key, UploadId: created.UploadId}); !errors.As(err, &api) || api.ErrorCode() != "NoSuchUpload" {
		t.Fatalf("ListParts of an aborted upload: %v, want NoSuchUpload", err)
	}
}

// TestBucketCorsThroughTheWire puts and reads a bucket's CORS rules with
// the SDK, as addStorage does.
func TestBucketCorsThroughTheWire(t *testing.T) {
	ctx := context.Background()
	sw := newS3Wire(t)
	var api smithy.APIError
	if _, err := sw.client.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(sw.bucket)}); !errors.As(err, &api) || api.ErrorCode() != "NoSuchCORSConfiguration" {
		t.Fatalf("GetBucketCors of a bucket without rules: %v", err)
	}
	rule := s3types.CORSRule{ID: aws.String("uploads"), AllowedMethods: []string{"PUT"}, AllowedOrigins: []string{"*"}, AllowedHeaders: []string{"*"}, ExposeHeaders: []string{"ETag"}, MaxAgeSeconds: aws.Int32(3000)}
	if _, err := sw.client.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(sw.bucket), CORSConfiguration: &s3types.CORSConfiguration{CORSRules: []s3types.CORSRule{rule}}}); err != nil {
		t.Fatal(err)
	}
	out, err := sw.client.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(sw.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.CORSRules) != 1 || aws.ToString(out.CORSRules[0].ID) != "uploads" || !reflect.DeepEqual(out.CORSRules[0].ExposeHeaders, []string{"ETag"}) || aws.ToInt32(out.CORSRules[0].MaxAgeSeconds) != 3000 {
		t.Fatalf("GetBucketCors over the wire: %+v", out.CORSRules)
	}
}
