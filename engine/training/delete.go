package training

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// deleteInput is what a DeleteJob operation stores.
type deleteInput struct {
	JobID string `json:"jobId"`
}

// phaseDelete deletes the job's object.
const phaseDelete = "delete"

// Delete deletes job id's object, and with it its pods. The record stays,
// DELETED; what the job wrote to the bucket stays. A job already deleted
// is a no-op.
func (s *Service) Delete(ctx context.Context, caller, id, idempotencyKey string) (*ops.Operation, error) {
	j, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	req := ops.Request{Kind: KindDelete, Target: ops.Ref{Kind: targetKind, ID: j.ID, Name: j.Name}, ClusterID: j.ClusterID, RequestedBy: caller, IdempotencyKey: idempotencyKey, Input: deleteInput{JobID: j.ID}}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	req.Noop = j.Status == Deleted
	return s.runner.Submit(req)
}

func (s *Service) deleteSteps(op *ops.Operation) ([]ops.Step, error) {
	var in deleteInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	j, err := s.Get(in.JobID)
	if err != nil {
		return nil, err
	}
	c, p, err := s.clusters.Reach(j.ClusterID, false)
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s %s/%s", j.Kind.objectKind(), j.Namespace, j.Name)
	if c.Status == hyperpod.ClusterDeleted {
		return []ops.Step{{Name: phaseDelete, Title: "Delete " + title + " and its pods",
			Observe: func(context.Context, *ops.Run) (ops.Observation, error) {
				return ops.Observation{State: ops.NotNeeded, Message: "the cluster is deleted: the job's object and pods went with it"}, nil
			}}}, nil
	}
	return []ops.Step{{
		Name: phaseDelete, Title: "Delete " + title + " and its pods",
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return ops.Observation{}, err
			}
			obj, err := getObject(ctx, kc, j.Kind, j.Namespace, j.Name)
			switch {
			case err != nil:
				return ops.Observation{}, err
			case obj == nil || (j.UID != "" && string(obj.GetUID()) != j.UID) || obj.GetLabels()[jobIDLabel] != j.ID:
				return ops.Observation{State: ops.Done}, nil
			case obj.GetDeletionTimestamp() != nil:
				return ops.Observation{State: ops.Pending, Message: "the operator is stopping its pods"}, nil
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return nil, err
			}
			background := metav1.DeletePropagationBackground
			err = kc.Dynamic.Resource(j.Kind.resource()).Namespace(j.Namespace).Delete(ctx, j.Name, metav1.DeleteOptions{PropagationPolicy: &background})
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, errs.Wrap(errs.Upstream, err, "delete %s: %v", title, err)
			}
			return nil, nil
		},
	}}, nil
}

// reflectDelete marks the job DELETED once its object is gone.
func (s *Service) reflectDelete(tx *store.Tx, op *ops.Operation) error {
	var in deleteInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return err
	}
	var j Job
	if err := tx.Get(RecordKind, in.JobID, &j); err != nil {
		return fmt.Errorf("load job %s: %w", in.JobID, err)
	}
	// A delete that found the object gone already (its cluster was
	// deleted) still ends the record DELETED.
	if op.Noop && j.Status == Deleted {
		return nil
	}
	j.LastOperationID = op.ID
	if op.Status == ops.Succeeded {
		if j.Status != Succeeded && j.Status != Failed {
			j.StatusMessage = "deleted while " + string(j.Status)
		}
		if j.FinishedAt == nil {
			now := tx.Now()
			j.FinishedAt = &now
		}
		j.Status, j.Pods = Deleted, []Pod{}
	}
	j.UpdatedAt = tx.Now()
	return tx.Put(RecordKind, j.ID, &j)
}
