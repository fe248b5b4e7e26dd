package sim

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

func TestS3BucketNamesFollowS3sRules(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name string
		want string // error code, "" when the bucket is made
	}{
		{"my-bucket-1", ""},
		{"a.b.c", ""},
		{"ab", "InvalidBucketName"},
		{strings.Repeat("a", 64), "InvalidBucketName"},
		{"Upper", "InvalidBucketName"},
		{"under_score", "InvalidBucketName"},
		{"-leading", "InvalidBucketName"},
		{"trailing.", "InvalidBucketName"},
		{"two..dots", "InvalidBucketName"},
		{"10.0.0.1", "InvalidBucketName"},
		{"xn--bucket", "InvalidBucketName"},
		{"my-bucket--ol-s3", "InvalidBucketName"},
	} {
		_, err := f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String(c.name), CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: "us-west-2"}})
		if got := errorCode(t, err); got != c.want {
			t.Errorf("CreateBucket %q: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestS3BucketsAreGlobalAndReachedFromTheirRegion(t *testing.T) {
	f := newFixture(t)
	east, err := f.w.Provider("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	west := &s3types.CreateBucketConfiguration{LocationConstraint: "us-west-2"}
	ok(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("data-west"), CreateBucketConfiguration: west})).must(t)
	ok(east.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("data-east")})).must(t)
	f.w.PutForeignBucket("taken-name", "us-west-2")

	for _, c := range []struct {
		what string
		err  error
		want string
	}{
		{"create without a constraint outside us-east-1", second(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("no-constraint")})), "IllegalLocationConstraintException"},
		{"create with another region's constraint", second(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("elsewhere"), CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: "eu-west-1"}})), "IllegalLocationConstraintException"},
		{"create one's own again", second(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("data-east"), CreateBucketConfiguration: west})), "BucketAlreadyOwnedByYou"},
		{"create another account's", second(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("taken-name"), CreateBucketConfiguration: west})), "BucketAlreadyExists"},
		{"head a missing one", second(f.p.S3.HeadBucket(f.ctx, &s3.HeadBucketInput{Bucket: aws.String("nobody")})), "NotFound"},
		{"head another account's", second(f.p.S3.HeadBucket(f.ctx, &s3.HeadBucketInput{Bucket: aws.String("taken-name")})), "Forbidden"},
		{"head with another expected owner", second(f.p.S3.HeadBucket(f.ctx, &s3.HeadBucketInput{Bucket: aws.String("data-west"), ExpectedBucketOwner: aws.String(ForeignAccountID)})), "Forbidden"},
		{"head from another region", second(f.p.S3.HeadBucket(f.ctx, &s3.HeadBucketInput{Bucket: aws.String("data-east")})), "MovedPermanently"},
		{"list from another region", second(f.p.S3.ListObjectsV2(f.ctx, &s3.ListObjectsV2Input{Bucket: aws.String("data-east")})), "PermanentRedirect"},
		{"write another account's", second(f.p.S3.PutObject(f.ctx, &s3.PutObjectInput{Bucket: aws.String("taken-name"), Key: aws.String("k")})), "AccessDenied"},
		{"read a missing key", second(f.p.S3.GetObject(f.ctx, &s3.GetObjectInput{Bucket: aws.String("data-west"), Key: aws.String("nothing")})), "NoSuchKey"},
		{"head a missing key", second(f.p.S3.HeadObject(f.ctx, &s3.HeadObjectInput{Bucket: aws.String("data-west"), Key: aws.String("nothing")})), "NotFound"},
	} {
		if got := errorCode(t, c.err); got != c.want {
			t.Errorf("%s: %v, want %s", c.what, c.err, c.want)
		}
	}

	head := ok(f.p.S3.HeadBucket(f.ctx, &s3.HeadBucketInput{Bucket: aws.String("data-west"), ExpectedBucketOwner: aws.String(DefaultAccountID)})).must(t)
	if aws.ToString(head.BucketRegion) != "us-west-2" {
		t.Errorf("HeadBucket region %q", aws.ToString(head.BucketRegion))
	}
	for bucket, want := range map[string]s3types.BucketLocationConstraint{"data-west": "us-west-2", "data-east": ""} {
		loc := ok(f.p.S3.GetBucketLocation(f.ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket)})).must(t)
		if loc.LocationConstraint != want {
			t.Errorf("location of %s: %q, want %q", bucket, loc.LocationConstraint, want)
		}
	}
	list := ok(f.p.S3.ListBuckets(f.ctx, &s3.ListBucketsInput{})).must(t)
	var names []string
	for _, b := range list.Buckets {
		names = append(names, aws.ToString(b.Name)+"@"+aws.ToString(b.BucketRegion))
	}
	if !slices.Equal(names, []string{"data-east@us-east-1", "data-west@us-west-2"}) {
		t.Errorf("ListBuckets %v: another account's bucket is not this account's", names)
	}
}

func TestS3ObjectsPersistAndDeleteBucketWantsItEmpty(t *testing.T) {
	f := newFixture(t)
	ok(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("kept"), CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: "us-west-2"}})).must(t)
	ok(f.p.S3.PutObject(f.ctx, &s3.PutObjectInput{Bucket: aws.String("kept"), Key: aws.String("datasets/a.txt"), Body: strings.NewReader("hello")})).must(t)
	if err := f.w.PutObjectMeta("kept", "models/m/model.safetensors", 5<<30); err != nil {
		t.Fatal(err)
	}

	f.w = f.world() // a restart
	obj := ok(f.p.S3.GetObject(f.ctx, &s3.GetObjectInput{Bucket: aws.String("kept"), Key: aws.String("datasets/a.txt")})).must(t)
	if body, _ := io.ReadAll(obj.Body); string(body) != "hello" || aws.ToString(obj.ETag) != `"5d41402abc4b2a76b9719d911017c592"` {
		t.Errorf("object after a restart: %q, etag %s", body, aws.ToString(obj.ETag))
	}
	big := ok(f.p.S3.HeadObject(f.ctx, &s3.HeadObjectInput{Bucket: aws.String("kept"), Key: aws.String("models/m/model.safetensors")})).must(t)
	if aws.ToInt64(big.ContentLength) != 5<<30 {
		t.Errorf("a shard written by a pod is %d bytes", aws.ToInt64(big.ContentLength))
	}
	if err := second(f.p.S3.DeleteBucket(f.ctx, &s3.DeleteBucketInput{Bucket: aws.String("kept")})); errorCode(t, err) != "BucketNotEmpty" {
		t.Fatalf("DeleteBucket of a bucket with objects: %v", err)
	}
	del := ok(f.p.S3.DeleteObjects(f.ctx, &s3.DeleteObjectsInput{Bucket: aws.String("kept"), Delete: &s3types.Delete{Objects: []s3types.ObjectIdentifier{
		{Key: aws.String("datasets/a.txt")}, {Key: aws.String("models/m/model.safetensors")}, {Key: aws.String("never-there")},
	}}})).must(t)
	if len(del.Deleted) != 3 || len(del.Errors) != 0 {
		t.Errorf("DeleteObjects: %d deleted, errors %v", len(del.Deleted), del.Errors)
	}
	ok(f.p.S3.DeleteBucket(f.ctx, &s3.DeleteBucketInput{Bucket: aws.String("kept")})).must(t)
	if err := second(f.p.S3.HeadBucket(f.ctx, &s3.HeadBucketInput{Bucket: aws.String("kept")})); errorCode(t, err) != "NotFound" {
		t.Errorf("HeadBucket after DeleteBucket: %v", err)
	}
	if n := f.w.Calls()["s3"]["PutObject"]; n != 1 {
		t.Errorf("S3 counted %d PutObject calls, want 1", n)
	}
}

// TestS3ListingPagesThroughFoldersWithoutRepeats walks a bucket with a
// delimiter in pages that end on a folder and on an object: every entry
// comes once, in order, and a folder's keys never come back.
func TestS3ListingPagesThroughFoldersWithoutRepeats(t *testing.T) {
	f := newFixture(t)
	ok(f.p.S3.CreateBucket(f.ctx, &s3.CreateBucketInput{Bucket: aws.String("tree"), CreateBucketConfiguration: &s3types.CreateBucketConfiguration{LocationConstraint: "us-west-2"}})).must(t)
	keys := []string{"a.txt", "b/1", "b/2", "b/c/3", "c.txt", "d/1", "e/1", "e/2", "f.txt"}
	for _, k := range keys {
		ok(f.p.S3.PutObject(f.ctx, &s3.PutObjectInput{Bucket: aws.String("tree"), Key: aws.String(k), Body: strings.NewReader(k)})).must(t)
	}
	for _, c := range []struct {
		prefix string
		max    int32
		want   []string
	}{
		{"", 2, []string{"a.txt", "b/", "c.txt", "d/", "e/", "f.txt"}},
		{"", 1000, []string{"a.txt", "b/", "c.txt", "d/", "e/", "f.txt"}},
		{"b/", 1, []string{"b/1", "b/2", "b/c/"}},
		{"e/", 5, []string{"e/1", "e/2"}},
		{"zzz/", 5, nil},
	} {
		var got []string
		var token *string
		pages := 0
		for {
			out := ok(f.p.S3.ListObjectsV2(f.ctx, &s3.ListObjectsV2Input{Bucket: aws.String("tree"), Prefix: aws.String(c.prefix), Delimiter: aws.String("/"), MaxKeys: aws.Int32(c.max), ContinuationToken: token})).must(t)
			pages++
			var entries []string
			for _, o := range out.Contents {
				entries = append(entries, aws.ToString(o.Key))
			}
			for _, p := range out.CommonPrefixes {
				entries = append(entries, aws.ToString(p.Prefix))
			}
			if int(aws.ToInt32(out.KeyCount)) != len(entries) || len(entries) > int(c.max) {
				t.Fatalf("prefix %q: a page of %d entries says KeyCount %d, MaxKeys %d", c.prefix, len(entries), aws.ToInt32(out.KeyCount), c.max)
			}
			slices.Sort(entries)
			got = append(got, entries...)
			if !aws.ToBool(out.IsTruncated) {
				break
			}
			token = out.NextContinuationToken
			if pages > 20 {
				t.Fatalf("prefix %q: the listing does not end", c.prefix)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("prefix %q, pages of %d: %v, want %v", c.prefix, c.max, got, c.want)
		}
	}
	out := ok(f.p.S3.ListObjectsV2(f.ctx, &s3.ListObjectsV2Input{Bucket: aws.String("tree"), StartAfter: aws.String("d/1")})).must(t)
	if len(out.Contents) != 3 || aws.ToString(out.Contents[0].Key) != "e/1" {
		t.Errorf("StartAfter d/1: %d keys from %s", len(out.Contents), aws.ToString(out.Contents[0].Key))
	}
	if err := second(f.p.S3.ListObjectsV2(f.ctx, &s3.ListObjectsV2Input{Bucket: aws.String("tree"), ContinuationToken: aws.String("not a token")})); errorCode(t, err) != "InvalidArgument" {
		t.Errorf("a token S3 did not give: %v", err)
	}
}

// second returns the error of a call's two results.
func second[T any](_ T, err error) error { return err }
