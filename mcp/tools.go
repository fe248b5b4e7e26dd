// Package mcp serves InstantStart's GraphQL API as MCP tools for AI agents.
// The tools are derived from the executable schema at start-up, one per
// Mutation field and per Query field, and run through the same GraphQL
// executor with the caller's identity, so roles and audit apply alike.
package mcp

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/instantstart/instantstart/engine/auth"
)

// Tool is one MCP tool and the GraphQL operation it runs.
type Tool struct {
	Name        string
	Description string
	// Field is the GraphQL field the tool runs; Mutation says which root.
	Field    string
	Mutation bool
	// Role is the least role that may use the tool.
	Role                              auth.Role
	ReadOnly, Destructive, Idempotent bool
	// InputSchema is the JSON Schema of the tool's arguments.
	InputSchema map[string]any
	// Document is the GraphQL operation the tool sends, with one variable
	// per argument.
	Document string
}

// terminal names the end states an agent waits for.
const terminal = "SUCCEEDED, FAILED or CANCELLED"

// destructive names the mutations that remove or replace something.
var destructive = regexp.MustCompile(`^(delete|replace|revoke)`)

// RoleRule returns the least role that may use a root field of object
// ("Query" or "Mutation"). The server hands in the rule its GraphQL guard
// enforces, so a caller is offered exactly the tools the executor would let
// it run.
type RoleRule func(object string, def *ast.FieldDefinition) auth.Role

// Tools derives the tools from schema: one per Query and Mutation field,
// each needing the role that roleOf names for its field.
func Tools(schema *ast.Schema, roleOf RoleRule) ([]Tool, error) {
	var tools []Tool
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		if root == nil {
			continue
		}
		mutation := root == schema.Mutation
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			t, err := newTool(schema, f, mutation, roleOf)
			if err != nil {
				return nil, err
			}
			tools = append(tools, t)
		}
	}
	return tools, nil
}

func newTool(schema *ast.Schema, f *ast.FieldDefinition, mutation bool, roleOf RoleRule) (Tool, error) {
	object := "Query"
	if mutation {
		object = "Mutation"
	}
	t := Tool{
		Name: SnakeCase(f.Name), Field: f.Name, Mutation: mutation,
		Role:     roleOf(object, f),
		ReadOnly: !mutation, Destructive: mutation && destructive.MatchString(f.Name),
		Idempotent:  !mutation || destructive.MatchString(f.Name) || strings.HasPrefix(f.Name, "cancel"),
		InputSchema: argumentsSchema(schema, f.Arguments),
		Document:    document(schema, f, mutation),
	}
	desc := strings.TrimSpace(f.Description)
	if desc == "" {
		return t, fmt.Errorf("field %s.%s has no doc string: every tool needs a description", object, f.Name)
	}
	if mutation {
		status, err := statusTool(schema, f)
		if err != nil {
			return t, err
		}
		desc += "\n\n" + status
	}
	if t.Role != auth.Viewer {
		desc += fmt.Sprintf("\n\nNeeds a token with the %s role.", t.Role)
	}
	t.Description = desc
	return t, nil
}

// statusTool says which tool confirms a mutation and its terminal states.
func statusTool(schema *ast.Schema, f *ast.FieldDefinition) (string, error) {
	d := f.Directives.ForName("statusQuery")
	if d == nil || d.Arguments.ForName("field") == nil {
		return "", fmt.Errorf("mutation %s has no @statusQuery directive naming the query that confirms it", f.Name)
	}
	field := d.Arguments.ForName("field").Value.Raw
	if schema.Query.Fields.ForName(field) == nil {
		return "", fmt.Errorf("mutation %s names status query %q, which is not a Query field", f.Name, field)
	}
	if f.Type.Name() == "Operation" {
		return fmt.Sprintf("Returns an operation at once. Follow it with `wait_operation` (its id) until the status is %s, reporting each phase change; then confirm the result with `%s`.", terminal, SnakeCase(field)), nil
	}
	return fmt.Sprintf("Takes effect at once; confirm it with `%s`.", SnakeCase(field)), nil
}

// SnakeCase turns a GraphQL field name into a tool name: createCluster ->
// create_cluster.
func SnakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
