package inference

import (
	"context"
	"reflect"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// UpdateInput is what to change of an endpoint; nil fields stay.
type UpdateInput struct {
	Replicas    *int
	Image       *string
	KVCache     *KVCacheInput
	Routing     *Routing
	Autoscaling *Bounds
}

// Update changes what differs between in and endpoint id, and nothing
// else: an update that changes nothing is a no-op operation. The
// intelligent routing of a managed endpoint is fixed for its life.
func (s *Service) Update(ctx context.Context, caller, id string, in UpdateInput, idempotencyKey string) (*ops.Operation, error) {
	fingerprint := struct {
		ID string
		In UpdateInput
	}{id, in}
	if op, err := s.replay(KindUpdate, caller, idempotencyKey, fingerprint); op != nil || err != nil {
		return op, err
	}
	e, err := s.live(id, "id")
	if err != nil {
		return nil, err
	}
	if e.Status == Pending {
		return nil, errs.New(errs.Precondition, "endpoint %s is still being deployed; wait for its deploy operation, then update it", e.Name).WithField("id")
	}
	if in.Routing != nil {
		if e.Path != Managed {
			return nil, errs.Field("input.intelligentRouting", "intelligent routing is for MANAGED endpoints; put the SGLang router in front of this one with deployRouter")
		}
		asked := *in.Routing
		if asked.Enabled && asked.Strategy == "" {
			asked.Strategy = "PREFIX_AWARE"
		}
		if !asked.Enabled {
			asked.Strategy = ""
		}
		if !reflect.DeepEqual(&asked, e.Routing) {
			return nil, errs.New(errs.ImmutableField, "endpoint %s's intelligent routing (enabled %t, strategy %q) is fixed for its life; deploy a new endpoint with the routing you want and delete this one",
				e.Name, e.Routing.Enabled, e.Routing.Strategy).WithField("input.intelligentRouting")
		}
	}
	if e.Path != Managed && (in.KVCache != nil || in.Autoscaling != nil) {
		field := "input.kvCache"
		if in.KVCache == nil {
			field = "input.autoscaling"
		}
		return nil, errs.Field(field, "%s is for MANAGED endpoints; scale a self-managed one with setEndpointAutoscaling", field)
	}
	if in.Image != nil && (len(*in.Image) > maxImageLength || !imagePattern.MatchString(*in.Image)) {
		return nil, errs.Field("input.image", "%q is not a container image reference (registry/repository:tag)", errs.Clip(*in.Image))
	}
	if in.Image != nil && e.Source == FromJumpStart {
		return nil, errs.Field("input.image", "a JUMPSTART model runs in the image JumpStart gives it")
	}
	if in.Replicas != nil && (*in.Replicas < 0 || *in.Replicas > maxReplicas) {
		return nil, errs.Field("input.replicas", "replicas must be between 0 and %d, got %d", maxReplicas, *in.Replicas)
	}
	if in.Autoscaling != nil {
		if err := checkBounds(*in.Autoscaling, "input.autoscaling"); err != nil {
			return nil, err
		}
	}
	var kv *KVCache
	if in.KVCache != nil {
		probe := DeployInput{Path: Managed, Source: FromJumpStart, Model: "x", KVCache: in.KVCache}
		if err := checkManaged(&probe); err != nil {
			return nil, err
		}
		kv = kvCache(in.KVCache)
	}
	ch := &change{}
	var fields []setField
	if in.Replicas != nil && *in.Replicas != e.Replicas {
		if e.Autoscaling != nil {
			return nil, errs.New(errs.Precondition, "KEDA scales endpoint %s between %d and %d replicas; change those bounds with setEndpointAutoscaling instead", e.Name, e.Autoscaling.Min, e.Autoscaling.Max).WithField("input.replicas")
		}
		ch.Replicas = in.Replicas
		fields = append(fields, setField{Path: []string{"spec", "replicas"}, Value: *in.Replicas})
	}
	if in.Image != nil && *in.Image != e.Image {
		ch.Image = in.Image
		path := []string{"spec", "template", "spec", "containers", "#0", "image"}
		if e.Path == Managed {
			path = []string{"spec", "worker", "image"}
		}
		fields = append(fields, setField{Path: path, Value: *in.Image})
	}
	if kv != nil && !reflect.DeepEqual(kv, e.KVCache) {
		ch.KVCache = kv
		fields = append(fields, setField{Path: []string{"spec", "kvCacheSpec"}, Value: kvCacheSpec(kv)})
	}
	if b := in.Autoscaling; b != nil && (e.ManagedScaling == nil || *b != *e.ManagedScaling) {
		ch.ManagedScaling = b
		fields = append(fields, setField{Path: []string{"spec", "autoScalingSpec", "minReplicaCount"}, Value: b.Min},
			setField{Path: []string{"spec", "autoScalingSpec", "maxReplicaCount"}, Value: b.Max})
	}
	var actions []action
	if len(fields) > 0 {
		r, kind := deployments, "Deployment"
		switch {
		case e.Path == Managed && e.Source == FromJumpStart:
			r, kind = jumpStartModels, "JumpStartModel"
		case e.Path == Managed:
			r, kind = endpointConfigs, "InferenceEndpointConfig"
		}
		name := e.Workload
		if e.Path == Managed {
			name = e.Name
		}
		a, err := newAction(verbSet, r, "update", "Update "+objectTitle(kind, e.Namespace, name), setObject{Namespace: e.Namespace, Name: name, Fields: fields})
		if err != nil {
			return nil, err
		}
		actions = append(actions, a)
	}
	return s.submit(KindUpdate, caller, idempotencyKey, e, opInput{Actions: actions, Change: ch}, fingerprint, nil)
}
