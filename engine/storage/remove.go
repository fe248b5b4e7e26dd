package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// removeInput is what a RemoveStorage operation stores.
type removeInput struct {
	StorageID    string `json:"storageId"`
	DeleteBucket bool   `json:"deleteBucket"`
	// Buckets are the buckets the S3 CSI driver keeps allowing; empty
	// leaves its policy as it is (a policy must name a bucket).
	Buckets []string `json:"buckets,omitempty"`
}

// Phase names of RemoveStorage.
const (
	phaseObjects      = "objects"
	phaseDeleteBucket = "delete-bucket"
)

// Remove removes storage id: its claim and volume, and, when deleteBucket
// is set, every object of the bucket and the bucket itself. Without it the
// bucket and its objects stay as they are.
func (s *Service) Remove(ctx context.Context, caller, id string, deleteBucket bool, idempotencyKey string) (*ops.Operation, error) {
	st, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	target := ops.Ref{Kind: targetKind, ID: st.ID, Name: st.Name()}
	sent := removeInput{StorageID: id, DeleteBucket: deleteBucket}
	if op, err := s.runner.Replay(ops.Request{Kind: KindRemove, Target: target, ClusterID: st.ClusterID, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: sent}); op != nil || err != nil {
		return op, err
	}
	if st.Status == Deleted {
		return s.runner.Submit(ops.Request{Kind: KindRemove, Target: target, ClusterID: st.ClusterID, RequestedBy: caller, IdempotencyKey: idempotencyKey, Input: sent, Fingerprint: sent, Noop: true})
	}
	c, err := s.clusters.Get(st.ClusterID)
	if err != nil {
		return nil, err
	}
	// A cascade delete removes the storage of a DELETING cluster; that of a
	// cluster deleted without it (by an earlier version) is removed with
	// what outlived the cluster (a file system, the bucket when asked).
	gone := c.Status == hyperpod.ClusterDeleted
	if c.Status != hyperpod.ClusterDeleting && !gone {
		if err := c.RequireActive("id", "storage can be removed"); err != nil {
			return nil, err
		}
	}
	if st.FSx != nil {
		if deleteBucket {
			return nil, errs.Field("deleteBucket", "storage %s is a file system, not the shared bucket; remove it without deleteBucket (its files go with it, the bucket's objects stay)", st.FSx.Name)
		}
		return s.runner.Submit(ops.Request{Kind: KindRemove, Target: target, ClusterID: st.ClusterID, RequestedBy: caller, IdempotencyKey: idempotencyKey, Input: sent, Fingerprint: sent})
	}
	if linked, err := s.linkedFileSystem(st); err != nil || linked != nil {
		if err != nil {
			return nil, err
		}
		return nil, errs.New(errs.Precondition, "file system %s (storage %s) is linked to bucket %s; remove it first", linked.FSx.Name, linked.ID, st.S3.Bucket).WithField("id")
	}
	var mounted []string // the buckets the S3 CSI driver keeps allowing
	if !gone {
		if mounted, err = s.mounts.MountedBuckets(c.ID); err != nil {
			return nil, err
		}
	}
	in := sent
	if rest := slices.DeleteFunc(slices.Clone(mounted), func(b string) bool { return b == st.S3.Bucket }); len(rest) > 0 && len(rest) < len(mounted) {
		in.Buckets = rest
	}
	return s.runner.Submit(ops.Request{
		Kind: KindRemove, Target: target, ClusterID: st.ClusterID, RequestedBy: caller, IdempotencyKey: idempotencyKey, Input: in, Fingerprint: sent,
		Prepare: func(tx *store.Tx, op *ops.Operation) error {
			if len(in.Buckets) > 0 {
				return s.mounts.RecordMount(tx, c.ID, in.Buckets, op.ID)
			}
			return nil
		},
	})
}

// removeSteps builds RemoveStorage's phases from its stored input.
func (s *Service) removeSteps(op *ops.Operation) ([]ops.Step, error) {
	var in removeInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	st, err := s.Get(in.StorageID)
	if err != nil {
		return nil, err
	}
	c, p, err := s.clusters.Reach(st.ClusterID, false)
	if err != nil {
		return nil, err
	}
	if st.FSx != nil {
		return removeFSxSteps(p, c, st), nil
	}
	steps := []ops.Step{unmountStep(p, c, st)}
	last := phaseVolume
	if len(in.Buckets) > 0 {
		mount, err := s.mounts.MountSteps(c.ID, in.Buckets, phaseVolume)
		if err != nil {
			return nil, err
		}
		steps = append(steps, mount...)
		last = mount[len(mount)-1].Name
	}
	if in.DeleteBucket {
		objects := emptyBucketStep(p, st.S3.Bucket)
		objects.DependsOn = []string{last}
		del := deleteBucketStep(p, st.S3.Bucket)
		del.DependsOn = []string{phaseObjects}
		steps = append(steps, objects, del)
	}
	return steps, nil
}

// emptyBucketStep deletes every object of bucket, a thousand per call.
func emptyBucketStep(p *cloud.Provider, bucket string) ops.Step {
	return ops.Step{Name: phaseObjects, Title: "Delete the objects of bucket " + bucket,
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			out, err := p.S3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), MaxKeys: aws.Int32(1)})
			switch {
			case isBucketMissing(err):
				return ops.Observation{State: ops.Done}, nil
			case err != nil:
				return ops.Observation{}, errs.FromUpstream(err, "list bucket "+bucket)
			case len(out.Contents) == 0:
				return ops.Observation{State: ops.Done}, nil
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			var token *string
			for {
				out, err := p.S3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), ContinuationToken: token})
				if err != nil {
					return nil, errs.FromUpstream(err, "list bucket "+bucket)
				}
				if len(out.Contents) > 0 {
					ids := make([]s3types.ObjectIdentifier, 0, len(out.Contents))
					for _, o := range out.Contents {
						ids = append(ids, s3types.ObjectIdentifier{Key: o.Key})
					}
					res, err := p.S3.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &s3types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
					if err != nil {
						return nil, errs.FromUpstream(err, "delete objects of bucket "+bucket)
					}
					if len(res.Errors) > 0 {
						e := res.Errors[0]
						return nil, errs.New(errs.Upstream, "delete %s of bucket %s: %s: %s (and %d more)", aws.ToString(e.Key), bucket, aws.ToString(e.Code), aws.ToString(e.Message), len(res.Errors)-1)
					}
				}
				if !aws.ToBool(out.IsTruncated) {
					return nil, nil
				}
				token = out.NextContinuationToken
			}
		},
	}
}

// deleteBucketStep deletes the emptied bucket.
func deleteBucketStep(p *cloud.Provider, bucket string) ops.Step {
	return ops.Step{Name: phaseDeleteBucket, Title: "Delete bucket " + bucket,
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			_, err := p.S3.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
			switch {
			case isBucketMissing(err):
				return ops.Observation{State: ops.Done}, nil
			case err != nil:
				return ops.Observation{}, errs.FromUpstream(err, "look up bucket "+bucket)
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			if _, err := p.S3.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil && !isBucketMissing(err) {
				return nil, errs.FromUpstream(err, "delete bucket "+bucket)
			}
			return nil, nil
		},
	}
}

// reflectStorage keeps the storage record in line with its operations.
func reflectStorage(tx *store.Tx, op *ops.Operation) error {
	var id string
	switch op.Kind {
	case KindAdd:
		var in addInput
		if err := json.Unmarshal(op.Input, &in); err != nil {
			return err
		}
		id = in.StorageID
	default:
		var in removeInput
		if err := json.Unmarshal(op.Input, &in); err != nil {
			return err
		}
		id = in.StorageID
	}
	var st Storage
	if err := tx.Get(RecordKind, id, &st); err != nil {
		return fmt.Errorf("load storage %s: %w", id, err)
	}
	// A removal that found everything gone already (its cluster was
	// deleted) still ends the record DELETED.
	if op.Noop && (op.Kind != KindRemove || st.Status == Deleted) {
		return nil // nothing changed
	}
	st.LastOperationID, st.StatusMessage = op.ID, ""
	if st.FSx != nil && op.Kind == KindAdd {
		if err := reflectFileSystem(st.FSx, op); err != nil {
			return err
		}
	}
	switch {
	case op.Status == ops.Failed && op.Error != nil:
		st.Status, st.StatusMessage = Failed, op.Error.Message
	case op.Status == ops.Failed, op.Status == ops.Cancelled:
		st.Status, st.StatusMessage = Failed, "the operation "+string(op.Status)
	case op.Kind == KindAdd && op.Status == ops.Succeeded:
		st.Status = Available
	case op.Kind == KindAdd:
		st.Status = Creating
	case op.Status == ops.Succeeded:
		now := tx.Now()
		st.Status, st.DeletedAt = Deleted, &now
		if holder, err := tx.GetIndex(bucketIndex, st.ClusterID); err == nil && holder == st.ID {
			if err := tx.DeleteIndex(bucketIndex, st.ClusterID); err != nil {
				return err
			}
		}
	default:
		st.Status = Deleting
	}
	st.UpdatedAt = tx.Now()
	return tx.Put(RecordKind, st.ID, &st)
}
