package training

import (
	"context"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// What a DeleteCluster with cascade asks of the jobs (see
// cluster.Dependent): the cluster's jobs that are not DELETED, finished
// ones too, and the phase that deletes each by its own DeleteJob.

// Workloads lists the cluster's jobs that are not DELETED.
func (s *Service) Workloads(clusterID string) ([]ops.Child, error) {
	return ops.Children(s.store, store.Scan{Kind: RecordKind, Index: clusterIndex, Prefix: clusterID + "/"},
		func(j *Job) bool { return j.Status != Deleted },
		func(j *Job) ops.Child {
			return ops.Child{ID: j.ID, Name: j.Name, Status: string(j.Status), TargetKind: targetKind}
		})
}

// TeardownSteps returns the phase that deletes the cluster's jobs.
func (s *Service) TeardownSteps(clusterID string, _ bool) ([]ops.Step, error) {
	return []ops.Step{s.runner.EachStep(ops.Each{
		Name: "jobs", Title: "Delete the training jobs", Noun: "job",
		Live:  func() ([]ops.Child, error) { return s.Workloads(clusterID) },
		Kinds: []string{KindDelete},
		End: func(ctx context.Context, c ops.Child, caller, key string) (*ops.Operation, error) {
			return s.Delete(ctx, caller, c.ID, key)
		},
	})}, nil
}
