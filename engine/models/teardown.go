package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// What a DeleteCluster with cascade asks of the models (see
// cluster.Dependent): the cluster's download records that are not
// DELETED, and the phase that cancels the downloads still running and
// marks every record DELETED. The files stay in the bucket, which the
// storage's phase keeps or deletes.

// deletedMessage is a deleted model's status message.
const deletedMessage = "its cluster was deleted; the files downloaded stay in the shared bucket unless the bucket was deleted with it"

// Workloads lists the cluster's download records that are not DELETED.
func (s *Service) Workloads(clusterID string) ([]ops.Child, error) {
	return ops.Children(s.store, store.Scan{Kind: RecordKind, Index: nameIndex, Prefix: clusterID + "/"},
		func(m *Model) bool { return m.Status != Deleted },
		func(m *Model) ops.Child {
			return ops.Child{ID: m.ID, Name: m.Name, Status: string(m.Status), TargetKind: targetKind}
		})
}

// TeardownSteps returns the phase that ends the cluster's downloads.
func (s *Service) TeardownSteps(clusterID string, _ bool) ([]ops.Step, error) {
	return []ops.Step{{Name: "models", Title: "Cancel the model downloads and mark the models deleted", Timeout: 10 * time.Minute,
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			live, err := s.Workloads(clusterID)
			if err != nil {
				return ops.Observation{}, err
			}
			if len(live) > 0 {
				if run.Applied {
					return ops.Observation{State: ops.Broken, Err: errs.New(errs.Conflict, "model %s was downloaded again while its cluster was being deleted; retry this operation", live[0].Name)}, nil
				}
				return ops.Observation{State: ops.Absent, Message: fmt.Sprintf("%d models to mark deleted", len(live))}, nil
			}
			running, err := s.runningDownloads(clusterID)
			if err != nil {
				return ops.Observation{}, err
			}
			if len(running) > 0 {
				return ops.Observation{State: ops.Pending, Message: fmt.Sprintf("%d downloads are stopping", len(running))}, nil
			}
			return ops.Observation{State: ops.Done, Message: "no download is left"}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			running, err := s.runningDownloads(clusterID)
			if err != nil {
				return nil, err
			}
			for _, id := range running {
				if _, err := s.runner.Cancel(id); err != nil && errs.CodeOf(err) != errs.Precondition { // ended meanwhile
					return nil, err
				}
			}
			return nil, s.store.Update(func(tx *store.Tx) error {
				live, err := store.ReadPage(tx, store.Scan{Kind: RecordKind, Index: nameIndex, Prefix: clusterID + "/"}, store.PageRequest{First: 1 << 30},
					func(m *Model) bool { return m.Status != Deleted })
				if err != nil {
					return err
				}
				for _, m := range live.Items {
					m.Status, m.StatusMessage, m.UpdatedAt = Deleted, deletedMessage, tx.Now()
					if err := tx.Put(RecordKind, m.ID, m); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}}, nil
}

// runningDownloads lists the ids of the cluster's downloads that have not
// ended.
func (s *Service) runningDownloads(clusterID string) ([]string, error) {
	all, err := store.Select[Model](s.store, store.Scan{Kind: RecordKind, Index: nameIndex, Prefix: clusterID + "/"}, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range all {
		if m.LastOperationID == "" {
			continue
		}
		op, err := s.runner.Get(m.LastOperationID)
		if errors.Is(err, store.ErrNotFound) || errs.CodeOf(err) == errs.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !op.Status.Terminal() {
			out = append(out, op.ID)
		}
	}
	return out, nil
}
