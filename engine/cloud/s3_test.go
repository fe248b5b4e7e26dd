package cloud_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/sim"
)

// TestHasObjectsIsNotFooledBySiblings: keys that only share a path's
// start (datasets/wiki-old/...) sort before the path's own folder, and
// must not hide it.
func TestHasObjectsIsNotFooledBySiblings(t *testing.T) {
	ctx := context.Background()
	w, err := sim.New(sim.Options{DefaultRegion: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	const bucket = "data-bucket"
	if _, err := p.S3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket),
		CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraintUsWest2}}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"datasets/wiki-a/1", "datasets/wiki-b/1", "datasets/wiki-c", "datasets/wiki/train.jsonl", "scripts/train.py", "scripts/train.py.bak"} {
		if _, err := p.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("x")}); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]bool{
		"datasets/wiki":     true, // a folder behind three siblings
		"datasets/wiki/":    true,
		"scripts/train.py":  true, // an object with a longer sibling
		"datasets/wik":      false,
		"datasets/wiki-":    false,
		"scripts/train":     false,
		"datasets/missing/": false,
	}
	for key, want := range cases {
		got, err := cloud.HasObjects(ctx, p, bucket, key)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("HasObjects(%q) = %v, want %v", key, got, want)
		}
	}
}
