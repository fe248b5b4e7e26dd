package sim

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The simulated S3. Bucket names are global, across every region and
// account, as in S3: a bucket lives in one region and belongs to one
// account, and a client reaches it only through its own region (elsewhere
// S3 answers 301) and only when the bucket is its account's (elsewhere 403).
// Objects keep their metadata and, up to s3KeptBody bytes, their content
// (while all the content kept stays under s3KeptTotal); a larger object
// answers GetObject with filler of its size, so a simulated model shard of
// gigabytes costs the world a few bytes. Multipart uploads are in
// s3_multipart.go.
//
// Left out: versioning, ACLs and bucket policies,
// conditional requests, ranges, checksums, encryption settings and
// storage class transitions.

const svcS3 = "s3"

// ForeignAccountID owns the buckets PutForeignBucket makes: names taken by
// someone else.
const ForeignAccountID = "210987654321"

// s3KeptBody is how much of an object's content the world keeps.
const s3KeptBody = 1 << 20

// s3MaxKeys is S3's largest page of a listing.
const s3MaxKeys = 1000

// bucketRec is one bucket.
type bucketRec struct {
	Name      string
	Region    string
	Owner     string // account id
	CreatedAt time.Time
	Tags      map[string]string `json:",omitempty"`
	// PublicAccessBlock holds the four settings, in S3's order, once set.
	PublicAccessBlock []bool               `json:",omitempty"`
	Objects           map[string]*s3ObjRec `json:",omitempty"` // by key
	// CORS are the bucket's CORS rules, once set.
	CORS []s3types.CORSRule `json:",omitempty"`
	// Uploads are the multipart uploads in progress, by upload id.
	Uploads map[string]*s3UploadRec `json:",omitempty"`
}

// s3ObjRec is one object.
type s3ObjRec struct {
	Size         int64
	ETag         string
	LastModified time.Time
	ContentType  string `json:",omitempty"`
	Body         []byte `json:",omitempty"` // the content when it is at most s3KeptBody
}

// s3API is the view of the simulated S3 from one region's endpoint.
type s3API struct {
	w      *World
	region string
}

var _ cloud.S3 = (*s3API)(nil)

// PutForeignBucket makes bucket name in region, owned by another account
// (ForeignAccountID), as a name that is taken. It replaces nothing: a
// name in use already is left as it is.
func (w *World) PutForeignBucket(name, region string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.st.Buckets[name]; ok {
		return
	}
	w.st.Buckets[name] = &bucketRec{Name: name, Region: region, Owner: ForeignAccountID, CreatedAt: w.clock()}
	_ = w.save()
}

// bucketARN is the ARN of bucket name: S3's ARNs name neither region nor
// account.
func bucketARN(name string) string { return "arn:aws:s3:::" + name }

// checkBucketName applies S3's naming rules for general purpose buckets.
func checkBucketName(name string) error {
	invalid := func(why string) error {
		return apiError("InvalidBucketName", "The specified bucket is not valid: %s.", why)
	}
	switch {
	case len(name) < 3 || len(name) > 63:
		return invalid("a bucket name is 3 to 63 characters long")
	case strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "":
		return invalid("a bucket name holds only lower-case letters, digits, dots and hyphens")
	case !isAlnum(name[0]) || !isAlnum(name[len(name)-1]):
		return invalid("a bucket name starts and ends with a letter or digit")
	case strings.Contains(name, ".."):
		return invalid("a bucket name has no two adjacent periods")
	case strings.HasPrefix(name, "xn--") || strings.HasPrefix(name, "sthree-") || strings.HasPrefix(name, "amzn-s3-demo-"):
		return invalid("a bucket name may not start with xn--, sthree- or amzn-s3-demo-")
	case strings.HasSuffix(name, "-s3alias") || strings.HasSuffix(name, "--ol-s3") || strings.HasSuffix(name, ".mrap") || strings.HasSuffix(name, "--x-s3") || strings.HasSuffix(name, "--table-s3"):
		return invalid("a bucket name may not end with a reserved suffix")
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return invalid("a bucket name is not formatted as an IP address")
	}
	return nil
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// s3NoSuchBucket is S3's answer for a bucket that does not exist.
func s3NoSuchBucket(name string) error {
	return &s3types.NoSuchBucket{Message: aws.String(fmt.Sprintf("The specified bucket does not exist: %s", name))}
}

// reach returns bucket name as a client of this endpoint and account sees
// it: missing, of another account (403), or in another region (301).
// missing is the error for a bucket that does not exist.
func (a *s3API) reach(t *txn, name string, missing func(string) error) (*bucketRec, error) {
	b := t.st.Buckets[name]
	switch {
	case b == nil:
		return nil, missing(name)
	case b.Owner != t.account():
		return nil, apiError("AccessDenied", "Access Denied")
	case b.Region != a.region:
		return nil, apiError("PermanentRedirect", "The bucket you are attempting to access must be addressed using the specified endpoint: %s.s3.%s.amazonaws.com (its region is %s).", name, b.Region, b.Region)
	}
	return b, nil
}

// CreateBucket makes a bucket in this endpoint's region. Outside
// us-east-1 the request names the region as its location constraint.
func (a *s3API) CreateBucket(ctx context.Context, in *s3.CreateBucketInput, _ ...func(*s3.Options)) (*s3.CreateBucketOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "CreateBucket", func(t *txn) (*s3.CreateBucketOutput, error) {
		in := orZero(in)
		if err := need("CreateBucketInput", param{"Bucket", in.Bucket != nil}); err != nil {
			return nil, err
		}
		name := aws.ToString(in.Bucket)
		if err := checkBucketName(name); err != nil {
			return nil, err
		}
		var constraint string
		if c := in.CreateBucketConfiguration; c != nil {
			constraint = string(c.LocationConstraint)
		}
		switch {
		case constraint == "" && a.region != "us-east-1":
			return nil, apiError("IllegalLocationConstraintException", "The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.")
		case constraint != "" && a.region == "us-east-1":
			return nil, apiError("InvalidLocationConstraint", "The specified location-constraint is not valid: us-east-1 takes none.")
		case constraint != "" && constraint != a.region:
			return nil, apiError("IllegalLocationConstraintException", "The %s location constraint is incompatible for the region specific endpoint this request was sent to (%s).", constraint, a.region)
		}
		if b := t.st.Buckets[name]; b != nil {
			if b.Owner == t.account() {
				return nil, &s3types.BucketAlreadyOwnedByYou{Message: aws.String("Your previous request to create the named bucket succeeded and you already own it.")}
			}
			return nil, &s3types.BucketAlreadyExists{Message: aws.String("The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.")}
		}
		t.st.Buckets[name] = &bucketRec{Name: name, Region: a.region, Owner: t.account(), CreatedAt: t.now}
		return &s3.CreateBucketOutput{Location: aws.String("/" + name), BucketArn: aws.String(bucketARN(name))}, nil
	})
}

// HeadBucket tells whether the bucket exists and this account may reach
// it. As in S3 its errors have no body: 404 NotFound, 403 Forbidden
// (another account's, or ExpectedBucketOwner differs), 301
// MovedPermanently (another region).
func (a *s3API) HeadBucket(ctx context.Context, in *s3.HeadBucketInput, _ ...func(*s3.Options)) (*s3.HeadBucketOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "HeadBucket", func(t *txn) (*s3.HeadBucketOutput, error) {
		in := orZero(in)
		if err := need("HeadBucketInput", param{"Bucket", in.Bucket != nil}); err != nil {
			return nil, err
		}
		b := t.st.Buckets[aws.ToString(in.Bucket)]
		switch {
		case b == nil:
			return nil, &s3types.NotFound{Message: aws.String("Not Found")}
		case b.Owner != t.account() || (in.ExpectedBucketOwner != nil && *in.ExpectedBucketOwner != b.Owner):
			return nil, apiError("Forbidden", "Forbidden")
		case b.Region != a.region:
			return nil, apiError("MovedPermanently", "Moved Permanently")
		}
		return &s3.HeadBucketOutput{BucketRegion: aws.String(b.Region), BucketArn: aws.String(bucketARN(b.Name))}, nil
	})
}

// GetBucketLocation names the bucket's region from any endpoint: "" for
// us-east-1, as S3 answers.
func (a *s3API) GetBucketLocation(ctx context.Context, in *s3.GetBucketLocationInput, _ ...func(*s3.Options)) (*s3.GetBucketLocationOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "GetBucketLocation", func(t *txn) (*s3.GetBucketLocationOutput, error) {
		in := orZero(in)
		if err := need("GetBucketLocationInput", param{"Bucket", in.Bucket != nil}); err != nil {
			return nil, err
		}
		b := t.st.Buckets[aws.ToString(in.Bucket)]
		switch {
		case b == nil:
			return nil, s3NoSuchBucket(aws.ToString(in.Bucket))
		case b.Owner != t.account():
			return nil, apiError("AccessDenied", "Access Denied")
		}
		out := &s3.GetBucketLocationOutput{}
		if b.Region != "us-east-1" {
			out.LocationConstraint = s3types.BucketLocationConstraint(b.Region)
		}
		return out, nil
	})
}

// ListBuckets lists this account's buckets by name, in every region (or
// in BucketRegion), paged by MaxBuckets.
func (a *s3API) ListBuckets(ctx context.Context, in *s3.ListBucketsInput, _ ...func(*s3.Options)) (*s3.ListBucketsOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "ListBuckets", func(t *txn) (*s3.ListBucketsOutput, error) {
		in := orZero(in)
		var all []s3types.Bucket
		for _, name := range sortedKeys(t.st.Buckets) {
			b := t.st.Buckets[name]
			if b.Owner != t.account() || (in.BucketRegion != nil && *in.BucketRegion != b.Region) || !strings.HasPrefix(name, aws.ToString(in.Prefix)) {
				continue
			}
			all = append(all, s3types.Bucket{Name: aws.String(name), BucketRegion: aws.String(b.Region), BucketArn: aws.String(bucketARN(name)), CreationDate: aws.Time(b.CreatedAt)})
		}
		items, next, err := page(all, in.ContinuationToken, t.pageSize(svcS3, "ListBuckets", in.MaxBuckets), 10000)
		if err != nil {
			return nil, apiError("InvalidArgument", "The continuation token provided is incorrect.")
		}
		return &s3.ListBucketsOutput{Buckets: items, ContinuationToken: next, Prefix: in.Prefix, Owner: &s3types.Owner{ID: aws.String(t.account())}}, nil
	})
}

// DeleteBucket deletes an empty bucket.
func (a *s3API) DeleteBucket(ctx context.Context, in *s3.DeleteBucketInput, _ ...func(*s3.Options)) (*s3.DeleteBucketOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "DeleteBucket", func(t *txn) (*s3.DeleteBucketOutput, error) {
		in := orZero(in)
		if err := need("DeleteBucketInput", param{"Bucket", in.Bucket != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		if len(b.Objects) > 0 {
			return nil, apiError("BucketNotEmpty", "The bucket you tried to delete is not empty.")
		}
		delete(t.st.Buckets, b.Name)
		return &s3.DeleteBucketOutput{}, nil
	})
}

// PutBucketTagging replaces the bucket's tags.
func (a *s3API) PutBucketTagging(ctx context.Context, in *s3.PutBucketTaggingInput, _ ...func(*s3.Options)) (*s3.PutBucketTaggingOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "PutBucketTagging", func(t *txn) (*s3.PutBucketTaggingOutput, error) {
		in := orZero(in)
		if err := need("PutBucketTaggingInput", param{"Bucket", in.Bucket != nil}, param{"Tagging", in.Tagging != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		if len(in.Tagging.TagSet) > 50 {
			return nil, apiError("InvalidTag", "A bucket has at most 50 tags.")
		}
		tags := map[string]string{}
		for _, tag := range in.Tagging.TagSet {
			k := aws.ToString(tag.Key)
			if k == "" || len(k) > 128 || len(aws.ToString(tag.Value)) > 256 || strings.HasPrefix(k, "aws:") {
				return nil, apiError("InvalidTag", "The tag %q is not valid: keys are 1 to 128 characters, not starting with aws:, values at most 256.", k)
			}
			if _, dup := tags[k]; dup {
				return nil, apiError("InvalidTag", "Cannot provide multiple Tags with the same key: %s.", k)
			}
			tags[k] = aws.ToString(tag.Value)
		}
		b.Tags = tags
		return &s3.PutBucketTaggingOutput{}, nil
	})
}

// GetBucketTagging returns the bucket's tags; NoSuchTagSet when it has
// none.
func (a *s3API) GetBucketTagging(ctx context.Context, in *s3.GetBucketTaggingInput, _ ...func(*s3.Options)) (*s3.GetBucketTaggingOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "GetBucketTagging", func(t *txn) (*s3.GetBucketTaggingOutput, error) {
		in := orZero(in)
		if err := need("GetBucketTaggingInput", param{"Bucket", in.Bucket != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		if len(b.Tags) == 0 {
			return nil, apiError("NoSuchTagSet", "The TagSet does not exist.")
		}
		out := &s3.GetBucketTaggingOutput{}
		for _, k := range sortedKeys(b.Tags) {
			out.TagSet = append(out.TagSet, s3types.Tag{Key: aws.String(k), Value: aws.String(b.Tags[k])})
		}
		return out, nil
	})
}

// PutPublicAccessBlock sets the bucket's four public access settings.
func (a *s3API) PutPublicAccessBlock(ctx context.Context, in *s3.PutPublicAccessBlockInput, _ ...func(*s3.Options)) (*s3.PutPublicAccessBlockOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "PutPublicAccessBlock", func(t *txn) (*s3.PutPublicAccessBlockOutput, error) {
		in := orZero(in)
		if err := need("PutPublicAccessBlockInput", param{"Bucket", in.Bucket != nil}, param{"PublicAccessBlockConfiguration", in.PublicAccessBlockConfiguration != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		c := in.PublicAccessBlockConfiguration
		b.PublicAccessBlock = []bool{aws.ToBool(c.BlockPublicAcls), aws.ToBool(c.IgnorePublicAcls), aws.ToBool(c.BlockPublicPolicy), aws.ToBool(c.RestrictPublicBuckets)}
		return &s3.PutPublicAccessBlockOutput{}, nil
	})
}

// BucketPublicAccessBlocked tells whether bucket name blocks every kind of
// public access.
func (w *World) BucketPublicAccessBlocked(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.st.Buckets[name]
	return b != nil && len(b.PublicAccessBlock) == 4 && !slices.Contains(b.PublicAccessBlock, false)
}

// PutBucketCors replaces the bucket's CORS rules: 1 to 100, each with
// methods S3 knows and at least one origin.
func (a *s3API) PutBucketCors(ctx context.Context, in *s3.PutBucketCorsInput, _ ...func(*s3.Options)) (*s3.PutBucketCorsOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "PutBucketCors", func(t *txn) (*s3.PutBucketCorsOutput, error) {
		in := orZero(in)
		if err := need("PutBucketCorsInput", param{"Bucket", in.Bucket != nil}, param{"CORSConfiguration", in.CORSConfiguration != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		rules := in.CORSConfiguration.CORSRules
		if len(rules) == 0 || len(rules) > 100 {
			return nil, apiError("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: a CORS configuration has 1 to 100 rules.")
		}
		for _, r := range rules {
			if len(r.AllowedOrigins) == 0 || len(r.AllowedMethods) == 0 {
				return nil, apiError("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: a CORS rule names its origins and methods.")
			}
			for _, m := range r.AllowedMethods {
				if !slices.Contains([]string{"GET", "PUT", "POST", "DELETE", "HEAD"}, m) {
					return nil, apiError("InvalidRequest", "Found unsupported HTTP method in CORS config. Unsupported method is %s", m)
				}
			}
		}
		b.CORS = slices.Clone(rules)
		return &s3.PutBucketCorsOutput{}, nil
	})
}

// GetBucketCors returns the bucket's CORS rules; NoSuchCORSConfiguration
// when it has none.
func (a *s3API) GetBucketCors(ctx context.Context, in *s3.GetBucketCorsInput, _ ...func(*s3.Options)) (*s3.GetBucketCorsOutput, error) {
	return call(ctx, a.w, svcS3, a.region, "GetBucketCors", func(t *txn) (*s3.GetBucketCorsOutput, error) {
		in := orZero(in)
		if err := need("GetBucketCorsInput", param{"Bucket", in.Bucket != nil}); err != nil {
			return nil, err
		}
		b, err := a.reach(t, aws.ToString(in.Bucket), s3NoSuchBucket)
		if err != nil {
			return nil, err
		}
		if len(b.CORS) == 0 {
			return nil, apiError("NoSuchCORSConfiguration", "The CORS configuration does not exist")
		}
		return &s3.GetBucketCorsOutput{CORSRules: slices.Clone(b.CORS)}, nil
	})
}
