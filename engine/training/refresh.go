package training

import (
	"context"
	"encoding/json"
	"time"

	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// Refresh re-reads every job that has not ended from its cluster and
// stores what changed, which publishes it as an event (jobUpdated). It
// reports whether any job is still going, so that the refresher looks
// again soon.
func (s *Service) Refresh(ctx context.Context) (busy bool, err error) {
	// Records of a deleted cluster are not polled: nothing of it is left.
	gone := hyperpod.Gone{Get: s.clusters.Get}
	var live []*Job
	err = s.store.View(func(tx *store.Tx) error {
		return tx.List(RecordKind, "", func(_ string, raw []byte) (bool, error) {
			var j Job
			if err := json.Unmarshal(raw, &j); err != nil {
				return false, err
			}
			if !j.Status.Terminal() && !gone.Cluster(j.ClusterID) {
				live = append(live, &j)
			}
			return true, nil
		})
	})
	if err != nil {
		return false, err
	}
	for _, j := range live {
		busy = true
		if _, err := s.Sync(ctx, j.ID); err != nil {
			if ctx.Err() != nil {
				return busy, ctx.Err()
			}
			s.log.Warn("refresh job", "job", j.ID, "err", err)
		}
	}
	return busy, nil
}

// Sync reads job id from its cluster now and stores what changed. A job
// whose submission has not made its object yet is left as it is.
func (s *Service) Sync(ctx context.Context, id string) (*Job, error) {
	j, err := s.Get(id)
	if err != nil || j.Status.Terminal() || j.UID == "" {
		return j, err
	}
	c, p, err := s.clusters.Reach(j.ClusterID, false)
	if err != nil {
		return nil, err
	}
	kc, err := p.KubeOf(ctx, c.EKS.Name)
	if err != nil {
		return nil, err
	}
	o, err := observe(ctx, kc, j)
	if err != nil {
		return nil, err
	}
	var out Job
	err = s.store.Update(func(tx *store.Tx) error {
		if err := tx.Get(RecordKind, id, &out); err != nil {
			return err
		}
		if out.Status.Terminal() {
			return nil
		}
		apply(&out, o)
		return store.PutIfChanged(tx, RecordKind, out.ID, &out, func(r *Job) *time.Time { return &r.UpdatedAt })
	})
	return &out, err
}

// apply puts what was observed in the record.
func apply(j *Job, o *observed) {
	j.Status, j.OperatorState, j.StatusMessage = o.status, o.operatorState, o.message
	j.Budget, j.Restarts, j.Pods = o.budget, o.restarts, o.pods
	if o.startedAt != nil {
		j.StartedAt = o.startedAt
	}
	if o.finishedAt != nil {
		j.FinishedAt = o.finishedAt
	}
}
