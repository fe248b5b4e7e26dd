package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The API server's proxy subresource, to the model servers of
// kube_serving.go. A request to a Service goes to one of its Ready pods
// at random, as kube-proxy sends it; a request to a pod goes to that pod.
// A router pod forwards to one of the Ready servers its --selector
// matches in its --service-discovery-namespace, by its --policy:
// round_robin in turn, random at random, power_of_two the less used of two
// drawn at random, cache_aware the worker that last served the request's
// prefix (the first 32 characters of its messages) unless that worker has
// served 2 more than the least used one, then the least used.
//
// A server answers POST /v1/chat/completions (and, for the inference
// operator's worker, /invocations) with deterministic text drawn from the
// model's name and the messages, max_tokens bounding it, and real counts
// of the prompt's and answer's word pieces. The latency (Elapsed, real
// time) grows with the requests the Deployment served in the last 10
// seconds per ready pod. Each request served is recorded (kubeServingRec).

// kubeServingRec is what the simulator remembers of a Deployment's
// serving: its requests' times in the last minute (at most
// kubeServingKept), how many each pod served, a router's turn and the
// workers it gave each prefix.
type kubeServingRec struct {
	Times    []time.Time       `json:",omitempty"`
	Served   map[string]int    `json:",omitempty"`
	Turn     int               `json:",omitempty"`
	Prefixes map[string]string `json:",omitempty"`
	// LowSince is when KEDA first saw the demand under the replicas the
	// Deployment has (kube_keda.go): scaling down waits its cooldown from
	// then. ActiveAt is when it last saw a trigger active.
	LowSince time.Time `json:",omitzero"`
	ActiveAt time.Time `json:",omitzero"`
	// Requests are the requests the servers answered, oldest first (at
	// most kubeServingKept): what the observability workspace's queries
	// read (aps.go).
	Requests []kubeRequestRec `json:",omitempty"`
}

// kubeRequestRec is one request a model server answered: when, how long
// it took, the tokens it generated and the ready replicas then.
type kubeRequestRec struct {
	At      time.Time
	Latency time.Duration
	Tokens  int
	Ready   int
}

// kubeContextLength is the context of every simulated model, in tokens:
// a request whose prompt and max_tokens exceed it is refused, as vLLM
// refuses it.
const kubeContextLength = 32768

// Bounds of what is remembered.
const (
	kubeServingKept   = 1024
	kubePrefixesKept  = 1024
	kubeRouterBalance = 2
)

// kubeProxy serves cloud.ServiceProxy for one simulated API server.
type kubeProxy struct{ srv *kubeServer }

var _ cloud.ServiceProxy = kubeProxy{}

// Post sends a request through the proxy subresource.
func (p kubeProxy) Post(_ context.Context, target cloud.ProxyTarget, path string, body []byte, limit int64) (*cloud.ProxyResponse, error) {
	var resp *cloud.ProxyResponse
	op := "create " + target.Kind + "/proxy"
	err := p.srv.call(op, func(s *kubeSession) error {
		var err error
		resp, err = s.proxy(target, path, body)
		return err
	})
	if err != nil {
		return nil, err
	}
	if int64(len(resp.Body)) > limit {
		resp.Body, resp.Truncated = resp.Body[:limit], true
	}
	return resp, nil
}

// proxy resolves the target and serves the request.
func (s *kubeSession) proxy(target cloud.ProxyTarget, path string, body []byte) (*cloud.ProxyResponse, error) {
	var pod *corev1.Pod
	switch target.Kind {
	case "services":
		obj, err := s.get("v1/services", target.Namespace, target.Name)
		if err != nil {
			return nil, err
		}
		if obj == nil {
			return nil, apierrors.NewNotFound(corev1.Resource("services"), target.Name)
		}
		var svc corev1.Service
		if err := kubeDecodeAs(obj, &svc); err != nil {
			return nil, err
		}
		ready, err := s.readyPods(target.Namespace, labels.SelectorFromSet(svc.Spec.Selector), "")
		if err != nil {
			return nil, err
		}
		if len(svc.Spec.Selector) == 0 || len(ready) == 0 {
			return kubeAnswer(503, "no endpoints available for service \""+target.Name+"\""), nil
		}
		pod = ready[s.t.draw(0, time.Duration(len(ready)-1))]
	case "pods":
		obj, err := s.get(kubePodsKey, target.Namespace, target.Name)
		if err != nil {
			return nil, err
		}
		if obj == nil {
			return nil, apierrors.NewNotFound(corev1.Resource("pods"), target.Name)
		}
		pod = &corev1.Pod{}
		if err := kubeDecodeAs(obj, pod); err != nil {
			return nil, err
		}
		if !kubePodReady(pod) {
			return kubeAnswer(503, "pod "+target.Name+" is not ready"), nil
		}
	default:
		return nil, apierrors.NewBadRequest("the proxy reaches services and pods, not " + target.Kind)
	}
	kind := kubeServingKind(pod)
	if kind == "router" {
		c := &pod.Spec.Containers[0]
		args := append(slices.Clone(c.Command), c.Args...)
		sel, err := labels.Parse(kubeArg(args, "--selector"))
		if err != nil {
			return kubeAnswer(500, "the router's selector: "+err.Error()), nil
		}
		ns := kubeArg(args, "--service-discovery-namespace")
		if ns == "" {
			ns = pod.Namespace
		}
		workers, err := s.readyPods(ns, sel, pod.Name)
		if err != nil {
			return nil, err
		}
		if len(workers) == 0 {
			return kubeAnswer(503, "no available workers"), nil
		}
		pod = s.route(pod, workers, kubeArg(args, "--policy"), body)
		kind = kubeServingKind(pod)
	}
	if kind == "" {
		return kubeAnswer(502, "pod "+pod.Name+" serves no model"), nil
	}
	return s.answerChat(pod, kind, path, body), nil
}

// readyPods lists the Ready serving pods of ns that sel matches, by
// name, leaving out pod but.
func (s *kubeSession) readyPods(ns string, sel labels.Selector, but string) ([]*corev1.Pod, error) {
	objs, err := s.list(kubePodsKey, ns)
	if err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	for _, obj := range objs {
		if !sel.Matches(labels.Set(obj.GetLabels())) || obj.GetName() == but || obj.GetDeletionTimestamp() != nil {
			continue
		}
		var p corev1.Pod
		if err := kubeDecodeAs(obj, &p); err != nil {
			return nil, err
		}
		if kubePodReady(&p) {
			out = append(out, &p)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// servingRec is the serving record of the Deployment that controls pod.
func (s *kubeSession) servingRec(pod *corev1.Pod) *kubeServingRec {
	return s.servingRecOf(pod.Namespace, kubeDeploymentName(pod))
}

// route picks the worker a router sends a request to.
func (s *kubeSession) route(router *corev1.Pod, workers []*corev1.Pod, policy string, body []byte) *corev1.Pod {
	rr := s.servingRec(router)
	served := func(p *corev1.Pod) int { return s.servingRec(p).Served[p.Name] }
	least := func() *corev1.Pod {
		best := workers[0]
		for _, w := range workers[1:] {
			if served(w) < served(best) {
				best = w
			}
		}
		return best
	}
	switch policy {
	case "round_robin":
		w := workers[rr.Turn%len(workers)]
		rr.Turn++
		return w
	case "random":
		return workers[s.t.draw(0, time.Duration(len(workers)-1))]
	case "power_of_two":
		a, b := workers[s.t.draw(0, time.Duration(len(workers)-1))], workers[s.t.draw(0, time.Duration(len(workers)-1))]
		if served(b) < served(a) {
			return b
		}
		return a
	}
	// cache_aware, the router's default.
	key := kubePromptPrefix(body)
	if rr.Prefixes == nil {
		rr.Prefixes = map[string]string{}
	}
	low := least()
	if name, ok := rr.Prefixes[key]; ok {
		for _, w := range workers {
			if w.Name == name && served(w)-served(low) <= kubeRouterBalance {
				return w
			}
		}
	}
	if len(rr.Prefixes) >= kubePrefixesKept {
		clear(rr.Prefixes)
	}
	rr.Prefixes[key] = low.Name
	return low
}

// kubeChatRequest is the part of a chat request a server reads.
type kubeChatRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens *int   `json:"max_tokens"`
	Model     string `json:"model"`
}

// kubePromptPrefix is what the cache-aware router matches requests by.
func kubePromptPrefix(body []byte) string {
	var req kubeChatRequest
	_ = json.Unmarshal(body, &req)
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
	}
	p := b.String()
	if len(p) > 32 {
		p = p[:32]
	}
	return p
}

// kubeWords is what simulated models say.
var kubeWords = strings.Fields(`the a model answer cluster node GPU training inference token batch layer weight gradient
	memory throughput latency request replica router cache prefix prompt sequence tensor parallel shard checkpoint
	dataset loss learning rate step epoch schedule queue pool worker service endpoint scale load balance`)

// kubeTokens counts the word pieces of text, as a tokenizer roughly would:
// words, and each punctuation mark.
func kubeTokens(text string) int {
	n, in := 0, false
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				n++
			}
			in = true
		case unicode.IsSpace(r):
			in = false
		default:
			n, in = n+1, false
		}
	}
	return n
}

// answerChat answers a request to a model server and records it.
func (s *kubeSession) answerChat(pod *corev1.Pod, kind, path string, body []byte) *cloud.ProxyResponse {
	if path != "/v1/chat/completions" && !(kind == "worker" && path == "/invocations") {
		return kubeAnswer(404, "no route "+path)
	}
	var req kubeChatRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		return kubeAnswer(400, "the body is not a chat completion request with messages")
	}
	maxTokens := 256
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	if maxTokens < 1 {
		return kubeAnswer(400, "max_tokens must be at least 1")
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += kubeTokens(m.Content) + 4
	}
	if prompt+maxTokens > kubeContextLength {
		return kubeAnswer(400, fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			kubeContextLength, prompt+maxTokens, prompt, maxTokens))
	}
	// A vLLM or SGLang server answers as its served model name, which is
	// its model's path unless --served-model-name names it; the operator's
	// worker, serving one model, as the model the request names (its
	// Deployment's name when the request names none).
	model := cmp.Or(servingModelPath(pod, kind), pod.Name)
	if kind == "worker" {
		model = kubeDeploymentName(pod)
		if req.Model != "" && len(req.Model) <= 256 {
			model = req.Model
		}
	} else {
		c := &pod.Spec.Containers[0]
		if m := kubeArg(append(slices.Clone(c.Command), c.Args...), "--served-model-name"); m != "" {
			model = m
		}
	}
	h := fnv.New64a()
	h.Write([]byte(model))
	for _, m := range req.Messages {
		h.Write([]byte(m.Role + "\x00" + m.Content + "\x00"))
	}
	seed := h.Sum64()
	n := min(maxTokens, 12+int(seed%40))
	words := make([]string, 0, n)
	for len(words) < n {
		seed = seed*6364136223846793005 + 1442695040888963407
		words = append(words, kubeWords[(seed>>33)%uint64(len(kubeWords))])
	}
	text := strings.Join(words, " ")
	finish := "stop"
	if n == maxTokens {
		finish = "length"
	}
	// The record and the latency.
	rec := s.servingRec(pod)
	now := s.t.now
	window := s.t.w.scale(10 * time.Second)
	recent := 0
	for _, at := range rec.Times {
		if now.Sub(at) <= window {
			recent++
		}
	}
	ready, _ := s.readyPods(pod.Namespace, labels.SelectorFromSet(map[string]string{kubeTemplateHashLabel: pod.Labels[kubeTemplateHashLabel]}), "")
	perReplica := (float64(recent)/10 + s.faultLoad(pod.Namespace, kubeDeploymentName(pod))) / math.Max(1, float64(len(ready)))
	latency := time.Duration(float64(80*time.Millisecond+time.Duration(n)*25*time.Millisecond) * (1 + perReplica/4))
	rec.Times = append(rec.Times, now)
	if len(rec.Times) > kubeServingKept {
		rec.Times = slices.Clone(rec.Times[len(rec.Times)-kubeServingKept:])
	}
	if rec.Served == nil {
		rec.Served = map[string]int{}
	}
	rec.Served[pod.Name]++
	rec.Requests = append(rec.Requests, kubeRequestRec{At: now, Latency: latency, Tokens: n, Ready: len(ready)})
	if len(rec.Requests) > kubeServingKept {
		rec.Requests = slices.Clone(rec.Requests[len(rec.Requests)-kubeServingKept:])
	}
	out, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%016x", seed), "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n},
	})
	return &cloud.ProxyResponse{Status: 200, Body: out, Elapsed: latency}
}

// kubeAnswer is an error answer, OpenAI-style.
func kubeAnswer(status int, message string) *cloud.ProxyResponse {
	out, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "code": status}})
	return &cloud.ProxyResponse{Status: status, Body: out}
}

// ServedBy returns how many requests the model server pod of namespace
// served through the proxy, over every simulated cluster: what a test
// reads to see where a router or a Service sent requests.
func (w *World) ServedBy(namespace, pod string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.st.kube().Clusters {
		for key, rec := range c.Serving {
			if strings.HasPrefix(key, namespace+"/") {
				n += rec.Served[pod]
			}
		}
	}
	return n
}
