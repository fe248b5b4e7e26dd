package storage

import (
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/models"
	"github.com/instantstart/instantstart/engine/training"
)

// ModelsView shows the shared bucket to the models area: where models go
// and how pods mount it.
type ModelsView struct{ Service *Service }

var _ models.Buckets = ModelsView{}

// SharedBucket returns the cluster's shared bucket when pods can mount
// it, nil otherwise.
func (v ModelsView) SharedBucket(clusterID string) (*models.Bucket, error) {
	st, err := v.Service.SharedBucket(clusterID)
	if err != nil || st == nil || st.Status != Available {
		return nil, err
	}
	return &models.Bucket{Name: st.S3.Bucket, Namespace: st.Namespace, ClaimName: st.ClaimName, MountPath: st.MountPath}, nil
}

// TrainingView shows the shared bucket to the training area: where jobs
// read models and datasets and write outputs and checkpoints.
type TrainingView struct{ Service *Service }

var _ training.Buckets = TrainingView{}

// SharedBucket returns the cluster's shared bucket when pods can mount
// it, nil otherwise.
func (v TrainingView) SharedBucket(clusterID string) (*training.Bucket, error) {
	st, err := v.Service.SharedBucket(clusterID)
	if err != nil || st == nil || st.Status != Available {
		return nil, err
	}
	return &training.Bucket{Name: st.S3.Bucket, Namespace: st.Namespace, ClaimName: st.ClaimName, MountPath: st.MountPath}, nil
}

// FeaturesView shows the shared bucket to the features area: where MLFLOW
// keeps its artifacts, and the namespace its jobs run in.
type FeaturesView struct{ Service *Service }

var _ features.Buckets = FeaturesView{}

// SharedBucket returns the cluster's shared bucket when pods can mount
// it, nil otherwise.
func (v FeaturesView) SharedBucket(clusterID string) (*features.SharedBucket, error) {
	st, err := v.Service.SharedBucket(clusterID)
	if err != nil || st == nil || st.Status != Available {
		return nil, err
	}
	return &features.SharedBucket{Name: st.S3.Bucket, Namespace: st.Namespace}, nil
}
