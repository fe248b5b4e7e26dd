package inference

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// ChatMessage is one message of a chat request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is an OpenAI-style chat completion request.
type ChatRequest struct {
	Messages    []ChatMessage
	MaxTokens   int
	Temperature *float64
}

// Invocation is what an endpoint answered.
type Invocation struct {
	Text             string
	FinishReason     string
	Model            string
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	Latency          time.Duration
	Target           string
}

// Bounds of an invocation: the request is checked before anything is
// sent, the answer read no further than maxAnswer, the call given at most
// invokeTimeout.
const (
	maxMessages      = 64
	maxRequestText   = 64 << 10
	maxTokens        = 4096
	defaultMaxTokens = 256
	maxAnswer        = 1 << 20
	invokeTimeout    = 60 * time.Second
)

// checkChat refuses a request over the bounds, naming what to change.
func checkChat(req *ChatRequest) error {
	if len(req.Messages) == 0 || len(req.Messages) > maxMessages {
		return errs.Field("request.messages", "send 1 to %d messages, got %d", maxMessages, len(req.Messages))
	}
	size := 0
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "user", "assistant":
		default:
			return errs.Field(fmt.Sprintf("request.messages.%d.role", i), "role %q is not system, user or assistant", errs.Clip(m.Role))
		}
		if !utf8.ValidString(m.Content) {
			return errs.Field(fmt.Sprintf("request.messages.%d.content", i), "the message is not valid UTF-8")
		}
		size += len(m.Content)
	}
	if size > maxRequestText {
		return errs.Field("request.messages", "the messages hold %d bytes of text; the most an invocation may send is %d (64 KiB): shorten the conversation", size, maxRequestText)
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = defaultMaxTokens
	}
	if req.MaxTokens < 1 || req.MaxTokens > maxTokens {
		return errs.Field("request.maxTokens", "maxTokens must be between 1 and %d, got %d", maxTokens, req.MaxTokens)
	}
	if t := req.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		return errs.Field("request.temperature", "temperature must be between 0 and 2")
	}
	return nil
}

// chatAnswer is the part of an OpenAI-style answer read.
type chatAnswer struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Invoke calls endpoint id with a chat request and returns its answer.
// The request reaches only what the endpoint's record and its objects say
// is its own: the router's Service, the endpoint's Service, a pool
// business's Service or a ready pool worker, or the operator's Service of
// a managed endpoint, each checked to carry the endpoint's label (or to
// belong to its object) before anything is sent, through the cluster's
// Kubernetes API.
func (s *Service) Invoke(ctx context.Context, id string, req ChatRequest, business string) (*Invocation, error) {
	if err := checkChat(&req); err != nil {
		return nil, err
	}
	e, err := s.live(id, "endpointId")
	if err != nil {
		return nil, err
	}
	if e.Status == ScaledToZero {
		return nil, errs.New(errs.Precondition, "endpoint %s is scaled to 0 replicas: nothing serves it; scale it up (updateEndpoint with replicas), then wait for READY (endpointUpdated)", e.Name).WithField("endpointId")
	}
	if e.Status != Ready && e.Status != Degraded {
		return nil, errs.New(errs.Precondition, "endpoint %s is %s: no replica serves yet (%s); wait for READY (endpointUpdated)", e.Name, e.Status, e.StatusMessage).WithField("endpointId")
	}
	if business != "" && e.Form != ModelPool {
		return nil, errs.Field("business", "business is for MODEL_POOL endpoints")
	}
	kc, err := s.kube(ctx, e.ClusterID)
	if err != nil {
		return nil, err
	}
	target, path, err := s.target(ctx, kc, e, business)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"model": e.Model, "messages": req.Messages, "max_tokens": req.MaxTokens}
	if req.Temperature != nil {
		body["temperature"] = *req.Temperature
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "encode the request: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, invokeTimeout)
	defer cancel()
	name := target.Kind + "/" + target.Name
	resp, err := kc.Proxy.Post(ctx, target, path, raw, maxAnswer)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.New(errs.Timeout, "endpoint %s did not answer within %s; ask for fewer tokens (maxTokens), or look at its pods", e.Name, invokeTimeout)
		}
		return nil, errs.Wrap(errs.Upstream, err, "call %s of endpoint %s: %v", name, e.Name, err)
	}
	var ans chatAnswer
	_ = json.Unmarshal(resp.Body, &ans)
	said := strings.TrimSpace(string(resp.Body))
	if ans.Error != nil {
		said = ans.Error.Message
	}
	switch {
	case resp.Status == 503:
		return nil, errs.New(errs.Precondition, "endpoint %s has no ready replica behind %s (503: %s); wait for READY", e.Name, name, errs.Clip(said))
	case resp.Status >= 400 && resp.Status < 500:
		return nil, errs.New(errs.Validation, "endpoint %s refused the request (%d): %s", e.Name, resp.Status, errs.Clip(said)).WithField("request")
	case resp.Status >= 300 || resp.Status < 200:
		return nil, errs.New(errs.Upstream, "endpoint %s answered %d: %s", e.Name, resp.Status, errs.Clip(said))
	case resp.Truncated:
		return nil, errs.New(errs.Upstream, "endpoint %s's answer is over %d bytes and was not read; ask for fewer tokens (maxTokens)", e.Name, maxAnswer)
	case len(ans.Choices) == 0:
		return nil, errs.New(errs.Upstream, "endpoint %s answered with no choices: %s", e.Name, errs.Clip(said))
	}
	return &Invocation{Text: ans.Choices[0].Message.Content, FinishReason: ans.Choices[0].FinishReason, Model: ans.Model,
		PromptTokens: ans.Usage.PromptTokens, CompletionTokens: ans.Usage.CompletionTokens, TotalTokens: ans.Usage.TotalTokens,
		Latency: resp.Elapsed, Target: name}, nil
}

// target resolves, from the cluster, what an invocation of e reaches.
func (s *Service) target(ctx context.Context, kc *cloud.KubeClients, e *Endpoint, business string) (cloud.ProxyTarget, string, error) {
	chat := "/v1/chat/completions"
	// svc reads the Service name; gone is the error when it does not
	// exist, nil for one the endpoint made, which was deleted behind its
	// back.
	svc := func(name string, gone error) (cloud.ProxyTarget, string, error) {
		live, err := kc.Core.CoreV1().Services(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) && gone != nil:
			return cloud.ProxyTarget{}, "", gone
		case apierrors.IsNotFound(err):
			return cloud.ProxyTarget{}, "", errs.New(errs.Precondition, "endpoint %s's Service %s/%s is gone; it was deleted outside InstantStart: deploy the endpoint again", e.Name, e.Namespace, name)
		case err != nil:
			return cloud.ProxyTarget{}, "", errs.Wrap(errs.Upstream, err, "read Service %s/%s: %v", e.Namespace, name, err)
		case !ownsService(e, live):
			return cloud.ProxyTarget{}, "", errs.New(errs.Conflict, "Service %s/%s is not endpoint %s's: it was made or changed outside InstantStart, so it is not called; remove that Service, then delete the endpoint and deploy it again", e.Namespace, name, e.Name).WithField("endpointId")
		}
		return cloud.ProxyTarget{Namespace: e.Namespace, Kind: "services", Name: name, Port: servicePortOf(live)}, chat, nil
	}
	switch {
	case e.Path == Managed:
		t, _, err := svc(managedServiceName(e), nil)
		return t, "/invocations", err
	case e.Router != nil:
		return svc(routerName(e), nil)
	case e.Form != ModelPool:
		return svc(e.Workload, nil)
	case business != "":
		if !namePattern.MatchString(business) {
			return cloud.ProxyTarget{}, "", errs.Field("business", "%q is not a valid business name", errs.Clip(business))
		}
		// A business's Service is made when a worker is first assigned to it.
		return svc(poolServiceName(e.Pool, business), errs.New(errs.NotFound,
			"endpoint %s's pool serves no business %q: no worker is assigned to it; assign one (assignPoolWorker), or leave business out to reach any ready worker", e.Name, business).WithField("business"))
	}
	list, err := kc.Core.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: endpointIDLabel + "=" + e.ID})
	if err != nil {
		return cloud.ProxyTarget{}, "", errs.Wrap(errs.Upstream, err, "list the pool's pods: %v", err)
	}
	for _, p := range list.Items {
		if p.Labels[endpointIDLabel] == e.ID && p.Labels[poolLabel] == e.Pool && podReady(&p) && p.DeletionTimestamp == nil {
			return cloud.ProxyTarget{Namespace: e.Namespace, Kind: "pods", Name: p.Name, Port: strconv.Itoa(int(enginePort(e.Engine)))}, chat, nil
		}
	}
	return cloud.ProxyTarget{}, "", errs.New(errs.Precondition, "pool %s has no ready worker; wait for one, or name a business whose Service to call", e.Pool)
}

// ownsService tells whether svc is endpoint e's: labelled as its own, or,
// for a managed endpoint, made by the operator for its object.
func ownsService(e *Endpoint, svc *corev1.Service) bool {
	if svc.Labels[endpointIDLabel] == e.ID && svc.Labels[managedByLabel] == managedBy {
		return true
	}
	if e.Path != Managed {
		return false
	}
	kind := strings.SplitN(e.Object, "/", 2)[0]
	for _, o := range svc.OwnerReferences {
		if o.Kind == kind && o.Name == e.Name {
			return true
		}
	}
	return false
}

// servicePortOf is the Service's http port, or its first.
func servicePortOf(svc *corev1.Service) string {
	for _, p := range svc.Spec.Ports {
		if p.Name == portName {
			return strconv.Itoa(int(p.Port))
		}
	}
	if len(svc.Spec.Ports) > 0 {
		return strconv.Itoa(int(svc.Spec.Ports[0].Port))
	}
	return strconv.Itoa(servicePort)
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// managedServiceName is the Service the inference operator makes for a
// managed endpoint: named as its object, on the worker's invocation port.
func managedServiceName(e *Endpoint) string { return e.Name }
