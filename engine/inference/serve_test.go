package inference_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/testwait"
)

// until syncs endpoint id until ok holds.
func (f *fixture) until(t *testing.T, id string, what string, ok func(*inference.Endpoint) bool) *inference.Endpoint {
	t.Helper()
	return f.syncUntil(t, id, what, ok, func() {})
}

// stepUntil is until with the clock held, moved a simulated second at a
// time between syncs.
func (f *fixture) stepUntil(t *testing.T, id string, what string, ok func(*inference.Endpoint) bool) *inference.Endpoint {
	t.Helper()
	return f.syncUntil(t, id, what, ok, func() { f.clock.Step(time.Second / speed) })
}

// syncUntil syncs endpoint id until ok holds, calling between after each
// sync that ok refuses, and returns the endpoint as ok saw it.
func (f *fixture) syncUntil(t *testing.T, id string, what string, ok func(*inference.Endpoint) bool, between func()) *inference.Endpoint {
	t.Helper()
	var last *inference.Endpoint
	settled := false
	defer func() {
		if !settled && last != nil {
			t.Logf("endpoint %s as last synced: %s %s, pods %+v", id, last.Status, last.StatusMessage, last.Pods)
		}
	}()
	testwait.Eventually(t, "endpoint "+what, func() bool {
		e, err := f.svc.Sync(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		last = e
		if ok(e) {
			return true
		}
		between()
		return false
	})
	settled = true
	return last
}

func (f *fixture) ready(t *testing.T, id string) *inference.Endpoint {
	t.Helper()
	return f.until(t, id, "READY", func(e *inference.Endpoint) bool { return e.Status == inference.Ready })
}

func hello(text string) inference.ChatRequest {
	return inference.ChatRequest{Messages: []inference.ChatMessage{{Role: "user", Content: text}}, MaxTokens: 64}
}

// TestInvocationRoundTrip deploys a vLLM endpoint, sees it DEPLOYING
// while the model loads (the clock held) and READY after, and calls it:
// the same request gets the same answer, with token counts and a latency.
func TestInvocationRoundTrip(t *testing.T) {
	f := newFixture(t)
	f.clock.Pause()
	e := f.deploy(t, f.vllm("chat", inference.ClusterIP))
	f.clock.Step(40 * time.Second / speed) // bound and started, still loading
	got, err := f.svc.Sync(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != inference.Deploying || got.ReadyReplicas != 0 {
		t.Fatalf("while the model loads: %s, %d ready", got.Status, got.ReadyReplicas)
	}
	_, err = f.svc.Invoke(context.Background(), e.ID, hello("hi"), "")
	wantCode(t, err, errs.Precondition, "endpointId", "DEPLOYING")
	f.clock.Resume()
	e = f.ready(t, e.ID)
	if e.Address == nil || e.Address.Host != "vllm-chat.default.svc.cluster.local" || len(e.Pods) != 1 || e.Pods[0].Node == "" {
		t.Fatalf("address %+v pods %+v", e.Address, e.Pods)
	}
	a, err := f.svc.Invoke(context.Background(), e.ID, hello("What is HyperPod?"), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.svc.Invoke(context.Background(), e.ID, hello("What is HyperPod?"), "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Text == "" || a.Text != b.Text || a.Model != "qwen3-8b" || a.PromptTokens != 8 || a.CompletionTokens < 1 ||
		a.TotalTokens != a.PromptTokens+a.CompletionTokens || a.Latency <= 0 || a.Target != "services/vllm-chat" {
		t.Fatalf("answers %+v and %+v", a, b)
	}
	big := hello(string(make([]byte, 70<<10)))
	_, err = f.svc.Invoke(context.Background(), e.ID, big, "")
	wantCode(t, err, errs.Validation, "request.messages", "64 KiB")
}

// TestInvokeRefusesWhatIsNotTheEndpoints replaces an endpoint's Service
// with one made outside InstantStart: the call is refused before anything
// is sent to it.
func TestInvokeRefusesWhatIsNotTheEndpoints(t *testing.T) {
	f := newFixture(t)
	e := f.ready(t, f.deploy(t, f.vllm("chat", inference.ClusterIP)).ID)
	ctx := context.Background()
	svcs := f.kube(t).Core.CoreV1().Services("default")
	if err := svcs.Delete(ctx, "vllm-chat", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "vllm-chat", Namespace: "default"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "vllm-chat"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if _, err := svcs.Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := f.world.Calls()["kubernetes"]["create services/proxy"]
	_, err := f.svc.Invoke(ctx, e.ID, hello("hi"), "")
	wantCode(t, err, errs.Conflict, "endpointId", "not endpoint chat's", "remove that Service")
	if n := f.world.Calls()["kubernetes"]["create services/proxy"]; n != before {
		t.Fatalf("%d requests went through the proxy", n-before)
	}
	_, err = f.svc.Invoke(ctx, "no-such-endpoint", hello("hi"), "")
	wantCode(t, err, errs.NotFound, "endpointId")
}

// TestPoolReassignmentKeepsThePod hands a warm pool worker to a business:
// its business label changes, the business's Service selects it, and it
// is the same pod (same uid), never restarted.
func TestPoolReassignmentKeepsThePod(t *testing.T) {
	f := newFixture(t)
	in := f.vllm("pool", inference.ModelPool)
	in.Replicas = 2
	e := f.ready(t, f.deploy(t, in).ID)
	if len(e.Pods) != 2 || e.Pods[0].Business != "unassigned" {
		t.Fatalf("pods %+v", e.Pods)
	}
	worker := e.Pods[0]
	op, err := f.svc.Assign(context.Background(), "tester", e.ID, worker.Name, "search", "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	e = f.until(t, e.ID, "reassigned", func(e *inference.Endpoint) bool {
		for _, p := range e.Pods {
			if p.Name == worker.Name {
				return p.Business == "search"
			}
		}
		return false
	})
	for _, p := range e.Pods {
		if p.Name == worker.Name && (p.UID != worker.UID || p.ContainerRestarts != 0 || !p.Ready) {
			t.Fatalf("the worker after reassignment %+v, before %+v", p, worker)
		}
	}
	a, err := f.svc.Invoke(context.Background(), e.ID, hello("hi"), "search")
	if err != nil {
		t.Fatal(err)
	}
	if a.Target != "services/pool-search" {
		t.Fatalf("called %s", a.Target)
	}
	_, err = f.svc.Invoke(context.Background(), e.ID, hello("hi"), "billing")
	wantCode(t, err, errs.NotFound, "business", "no worker is assigned")
	_, err = f.svc.Assign(context.Background(), "tester", e.ID, "some-other-pod", "search", "")
	wantCode(t, err, errs.Validation, "pod", "pool's pods")
}

// TestRouterSpreadsByPolicy puts the SGLang router in front of two
// replicas and counts where requests go: ROUND_ROBIN alternates, and
// CACHE_AWARE keeps a prefix on one worker while loads stay balanced.
func TestRouterSpreadsByPolicy(t *testing.T) {
	f := newFixture(t)
	in := f.vllm("chat", inference.ClusterIP)
	in.Engine, in.Image, in.Replicas = inference.SGLang, "lmsysorg/sglang:v0.5.3-cu126", 2
	e := f.ready(t, f.deploy(t, in).ID)
	ctx := context.Background()
	served := func() map[string]int {
		out := map[string]int{}
		for _, p := range f.pods(t, "app=sglang-chat") {
			out[p] = f.world.ServedBy("default", p)
		}
		return out
	}
	for _, c := range []struct {
		policy inference.RouterPolicy
		check  func(before, after map[string]int) error
		prompt func(i int) string
	}{
		{inference.RoundRobin, func(before, after map[string]int) error {
			for p := range after {
				if after[p]-before[p] != 5 {
					return fmt.Errorf("round robin sent %v", diff(before, after))
				}
			}
			return nil
		}, func(i int) string { return fmt.Sprintf("question %d", i) }},
		{inference.CacheAware, func(before, after map[string]int) error {
			d := diff(before, after)
			for _, n := range d {
				if n == 0 {
					return fmt.Errorf("cache aware left a worker idle under one prefix past the balance: %v", d)
				}
			}
			return nil
		}, func(i int) string { return "the same long shared system prefix for every request" }},
	} {
		op, err := f.svc.DeployRouter(ctx, "tester", e.ID, c.policy, "")
		if err != nil {
			t.Fatal(err)
		}
		simtest.Succeeded(t, f.runner, op)
		f.until(t, e.ID, "routed", func(e *inference.Endpoint) bool {
			return e.Router != nil && e.Router.Policy == c.policy && e.Router.ReadyReplicas == 1
		})
		f.routerSettled(t, c.policy)
		before := served()
		var order []string // the worker of each request
		last := before
		for i := range 10 {
			a, err := f.svc.Invoke(ctx, e.ID, hello(c.prompt(i)), "")
			if err != nil {
				t.Fatal(err)
			}
			if a.Target != "services/sglang-chat-router" {
				t.Fatalf("called %s", a.Target)
			}
			now := served()
			for p, n := range diff(last, now) {
				if n == 1 {
					order = append(order, p)
				}
			}
			last = now
		}
		if len(order) != 10 {
			t.Fatalf("%s: %d of 10 requests were served by one worker each", c.policy, len(order))
		}
		if err := c.check(before, served()); err != nil {
			t.Fatal(err)
		}
		switch c.policy {
		case inference.RoundRobin:
			for i := 1; i < len(order); i++ {
				if order[i] == order[i-1] {
					t.Fatalf("round robin sent two requests in a row to %s: %v", order[i], order)
				}
			}
		case inference.CacheAware:
			// Balanced loads: the prefix stays with its worker until that
			// worker has served 2 more than the other.
			if order[0] != order[1] || order[1] != order[2] {
				t.Fatalf("cache aware did not keep the prefix on one worker: %v", order)
			}
		}
	}
	_, err := f.svc.DeployRouter(ctx, "tester", f.deploy(t, f.vllm("plain", inference.ClusterIP)).ID, inference.RoundRobin, "")
	wantCode(t, err, errs.Precondition, "endpointId", "SGLang")
}

func diff(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for p, n := range after {
		out[p] = n - before[p]
	}
	return out
}

// pods lists the names of the pods selector matches.
func (f *fixture) pods(t *testing.T, selector string) []string {
	t.Helper()
	list, err := f.kube(t).Core.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, p.Name)
	}
	return out
}

// routerSettled waits until the router's only ready pod runs policy: a
// changed policy rolls the router's pod.
func (f *fixture) routerSettled(t *testing.T, policy inference.RouterPolicy) {
	t.Helper()
	testwait.Eventually(t, fmt.Sprintf("the %s router settled", policy), func() bool {
		list, err := f.kube(t).Core.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=sglang-chat-router"})
		if err != nil {
			t.Fatal(err)
		}
		return len(list.Items) == 1 && kubeReady(&list.Items[0])
	})
}

func kubeReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TestFaultsFailTheEndpoint: a server out of GPU memory at load, and an
// image that cannot be pulled, each turn the endpoint FAILED with the
// pod's reason.
func TestFaultsFailTheEndpoint(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ fault, name, image, want string }{
		{"gpuoom:deployment=vllm-oom", "oom", "vllm/vllm-openai:v0.10.1", "CUDA out of memory"},
		{"imagepull:image=vllm/vllm-openai:v9.9.9", "pull", "vllm/vllm-openai:v9.9.9", "ErrImagePull"},
	} {
		fault, err := sim.ParseFault(c.fault)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.world.InjectFault(fault); err != nil {
			t.Fatal(err)
		}
		in := f.vllm(c.name, inference.ClusterIP)
		in.Image = c.image
		e := f.until(t, f.deploy(t, in).ID, "FAILED", func(e *inference.Endpoint) bool { return e.Status == inference.Failed })
		if !strings.Contains(e.StatusMessage, c.want) {
			t.Fatalf("%s: %s", c.name, e.StatusMessage)
		}
	}
}

// TestKEDAScalesWithLoad sets KEDA autoscaling on requests per replica:
// a burst of requests scales the endpoint up to its maximum, and once the
// requests stop and the cooldown passes, back down to its minimum. The
// clock is held so that the burst falls in one window.
func TestKEDAScalesWithLoad(t *testing.T) {
	f := newFixture(t)
	f.enable(t, features.Toggle{Name: hyperpod.KEDA, Enable: true},
		features.Toggle{Name: hyperpod.Observability, Enable: true, Settings: &features.Settings{WorkspaceArn: "arn:aws:aps:us-west-2:123456789012:workspace/ws-1111"}})
	e := f.ready(t, f.deploy(t, f.vllm("chat", inference.ClusterIP)).ID)
	ctx := context.Background()
	op, err := f.svc.SetAutoscaling(ctx, "tester", e.ID, inference.AutoscalingInput{Bounds: inference.Bounds{Min: 1, Max: 3}, Trigger: inference.RequestsPerReplica, Target: 0.1}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	f.clock.Pause()
	defer f.clock.Resume()
	for range 30 {
		if _, err := f.svc.Invoke(ctx, e.ID, hello("load"), ""); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Step(time.Millisecond)
	got := f.until(t, e.ID, "scaled up", func(e *inference.Endpoint) bool { return e.Replicas == 3 })
	if got.Autoscaling == nil || !got.Autoscaling.Ready || !got.Autoscaling.Active {
		t.Fatalf("autoscaling %+v", got.Autoscaling)
	}
	f.clock.Step(2 * time.Minute / speed * 2) // past the window and the cooldown
	f.until(t, e.ID, "scaled down", func(e *inference.Endpoint) bool { return e.Replicas == 1 })
	two := 2
	_, err = f.svc.Update(ctx, "tester", e.ID, inference.UpdateInput{Replicas: &two}, "")
	wantCode(t, err, errs.Precondition, "input.replicas", "setEndpointAutoscaling")
}

// TestNodeLostUnderAnEndpoint loses the node under one of an endpoint's two
// replicas (each takes a whole node's GPUs): the endpoint is DEGRADED with
// the replacement pod waiting and still answers from the other replica;
// once HyperPod has rebooted the node, the Deployment's new pod loads
// there and the endpoint is READY again. The clock is held while the node
// is down so that the test sees it down.
func TestNodeLostUnderAnEndpoint(t *testing.T) {
	f := newFixture(t)
	in := f.vllm("chat", inference.ClusterIP)
	in.Replicas, in.GPUsPerReplica = 2, 4
	e := f.ready(t, f.deploy(t, in).ID)
	if len(e.Pods) != 2 || e.Pods[0].Node == e.Pods[1].Node {
		t.Fatalf("pods %+v, want two on two nodes", e.Pods)
	}
	lost, kept := e.Pods[0], e.Pods[1]
	f.clock.Pause()
	instance := strings.TrimPrefix(lost.Node, "hyperpod-")
	if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultNode, Cluster: "infer-1", Instance: instance, Recovery: "reboot", Count: 1}); err != nil {
		t.Fatal(err)
	}
	down := f.stepUntil(t, e.ID, "DEGRADED", func(e *inference.Endpoint) bool {
		return e.Status == inference.Degraded && len(e.Pods) == 2 && !hasPod(e, lost.UID)
	})
	if down.ReadyReplicas != 1 || !strings.Contains(down.StatusMessage, "1 of 2 replicas ready") {
		t.Fatalf("with a node lost: %d ready, %q", down.ReadyReplicas, down.StatusMessage)
	}
	var replacement inference.Pod
	for _, p := range down.Pods {
		if p.UID != kept.UID {
			replacement = p
		}
	}
	if replacement.Ready || replacement.Node != "" || replacement.Message == "" {
		t.Fatalf("the replacement pod %+v, want it waiting for a node, saying why", replacement)
	}
	before := f.world.ServedBy("default", kept.Name)
	if _, err := f.svc.Invoke(context.Background(), e.ID, hello("still there?"), ""); err != nil {
		t.Fatalf("a DEGRADED endpoint with a ready replica: %v", err)
	}
	if f.world.ServedBy("default", kept.Name) != before+1 {
		t.Fatalf("the request was not served by the replica left, %s", kept.Name)
	}
	f.clock.Resume()
	back := f.ready(t, e.ID)
	if back.ReadyReplicas != 2 || hasPod(back, lost.UID) || !hasPod(back, kept.UID) {
		t.Fatalf("after the node came back: %d ready, pods %+v", back.ReadyReplicas, back.Pods)
	}
	for _, p := range back.Pods {
		if p.UID != kept.UID && p.Node != lost.Node {
			t.Fatalf("the new pod is on %s, want the rebooted node %s", p.Node, lost.Node)
		}
	}
}

func hasPod(e *inference.Endpoint, uid string) bool {
	for _, p := range e.Pods {
		if p.UID == uid {
			return true
		}
	}
	return false
}
