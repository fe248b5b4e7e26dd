package features

import (
	"errors"
	"slices"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Other areas turn a feature on inside their own operations: adding the
// cluster's shared bucket turns the S3 CSI driver on for it, in the same
// operation. The phases are those UpdateClusterFeatures would run, and the
// feature's record names the operation, so the feature table reads as if
// the feature had been toggled.

// EnableSteps returns the phases that turn feature name of a cluster on
// with settings, each after the one before, the first after after (when
// set). Their names are the feature's own ("s3-csi-driver/role").
func (s *Service) EnableSteps(clusterID string, name Name, settings Settings, after string) ([]ops.Step, error) {
	d := find(name)
	if d == nil {
		return nil, errs.New(errs.Internal, "feature %q is unknown to this version of InstantStart", name)
	}
	c, p, err := s.context(clusterID)
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
func (s *Service) MarkEnabled(tx *store.Tx, clusterID string, name Name, settings Settings, opID string) error {
	return tx.Put(recordKind, recordKey(clusterID, name), &record{ClusterID: clusterID, Name: name, Enable: true, Settings: &settings, OperationID: opID, UpdatedAt: tx.Now()})
}

// StoredSettings returns the settings feature name of a cluster was last
// turned on with, or nil when it never was (or was turned off since).
func (s *Service) StoredSettings(clusterID string, name Name) (*Settings, error) {
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

// StorageView shows the S3 CSI driver to the storage area: the phases that
// let it mount one more bucket.
type StorageView struct{ Service *Service }

// MountSteps returns the phases that turn the S3 CSI driver on with its
// policy allowing buckets, after after.
func (v StorageView) MountSteps(clusterID string, buckets []string, after string) ([]ops.Step, error) {
	return v.Service.EnableSteps(clusterID, S3CSIDriver, Settings{Buckets: buckets}, after)
}

// MountedBuckets returns the buckets the S3 CSI driver was last allowed.
func (v StorageView) MountedBuckets(clusterID string) ([]string, error) {
	st, err := v.Service.StoredSettings(clusterID, S3CSIDriver)
	if err != nil || st == nil {
		return nil, err
	}
	return slices.Clone(st.Buckets), nil
}

// RecordMount stores that operation opID turns the S3 CSI driver on for
// buckets.
func (v StorageView) RecordMount(tx *store.Tx, clusterID string, buckets []string, opID string) error {
	return v.Service.MarkEnabled(tx, clusterID, S3CSIDriver, Settings{Buckets: buckets}, opID)
}

// FSxDriverSteps returns the phases that turn the FSx CSI driver on.
func (v StorageView) FSxDriverSteps(clusterID string, after string) ([]ops.Step, error) {
	return v.Service.EnableSteps(clusterID, FSxCSIDriver, Settings{}, after)
}

// RecordFSxDriver stores that operation opID turns the FSx CSI driver on.
func (v StorageView) RecordFSxDriver(tx *store.Tx, clusterID string, opID string) error {
	return v.Service.MarkEnabled(tx, clusterID, FSxCSIDriver, Settings{}, opID)
}
