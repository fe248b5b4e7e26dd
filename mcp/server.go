package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/instantstart/instantstart/engine/auth"
)

// Executor runs a GraphQL operation with the caller in ctx, through the same
// executor (roles, audit, limits) as the GraphQL endpoint.
type Executor interface {
	Execute(ctx context.Context, query string, vars map[string]any) *graphql.Response
}

// instructions tell an agent how to use the tools well.
const instructions = `InstantStart creates and operates SageMaker HyperPod clusters on EKS.
Mutating tools return an operation at once: follow it with wait_operation until its status is ` + terminal + `,
report each phase change, and never tell the user to check later. Ask the user only decision-level questions
(name, region, zones, instance type, count, capacity type), never CIDRs, route tables or security groups.
Check before creating: list what exists first, and pass an idempotencyKey so a retried call returns the same operation.`

// NewServer returns an MCP server with one tool per entry of tools. A
// caller lists and calls only the tools its role allows.
func NewServer(tools []Tool, exec Executor, version string) *server.MCPServer {
	byName := map[string]Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	s := server.NewMCPServer("instantstart", version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions(instructions),
		server.WithToolFilter(func(ctx context.Context, list []mcpgo.Tool) []mcpgo.Tool {
			id := auth.IdentityOf(ctx)
			out := list[:0:0]
			for _, t := range list {
				if id != nil && id.Role.Allows(byName[t.Name].Role) {
					out = append(out, t)
				}
			}
			return out
		}),
	)
	for _, t := range tools {
		s.AddTool(mcpTool(t), handler(t, exec))
	}
	return s
}

func mcpTool(t Tool) mcpgo.Tool {
	raw, _ := json.Marshal(t.InputSchema)
	return mcpgo.Tool{
		Name: t.Name, Description: t.Description, RawInputSchema: raw,
		Annotations: mcpgo.ToolAnnotation{
			Title:           t.Field,
			ReadOnlyHint:    mcpgo.ToBoolPtr(t.ReadOnly),
			DestructiveHint: mcpgo.ToBoolPtr(t.Destructive),
			IdempotentHint:  mcpgo.ToBoolPtr(t.Idempotent),
			OpenWorldHint:   mcpgo.ToBoolPtr(t.Mutation),
		},
	}
}

// handler runs the tool's GraphQL operation and returns the field's value
// as compact JSON, or the GraphQL errors as a tool error.
func handler(t Tool, exec Executor) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		args, err := variables(req.GetArguments())
		if err != nil {
			return mcpgo.NewToolResultError("VALIDATION: the arguments are not a JSON object: " + err.Error()), nil
		}
		res := exec.Execute(ctx, t.Document, args)
		if len(res.Errors) > 0 {
			type toolError struct {
				Code    any    `json:"code,omitempty"`
				Message string `json:"message"`
				Field   any    `json:"field,omitempty"`
			}
			var list []toolError
			var msgs []string
			for _, e := range res.Errors {
				list = append(list, toolError{Code: e.Extensions["code"], Message: e.Message, Field: e.Extensions["field"]})
				msgs = append(msgs, fmt.Sprintf("%v: %s", e.Extensions["code"], e.Message))
			}
			body, _ := json.Marshal(map[string]any{"errors": list})
			out := mcpgo.NewToolResultError(strings.Join(msgs, "\n"))
			out.Content = append(out.Content, mcpgo.NewTextContent(string(body)))
			return out, nil
		}
		var data map[string]json.RawMessage
		if err := json.Unmarshal(res.Data, &data); err != nil {
			return nil, fmt.Errorf("read the %s result: %w", t.Field, err)
		}
		return mcpgo.NewToolResultText(string(data[t.Field])), nil
	}
}

// Handler serves the tools over MCP streamable HTTP. The caller's identity
// must already be in each request's context (the server's credential check
// runs in front of it).
func Handler(s *server.MCPServer) http.Handler {
	return server.NewStreamableHTTPServer(s,
		server.WithStateLess(true),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if id := auth.IdentityOf(r.Context()); id != nil {
				return auth.WithIdentity(ctx, id)
			}
			return ctx
		}),
	)
}

// variables turns tool arguments into GraphQL variables as the HTTP
// transport decodes them: numbers stay exact (json.Number), so an integer
// argument is an Int, not a float.
func variables(args map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	out := map[string]any{}
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}
