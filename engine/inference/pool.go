package inference

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// Assign hands warm worker pod of MODEL_POOL endpoint id to business: the
// business's Service (<pool>-<business>) is made when missing, then the
// pod's business label changes. The Deployment selects its pods by their
// app label only, so the pod stays its own, runs on and keeps its uid.
// Business unassigned returns the worker to the pool.
func (s *Service) Assign(ctx context.Context, caller, id, pod, business, idempotencyKey string) (*ops.Operation, error) {
	fingerprint := [3]string{id, pod, business}
	if op, err := s.replay(KindAssign, caller, idempotencyKey, fingerprint); op != nil || err != nil {
		return op, err
	}
	e, err := s.live(id, "endpointId")
	if err != nil {
		return nil, err
	}
	if e.Form != ModelPool {
		return nil, errs.New(errs.Precondition, "endpoint %s is not a model pool (its service form is %s); only MODEL_POOL workers are assigned to businesses", e.Name, e.Form).WithField("endpointId")
	}
	if !namePattern.MatchString(business) || len(e.Pool)+1+len(business) > 63 {
		return nil, errs.Field("business", "%q is not a valid business name: 1-40 lower-case letters, digits and '-', starting with a letter (and with the pool's name, at most 63 characters)", errs.Clip(business))
	}
	if len(pod) > 253 || pod == "" {
		return nil, errs.Field("pod", "give the name of one of the pool's pods (endpoint(id).pods)")
	}
	kc, err := s.kube(ctx, e.ClusterID)
	if err != nil {
		return nil, err
	}
	live, err := kc.Core.CoreV1().Pods(e.Namespace).Get(ctx, pod, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, errs.New(errs.Validation, "pod %s is not in namespace %s; give one of the pool's pods (endpoint(id).pods lists them)", errs.Clip(pod), e.Namespace).WithField("pod")
	case err != nil:
		return nil, errs.Wrap(errs.Upstream, err, "read pod %s/%s: %v", e.Namespace, pod, err)
	case live.Labels[endpointIDLabel] != e.ID || live.Labels[poolLabel] != e.Pool:
		return nil, errs.New(errs.Validation, "pod %s is not a worker of pool %s (its labels are %s=%q, %s=%q); give one of the pool's pods (endpoint(id).pods lists them)",
			pod, e.Pool, endpointIDLabel, live.Labels[endpointIDLabel], poolLabel, live.Labels[poolLabel]).WithField("pod")
	case live.DeletionTimestamp != nil:
		return nil, errs.New(errs.Precondition, "pod %s is being deleted; choose another worker", pod).WithField("pod")
	}
	var actions []action
	if live.Labels[businessLabel] != business {
		if business != unassigned {
			svc, err := toUnstructured(poolService(e, business))
			if err != nil {
				return nil, err
			}
			a, err := newAction(verbEnsure, services, "service", "Make "+objectTitle("Service", e.Namespace, svc.GetName())+" for business "+business, svc)
			if err != nil {
				return nil, err
			}
			actions = append(actions, a)
		}
		label := map[string]any{"metadata": map[string]any{"name": pod, "namespace": e.Namespace, "labels": map[string]any{businessLabel: business, endpointIDLabel: e.ID}}}
		a, err := newAction(verbChange, pods, "label", "Label pod "+e.Namespace+"/"+pod+" "+businessLabel+"="+business, label)
		if err != nil {
			return nil, err
		}
		actions = append(actions, a)
	}
	return s.submit(KindAssign, caller, idempotencyKey, e, opInput{Actions: actions}, fingerprint, nil)
}
