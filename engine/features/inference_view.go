package features

import (
	"context"
	"slices"

	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// InferenceView shows the features to the inference area: whether the
// inference operator, KEDA, observability and the load balancer
// controller are on, the inference operator's TLS bucket, the Prometheus
// endpoint KEDA queries, and the phases that turn the load balancer
// controller on inside a deployment.
type InferenceView struct{ Service *Service }

var _ inference.Features = InferenceView{}

// On tells whether feature name of the cluster is ENABLED, as its links
// show.
func (v InferenceView) On(ctx context.Context, clusterID, name string) (bool, error) {
	list, err := v.Service.List(ctx, clusterID)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(list, func(f *Feature) bool { return f.Name == Name(name) })
	return i >= 0 && list[i].Status == Enabled, nil
}

// TLSBucket is the bucket the inference operator was last turned on with.
func (v InferenceView) TLSBucket(clusterID string) (string, error) {
	st, err := v.Service.StoredSettings(clusterID, InferenceOperator)
	if err != nil || st == nil {
		return "", err
	}
	return st.Bucket, nil
}

// PrometheusEndpoint is the query endpoint of the workspace observability
// was last turned on with.
func (v InferenceView) PrometheusEndpoint(clusterID string) (string, error) {
	st, err := v.Service.StoredSettings(clusterID, Observability)
	if err != nil || st == nil {
		return "", err
	}
	ws, _ := observabilityValues(st.WorkspaceArn)["ampWorkspace"].(map[string]any)
	endpoint, _ := ws["prometheusEndpoint"].(string)
	return endpoint, nil
}

// LoadBalancerControllerSteps returns the phases that turn the AWS Load
// Balancer Controller on, after after.
func (v InferenceView) LoadBalancerControllerSteps(clusterID, after string) ([]ops.Step, error) {
	return v.Service.EnableSteps(clusterID, LoadBalancerController, Settings{}, after)
}

// RecordLoadBalancerController stores that operation opID turns it on.
func (v InferenceView) RecordLoadBalancerController(tx *store.Tx, clusterID, opID string) error {
	return v.Service.MarkEnabled(tx, clusterID, LoadBalancerController, Settings{}, opID)
}
