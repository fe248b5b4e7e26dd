package storage

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// AddInput asks for a storage.
type AddInput struct {
	ClusterID string `json:"clusterId"`
	Kind      Kind   `json:"kind"`
	S3        *S3Input
	FSx       *FSxInput
}

// S3Input is the shared bucket to add.
type S3Input struct {
	// Bucket is the bucket's name.
	Bucket string `json:"bucket"`
	// Create makes the bucket, in the cluster's region; otherwise it must
	// be a bucket of the account there already.
	Create bool `json:"create"`
}

// addInput is what an AddStorage operation stores.
type addInput struct {
	StorageID string `json:"storageId"`
	ClusterID string `json:"clusterId"`
	Bucket    string `json:"bucket"`
	Region    string `json:"region"`
	Create    bool   `json:"create"`
	// Buckets are all the buckets the S3 CSI driver is to allow: those it
	// allowed already and this one.
	Buckets []string `json:"buckets"`
	// Kind is empty for the shared bucket (as operations stored before
	// FSx had it), FSX_LUSTRE with FSx set for a file system.
	Kind Kind     `json:"kind,omitempty"`
	FSx  *fsxPlan `json:"fsx,omitempty"`
}

// fsxPlan is the file system an AddStorage operation makes, placed.
type fsxPlan struct {
	Name             string         `json:"name"`
	DeploymentType   DeploymentType `json:"deploymentType"`
	CapacityGiB      int            `json:"capacityGiB"`
	ThroughputPerTiB int            `json:"throughputPerTiB,omitempty"`
	SubnetID         string         `json:"subnetId"`
	Zone             string         `json:"zone"`
	// Bucket is the shared bucket to link, "" for none.
	Bucket string `json:"bucket,omitempty"`
}

// storage is the record the request makes, CREATING.
func (in addInput) storage() *Storage {
	if f := in.FSx; f != nil {
		st := &Storage{ID: in.StorageID, ClusterID: in.ClusterID, Kind: KindFSxLustre, Status: Creating, Namespace: WorkloadNamespace,
			VolumeName: "instantstart-fsx-" + strings.ToLower(in.StorageID), ClaimName: "fsx-" + f.Name, MountPath: FSxMountRoot + "/" + f.Name,
			FSx: &FileSystem{Name: f.Name, DeploymentType: f.DeploymentType, CapacityGiB: f.CapacityGiB, ThroughputPerTiB: f.ThroughputPerTiB, SubnetID: f.SubnetID, Zone: f.Zone}}
		if f.Bucket != "" {
			st.FSx.DataRepositoryPath = "s3://" + f.Bucket + "/"
		}
		return st
	}
	return &Storage{ID: in.StorageID, ClusterID: in.ClusterID, Kind: KindS3, Status: Creating, Namespace: WorkloadNamespace,
		VolumeName: "instantstart-s3-" + strings.ToLower(in.StorageID), ClaimName: "s3-shared", MountPath: MountPath,
		S3: &Bucket{Bucket: in.Bucket, Region: in.Region, Created: in.Create}}
}

// putRecord stores the record request in makes, as operation op's
// Prepare, over prior (a failed one added again) when there is one.
func putRecord(tx *store.Tx, op *ops.Operation, in addInput, prior *Storage) error {
	st := in.storage()
	st.LastOperationID, st.CreatedAt, st.UpdatedAt = op.ID, tx.Now(), tx.Now()
	if prior != nil {
		st.CreatedAt = prior.CreatedAt
	}
	if err := tx.Put(RecordKind, st.ID, st); err != nil {
		return err
	}
	return tx.PutIndex(clusterIndex, st.ClusterID+"/"+st.ID, "")
}

// Phase names of AddStorage.
const (
	phaseBucket  = "bucket"
	phaseUploads = "uploads"
	phaseVolume  = "volume"
)

// uploadsCORSRuleID names the CORS rule that lets a browser send signed
// uploads to the shared bucket.
const uploadsCORSRuleID = "instantstart-uploads"

// uploadsCORSRule lets any origin PUT to the bucket and read the ETag S3
// answers (a multipart upload needs each part's). Any origin, because the
// signed URL, not the page, decides what may be written; the bucket stays
// private.
func uploadsCORSRule() s3types.CORSRule {
	return s3types.CORSRule{ID: aws.String(uploadsCORSRuleID), AllowedMethods: []string{"PUT"}, AllowedOrigins: []string{"*"},
		AllowedHeaders: []string{"*"}, ExposeHeaders: []string{"ETag"}, MaxAgeSeconds: aws.Int32(3000)}
}

// uploadsStep puts the uploads' CORS rule on the bucket, beside the rules
// it has.
func uploadsStep(p *cloud.Provider, bucket string) ops.Step {
	current := func(ctx context.Context) ([]s3types.CORSRule, error) {
		out, err := p.S3.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(bucket)})
		if errs.IsAPICode(err, "NoSuchCORSConfiguration") {
			return nil, nil
		}
		if err != nil {
			return nil, errs.FromUpstream(err, "read the CORS rules of bucket "+bucket)
		}
		return out.CORSRules, nil
	}
	return ops.Step{Name: phaseUploads, Title: "Browser uploads to " + bucket + " (CORS rule)", DependsOn: []string{phaseBucket},
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			rules, err := current(ctx)
			if err != nil {
				return ops.Observation{}, err
			}
			if slices.ContainsFunc(rules, func(r s3types.CORSRule) bool { return aws.ToString(r.ID) == uploadsCORSRuleID }) {
				return ops.Observation{State: ops.Done}, nil
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			rules, err := current(ctx)
			if err != nil {
				return nil, err
			}
			rules = append(slices.Clone(rules), uploadsCORSRule())
			if _, err := p.S3.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(bucket), CORSConfiguration: &s3types.CORSConfiguration{CORSRules: rules}}); err != nil {
				return nil, errs.FromUpstream(err, "put the uploads' CORS rule on bucket "+bucket)
			}
			return nil, nil
		},
	}
}

// checkBucketName refuses a name S3 would refuse, at field.
func checkBucketName(field, name string) error {
	if why := cloud.BucketNameProblem(name); why != "" {
		return errs.Field(field, "bucket name %q: %s", errs.Clip(name), why)
	}
	return nil
}

// Add adds storage to a cluster. A second identical request for the
// cluster's shared bucket changes nothing.
func (s *Service) Add(ctx context.Context, caller string, in AddInput, idempotencyKey string) (*ops.Operation, error) {
	switch {
	case in.Kind != KindS3 && in.Kind != KindFSxLustre:
		return nil, errs.Field("input.kind", "storage kind %q is not one this version makes; use S3 or FSX_LUSTRE", in.Kind)
	case in.Kind == KindFSxLustre && in.S3 != nil:
		return nil, errs.Field("input.s3", "an FSX_LUSTRE storage takes input.fsxLustre only: leave input.s3 out, or add the bucket with kind S3 in a request of its own")
	case in.Kind == KindS3 && in.FSx != nil:
		return nil, errs.Field("input.fsxLustre", "an S3 storage takes input.s3 only: leave input.fsxLustre out, or add the file system with kind FSX_LUSTRE in a request of its own")
	}
	c, err := s.clusters.Get(in.ClusterID)
	if err != nil {
		return nil, errs.NotFoundOn(err, "input.clusterId")
	}
	if in.Kind == KindFSxLustre {
		return s.addFSx(ctx, caller, c, in, idempotencyKey)
	}
	if in.S3 == nil {
		return nil, errs.Field("input.s3", "an S3 storage needs input.s3 with the bucket's name and whether to create it")
	}
	if err := checkBucketName("input.s3.bucket", in.S3.Bucket); err != nil {
		return nil, err
	}
	sent := in
	// The request is identified by the cluster and the bucket before any
	// check: a retry matches the operation it made.
	if op, err := s.runner.Replay(ops.Request{Kind: KindAdd, Target: ops.Ref{Kind: targetKind}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: sent}); op != nil || err != nil {
		return op, err
	}
	if err := c.RequireActive("input.clusterId", "storage can be added"); err != nil {
		return nil, err
	}
	shared, err := s.SharedStorage(c.ID)
	if err != nil {
		return nil, err
	}
	if shared != nil && shared.Status != Deleted {
		if shared.S3.Bucket != in.S3.Bucket {
			return nil, errs.New(errs.Conflict, "cluster %s already has the shared bucket %s (storage %s); a cluster has one: remove it first to use %s", c.Name, shared.S3.Bucket, shared.ID, in.S3.Bucket).WithField("input.s3.bucket")
		}
		if shared.Status == Available || shared.Status == Creating {
			// The same bucket again: nothing to do (or under way already).
			return s.runner.Submit(ops.Request{Kind: KindAdd, Target: ops.Ref{Kind: targetKind, ID: shared.ID, Name: shared.S3.Bucket}, RequestedBy: caller,
				IdempotencyKey: idempotencyKey, Fingerprint: sent, Input: addInput{StorageID: shared.ID, ClusterID: c.ID, Bucket: shared.S3.Bucket, Region: shared.S3.Region}, Noop: shared.Status == Available})
		}
	}
	_, p, err := s.clusters.Reach(c.ID, true)
	if err != nil {
		return nil, err
	}
	if err := checkBucket(ctx, p, c, in.S3); err != nil {
		return nil, err
	}
	mounted, err := s.mounts.MountedBuckets(c.ID)
	if err != nil {
		return nil, err
	}
	buckets := mounted
	if !slices.Contains(buckets, in.S3.Bucket) {
		buckets = append(slices.Clone(buckets), in.S3.Bucket)
	}
	id := ""
	if shared != nil {
		id = shared.ID // a failed one, added again
	} else {
		id = s.ids.NewID()
	}
	stored := addInput{StorageID: id, ClusterID: c.ID, Bucket: in.S3.Bucket, Region: c.Region, Create: in.S3.Create, Buckets: buckets}
	return s.runner.Submit(ops.Request{
		Kind: KindAdd, Target: ops.Ref{Kind: targetKind, ID: id, Name: in.S3.Bucket}, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: stored, Fingerprint: sent,
		Prepare: func(tx *store.Tx, op *ops.Operation) error {
			if err := putRecord(tx, op, stored, shared); err != nil {
				return err
			}
			if err := tx.PutIndex(bucketIndex, c.ID, id); err != nil {
				return err
			}
			return s.mounts.RecordMount(tx, c.ID, buckets, op.ID)
		},
	})
}

// checkBucket refuses a bucket that cannot be the cluster's: one to create
// that exists, one to use that does not, one of another account or region.
func checkBucket(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, in *S3Input) error {
	region, err := bucketRegion(ctx, p, c, in.Bucket)
	switch {
	case err != nil:
		return err
	case region == "" && !in.Create:
		return errs.New(errs.NotFound, "bucket %s does not exist; create it (input.s3.create = true) or name a bucket of account %s in %s", in.Bucket, c.AccountID(), c.Region).WithField("input.s3.bucket")
	case region != "" && in.Create:
		return errs.New(errs.Conflict, "bucket %s exists already (in %s); to use it as it is, send input.s3.create = false", in.Bucket, region).WithField("input.s3.bucket")
	case region != "" && region != c.Region:
		return errs.New(errs.Precondition, "bucket %s is in %s, and cluster %s is in %s; pods would read it across regions: use a bucket in %s", in.Bucket, region, c.Name, c.Region, c.Region).WithField("input.s3.bucket")
	}
	return nil
}

// bucketRegion returns the region of bucket, "" when it does not exist. A
// bucket of another account is refused.
func bucketRegion(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, bucket string) (string, error) {
	out, err := p.S3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket), ExpectedBucketOwner: ownerOf(c)})
	switch {
	case err == nil:
		return cmp.Or(aws.ToString(out.BucketRegion), c.Region), nil
	case isBucketMissing(err):
		return "", nil
	case errs.IsAPICode(err, "Forbidden", "AccessDenied", "403"):
		return "", errs.New(errs.Precondition, "bucket %s belongs to another account (or this account may not read it); bucket names are global: choose another name, or a bucket of account %s", bucket, c.AccountID()).WithField("input.s3.bucket")
	case errs.IsAPICode(err, "PermanentRedirect", "MovedPermanently", "301"):
		// S3 answers a HEAD from another region with no body: its
		// location names the region.
		loc, lerr := p.S3.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket), ExpectedBucketOwner: ownerOf(c)})
		if lerr != nil {
			return "", errs.New(errs.Precondition, "bucket %s is in another region than the cluster's %s; use a bucket in %s", bucket, c.Region, c.Region).WithField("input.s3.bucket")
		}
		return cmp.Or(string(loc.LocationConstraint), "us-east-1"), nil
	}
	return "", errs.FromUpstream(err, "look up bucket "+bucket)
}

func isBucketMissing(err error) bool {
	var nf *s3types.NotFound
	var nb *s3types.NoSuchBucket
	return errors.As(err, &nf) || errors.As(err, &nb) || errs.IsAPICode(err, "NotFound", "NoSuchBucket", "404")
}

func ownerOf(c *hyperpod.Cluster) *string {
	if c.AccountID() == "" {
		return nil
	}
	return aws.String(c.AccountID())
}

// addSteps builds AddStorage's phases from its stored input.
func (s *Service) addSteps(op *ops.Operation) ([]ops.Step, error) {
	var in addInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	c, p, err := s.clusters.Reach(in.ClusterID, false)
	if err != nil {
		return nil, err
	}
	if in.FSx != nil {
		return s.addFSxSteps(p, c, in)
	}
	// The phases are planned before Prepare stores the record: they
	// take what they name from the request.
	st := in.storage()
	steps := []ops.Step{bucketStep(p, c, in), uploadsStep(p, in.Bucket)}
	mount, err := s.mounts.MountSteps(c.ID, in.Buckets, phaseBucket)
	if err != nil {
		return nil, err
	}
	steps = append(steps, mount...)
	last := phaseBucket
	if len(mount) > 0 {
		last = mount[len(mount)-1].Name
	}
	v := volumeStep(p, c, st, func(*ops.Run) (*corev1.PersistentVolume, error) { return s3Volume(st), nil })
	v.DependsOn = []string{last}
	return append(steps, v), nil
}

// bucketOutput is what the bucket phase found or made.
type bucketOutput struct {
	Bucket  string `json:"bucket"`
	Region  string `json:"region"`
	Created bool   `json:"created"`
}

// bucketStep makes the bucket (private, tagged) or checks the one to use.
func bucketStep(p *cloud.Provider, c *hyperpod.Cluster, in addInput) ops.Step {
	return ops.Step{Name: phaseBucket, Title: "Shared bucket " + in.Bucket,
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			region, err := bucketRegion(ctx, p, c, in.Bucket)
			if err != nil {
				var e *errs.Error
				if errors.As(err, &e) && e.Code == errs.Precondition {
					return ops.Observation{State: ops.Broken, Err: e}, nil
				}
				return ops.Observation{}, err
			}
			switch {
			case region == "" && in.Create:
				return ops.Observation{State: ops.Absent}, nil
			case region == "":
				return ops.Observation{State: ops.Broken, Err: errs.New(errs.NotFound, "bucket %s no longer exists; add the storage again with input.s3.create = true, or name another bucket", in.Bucket)}, nil
			case region != c.Region:
				return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition, "bucket %s is in %s, not the cluster's %s", in.Bucket, region, c.Region)}, nil
			}
			return ops.Observation{State: ops.Done, Output: bucketOutput{Bucket: in.Bucket, Region: region, Created: in.Create}}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			cin := &s3.CreateBucketInput{Bucket: aws.String(in.Bucket)}
			if c.Region != "us-east-1" {
				cin.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(c.Region)}
			}
			_, err := p.S3.CreateBucket(ctx, cin)
			var owned *s3types.BucketAlreadyOwnedByYou
			var taken *s3types.BucketAlreadyExists
			switch {
			case errors.As(err, &owned):
				// An earlier attempt made it.
			case errors.As(err, &taken):
				return nil, errs.New(errs.Conflict, "bucket name %s was taken by another account meanwhile; choose another name", in.Bucket)
			case err != nil:
				return nil, errs.FromUpstream(err, "create bucket "+in.Bucket)
			}
			if _, err := p.S3.PutPublicAccessBlock(ctx, &s3.PutPublicAccessBlockInput{Bucket: aws.String(in.Bucket), PublicAccessBlockConfiguration: &s3types.PublicAccessBlockConfiguration{
				BlockPublicAcls: aws.Bool(true), BlockPublicPolicy: aws.Bool(true), IgnorePublicAcls: aws.Bool(true), RestrictPublicBuckets: aws.Bool(true),
			}}); err != nil {
				return nil, errs.FromUpstream(err, "block public access to bucket "+in.Bucket)
			}
			if _, err := p.S3.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String(in.Bucket), Tagging: &s3types.Tagging{TagSet: []s3types.Tag{
				{Key: aws.String("instantstart:cluster"), Value: aws.String(c.Name)},
				{Key: aws.String("instantstart:storage"), Value: aws.String(in.StorageID)},
			}}}); err != nil {
				return nil, errs.FromUpstream(err, "tag bucket "+in.Bucket)
			}
			return bucketOutput{Bucket: in.Bucket, Region: c.Region, Created: true}, nil
		},
	}
}

// volumeTitle names the volume phase.
func volumeTitle(st *Storage) string {
	return fmt.Sprintf("Volume %s and claim %s/%s", st.VolumeName, st.Namespace, st.ClaimName)
}
