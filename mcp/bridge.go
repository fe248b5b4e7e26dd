package mcp

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Bridge serves over stdin/stdout the tools of the InstantStart server at
// baseURL, calling them over streamable HTTP with token: for agents that
// speak MCP only over stdio. It returns when in ends or ctx is done.
func Bridge(ctx context.Context, baseURL, token, version string, in io.Reader, out io.Writer) error {
	c, err := client.NewStreamableHttpClient(strings.TrimSuffix(baseURL, "/")+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", baseURL, err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("connect to %s: %w", baseURL, err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "instantstart-stdio-bridge", Version: version}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("initialize MCP with %s (is the server running, and the token valid?): %w", baseURL, err)
	}
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("list the tools of %s: %w", baseURL, err)
	}
	s := server.NewMCPServer("instantstart", version, server.WithToolCapabilities(false), server.WithInstructions(instructions))
	for _, t := range list.Tools {
		s.AddTool(t, func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return c.CallTool(ctx, req)
		})
	}
	return server.NewStdioServer(s).Listen(ctx, in, out)
}
