package storage

import (
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// SharedBuckets reads the clusters' shared buckets from the store. It is
// the read side of the storage area apart from its operations, so that an
// area the storage area itself uses (the features, whose MLflow keeps its
// artifacts in the bucket) can read the bucket without a cycle between the
// two services.
type SharedBuckets struct{ Store *store.Store }

// SharedStorage returns the storage of the cluster's shared bucket, or nil
// when it has none.
func (b SharedBuckets) SharedStorage(clusterID string) (*Storage, error) {
	return store.Indexed[Storage](b.Store, bucketIndex, clusterID, RecordKind)
}

// SharedBucket returns the cluster's shared bucket when pods can mount it
// (its storage is AVAILABLE), nil otherwise.
func (b SharedBuckets) SharedBucket(clusterID string) (*hyperpod.Bucket, error) {
	st, err := b.SharedStorage(clusterID)
	if err != nil || st == nil || st.Status != Available {
		return nil, err
	}
	return &hyperpod.Bucket{Name: st.S3.Bucket, Namespace: st.Namespace, ClaimName: st.ClaimName, MountPath: st.MountPath}, nil
}

// SharedStorage returns the storage of the cluster's shared bucket, or nil
// when it has none.
func (s *Service) SharedStorage(clusterID string) (*Storage, error) {
	return SharedBuckets{s.store}.SharedStorage(clusterID)
}

// SharedBucket returns the cluster's shared bucket when pods can mount it,
// nil otherwise.
func (s *Service) SharedBucket(clusterID string) (*hyperpod.Bucket, error) {
	return SharedBuckets{s.store}.SharedBucket(clusterID)
}

// FSxClaim returns the claim of the cluster's AVAILABLE FSx for Lustre
// file system id, "" when there is none.
func (s *Service) FSxClaim(clusterID, id string) (string, error) {
	req := store.PageRequest{First: 200}
	for {
		page, err := s.Page(clusterID, req)
		if err != nil {
			return "", err
		}
		for _, st := range page.Items {
			if st.FSx != nil && st.FSx.FileSystemID == id && st.Status == Available {
				return st.ClaimName, nil
			}
		}
		if !page.HasNext || len(page.Items) == 0 {
			return "", nil
		}
		req.After = page.Items[len(page.Items)-1].ID
	}
}
