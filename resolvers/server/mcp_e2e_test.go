package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// mcpClient connects an MCP client over streamable HTTP with a token.
func mcpClient(t *testing.T, srv *server.Server, secret string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(srv.URL()+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + secret}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(testContext(t)); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(testContext(t), init); err != nil {
		t.Fatal(err)
	}
	return c
}

// callTool calls a tool and decodes its JSON result into out.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any, out any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(testContext(t), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil {
		if res.IsError {
			t.Fatalf("%s failed: %s", name, toolText(res))
		}
		if err := json.Unmarshal([]byte(toolText(res)), out); err != nil {
			t.Fatalf("%s result %q: %v", name, toolText(res), err)
		}
	}
	return res
}

func toolText(res *mcpgo.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

type mcpOperation struct {
	ID, Status string
	Target     struct{ ID string }
}

// TestMCPCreateFollowAndReadACluster drives the whole cluster story as an
// agent would: list tools, create_cluster, wait_operation to SUCCEEDED,
// cluster; a retry with the same idempotency key gets the same operation.
func TestMCPCreateFollowAndReadACluster(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	c := mcpClient(t, srv, adminSecret)
	list, err := c.ListTools(testContext(t), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]mcpgo.Tool{}
	for _, tool := range list.Tools {
		names[tool.Name] = tool
	}
	for _, want := range []string{"create_cluster", "wait_operation", "cluster", "delete_cluster", "create_token"} {
		if _, ok := names[want]; !ok {
			t.Fatalf("tool %s missing from %d tools", want, len(list.Tools))
		}
	}
	if del := names["delete_cluster"]; del.Annotations.DestructiveHint == nil || !*del.Annotations.DestructiveHint {
		t.Fatalf("delete_cluster is not marked destructive")
	}

	args := map[string]any{"input": map[string]any{"name": "agent", "zones": []any{"us-west-2a", "us-west-2b"},
		"instanceGroups": []any{map[string]any{"name": "gpu", "instanceType": "ml.g5.12xlarge", "count": 2}}}, "idempotencyKey": "agent-1"}
	var op mcpOperation
	callTool(t, c, "create_cluster", args, &op)
	for deadline := time.Now().Add(30 * time.Second); op.Status != "SUCCEEDED"; {
		if time.Now().After(deadline) || op.Status == "FAILED" || op.Status == "CANCELLED" {
			t.Fatalf("operation %s ended %s", op.ID, op.Status)
		}
		callTool(t, c, "wait_operation", map[string]any{"id": op.ID, "timeoutSeconds": 5}, &op)
	}
	var cl struct{ Status, Name string }
	callTool(t, c, "cluster", map[string]any{"id": op.Target.ID}, &cl)
	if cl.Status != "ACTIVE" || cl.Name != "agent" {
		t.Fatalf("cluster %+v", cl)
	}
	var again mcpOperation
	callTool(t, c, "create_cluster", args, &again)
	if again.ID != op.ID {
		t.Fatalf("retried create_cluster returned %s, want %s", again.ID, op.ID)
	}
	// A bad request comes back as a tool error with its code.
	bad := callTool(t, c, "create_cluster", map[string]any{"input": map[string]any{"name": "-bad"}}, nil)
	if !bad.IsError || !strings.Contains(toolText(bad), "VALIDATION") {
		t.Fatalf("bad create_cluster: %v %s", bad.IsError, toolText(bad))
	}
	// Every tool call went through the audit like any mutation.
	var audit struct{ AuditLog struct{ TotalCount int } }
	if err := query(t, srv, `{ auditLog(filter: {mutation: "createCluster"}) { totalCount } }`, nil).Decode(&audit); err != nil || audit.AuditLog.TotalCount != 3 {
		t.Fatalf("audit records of createCluster: %+v %v", audit, err)
	}
}

func TestMCPViewerSeesOnlyReadOnlyTools(t *testing.T) {
	srv := startServer(t, server.Config{})
	_, viewer := newToken(t, srv, "reader", "VIEWER", nil)
	c := mcpClient(t, srv, viewer)
	list, err := c.ListTools(testContext(t), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 {
		t.Fatal("a viewer sees no tools")
	}
	for _, tool := range list.Tools {
		if tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
			t.Fatalf("a viewer sees the mutating tool %s", tool.Name)
		}
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "create_cluster", map[string]any{"input": map[string]any{"name": "nope"}}
	res, err := c.CallTool(testContext(t), req)
	if err == nil && !res.IsError {
		t.Fatalf("a viewer called create_cluster: %s", toolText(res))
	}
	// Without a token, /mcp refuses like every other path.
	if status, _ := doWith(t, nil, "POST", srv.URL()+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != 401 {
		t.Fatalf("/mcp without a token: %d", status)
	}
}
