package resolvers

import (
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/graph/model"
)

func (r *Resolver) endpointStream(id string) *recordStream[inference.Endpoint, model.Endpoint] {
	return &recordStream[inference.Endpoint, model.Endpoint]{r: r, name: "endpointUpdated", kind: inference.RecordKind, id: id,
		get: r.Inference.Get, view: mapEndpoint, final: func(e *inference.Endpoint) bool { return e.Status.Terminal() }}
}

func deployInputOf(in model.DeployEndpointInput) (inference.DeployInput, error) {
	out := inference.DeployInput{ClusterID: in.ClusterID, Name: in.Name, Path: inference.Path(in.Path), Model: in.Model,
		FSxFileSystemID: deref(in.FsxFileSystemID), InstanceType: in.InstanceType, Replicas: in.Replicas, Image: deref(in.Image),
		Pool: deref(in.Pool), TLSBucket: deref(in.TLSCertificateBucket), KVCache: kvCacheInputOf(in.KvCache), Routing: routingOf(in.IntelligentRouting)}
	if in.ModelSource != nil {
		out.Source = inference.Source(*in.ModelSource)
	}
	var err error
	if out.GPUsPerReplica, err = given("input.gpusPerReplica", in.GpusPerReplica, 1, 0); err != nil {
		return out, err
	}
	if in.Engine != nil {
		out.Engine = inference.Engine(*in.Engine)
	}
	if out.TensorParallelSize, err = given("input.tensorParallelSize", in.TensorParallelSize, 1, 0); err != nil {
		return out, err
	}
	if in.ServiceForm != nil {
		out.Form = inference.Form(*in.ServiceForm)
	}
	if a := in.Autoscaling; a != nil {
		out.Autoscaling = &inference.Bounds{Min: a.MinReplicas, Max: a.MaxReplicas}
	}
	if in.AcceptEula != nil {
		out.AcceptEula = *in.AcceptEula
	}
	return out, nil
}

func updateInputOf(in model.UpdateEndpointInput) inference.UpdateInput {
	out := inference.UpdateInput{Replicas: in.Replicas, Image: in.Image, KVCache: kvCacheInputOf(in.KvCache), Routing: routingOf(in.IntelligentRouting)}
	if a := in.Autoscaling; a != nil {
		out.Autoscaling = &inference.Bounds{Min: a.MinReplicas, Max: a.MaxReplicas}
	}
	return out
}

func kvCacheInputOf(in *model.KVCacheInput) *inference.KVCacheInput {
	if in == nil {
		return nil
	}
	out := &inference.KVCacheInput{L1: in.L1, L2: in.L2, L2URL: deref(in.L2Url)}
	if in.L2Backend != nil {
		out.L2Backend = string(*in.L2Backend)
	}
	return out
}

func routingOf(in *model.IntelligentRoutingInput) *inference.Routing {
	if in == nil {
		return nil
	}
	out := &inference.Routing{Enabled: in.Enabled}
	if in.Strategy != nil {
		out.Strategy = string(*in.Strategy)
	}
	return out
}

func chatRequestOf(in model.ChatRequestInput) (inference.ChatRequest, error) {
	out := inference.ChatRequest{Temperature: in.Temperature, Messages: make([]inference.ChatMessage, 0, len(in.Messages))}
	var err error
	if out.MaxTokens, err = given("request.maxTokens", in.MaxTokens, 1, 4096); err != nil {
		return out, err
	}
	for _, m := range in.Messages {
		out.Messages = append(out.Messages, inference.ChatMessage{Role: m.Role, Content: m.Content})
	}
	return out, nil
}

func mapInvocation(in *inference.Invocation) *model.InvocationResult {
	return &model.InvocationResult{Text: in.Text, FinishReason: optional(in.FinishReason), Model: optional(in.Model),
		PromptTokens: in.PromptTokens, CompletionTokens: in.CompletionTokens, TotalTokens: in.TotalTokens,
		LatencyMs: float64(in.Latency.Microseconds()) / 1000, Target: in.Target}
}

func mapEndpoint(e *inference.Endpoint) *model.Endpoint {
	out := &model.Endpoint{ID: e.ID, ClusterID: e.ClusterID, Name: e.Name, Namespace: e.Namespace, Path: model.EndpointPath(e.Path),
		Pool: optional(e.Pool), Model: e.Model, ModelSource: model.EndpointModelSource(e.Source), InstanceType: e.InstanceType,
		Image: optional(e.Image), Replicas: e.Replicas, ReadyReplicas: e.ReadyReplicas, Status: model.EndpointStatus(e.Status),
		StatusMessage: optional(e.StatusMessage), OperatorState: optional(e.OperatorState), Object: e.Object,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, LastOperationID: optional(e.LastOperationID), Pods: make([]*model.EndpointPod, 0, len(e.Pods))}
	if e.Engine != "" {
		engine := model.ServingEngine(e.Engine)
		out.Engine = &engine
	}
	if e.Form != "" {
		form := model.ServiceForm(e.Form)
		out.ServiceForm = &form
	}
	if e.TensorParallelSize > 0 {
		out.TensorParallelSize = &e.TensorParallelSize
	}
	if e.GPUsPerReplica > 0 {
		out.GpusPerReplica = &e.GPUsPerReplica
	}
	if a := e.Address; a != nil {
		out.Address = &model.EndpointAddress{Kind: a.Kind, Host: optional(a.Host), Service: optional(a.Service)}
		if a.Port > 0 {
			out.Address.Port = &a.Port
		}
	}
	for _, p := range e.Pods {
		out.Pods = append(out.Pods, &model.EndpointPod{Name: p.Name, UID: p.UID, Phase: p.Phase, Ready: p.Ready, Node: optional(p.Node),
			Business: optional(p.Business), Message: optional(p.Message), ContainerRestarts: p.ContainerRestarts, StartedAt: p.StartedAt})
	}
	if kv := e.KVCache; kv != nil {
		out.KvCache = &model.KVCache{L1: kv.L1, L2: kv.L2, L2Url: optional(kv.L2URL)}
		if kv.L2Backend != "" {
			b := model.KVCacheBackend(kv.L2Backend)
			out.KvCache.L2Backend = &b
		}
	}
	if r := e.Routing; r != nil {
		out.IntelligentRouting = &model.IntelligentRouting{Enabled: r.Enabled}
		if r.Strategy != "" {
			s := model.RoutingStrategy(r.Strategy)
			out.IntelligentRouting.Strategy = &s
		}
	}
	if r := e.Router; r != nil {
		out.Router = &model.EndpointRouter{Name: r.Name, Policy: model.RouterPolicy(r.Policy), ReadyReplicas: r.ReadyReplicas}
	}
	switch a := e.Autoscaling; {
	case a != nil:
		t := model.AutoscalingTrigger(a.Trigger)
		out.Autoscaling = &model.EndpointAutoscaling{MinReplicas: a.Min, MaxReplicas: a.Max, Trigger: &t, Target: &a.Target, Query: optional(a.Query), Ready: a.Ready, Active: a.Active}
	case e.ManagedScaling != nil:
		out.Autoscaling = &model.EndpointAutoscaling{MinReplicas: e.ManagedScaling.Min, MaxReplicas: e.ManagedScaling.Max, Ready: true}
	}
	return out
}

func mapEndpointMetrics(m *inference.Metrics) *model.EndpointMetrics {
	out := &model.EndpointMetrics{WorkspaceID: m.WorkspaceID, Start: m.Start, End: m.End, StepSeconds: int(m.Step.Seconds()), Series: make([]*model.EndpointMetricSeries, len(m.Series))}
	for i, s := range m.Series {
		ms := &model.EndpointMetricSeries{Metric: model.EndpointMetric(s.Metric), Query: s.Query, Points: make([]*model.EndpointMetricPoint, len(s.Points))}
		for j, p := range s.Points {
			ms.Points[j] = &model.EndpointMetricPoint{Time: p.Time, Value: p.Value}
		}
		out.Series[i] = ms
	}
	return out
}
