package mcp

import (
	"github.com/vektah/gqlparser/v2/ast"
)

// argumentsSchema is the JSON Schema of a field's arguments: an object with
// one property per argument, required when non-null without a default.
func argumentsSchema(schema *ast.Schema, args ast.ArgumentDefinitionList) map[string]any {
	members := make([]member, 0, len(args))
	for _, a := range args {
		members = append(members, member{a.Name, a.Description, a.Type, a.DefaultValue})
	}
	return objectSchema(schema, members, 0)
}

// member is an argument or an input object's field.
type member struct {
	name, description string
	typ               *ast.Type
	defaultValue      *ast.Value
}

// objectSchema is an object with one property per member, required when
// non-null without a default, and no other properties.
func objectSchema(schema *ast.Schema, members []member, depth int) map[string]any {
	props := map[string]any{}
	var required []string
	for _, m := range members {
		p := typeSchema(schema, m.typ, depth)
		describe(p, m.description)
		if m.defaultValue != nil {
			if v, err := m.defaultValue.Value(nil); err == nil {
				p["default"] = v
			}
		}
		props[m.name] = p
		if m.typ.NonNull && m.defaultValue == nil {
			required = append(required, m.name)
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

func describe(p map[string]any, desc string) {
	if desc == "" {
		return
	}
	if old, ok := p["description"].(string); ok && old != "" {
		desc = desc + " " + old
	}
	p["description"] = desc
}

// maxInputDepth bounds recursive input types.
const maxInputDepth = 8

// typeSchema is the JSON Schema of a GraphQL input type.
func typeSchema(schema *ast.Schema, t *ast.Type, depth int) map[string]any {
	if t.Elem != nil {
		return map[string]any{"type": "array", "items": typeSchema(schema, t.Elem, depth)}
	}
	def := schema.Types[t.NamedType]
	if def == nil {
		return map[string]any{}
	}
	switch def.Kind {
	case ast.Enum:
		values := make([]any, 0, len(def.EnumValues))
		doc := ""
		for _, v := range def.EnumValues {
			values = append(values, v.Name)
			if v.Description != "" {
				doc += v.Name + ": " + v.Description + " "
			}
		}
		p := map[string]any{"type": "string", "enum": values}
		if doc != "" {
			p["description"] = "(" + trimSpace(doc) + ")"
		}
		return p
	case ast.InputObject:
		if depth >= maxInputDepth {
			return map[string]any{"type": "object"}
		}
		members := make([]member, 0, len(def.Fields))
		for _, f := range def.Fields {
			members = append(members, member{f.Name, f.Description, f.Type, f.DefaultValue})
		}
		return objectSchema(schema, members, depth+1)
	}
	switch t.NamedType {
	case "Int":
		return map[string]any{"type": "integer"}
	case "Float":
		return map[string]any{"type": "number"}
	case "Boolean":
		return map[string]any{"type": "boolean"}
	case "String", "ID":
		return map[string]any{"type": "string"}
	case "Time":
		return map[string]any{"type": "string", "format": "date-time"}
	}
	return map[string]any{} // JSON: any value
}

func trimSpace(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}
