package storage

import (
	"context"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// What a DeleteCluster with cascade asks of the storage (see
// cluster.Dependent): the cluster's storage that is not DELETED, and the
// phases that remove it by RemoveStorage, the file systems first (one
// linked to the shared bucket must go before it).

// Workloads lists the cluster's storage that is not DELETED.
func (s *Service) Workloads(clusterID string) ([]ops.Child, error) {
	return s.live(clusterID, func(*Storage) bool { return true })
}

func (s *Service) live(clusterID string, which func(*Storage) bool) ([]ops.Child, error) {
	return ops.Children(s.store, store.Scan{Kind: RecordKind, Index: clusterIndex, Prefix: clusterID + "/"},
		func(st *Storage) bool { return st.Status != Deleted && which(st) },
		func(st *Storage) ops.Child {
			return ops.Child{ID: st.ID, Name: st.Name(), Status: string(st.Status), TargetKind: targetKind}
		})
}

// TeardownSteps returns the phases that remove the cluster's file systems,
// then its shared bucket's volume: the bucket and its objects stay unless
// deleteBucket.
func (s *Service) TeardownSteps(clusterID string, deleteBucket bool) ([]ops.Step, error) {
	remove := func(deleteBucket bool) func(ctx context.Context, c ops.Child, caller, key string) (*ops.Operation, error) {
		return func(ctx context.Context, c ops.Child, caller, key string) (*ops.Operation, error) {
			return s.Remove(ctx, caller, c.ID, deleteBucket, key)
		}
	}
	bucketTitle := "Remove the shared bucket's volume (the bucket and its objects stay)"
	if deleteBucket {
		bucketTitle = "Remove the shared bucket's volume, and empty and delete the bucket"
	}
	return []ops.Step{
		s.runner.EachStep(ops.Each{
			Name: "file-systems", Title: "Delete the FSx for Lustre file systems", Noun: "file system",
			Live:  func() ([]ops.Child, error) { return s.live(clusterID, func(st *Storage) bool { return st.FSx != nil }) },
			Kinds: []string{KindRemove}, End: remove(false),
		}),
		s.runner.EachStep(ops.Each{
			Name: "shared-bucket", Title: bucketTitle, Noun: "bucket",
			Live:  func() ([]ops.Child, error) { return s.live(clusterID, func(st *Storage) bool { return st.FSx == nil }) },
			Kinds: []string{KindRemove}, End: remove(deleteBucket),
		}),
	}, nil
}
