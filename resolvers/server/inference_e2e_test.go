package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestEndpointOverGraphQL deploys a vLLM endpoint through the API, follows
// it to READY, reads its model server's log (endpointLogLines and
// endpointLogs), chats with it as an OPERATOR, and is refused as a VIEWER:
// an invocation spends GPU time.
func TestEndpointOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := trainingCluster(t, srv, "infer-e2e")
	res := query(t, srv, `mutation($in: DeployEndpointInput!) { deployEndpoint(input: $in) { id target { id } } }`,
		map[string]any{"in": map[string]any{"clusterId": clusterID, "name": "chat", "path": "SELF_MANAGED", "model": "qwen2.5-0.5b-instruct",
			"instanceType": "ml.g5.12xlarge", "replicas": 1, "gpusPerReplica": 1, "engine": "VLLM", "image": "vllm/vllm-openai:v0.10.1",
			"serviceForm": "CLUSTER_IP"}})
	var dep struct {
		DeployEndpoint struct {
			ID     string
			Target struct{ ID string }
		}
	}
	mustDecode(t, res, &dep)
	if s := waitOperation(t, srv, dep.DeployEndpoint.ID); s != "SUCCEEDED" {
		t.Fatalf("deployEndpoint ended %s", s)
	}
	id := dep.DeployEndpoint.Target.ID
	deadline := time.Now().Add(60 * time.Second)
	for {
		var got struct {
			Endpoint struct {
				Status        string
				ReadyReplicas int
				Address       struct{ Host string }
			}
		}
		mustDecode(t, query(t, srv, `query($id: ID!) { endpoint(id: $id) { status readyReplicas address { host } } }`, map[string]any{"id": id}), &got)
		if got.Endpoint.Status == "READY" {
			if got.Endpoint.ReadyReplicas != 1 || got.Endpoint.Address.Host == "" {
				t.Fatalf("READY endpoint %+v", got.Endpoint)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the endpoint stayed %s", got.Endpoint.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The endpoint's events carry it as stored; other events carry none.
	for _, c := range []struct {
		target string
		want   bool
	}{{id, true}, {clusterID, false}} {
		sub, err := dial(t, srv).Subscribe(testContext(t), `subscription($ids: [ID!]) { events(since: "0", filter: {ids: $ids}) { target { id } endpoint { id name status } } }`,
			map[string]any{"ids": []string{c.target}})
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Events struct {
				Target   struct{ ID string }
				Endpoint *struct{ ID, Name, Status string }
			}
		}
		if res := next(t, sub); res.Decode(&ev) != nil {
			t.Fatalf("an event that does not decode: %s", res.Data)
		}
		if got := ev.Events.Endpoint; ev.Events.Target.ID != c.target || (got != nil) != c.want || (c.want && (got.ID != id || got.Name != "chat" || got.Status == "")) {
			t.Fatalf("an event of %s: %+v", c.target, ev.Events)
		}
	}
	// A VIEWER reads the model server's log: once, and through the
	// subscription that does not follow.
	_, viewer := newToken(t, srv, "viewer", "VIEWER", nil)
	var lines struct {
		EndpointLogLines struct {
			Lines []struct{ Pod, Text string }
			End   string
		}
	}
	mustDecode(t, queryAs(t, srv, viewer, `query($id: ID!) { endpointLogLines(endpointId: $id, tail: 50, contains: "startup complete") { lines { pod text } end } }`,
		map[string]any{"id": id}), &lines)
	if l := lines.EndpointLogLines; len(l.Lines) != 1 || l.Lines[0].Text != "INFO:     Application startup complete." || l.Lines[0].Pod == "" || l.End != "DONE" {
		t.Fatalf("endpointLogLines = %+v", l)
	}
	res = queryAs(t, srv, viewer, `query($id: ID!) { endpointLogLines(endpointId: $id, pod: "not-its-pod") { end } }`, map[string]any{"id": id})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "NOT_FOUND" || !strings.Contains(res.Errors[0].Message, "not-its-pod") {
		t.Fatalf("a pod that is not the endpoint's: %+v", res.Errors)
	}
	logs, err := dial(t, srv).Subscribe(testContext(t), `subscription($id: ID!) { endpointLogs(endpointId: $id, tail: 10000, follow: false) { lines { pod text } cursor end } }`,
		map[string]any{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for {
		var chunk struct {
			EndpointLogs struct {
				Lines []struct{ Pod, Text string }
				End   *string
			}
		}
		if res := next(t, logs); res.Decode(&chunk) != nil {
			t.Fatalf("a chunk that does not decode: %s", res.Data)
		}
		for _, l := range chunk.EndpointLogs.Lines {
			texts = append(texts, l.Text)
		}
		if chunk.EndpointLogs.End != nil {
			if *chunk.EndpointLogs.End != "DONE" {
				t.Fatalf("end = %s, want DONE", *chunk.EndpointLogs.End)
			}
			break
		}
	}
	if len(texts) < 3 || !strings.Contains(texts[0], "vLLM API server version") || texts[len(texts)-1] != "INFO:     Application startup complete." {
		t.Fatalf("endpointLogs lines: %q", texts)
	}
	const invoke = `mutation($id: ID!) { invokeEndpoint(endpointId: $id, request: {messages: [{role: "user", content: "Hello there"}], maxTokens: 32}) {
		text promptTokens completionTokens totalTokens latencyMs target } }`
	var out struct {
		InvokeEndpoint struct {
			Text                                        string
			PromptTokens, CompletionTokens, TotalTokens int
			LatencyMs                                   float64
			Target                                      string
		}
	}
	mustDecode(t, query(t, srv, invoke, map[string]any{"id": id}), &out)
	a := out.InvokeEndpoint
	if a.Text == "" || a.CompletionTokens < 1 || a.CompletionTokens > 32 || a.TotalTokens != a.PromptTokens+a.CompletionTokens || a.LatencyMs <= 0 || a.Target != "services/vllm-chat" {
		t.Fatalf("answer %+v", a)
	}
	res = queryAs(t, srv, viewer, invoke, map[string]any{"id": id})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "FORBIDDEN" {
		t.Fatalf("a VIEWER's invocation: %+v", res.Errors)
	}
}
