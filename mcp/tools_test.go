package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/graph"
)

// testRoles stands in for the server's role rule: deleting a cluster needs
// ADMIN, other mutations OPERATOR, and reading VIEWER.
func testRoles(object string, def *ast.FieldDefinition) auth.Role {
	switch {
	case def.Name == "deleteCluster":
		return auth.Admin
	case object == "Mutation":
		return auth.Operator
	}
	return auth.Viewer
}

func schema(t *testing.T) *ast.Schema {
	t.Helper()
	return graph.NewExecutableSchema(graph.Config{}).Schema()
}

// TestToolsMatchTheSchemaOneToOne fails when a mutation or query has no
// tool, a tool has no field, or a tool's input schema is not valid JSON
// Schema, or its GraphQL document does not validate against the schema.
func TestToolsMatchTheSchemaOneToOne(t *testing.T) {
	s := schema(t)
	tools, err := Tools(s, testRoles)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Tool{}
	for _, tool := range tools {
		if _, dup := byName[tool.Name]; dup {
			t.Fatalf("two tools named %s", tool.Name)
		}
		byName[tool.Name] = tool
	}
	fields := 0
	for _, root := range []*ast.Definition{s.Query, s.Mutation} {
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			fields++
			tool, ok := byName[SnakeCase(f.Name)]
			if !ok || tool.Field != f.Name || tool.Mutation != (root == s.Mutation) {
				t.Errorf("%s.%s has no tool", root.Name, f.Name)
			}
		}
	}
	if fields != len(tools) {
		t.Errorf("%d tools for %d fields: some tool has no field", len(tools), fields)
	}
	compiler := jsonschema.NewCompiler()
	for _, tool := range tools {
		raw, _ := json.Marshal(tool.InputSchema)
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		url := "mem://" + tool.Name + ".json"
		if err := compiler.AddResource(url, doc); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if _, err := compiler.Compile(url); err != nil {
			t.Errorf("%s: input schema is not valid JSON Schema: %v", tool.Name, err)
		}
		q, perr := parser.ParseQuery(&ast.Source{Input: tool.Document})
		if perr != nil {
			t.Fatalf("%s: %v\n%s", tool.Name, perr, tool.Document)
		}
		if errs := validator.Validate(s, q); len(errs) > 0 {
			t.Errorf("%s: document does not validate: %v\n%s", tool.Name, errs, tool.Document)
		}
		if tool.Mutation && !strings.Contains(tool.Description, "SUCCEEDED, FAILED or CANCELLED") && !strings.Contains(tool.Description, "confirm it with") {
			t.Errorf("%s: description names no status tool: %s", tool.Name, tool.Description)
		}
	}
}

func TestToolAnnotationsAndSchemas(t *testing.T) {
	tools, err := Tools(schema(t), testRoles)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) Tool {
		for _, tool := range tools {
			if tool.Name == name {
				return tool
			}
		}
		t.Fatalf("no tool %s", name)
		return Tool{}
	}
	create := get("create_cluster")
	if create.ReadOnly || create.Destructive || create.Role != auth.Operator || !strings.Contains(create.Description, "`wait_operation`") || !strings.Contains(create.Description, "`cluster`") {
		t.Fatalf("create_cluster: %+v", create)
	}
	input := create.InputSchema["properties"].(map[string]any)["input"].(map[string]any)
	if input["required"].([]string)[0] != "name" {
		t.Fatalf("create_cluster input: %v", input)
	}
	groups := input["properties"].(map[string]any)["instanceGroups"].(map[string]any)
	capacity := groups["items"].(map[string]any)["properties"].(map[string]any)["capacityType"].(map[string]any)
	if capacity["default"] != "ON_DEMAND" || len(capacity["enum"].([]any)) != 3 {
		t.Fatalf("capacityType schema: %v", capacity)
	}
	del := get("delete_cluster")
	if !del.Destructive || del.Role != auth.Admin || !strings.Contains(del.Description, "ADMIN") {
		t.Fatalf("delete_cluster: %+v", del)
	}
	wait := get("wait_operation")
	if !wait.ReadOnly || !wait.Idempotent || wait.InputSchema["required"].([]string)[0] != "id" {
		t.Fatalf("wait_operation: %+v", wait)
	}
	t.Logf("cluster document: %s", get("cluster").Document)
	t.Logf("operations document: %s", get("operations").Document)
}
