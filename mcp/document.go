package mcp

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// maxSelectionDepth bounds how deep a tool's result reaches into nested objects.
const maxSelectionDepth = 3

// document is the GraphQL operation a tool runs: the field with every
// argument passed as a variable, and a selection of its result.
func document(schema *ast.Schema, f *ast.FieldDefinition, mutation bool) string {
	var b strings.Builder
	if mutation {
		b.WriteString("mutation")
	} else {
		b.WriteString("query")
	}
	b.WriteString(" Tool")
	if len(f.Arguments) > 0 {
		b.WriteByte('(')
		for i, a := range f.Arguments {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + a.Name + ": " + a.Type.String())
		}
		b.WriteByte(')')
	}
	b.WriteString(" { " + f.Name)
	if len(f.Arguments) > 0 {
		b.WriteByte('(')
		for i, a := range f.Arguments {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Name + ": $" + a.Name)
		}
		b.WriteByte(')')
	}
	b.WriteString(selection(schema, f.Type.Name(), 0))
	b.WriteString(" }")
	return b.String()
}

// selection selects every scalar and enum field of the named type and its
// nested objects to maxSelectionDepth. A connection's edges, nodes and page
// info do not count as nesting; connections inside a result are left for a
// follow-up call. It is "" for a scalar type.
func selection(schema *ast.Schema, typeName string, depth int) string {
	def := schema.Types[typeName]
	if def == nil || (def.Kind != ast.Object && def.Kind != ast.Interface) {
		return ""
	}
	var parts []string
	for _, f := range def.Fields {
		if strings.HasPrefix(f.Name, "__") || needsArguments(f) {
			continue
		}
		child := schema.Types[f.Type.Name()]
		if child == nil || child.Kind == ast.Scalar || child.Kind == ast.Enum {
			parts = append(parts, f.Name)
			continue
		}
		if isConnection(child) {
			continue
		}
		next := depth + 1
		if isConnection(def) || strings.HasSuffix(def.Name, "Edge") {
			next = depth
		}
		if next >= maxSelectionDepth {
			continue
		}
		if sub := selection(schema, child.Name, next); sub != "" {
			parts = append(parts, f.Name+sub)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " { " + strings.Join(parts, " ") + " }"
}

func needsArguments(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Type.NonNull && a.DefaultValue == nil {
			return true
		}
	}
	return false
}

func isConnection(def *ast.Definition) bool {
	return strings.HasSuffix(def.Name, "Connection") && def.Fields.ForName("edges") != nil
}
