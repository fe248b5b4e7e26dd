package features

import (
	"context"
	"slices"

	"github.com/instantstart/instantstart/engine/training"
)

// TrainingOperatorView shows the features to the training area: whether
// the operators that run jobs are on, which groups Karpenter grows, and
// the MLflow tracking server jobs report to.
type TrainingOperatorView struct{ Service *Service }

// OperatorOn tells whether the cluster's TRAINING_OPERATOR (ray false) or
// KUBERAY (ray true) feature is ENABLED, as its links show.
func (v TrainingOperatorView) OperatorOn(ctx context.Context, clusterID string, ray bool) (bool, error) {
	name := TrainingOperator
	if ray {
		name = KubeRay
	}
	return v.enabled(ctx, clusterID, name)
}

func (v TrainingOperatorView) enabled(ctx context.Context, clusterID string, name Name) (bool, error) {
	list, err := v.Service.List(ctx, clusterID)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(list, func(f *Feature) bool { return f.Name == name })
	return i >= 0 && list[i].Status == Enabled, nil
}

// Autoscaled tells whether managed Karpenter was last turned on for the
// cluster's instance group.
func (v TrainingOperatorView) Autoscaled(_ context.Context, clusterID, group string) (bool, error) {
	st, err := v.Service.StoredSettings(clusterID, KarpenterAutoscaling)
	if err != nil || st == nil {
		return false, err
	}
	return slices.Contains(st.InstanceGroups, group), nil
}

// MLflow returns the cluster's tracking server, and the service account
// its jobs report to it as, when the MLFLOW feature is ENABLED (as its
// links show); nil otherwise. The experiment is the training area's to
// choose (the cluster's name unless the job names one).
func (v TrainingOperatorView) MLflow(ctx context.Context, clusterID string) (*training.MLflowServer, error) {
	on, err := v.enabled(ctx, clusterID, MLflow)
	if err != nil || !on {
		return nil, err
	}
	st, err := v.Service.StoredSettings(clusterID, MLflow)
	if err != nil || st == nil {
		return nil, err
	}
	c, err := v.Service.clusters.Cluster(clusterID)
	if err != nil {
		return nil, err
	}
	e := &env{c: c, settings: *st}
	return &training.MLflowServer{TrackingServerArn: mlflowServerArn(e), Namespace: st.Namespace, ServiceAccount: st.ServiceAccount}, nil
}
