package storage

import (
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/store"
)

// InferenceView shows the storage to the inference area: the shared bucket
// models are served from, and the FSx file systems managed endpoints may
// load from.
type InferenceView struct{ Service *Service }

var _ inference.Buckets = InferenceView{}

// SharedBucket returns the cluster's shared bucket when pods can mount
// it, nil otherwise.
func (v InferenceView) SharedBucket(clusterID string) (*inference.Bucket, error) {
	st, err := v.Service.SharedBucket(clusterID)
	if err != nil || st == nil || st.Status != Available {
		return nil, err
	}
	return &inference.Bucket{Name: st.S3.Bucket, Namespace: st.Namespace, ClaimName: st.ClaimName, MountPath: st.MountPath}, nil
}

// FSxClaim returns the claim of the cluster's AVAILABLE FSx for Lustre
// file system id, "" when there is none.
func (v InferenceView) FSxClaim(clusterID, id string) (string, error) {
	req := store.PageRequest{First: 200}
	for {
		page, err := v.Service.Page(clusterID, req)
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
