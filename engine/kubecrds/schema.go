package kubecrds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

// Schema is the subset of a CRD's OpenAPI v3 schema this package reads
// and checks. A keyword a file uses that is not here fails the parse, so
// no rule is ever silently skipped.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Description          string             `json:"description,omitempty"`
	Format               string             `json:"format,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	AdditionalProperties *Additional        `json:"additionalProperties,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinLength            *int64             `json:"minLength,omitempty"`
	MaxLength            *int64             `json:"maxLength,omitempty"`
	MinItems             *int64             `json:"minItems,omitempty"`
	MaxItems             *int64             `json:"maxItems,omitempty"`
	Nullable             bool               `json:"nullable,omitempty"`
	PreserveUnknown      bool               `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	EmbeddedResource     bool               `json:"x-kubernetes-embedded-resource,omitempty"`
	IntOrString          bool               `json:"x-kubernetes-int-or-string,omitempty"`
	// Default is the value a server fills in for a missing field. Validate
	// does not fill it in: it is recorded, and checked to be of the field's
	// type, so that the file documents what the server does.
	Default any `json:"default,omitempty"`

	pattern *regexp.Regexp
}

// Additional is additionalProperties: a schema for every value, or a
// boolean.
type Additional struct {
	Allows bool
	Schema *Schema
}

// UnmarshalJSON reads true, false or a schema.
func (a *Additional) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("true")) || bytes.Equal(b, []byte("false")) {
		a.Allows = b[0] == 't'
		return nil
	}
	var s Schema
	if err := strictUnmarshal(b, &s); err != nil {
		return err
	}
	a.Allows, a.Schema = true, &s
	return nil
}

// UnmarshalJSON decodes a schema strictly: an unknown keyword is an error.
func (s *Schema) UnmarshalJSON(b []byte) error {
	type plain Schema
	var p plain
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return err
	}
	*s = Schema(p)
	return nil
}

// maxSchemaDepth bounds how deep a CRD's schema may nest.
const maxSchemaDepth = 32

var schemaTypes = []string{"object", "array", "string", "integer", "number", "boolean"}

// checkStructural refuses what a real API server refuses in a structural
// schema: a node with no type (unless int-or-string or preserving unknown
// fields), properties on a non-object, an array with no items, both
// properties and additionalProperties, an enum value of the wrong type, a
// pattern that does not compile. It compiles patterns as it goes.
func (s *Schema) checkStructural(at string, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("%s: nested deeper than %d", at, maxSchemaDepth)
	}
	switch {
	case s.IntOrString:
		if s.Type != "" {
			return fmt.Errorf("%s: x-kubernetes-int-or-string takes no type", at)
		}
	case s.Type == "":
		if !s.PreserveUnknown {
			return fmt.Errorf("%s.type: required in a structural schema", at)
		}
	case !slices.Contains(schemaTypes, s.Type):
		return fmt.Errorf("%s.type: %q is not an OpenAPI type", at, s.Type)
	}
	if (len(s.Properties) > 0 || s.AdditionalProperties != nil || s.EmbeddedResource) && s.Type != "object" {
		return fmt.Errorf("%s: properties, additionalProperties and x-kubernetes-embedded-resource need type object", at)
	}
	if len(s.Properties) > 0 && s.AdditionalProperties != nil {
		return fmt.Errorf("%s: properties and additionalProperties are mutually exclusive", at)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema == nil && !s.AdditionalProperties.Allows {
		return fmt.Errorf("%s.additionalProperties: false is not allowed in a CRD", at)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema == nil && s.PreserveUnknown {
		return fmt.Errorf("%s: additionalProperties true and x-kubernetes-preserve-unknown-fields are mutually exclusive", at)
	}
	if s.Type == "array" && s.Items == nil {
		return fmt.Errorf("%s.items: required for an array", at)
	}
	if s.Items != nil && s.Type != "array" {
		return fmt.Errorf("%s.items: only for type array", at)
	}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; !ok {
			return fmt.Errorf("%s.required: %q is not one of its properties", at, r)
		}
	}
	for i, e := range s.Enum {
		if err := typeError(s, e); err != "" {
			return fmt.Errorf("%s.enum[%d]: %s", at, i, err)
		}
	}
	if s.Default != nil {
		if err := typeError(s, s.Default); err != "" {
			return fmt.Errorf("%s.default: %s", at, err)
		}
		if len(s.Enum) > 0 && !inEnum(s.Enum, s.Default) {
			return fmt.Errorf("%s.default: %s is not one of its enum", at, show(s.Default))
		}
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return fmt.Errorf("%s.pattern: %w", at, err)
		}
		s.pattern = re
	}
	for _, k := range sortedKeys(s.Properties) {
		if err := s.Properties[k].checkStructural(at+".properties."+k, depth+1); err != nil {
			return err
		}
	}
	if s.Items != nil {
		if err := s.Items.checkStructural(at+".items", depth+1); err != nil {
			return err
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if err := s.AdditionalProperties.Schema.checkStructural(at+".additionalProperties", depth+1); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
