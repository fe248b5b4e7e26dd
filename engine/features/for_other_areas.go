package features

import (
	"context"
	"errors"
	"slices"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// What other areas ask of the features, through interfaces they declare
// and engine/app fills with this Service: whether a feature is on, the
// settings it was turned on with, and the phases that turn one on inside
// another area's operation (adding the cluster's shared bucket turns the
// S3 CSI driver on for it, in the same operation). Those phases are the
// ones UpdateClusterFeatures would run, and the feature's record names the
// operation, so the feature table reads as if the feature had been
// toggled.

// EnableSteps returns the phases that turn feature name of a cluster on
// with settings, each after the one before, the first after after (when
// set). Their names are the feature's own ("s3-csi-driver/role").
func (s *Service) EnableSteps(clusterID string, name hyperpod.Feature, settings Settings, after string) ([]ops.Step, error) {
	d := find(name)
	if d == nil {
		return nil, errs.New(errs.Internal, "feature %q is unknown to this version of InstantStart", name)
	}
	c, p, err := s.clusters.Reach(clusterID, false)
	if err != nil {
		return nil, err
	}
	e := &env{p: p, c: c, settings: settings}
	var steps []ops.Step
	prev := after
	for _, l := range d.links(e) {
		st := ops.Step{Name: phasePrefix(name) + l.key, Title: l.title, Timeout: l.timeout, Observe: l.observeMade, Apply: l.make}
		if prev != "" {
			st.DependsOn = []string{prev}
		}
		steps = append(steps, st)
		prev = st.Name
	}
	return steps, nil
}

// MarkEnabled stores, in the transaction that stores operation opID, that
// the operation turns feature name on with settings.
func (s *Service) MarkEnabled(tx *store.Tx, clusterID string, name hyperpod.Feature, settings Settings, opID string) error {
	return tx.Put(recordKind, recordKey(clusterID, name), &record{ClusterID: clusterID, Name: name, Enable: true, Settings: &settings, OperationID: opID, UpdatedAt: tx.Now()})
}

// StoredSettings returns the settings feature name of a cluster was last
// turned on with, or nil when it never was (or was turned off since).
func (s *Service) StoredSettings(clusterID string, name hyperpod.Feature) (*Settings, error) {
	var r record
	err := s.store.View(func(tx *store.Tx) error { return tx.Get(recordKind, recordKey(clusterID, name), &r) })
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case !r.Enable || r.Settings == nil:
		return nil, nil
	}
	return r.Settings, nil
}

// On tells whether feature name of the cluster is ENABLED, as its links
// show.
func (s *Service) On(ctx context.Context, clusterID string, name hyperpod.Feature) (bool, error) {
	list, err := s.List(ctx, clusterID)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(list, func(f *Feature) bool { return f.Name == name })
	return i >= 0 && list[i].Status == Enabled, nil
}

// Autoscaled tells whether managed Karpenter was last turned on for the
// cluster's instance group.
func (s *Service) Autoscaled(_ context.Context, clusterID, group string) (bool, error) {
	st, err := s.StoredSettings(clusterID, hyperpod.KarpenterAutoscaling)
	if err != nil || st == nil {
		return false, err
	}
	return slices.Contains(st.InstanceGroups, group), nil
}

// MLflow returns the cluster's tracking server, and the service account
// its jobs report to it as, when the MLFLOW feature is ENABLED (as its
// links show); nil otherwise. The experiment is the training area's to
// choose (the cluster's name unless the job names one).
func (s *Service) MLflow(ctx context.Context, clusterID string) (*hyperpod.MLflowServer, error) {
	on, err := s.On(ctx, clusterID, hyperpod.MLflow)
	if err != nil || !on {
		return nil, err
	}
	st, err := s.StoredSettings(clusterID, hyperpod.MLflow)
	if err != nil || st == nil {
		return nil, err
	}
	c, err := s.clusters.Get(clusterID)
	if err != nil {
		return nil, err
	}
	e := &env{c: c, settings: *st}
	return &hyperpod.MLflowServer{TrackingServerArn: mlflowServerArn(e), Namespace: st.Namespace, ServiceAccount: st.ServiceAccount}, nil
}

// TieredCheckpointing returns the identity and memory share jobs use for
// managed tiered checkpointing when the TIERED_CHECKPOINTING feature is
// ENABLED (as its links show); nil otherwise.
func (s *Service) TieredCheckpointing(ctx context.Context, clusterID string) (*hyperpod.TieredCheckpointingSetup, error) {
	on, err := s.On(ctx, clusterID, hyperpod.TieredCheckpointing)
	if err != nil || !on {
		return nil, err
	}
	st, err := s.StoredSettings(clusterID, hyperpod.TieredCheckpointing)
	if err != nil || st == nil {
		return nil, err
	}
	return &hyperpod.TieredCheckpointingSetup{Namespace: st.Namespace, ServiceAccount: st.ServiceAccount, Bucket: st.Bucket, MemoryPercentage: st.MemoryPercentage}, nil
}

// TLSBucket is the bucket the inference operator was last turned on with.
func (s *Service) TLSBucket(clusterID string) (string, error) {
	st, err := s.StoredSettings(clusterID, hyperpod.InferenceOperator)
	if err != nil || st == nil {
		return "", err
	}
	return st.Bucket, nil
}

// PrometheusEndpoint is the query endpoint of the workspace observability
// was last turned on with.
func (s *Service) PrometheusEndpoint(clusterID string) (string, error) {
	st, err := s.StoredSettings(clusterID, hyperpod.Observability)
	if err != nil || st == nil {
		return "", err
	}
	ws, _ := observabilityValues(st.WorkspaceArn)["ampWorkspace"].(map[string]any)
	endpoint, _ := ws["prometheusEndpoint"].(string)
	return endpoint, nil
}

// LoadBalancerControllerSteps returns the phases that turn the AWS Load
// Balancer Controller on, after after.
func (s *Service) LoadBalancerControllerSteps(clusterID, after string) ([]ops.Step, error) {
	return s.EnableSteps(clusterID, hyperpod.LoadBalancerController, Settings{}, after)
}

// RecordLoadBalancerController stores that operation opID turns it on.
func (s *Service) RecordLoadBalancerController(tx *store.Tx, clusterID, opID string) error {
	return s.MarkEnabled(tx, clusterID, hyperpod.LoadBalancerController, Settings{}, opID)
}

// MountSteps returns the phases that turn the S3 CSI driver on with its
// policy allowing buckets, after after.
func (s *Service) MountSteps(clusterID string, buckets []string, after string) ([]ops.Step, error) {
	return s.EnableSteps(clusterID, hyperpod.S3CSIDriver, Settings{Buckets: buckets}, after)
}

// MountedBuckets returns the buckets the S3 CSI driver was last allowed.
func (s *Service) MountedBuckets(clusterID string) ([]string, error) {
	st, err := s.StoredSettings(clusterID, hyperpod.S3CSIDriver)
	if err != nil || st == nil {
		return nil, err
	}
	return slices.Clone(st.Buckets), nil
}

// RecordMount stores that operation opID turns the S3 CSI driver on for
// buckets.
func (s *Service) RecordMount(tx *store.Tx, clusterID string, buckets []string, opID string) error {
	return s.MarkEnabled(tx, clusterID, hyperpod.S3CSIDriver, Settings{Buckets: buckets}, opID)
}

// FSxDriverSteps returns the phases that turn the FSx CSI driver on.
func (s *Service) FSxDriverSteps(clusterID string, after string) ([]ops.Step, error) {
	return s.EnableSteps(clusterID, hyperpod.FSxCSIDriver, Settings{}, after)
}

// RecordFSxDriver stores that operation opID turns the FSx CSI driver on.
func (s *Service) RecordFSxDriver(tx *store.Tx, clusterID string, opID string) error {
	return s.MarkEnabled(tx, clusterID, hyperpod.FSxCSIDriver, Settings{}, opID)
}
