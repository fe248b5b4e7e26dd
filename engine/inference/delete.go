package inference

import (
	"context"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Delete deletes every object of endpoint id: its Deployment and Services,
// its router, its ScaledObject, or the operator's object (whose own
// Deployment and Service the operator removes). The record stays, DELETED.
// An endpoint already deleted is a no-op.
func (s *Service) Delete(ctx context.Context, caller, id, idempotencyKey string) (*ops.Operation, error) {
	e, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if op, err := s.replay(KindDelete, caller, idempotencyKey, id); op != nil || err != nil {
		return op, err
	}
	var actions []action
	if e.Status != Deleted {
		a, err := newAction(verbDeleteAll, deployments, "delete", "Delete the objects of endpoint "+e.Name,
			map[string]any{"metadata": map[string]any{"namespace": e.Namespace}})
		if err != nil {
			return nil, err
		}
		actions = append(actions, a)
	}
	prepare := func(tx *store.Tx, op *ops.Operation) error {
		if len(actions) == 0 {
			return nil
		}
		var cur Endpoint
		if err := tx.Get(RecordKind, e.ID, &cur); err != nil {
			return err
		}
		cur.Status, cur.StatusMessage, cur.LastOperationID, cur.UpdatedAt = Deleting, "its objects are being deleted", op.ID, tx.Now()
		return tx.Put(RecordKind, cur.ID, &cur)
	}
	return s.submit(KindDelete, caller, idempotencyKey, e, opInput{Actions: actions, Change: &change{Deleted: true}}, id, prepare)
}
