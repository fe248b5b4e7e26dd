package storage_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/simwire"
	"github.com/instantstart/instantstart/engine/storage"
)

func TestCheckUploadKeyRefusesWhatIsNotAPlainPathUnderDatasetsOrCode(t *testing.T) {
	for _, ok := range []string{"datasets/train.jsonl", "code/train.py", "datasets/a/b/c.parquet", "code/été.py", "datasets/.hidden", "datasets/a..b"} {
		if err := storage.CheckUploadKey("key", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, tc := range []struct{ key, says string }{
		{"", "a key is needed"},
		{"models/llama/config.json", "not under"},
		{"checkpoints/job/1.pt", "not under"},
		{"train.jsonl", "not under"},
		{"/datasets/a", "not under"},
		{"datasets/", "empty path segment"},
		{"datasets//a", "empty path segment"},
		{"datasets/a/", "empty path segment"},
		{"datasets/../models/x", `".." segment`},
		{"datasets/a/..", `".." segment`},
		{"datasets/./a", `"." segment`},
		{"code/a\\b.py", "backslash"},
		{"datasets/a\nb", "control character"},
		{"datasets/a\x00b", "control character"},
		{"datasets/a\x7fb", "control character"},
		{"datasets/\xff", "UTF-8"},
		{"datasets/" + strings.Repeat("a", 1016), "1025 bytes"},
	} {
		err := storage.CheckUploadKey("keys[3]", tc.key)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.Validation || e.Field != "keys[3]" || !strings.Contains(e.Message, tc.says) {
			t.Errorf("%q: %v, want VALIDATION at keys[3] saying %q", tc.key, err, tc.says)
		}
	}
}

// TestUploadsNeedTheSharedBucket: without the bucket, PRECONDITION names
// addStorage; bad keys and too many keys are refused before.
func TestUploadsNeedTheSharedBucket(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.svc.UploadURLs(ctx, f.cluster.ID, []string{"datasets/a.txt"})
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Precondition || !strings.Contains(e.Message, "addStorage") {
		t.Fatalf("upload without a bucket: %v", err)
	}
	keys := make([]string, storage.MaxUploadKeys+1)
	for i := range keys {
		keys[i] = "datasets/a.txt"
	}
	if _, err := f.svc.UploadURLs(ctx, f.cluster.ID, keys); !errors.As(err, &e) || e.Code != errs.Validation || e.Field != "keys" {
		t.Fatalf("too many keys: %v", err)
	}
	if _, err := f.svc.UploadURLs(ctx, f.cluster.ID, []string{"datasets/ok", "outputs/x"}); !errors.As(err, &e) || e.Code != errs.Validation || e.Field != "keys[1]" {
		t.Fatalf("a key outside datasets/ and code/: %v", err)
	}
}

// TestUploadThroughSignedURLs uploads a file by a signed PUT and another
// by parts, resuming after the first part, and browses both.
func TestUploadThroughSignedURLs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	simtest.Succeeded(t, f.runner, f.addBucket(t, "train-1-data", true))

	// Until the world's S3 is served, a URL would point nowhere.
	var e *errs.Error
	if _, err := f.svc.UploadURLs(ctx, f.cluster.ID, []string{"datasets/a.txt"}); !errors.As(err, &e) || e.Code != errs.Precondition || !strings.Contains(e.Message, "--sim-aws-listen") {
		t.Fatalf("signing with no wire endpoint: %v", err)
	}
	srv := httptest.NewServer(&simwire.Handler{Providers: f.world.Provider, DefaultRegion: f.world.DefaultRegion()})
	t.Cleanup(srv.Close)
	f.world.SetWireEndpoint(srv.URL)

	put := func(url string, body []byte) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("PUT %s: %s", url, res.Status)
		}
		return res.Header.Get("ETag")
	}
	urls, err := f.svc.UploadURLs(ctx, f.cluster.ID, []string{"datasets/small/a.txt", "code/train.py"})
	if err != nil {
		t.Fatal(err)
	}
	if len(urls) != 2 || urls[0].Key != "datasets/small/a.txt" || time.Until(urls[0].ExpiresAt) > storage.UploadURLExpiry || time.Until(urls[0].ExpiresAt) < storage.UploadURLExpiry-time.Minute {
		t.Fatalf("signed URLs %+v", urls)
	}
	put(urls[0].URL, []byte("hello"))
	put(urls[1].URL, []byte("print('hi')"))

	id, err := f.svc.StartMultipartUpload(ctx, f.cluster.ID, "datasets/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.Repeat([]byte{1}, storage.MinPartSize)
	partURLs, err := f.svc.PartURLs(ctx, f.cluster.ID, "datasets/big.bin", id, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	put(partURLs[0].URL, first)
	// The resume: what S3 holds, then only the rest.
	done, err := f.svc.UploadedParts(ctx, f.cluster.ID, "datasets/big.bin", id)
	if err != nil || len(done) != 1 || done[0].PartNumber != 1 || done[0].Size != int64(len(first)) {
		t.Fatalf("uploaded parts %+v, %v", done, err)
	}
	rest, err := f.svc.PartURLs(ctx, f.cluster.ID, "datasets/big.bin", id, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	etag2 := put(rest[0].URL, []byte("tail"))
	if _, err := f.svc.CompleteMultipartUpload(ctx, f.cluster.ID, "datasets/big.bin", id, []storage.CompletedPart{{2, etag2}, {1, done[0].ETag}}); !errors.As(err, &e) || e.Code != errs.Validation || e.Field != "parts[1].partNumber" {
		t.Fatalf("parts out of order: %v", err)
	}
	obj, err := f.svc.CompleteMultipartUpload(ctx, f.cluster.ID, "datasets/big.bin", id, []storage.CompletedPart{{1, done[0].ETag}, {2, etag2}})
	if err != nil {
		t.Fatal(err)
	}
	if obj.Size != int64(len(first)+4) {
		t.Fatalf("the completed object %+v", obj)
	}
	if _, err := f.svc.UploadedParts(ctx, f.cluster.ID, "datasets/big.bin", id); !errors.As(err, &e) || e.Code != errs.NotFound || e.Field != "uploadId" {
		t.Fatalf("parts of a completed upload: %v", err)
	}

	page, err := f.svc.Objects(ctx, f.cluster.ID, "datasets/", 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, en := range page.Entries {
		keys = append(keys, en.Key)
	}
	if strings.Join(keys, ",") != "datasets/big.bin,datasets/small/" {
		t.Fatalf("datasets/ lists %v", keys)
	}

	// An aborted upload is gone.
	id2, err := f.svc.StartMultipartUpload(ctx, f.cluster.ID, "code/big.tar")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.AbortMultipartUpload(ctx, f.cluster.ID, "code/big.tar", id2); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.AbortMultipartUpload(ctx, f.cluster.ID, "code/big.tar", id2); !errors.As(err, &e) || e.Code != errs.NotFound {
		t.Fatalf("abort twice: %v", err)
	}
}

// TestAddingTheBucketLetsBrowsersUpload: addStorage puts the uploads' CORS
// rule on a bucket it uses, beside the rules the bucket had.
func TestAddingTheBucketLetsBrowsersUpload(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.p.S3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("team-data"), CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: "us-west-2"}}); err != nil {
		t.Fatal(err)
	}
	theirs := s3types.CORSRule{ID: aws.String("team-site"), AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"https://team.example.com"}}
	if _, err := f.p.S3.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String("team-data"), CORSConfiguration: &s3types.CORSConfiguration{CORSRules: []s3types.CORSRule{theirs}}}); err != nil {
		t.Fatal(err)
	}
	op := simtest.Succeeded(t, f.runner, f.addBucket(t, "team-data", false))
	if !slices.ContainsFunc(op.Phases, func(p *ops.Phase) bool { return p.Name == "uploads" && p.Status == ops.PhaseSucceeded }) {
		t.Fatalf("no uploads phase succeeded: %+v", op.Phases)
	}
	out, err := f.p.S3.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String("team-data")})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range out.CORSRules {
		ids = append(ids, aws.ToString(r.ID))
		if aws.ToString(r.ID) == "instantstart-uploads" && (!slices.Equal(r.AllowedMethods, []string{"PUT"}) || !slices.Equal(r.ExposeHeaders, []string{"ETag"})) {
			t.Errorf("the uploads' rule %+v does not allow PUT and expose ETag", r)
		}
	}
	if !slices.Equal(ids, []string{"team-site", "instantstart-uploads"}) {
		t.Fatalf("the bucket's CORS rules are %v, want the team's kept and the uploads' added", ids)
	}
}
