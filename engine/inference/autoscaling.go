package inference

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/kubecrds"
	"github.com/instantstart/instantstart/engine/ops"
)

// AutoscalingInput is KEDA autoscaling asked for a self-managed endpoint.
type AutoscalingInput struct {
	Bounds
	Trigger Trigger
	// Target is the value per replica to aim at; 0 takes the default.
	Target float64
}

// Defaults and bounds of the targets.
const (
	defaultRequestsTarget = 10
	defaultQueueTarget    = 4
	maxTarget             = 1e6
	kedaPolling           = 15
	kedaCooldown          = 60
)

// scalingQuery is the Prometheus query KEDA runs for trigger t of
// endpoint e: the engine's request rate, or the router's queue length,
// summed over the endpoint; KEDA divides it by the target to get replicas.
func scalingQuery(e *Endpoint, t Trigger) string {
	if t == RouterQueue {
		return fmt.Sprintf(`sum(sglang_router_queue_length{namespace=%q,service=%q})`, e.Namespace, routerName(e))
	}
	metric := "vllm:num_requests_total"
	if e.Engine == SGLang {
		metric = "sglang:num_requests_total"
	}
	return fmt.Sprintf(`sum(rate(%s{namespace=%q,deployment=%q}[1m]))`, metric, e.Namespace, e.Workload)
}

// SetAutoscaling makes KEDA scale self-managed endpoint id: a
// TriggerAuthentication through the KEDA operator's own AWS identity and a
// ScaledObject whose Prometheus trigger queries the cluster's
// observability workspace. Setting it again changes the ScaledObject.
func (s *Service) SetAutoscaling(ctx context.Context, caller, id string, in AutoscalingInput, idempotencyKey string) (*ops.Operation, error) {
	fingerprint := struct {
		ID string
		In AutoscalingInput
	}{id, in}
	if op, err := s.replay(KindAutoscaling, caller, idempotencyKey, fingerprint); op != nil || err != nil {
		return op, err
	}
	if err := checkBounds(in.Bounds, "input"); err != nil {
		return nil, err
	}
	switch in.Trigger {
	case RequestsPerReplica:
		if in.Target == 0 {
			in.Target = defaultRequestsTarget
		}
	case RouterQueue:
		if in.Target == 0 {
			in.Target = defaultQueueTarget
		}
	default:
		return nil, errs.Field("input.trigger", "trigger must be REQUESTS_PER_REPLICA or ROUTER_QUEUE")
	}
	if in.Target <= 0 || in.Target > maxTarget {
		return nil, errs.Field("input.target", "target must be above 0 and at most %g, got %g", float64(maxTarget), in.Target)
	}
	e, err := s.live(id, "endpointId")
	if err != nil {
		return nil, err
	}
	if e.Path == Managed {
		return nil, errs.New(errs.Precondition, "endpoint %s is MANAGED: the inference operator scales it; set its bounds with updateEndpoint(input.autoscaling)", e.Name).WithField("endpointId")
	}
	if in.Trigger == RouterQueue && e.Router == nil {
		return nil, errs.New(errs.Precondition, "endpoint %s has no SGLang router, whose queue ROUTER_QUEUE reads; deploy one first (deployRouter), or scale on REQUESTS_PER_REPLICA", e.Name).WithField("input.trigger")
	}
	if on, err := s.features.On(ctx, e.ClusterID, hyperpod.KEDA); err != nil {
		return nil, err
	} else if !on {
		return nil, errs.New(errs.Precondition, "the cluster has no KEDA, which runs ScaledObjects: turn the KEDA feature on (updateClusterFeatures with input.keda true), then set autoscaling again").WithField("endpointId")
	}
	prom, err := s.features.PrometheusEndpoint(e.ClusterID)
	if err != nil {
		return nil, err
	}
	if prom == "" {
		return nil, errs.New(errs.Precondition, "the cluster's metrics do not reach Prometheus: KEDA's trigger queries the OBSERVABILITY feature's workspace; turn OBSERVABILITY on (updateClusterFeatures with input.observability), then set autoscaling again").WithField("endpointId")
	}
	c, err := s.clusters.Get(e.ClusterID)
	if err != nil {
		return nil, err
	}
	query := scalingQuery(e, in.Trigger)
	auth := unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "keda.sh/v1alpha1", "kind": "TriggerAuthentication",
		"metadata": map[string]any{"name": e.Workload + "-aws", "namespace": e.Namespace},
		"spec":     map[string]any{"podIdentity": map[string]any{"provider": "aws", "identityOwner": "keda"}},
	}}
	auth.SetLabels(labels(e))
	scaled := unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
		"metadata": map[string]any{"name": e.Workload, "namespace": e.Namespace},
		"spec": map[string]any{
			"scaleTargetRef":  map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": e.Workload},
			"minReplicaCount": int64(in.Min), "maxReplicaCount": int64(in.Max),
			"pollingInterval": int64(kedaPolling), "cooldownPeriod": int64(kedaCooldown),
			"triggers": []any{map[string]any{
				"type": "prometheus",
				"metadata": map[string]any{
					"serverAddress": strings.TrimSuffix(prom, "/"), "query": query,
					"threshold": fmt.Sprint(in.Target), "awsRegion": c.Region,
				},
				"authenticationRef": map[string]any{"name": auth.GetName()},
			}},
		},
	}}
	scaled.SetLabels(labels(e))
	var actions []action
	for _, o := range []struct {
		u     *unstructured.Unstructured
		phase string
	}{{&auth, "trigger-authentication"}, {&scaled, "scaled-object"}} {
		if err := kubecrds.Validate(o.u); err != nil {
			return nil, errs.New(errs.Internal, "the %s built does not pass its CRD: %v", o.u.GetKind(), err)
		}
		a, err := newAction(verbEnsure, resourceOfKind(o.u.GetKind()), o.phase, "Make "+objectTitle(o.u.GetKind(), e.Namespace, o.u.GetName()), o.u)
		if err != nil {
			return nil, err
		}
		actions = append(actions, a)
	}
	ch := &change{Autoscaling: &Autoscaling{Bounds: in.Bounds, Trigger: in.Trigger, Target: in.Target, Query: query}}
	return s.submit(KindAutoscaling, caller, idempotencyKey, e, opInput{Actions: actions, Change: ch}, fingerprint, nil)
}

func resourceOfKind(kind string) schema.GroupVersionResource {
	if kind == "TriggerAuthentication" {
		return triggerAuths
	}
	return scaledObjects
}
