package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestMCPOverStdioBridge runs the real binary as a server and a second one
// as `instantstart mcp --stdio`, and drives a cluster creation through the
// bridge with an MCP stdio client.
func TestMCPOverStdioBridge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	srv := startBinary(t, bin, filepath.Join(dir, "data"))
	defer srv.stop(t)

	c, err := client.NewStdioMCPClient(bin, append(os.Environ(), "INSTANTSTART_TOKEN="+crashAdmin), "mcp", "--stdio", "--url", srv.base, "--token-env", "INSTANTSTART_TOKEN")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "stdio-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "create_cluster") {
		t.Fatalf("tools over stdio: %v", names)
	}
	call := func(name string, args map[string]any) (out struct {
		ID, Status string
		Target     struct{ ID string }
	}) {
		t.Helper()
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		if err := json.Unmarshal([]byte(res.Content[0].(mcpgo.TextContent).Text), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	args := map[string]any{"input": map[string]any{"name": "stdio", "zones": []any{"us-west-2a", "us-west-2b"}}, "idempotencyKey": "stdio-1"}
	op := call("create_cluster", args)
	for op.Status != "SUCCEEDED" {
		if op.Status == "FAILED" || op.Status == "CANCELLED" || ctx.Err() != nil {
			t.Fatalf("operation ended %s", op.Status)
		}
		op = call("wait_operation", map[string]any{"id": op.ID, "timeoutSeconds": 10})
	}
	if again := call("create_cluster", args); again.ID != op.ID {
		t.Fatalf("same idempotency key gave %s, want %s", again.ID, op.ID)
	}
	if cl := call("cluster", map[string]any{"id": op.Target.ID}); cl.Status != "ACTIVE" {
		t.Fatalf("cluster %s", cl.Status)
	}
}
