package sim

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/instantstart/instantstart/engine/cloud"
)

// clusterIP makes Service name of namespace default, selecting app=name.
func clusterIP(f *fixture, kc *cloud.KubeClients, name string) {
	f.t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": name},
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
	}}
	ok(kc.Core.CoreV1().Services("default").Create(f.ctx, svc, metav1.CreateOptions{})).must(f.t)
}

// chatBody is a chat request of one user message, with max_tokens unless
// it is 0.
func chatBody(text string, maxTokens int) []byte {
	req := map[string]any{"model": "qwen3-8b", "messages": []any{map[string]any{"role": "user", "content": text}}}
	if maxTokens != 0 {
		req["max_tokens"] = maxTokens
	}
	b, _ := json.Marshal(req)
	return b
}

// chatAnswer is what a test reads of an answer.
type chatAnswer struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
		Total      int `json:"total_tokens"`
	} `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

func post(f *fixture, kc *cloud.KubeClients, kind, name, path string, body []byte, limit int64) (*cloud.ProxyResponse, error) {
	return kc.Proxy.Post(f.ctx, cloud.ProxyTarget{Namespace: "default", Kind: kind, Name: name, Port: "http"}, path, body, limit)
}

// TestProxyAnswers: through a Service or to a pod, a Ready model server
// answers chat completions with text that depends only on the model and
// the messages, real token counts and max_tokens honoured; a server still
// loading, a Service without Ready endpoints, another path and a body that
// is no chat request get 503, 404 and 400 with an OpenAI-style error; the
// caller's size limit cuts the body.
func TestProxyAnswers(t *testing.T) {
	f, kc := servingFixture(t, map[string]int64{"qwen3-8b": 1 << 30, "big": 500 << 30})
	ready := f.startServers(kc, serverDeployment("chat", "vllm", "qwen3-8b", 1), 1<<30)
	ok(kc.Core.AppsV1().Deployments("default").Create(f.ctx, serverDeployment("slow", "vllm", "big", 1), metav1.CreateOptions{})).must(t)
	clusterIP(f, kc, "chat")
	clusterIP(f, kc, "slow")
	f.advanceTo(ready.Add(scaled(kubePodStartTime)))
	slow := f.deploymentPods(kc, "slow")[0].Name
	chat := f.deploymentPods(kc, "chat")[0].Name
	const completions = "/v1/chat/completions"
	question := chatBody("What is HyperPod?", 0)
	cases := []struct {
		name, kind, target, path string
		body                     []byte
		limit                    int64
		status                   int
		check                    func(t *testing.T, a chatAnswer, resp *cloud.ProxyResponse)
	}{
		{"through the Service", "services", "chat", completions, question, 1 << 20, 200, func(t *testing.T, a chatAnswer, resp *cloud.ProxyResponse) {
			text := a.Choices[0].Message.Content
			if a.Model != "qwen3-8b" || a.Usage.Prompt != 8 || a.Usage.Completion != kubeTokens(text) || a.Usage.Total != 8+a.Usage.Completion ||
				a.Choices[0].FinishReason != "stop" || resp.Elapsed <= 0 {
				t.Errorf("answer %+v, elapsed %v", a, resp.Elapsed)
			}
		}},
		{"to the pod", "pods", chat, completions, question, 1 << 20, 200, nil},
		{"bounded by max_tokens", "pods", chat, completions, chatBody("What is HyperPod?", 3), 1 << 20, 200, func(t *testing.T, a chatAnswer, _ *cloud.ProxyResponse) {
			if a.Usage.Completion != 3 || len(strings.Fields(a.Choices[0].Message.Content)) != 3 || a.Choices[0].FinishReason != "length" {
				t.Errorf("answer %+v", a)
			}
		}},
		{"a pod still loading", "pods", slow, completions, question, 1 << 20, 503, nil},
		{"a Service with no Ready endpoint", "services", "slow", completions, question, 1 << 20, 503, nil},
		{"another path", "pods", chat, "/v1/embeddings", question, 1 << 20, 404, nil},
		{"a body that is not JSON", "pods", chat, completions, []byte("hello"), 1 << 20, 400, nil},
		{"a request without messages", "services", "chat", completions, []byte(`{"messages":[]}`), 1 << 20, 400, nil},
		{"max_tokens under 1", "pods", chat, completions, chatBody("hi", -1), 1 << 20, 400, nil},
		{"max_tokens past the context", "pods", chat, completions, chatBody("hi", kubeContextLength), 1 << 20, 400, func(t *testing.T, a chatAnswer, _ *cloud.ProxyResponse) {
			if !strings.Contains(a.Error.Message, "maximum context length") {
				t.Errorf("error %q", a.Error.Message)
			}
		}},
		{"the size limit", "pods", chat, completions, question, 10, 200, func(t *testing.T, _ chatAnswer, resp *cloud.ProxyResponse) {
			if len(resp.Body) != 10 || !resp.Truncated {
				t.Errorf("%d bytes, truncated %v", len(resp.Body), resp.Truncated)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := ok(post(f, kc, c.kind, c.target, c.path, c.body, c.limit)).must(t)
			if resp.Status != c.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, c.status, resp.Body)
			}
			var a chatAnswer
			if !resp.Truncated {
				if err := json.Unmarshal(resp.Body, &a); err != nil {
					t.Fatalf("body %q: %v", resp.Body, err)
				}
			}
			switch {
			case c.status != 200 && a.Error.Message == "":
				t.Errorf("error answer without error.message: %s", resp.Body)
			case c.status == 200 && !resp.Truncated && (len(a.Choices) != 1 || a.Choices[0].Message.Content == ""):
				t.Errorf("answer without text: %s", resp.Body)
			}
			if c.check != nil {
				c.check(t, a, resp)
			}
		})
	}
	text := func(body []byte) string {
		var a chatAnswer
		if err := json.Unmarshal(ok(post(f, kc, "pods", chat, completions, body, 1<<20)).must(t).Body, &a); err != nil {
			t.Fatal(err)
		}
		return a.Choices[0].Message.Content
	}
	if a, b, other := text(question), text(question), text(chatBody("What is SageMaker?", 0)); a != b || a == other {
		t.Errorf("the same question got %q and %q; another got %q", a, b, other)
	}
	if _, err := post(f, kc, "services", "nope", completions, question, 1<<20); !apierrors.IsNotFound(err) {
		t.Errorf("a missing Service: %v", err)
	}
}

// TestProxyLatencyGrowsWithLoad: a server's simulated latency, reported in
// Elapsed since the simulator's clock is not the wall's, grows with the
// requests a second per Ready replica, those served and those a load fault
// adds.
func TestProxyLatencyGrowsWithLoad(t *testing.T) {
	f, kc := servingFixture(t, map[string]int64{"qwen3-8b": 1 << 30})
	f.advanceTo(f.startServers(kc, serverDeployment("chat", "vllm", "qwen3-8b", 1), 1<<30))
	chat := f.deploymentPods(kc, "chat")[0].Name
	latency := func() time.Duration {
		return ok(post(f, kc, "pods", chat, "/v1/chat/completions", chatBody("same", 0), 1<<20)).must(t).Elapsed
	}
	idle := latency()
	for range 40 {
		latency()
	}
	busy := latency()
	f.advance(time.Hour)
	if again := latency(); again != idle {
		t.Errorf("latency %v once the burst is over, want the idle %v", again, idle)
	}
	ok(f.w.InjectFault(ok(ParseFault("load:namespace=default,deployment=chat,rps=40")).must(t))).must(t)
	loaded := latency()
	if !(idle < busy && idle < loaded) {
		t.Errorf("latency idle %v, after a burst %v, under a load fault %v", idle, busy, loaded)
	}
}

// routerDeployment is the SGLang router of the workers app=workers, with
// policy, as deployRouter makes it.
func routerDeployment(name, policy string) *appsv1.Deployment {
	d := servingDeployment(name, "lmsysorg/sglang:v0.4.9", 1)
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "router", Image: "lmsysorg/sglang:v0.4.9",
		Command: []string{"python3", "-m", "sglang_router.launch_router"},
		Args: []string{"--service-discovery", "--selector", "app=workers", "--service-discovery-namespace", "default",
			"--service-discovery-port", "30000", "--policy", policy, "--host", "0.0.0.0", "--port", "30000", "--prometheus-port", "29000"},
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 30000}},
	}}
	return d
}

// TestRouterSpreadsByPolicy: a router sends each request to one of the
// Ready workers its selector matches: round_robin in turn, evenly;
// cache_aware the same prompt prefix to the same worker while their loads
// are balanced, and a hot prefix on to others once they are not; random
// and power_of_two spread the requests over every worker.
func TestRouterSpreadsByPolicy(t *testing.T) {
	for _, c := range []struct {
		policy string
		// prompts is sent in turn, rounds times.
		prompts []string
		rounds  int
		check   func(t *testing.T, served map[string]int, byPrompt map[string][]string)
	}{
		{"round_robin", []string{"hello"}, 30, func(t *testing.T, served map[string]int, _ map[string][]string) {
			for pod, n := range served {
				if n != 10 {
					t.Errorf("%s served %d of 30, want 10: %v", pod, n, served)
				}
			}
		}},
		{"cache_aware", []string{"tell me about GPUs", "summarise this contract", "write a haiku about clusters"}, 10,
			func(t *testing.T, served map[string]int, byPrompt map[string][]string) {
				seen := map[string]bool{}
				for prompt, pods := range byPrompt {
					if distinct := slices.Compact(slices.Sorted(slices.Values(pods))); len(distinct) != 1 {
						t.Errorf("prompt %q went to %v, want one worker", prompt, pods)
					}
					if seen[pods[0]] {
						t.Errorf("two prefixes share %s while the others idle: %v", pods[0], byPrompt)
					}
					seen[pods[0]] = true
				}
			}},
		{"cache_aware", []string{"one hot prefix"}, 30, func(t *testing.T, served map[string]int, _ map[string][]string) {
			if lo, hi := spread(served); hi-lo > kubeRouterBalance+1 {
				t.Errorf("a hot prefix stayed on one worker past the balance: %v", served)
			}
		}},
		{"random", []string{"a", "b", "c"}, 20, func(t *testing.T, served map[string]int, _ map[string][]string) {
			if lo, _ := spread(served); lo == 0 {
				t.Errorf("a worker got nothing: %v", served)
			}
		}},
		{"power_of_two", []string{"a", "b", "c"}, 20, func(t *testing.T, served map[string]int, _ map[string][]string) {
			if lo, hi := spread(served); lo == 0 || hi-lo > 10 {
				t.Errorf("the less used of two does not balance: %v", served)
			}
		}},
	} {
		t.Run(c.policy+"/"+c.prompts[0], func(t *testing.T) {
			f, kc := servingFixture(t, map[string]int64{"qwen3-8b": 1 << 30})
			ok(kc.Core.AppsV1().Deployments("default").Create(f.ctx, routerDeployment("router", c.policy), metav1.CreateOptions{})).must(t)
			clusterIP(f, kc, "router")
			f.advanceTo(f.startServers(kc, serverDeployment("workers", "sglang", "qwen3-8b", 3), 1<<30))
			workers := f.deploymentPods(kc, "workers")
			served := map[string]int{}
			byPrompt := map[string][]string{}
			for range c.rounds {
				for _, prompt := range c.prompts {
					resp := ok(post(f, kc, "services", "router", "/v1/chat/completions", chatBody(prompt, 0), 1<<20)).must(t)
					if resp.Status != 200 {
						t.Fatalf("status %d: %s", resp.Status, resp.Body)
					}
					for _, w := range workers {
						if n := f.w.ServedBy("default", w.Name); n != served[w.Name] {
							served[w.Name] = n
							byPrompt[prompt] = append(byPrompt[prompt], w.Name)
						}
					}
				}
			}
			if total := c.rounds * len(c.prompts); len(served) != 3 || sum(served) != total {
				t.Fatalf("served %v, want %d requests over 3 workers", served, total)
			}
			c.check(t, served, byPrompt)
		})
	}
}

// spread is the fewest and the most requests a worker served.
func spread(served map[string]int) (lo, hi int) {
	lo = -1
	for _, n := range served {
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if len(served) < 3 {
		lo = 0
	}
	return lo, hi
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
