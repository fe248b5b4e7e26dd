package inference

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// opInput is what every endpoint operation stores: its actions, and what
// the endpoint's record becomes once they are done.
type opInput struct {
	EndpointID string   `json:"endpointId"`
	ClusterID  string   `json:"clusterId"`
	Actions    []action `json:"actions"`
	// LoadBalancerController turns the AWS Load Balancer Controller on
	// first.
	LoadBalancerController bool    `json:"loadBalancerController,omitempty"`
	Change                 *change `json:"change,omitempty"`
}

// change is what the record takes from a successful operation.
type change struct {
	Deployed       bool         `json:"deployed,omitempty"`
	Deleted        bool         `json:"deleted,omitempty"`
	Replicas       *int         `json:"replicas,omitempty"`
	Image          *string      `json:"image,omitempty"`
	KVCache        *KVCache     `json:"kvCache,omitempty"`
	ManagedScaling *Bounds      `json:"managedScaling,omitempty"`
	Router         *Router      `json:"router,omitempty"`
	Autoscaling    *Autoscaling `json:"autoscaling,omitempty"`
}

// submit stores and starts an operation of kind on endpoint e.
func (s *Service) submit(kind, caller, idempotencyKey string, e *Endpoint, in opInput, fingerprint any, prepare func(tx *store.Tx, op *ops.Operation) error) (*ops.Operation, error) {
	in.EndpointID, in.ClusterID = e.ID, e.ClusterID
	req := ops.Request{Kind: kind, Target: ops.Ref{Kind: targetKind, ID: e.ID, Name: e.Name}, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: in, Fingerprint: fingerprint, Noop: len(in.Actions) == 0 && !in.LoadBalancerController, Prepare: prepare}
	return s.runner.Submit(req)
}

// replay returns the operation an idempotency key already made, if any.
func (s *Service) replay(kind, caller, idempotencyKey string, fingerprint any) (*ops.Operation, error) {
	return s.runner.Replay(ops.Request{Kind: kind, Target: ops.Ref{Kind: targetKind}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: fingerprint})
}

// steps builds an endpoint operation's phases from its stored input, each
// after the one before.
func (s *Service) steps(op *ops.Operation) ([]ops.Step, error) {
	var in opInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	var steps []ops.Step
	if in.LoadBalancerController {
		lbc, err := s.features.LoadBalancerControllerSteps(in.ClusterID, "")
		if err != nil {
			return nil, err
		}
		steps = append(steps, lbc...)
	}
	kube := func(ctx context.Context) (*cloud.KubeClients, error) { return s.kube(ctx, in.ClusterID) }
	gone := (&hyperpod.Gone{Get: s.clusters.Get}).Cluster(in.ClusterID)
	for _, a := range in.Actions {
		st := a.step(kube, in.EndpointID)
		if gone { // the objects went with the cluster
			st.Apply, st.Observe = nil, clusterGone
		}
		if n := len(steps); n > 0 {
			st.DependsOn = []string{steps[n-1].Name}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// reflect updates the endpoint's record from one of its operations.
func (s *Service) reflect(tx *store.Tx, op *ops.Operation) error {
	var in opInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return err
	}
	var e Endpoint
	if err := tx.Get(RecordKind, in.EndpointID, &e); err != nil {
		return fmt.Errorf("load endpoint %s: %w", in.EndpointID, err)
	}
	// A delete that found every object gone already (its cluster was
	// deleted) still ends the record DELETED; other no-ops change nothing.
	if e.Status == Deleted || (op.Noop && (in.Change == nil || !in.Change.Deleted)) {
		return nil
	}
	e.LastOperationID = op.ID
	c := in.Change
	if c == nil {
		c = &change{}
	}
	switch op.Status {
	case ops.Succeeded:
		apply(&e, c)
	case ops.Failed, ops.Cancelled:
		msg := "the operation was cancelled"
		if op.Error != nil {
			msg = op.Error.Message
		}
		switch {
		case c.Deployed:
			e.Status, e.StatusMessage = Failed, "the endpoint's objects could not be made: "+msg
		case c.Deleted:
			e.StatusMessage = "deleting failed: " + msg
		default:
			e.StatusMessage = op.Kind + " failed: " + msg
		}
	}
	e.UpdatedAt = tx.Now()
	return tx.Put(RecordKind, e.ID, &e)
}

// apply puts what a successful operation changed in the record.
func apply(e *Endpoint, c *change) {
	if c.Deployed && e.Status == Pending {
		e.Status, e.StatusMessage = Deploying, "the objects are made; replicas are starting"
	}
	if c.Deleted {
		e.Status, e.StatusMessage, e.Pods, e.ReadyReplicas, e.Address = Deleted, "", []Pod{}, 0, nil
	}
	if c.Replicas != nil {
		e.Replicas = *c.Replicas
	}
	if c.Image != nil {
		e.Image = *c.Image
	}
	if c.KVCache != nil {
		e.KVCache = c.KVCache
	}
	if c.ManagedScaling != nil {
		e.ManagedScaling = c.ManagedScaling
	}
	if c.Router != nil {
		e.Router = c.Router
	}
	if c.Autoscaling != nil {
		e.Autoscaling = c.Autoscaling
	}
	if c.Replicas != nil || c.Image != nil {
		rejudge(e)
	}
}

// clusterGone observes a phase of an endpoint of a deleted cluster: its
// Kubernetes objects went with the cluster, so there is nothing to do.
func clusterGone(context.Context, *ops.Run) (ops.Observation, error) {
	return ops.Observation{State: ops.NotNeeded, Message: "the cluster is deleted: its Kubernetes objects went with it"}, nil
}
