package inference

import (
	"context"
	"encoding/json"
	"time"

	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// Refresh re-reads every endpoint that is deployed from its cluster and
// stores what changed, which publishes it as an event (endpointUpdated).
// It reports whether any endpoint is still settling (not READY), so that
// the refresher looks again soon.
func (s *Service) Refresh(ctx context.Context) (busy bool, err error) {
	// Records of a deleted cluster are not polled: nothing of it is left.
	gone := hyperpod.Gone{Get: s.clusters.Get}
	var live []*Endpoint
	err = s.store.View(func(tx *store.Tx) error {
		return tx.List(RecordKind, "", func(_ string, raw []byte) (bool, error) {
			var e Endpoint
			if err := json.Unmarshal(raw, &e); err != nil {
				return false, err
			}
			if e.Status != Deleted && !gone.Cluster(e.ClusterID) {
				live = append(live, &e)
			}
			return true, nil
		})
	})
	if err != nil {
		return false, err
	}
	for _, e := range live {
		got, err := s.Sync(ctx, e.ID)
		if err != nil {
			if ctx.Err() != nil {
				return busy, ctx.Err()
			}
			s.log.Warn("refresh endpoint", "endpoint", e.ID, "err", err)
			continue
		}
		// A READY endpoint may still change (KEDA, a lost node), but more
		// slowly than one that settles; autoscaled ones are watched closely.
		busy = busy || (got.Status != Ready && got.Status != ScaledToZero) || got.Autoscaling != nil
	}
	return busy, nil
}

// Sync reads endpoint id from its cluster now and stores what changed. An
// endpoint whose objects are being made or deleted is left as it is.
func (s *Service) Sync(ctx context.Context, id string) (*Endpoint, error) {
	e, err := s.Get(id)
	if err != nil || e.Status == Deleted || e.Status == Pending || e.Status == Deleting {
		return e, err
	}
	kc, err := s.kube(ctx, e.ClusterID)
	if err != nil {
		return nil, err
	}
	o, err := observe(ctx, kc, e)
	if err != nil {
		return nil, err
	}
	var out Endpoint
	err = s.store.Update(func(tx *store.Tx) error {
		if err := tx.Get(RecordKind, id, &out); err != nil {
			return err
		}
		if out.Status == Deleted || out.Status == Pending || out.Status == Deleting || out.LastOperationID != e.LastOperationID {
			// An operation began or ended while the cluster was read: the
			// next refresh reads it again.
			return nil
		}
		observedInto(&out, o)
		return store.PutIfChanged(tx, RecordKind, out.ID, &out, func(r *Endpoint) *time.Time { return &r.UpdatedAt })
	})
	return &out, err
}

// observedInto puts what was observed in the record.
func observedInto(e *Endpoint, o *observed) {
	e.Status, e.StatusMessage, e.OperatorState = o.status, o.message, o.operatorState
	// Before there is a Deployment to read, the replicas asked stand.
	if o.pods != nil {
		e.Replicas = o.replicas
	}
	e.ReadyReplicas, e.Address = o.ready, o.address
	if o.pods != nil {
		e.Pods = o.pods
	}
	if e.Router != nil {
		e.Router.ReadyReplicas = o.routerReady
	}
	if e.Autoscaling != nil {
		e.Autoscaling.Ready, e.Autoscaling.Active = o.scalingReady, o.scalingActive
	}
}
