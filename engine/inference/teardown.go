package inference

import (
	"context"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// What a DeleteCluster with cascade asks of the endpoints (see
// cluster.Dependent): the cluster's endpoints that are not DELETED, and
// the phase that deletes each by its own DeleteEndpoint.

// Workloads lists the cluster's endpoints that are not DELETED.
func (s *Service) Workloads(clusterID string) ([]ops.Child, error) {
	return ops.Children(s.store, store.Scan{Kind: RecordKind, Index: clusterIndex, Prefix: clusterID + "/"},
		func(e *Endpoint) bool { return e.Status != Deleted },
		func(e *Endpoint) ops.Child {
			return ops.Child{ID: e.ID, Name: e.Name, Status: string(e.Status), TargetKind: targetKind}
		})
}

// TeardownSteps returns the phase that deletes the cluster's endpoints.
func (s *Service) TeardownSteps(clusterID string, _ bool) ([]ops.Step, error) {
	return []ops.Step{s.runner.EachStep(ops.Each{
		Name: "endpoints", Title: "Delete the endpoints", Noun: "endpoint",
		Live:  func() ([]ops.Child, error) { return s.Workloads(clusterID) },
		Kinds: []string{KindDelete},
		End: func(ctx context.Context, c ops.Child, caller, key string) (*ops.Operation, error) {
			return s.Delete(ctx, caller, c.ID, key)
		},
	})}, nil
}
