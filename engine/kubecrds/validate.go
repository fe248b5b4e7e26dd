package kubecrds

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Bounds of one check, so that an object of any size costs a bounded
// amount of work.
const (
	// MaxDepth is how deeply values may nest.
	MaxDepth = 64
	// MaxNodes is how many values one object may hold where its schema is
	// walked.
	MaxNodes = 100_000
	// maxErrors is how many problems one error reports.
	maxErrors = 20
)

// FieldError is one problem with one field of an object.
type FieldError struct {
	// Path is the field, spec.runPolicy.restartPolicy.evalPeriodSeconds.
	Path    string
	Message string
}

func (e FieldError) Error() string { return e.Path + ": " + e.Message }

// FieldErrors is every problem found with an object (up to a bound).
type FieldErrors []FieldError

func (l FieldErrors) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Validate checks obj against the schema of its kind's CRD at its
// apiVersion: types, required fields, enums, bounds, patterns and
// lengths; a field the schema does not know is refused (a server would
// prune it). Pod templates, kept whole by the schema, are not looked into
// here: check them with ValidatePodTemplate. The error is FieldErrors
// when the object is of a known kind.
func Validate(obj *unstructured.Unstructured) error {
	if obj == nil || obj.Object == nil {
		return fmt.Errorf("no object")
	}
	_, v, err := Lookup(obj.GetAPIVersion(), obj.GetKind())
	if err != nil {
		return err
	}
	w := &walker{}
	w.root(obj.Object, v.Schema)
	if len(w.errs) > 0 {
		return w.errs
	}
	return nil
}

type walker struct {
	errs  FieldErrors
	nodes int
	full  bool
}

func (w *walker) fail(path, format string, args ...any) {
	if len(w.errs) >= maxErrors {
		w.full = true
		return
	}
	w.errs = append(w.errs, FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (w *walker) root(obj map[string]any, s *Schema) {
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := obj[k].(string); !ok {
			w.fail(k, "required, a string")
		}
	}
	rest := make(map[string]any, len(obj))
	for k, v := range obj {
		if k == "metadata" {
			w.metadata(v)
			continue
		}
		rest[k] = v
	}
	w.value(rest, s, "", 0)
}

// metadata is checked as a real server does: decoded into ObjectMeta, no
// unknown field, a name.
func (w *walker) metadata(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		w.fail("metadata", "required, an object")
		return
	}
	if !w.bounded(m, "metadata", 0) {
		return
	}
	var meta metav1.ObjectMeta
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, &meta, true); err != nil {
		w.fail("metadata", "%v", err)
		return
	}
	if meta.Name == "" && meta.GenerateName == "" {
		w.fail("metadata.name", "required")
	}
}

// bounded counts the values under v against the node and depth bounds.
func (w *walker) bounded(v any, path string, depth int) bool {
	if depth > MaxDepth {
		w.fail(path, "nested deeper than %d levels", MaxDepth)
		return false
	}
	w.nodes++
	if w.nodes > MaxNodes {
		w.fail(path, "the object holds more than %d values", MaxNodes)
		return false
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if !w.bounded(t[k], child(path, k), depth+1) {
				return false
			}
		}
	case []any:
		for i, e := range t {
			if !w.bounded(e, index(path, i), depth+1) {
				return false
			}
		}
	}
	return true
}

func (w *walker) value(v any, s *Schema, path string, depth int) {
	if w.full {
		return
	}
	if depth > MaxDepth {
		w.fail(path, "nested deeper than %d levels", MaxDepth)
		w.full = true
		return
	}
	w.nodes++
	if w.nodes > MaxNodes {
		w.fail(path, "the object holds more than %d values", MaxNodes)
		w.full = true
		return
	}
	if v == nil {
		if !s.Nullable {
			w.fail(path, "must not be null")
		}
		return
	}
	if msg := typeError(s, v); msg != "" {
		w.fail(path, "%s", msg)
		return
	}
	if len(s.Enum) > 0 && !inEnum(s.Enum, v) {
		w.fail(path, "%s is not one of %s", show(v), showEnum(s.Enum))
	}
	switch t := v.(type) {
	case string:
		n := int64(utf8.RuneCountInString(t))
		if s.MaxLength != nil && n > *s.MaxLength {
			w.fail(path, "longer than %d characters", *s.MaxLength)
		}
		if s.MinLength != nil && n < *s.MinLength {
			w.fail(path, "shorter than %d characters", *s.MinLength)
		}
		if s.pattern != nil && !s.pattern.MatchString(t) {
			w.fail(path, "%s does not match %s", show(v), s.Pattern)
		}
	case map[string]any:
		w.object(t, s, path, depth)
	case []any:
		n := int64(len(t))
		if s.MaxItems != nil && n > *s.MaxItems {
			w.fail(path, "more than %d items", *s.MaxItems)
			return
		}
		if s.MinItems != nil && n < *s.MinItems {
			w.fail(path, "fewer than %d items", *s.MinItems)
		}
		if s.Items != nil {
			for i, e := range t {
				w.value(e, s.Items, index(path, i), depth+1)
			}
		}
	default:
		if f, ok := number(v); ok {
			if s.Minimum != nil && f < *s.Minimum {
				w.fail(path, "%s is less than the minimum %s", show(v), fmtFloat(*s.Minimum))
			}
			if s.Maximum != nil && f > *s.Maximum {
				w.fail(path, "%s is more than the maximum %s", show(v), fmtFloat(*s.Maximum))
			}
		}
	}
}

func (w *walker) object(m map[string]any, s *Schema, path string, depth int) {
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			w.fail(child(path, r), "required")
		}
	}
	for _, k := range sortedKeys(m) {
		at := child(path, k)
		switch {
		case s.Properties[k] != nil:
			w.value(m[k], s.Properties[k], at, depth+1)
		case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			w.value(m[k], s.AdditionalProperties.Schema, at, depth+1)
		case s.PreserveUnknown || (s.AdditionalProperties != nil && s.AdditionalProperties.Allows):
			// Kept whole by the server; its content is not this schema's.
			if !w.bounded(m[k], at, depth+1) {
				w.full = true
			}
		default:
			w.fail(at, "unknown field: the schema has no such field, so a server would drop it")
		}
	}
}

// typeError says how v is not of s's type, or "".
func typeError(s *Schema, v any) string {
	switch {
	case s.IntOrString:
		if _, ok := v.(string); ok {
			return ""
		}
		if isInteger(v) {
			return ""
		}
		return "must be an integer or a string, not " + kindOf(v)
	case s.Type == "":
		return ""
	}
	ok := false
	switch s.Type {
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "integer":
		ok = isInteger(v)
	case "number":
		_, ok = number(v)
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("must be %s %s, not %s", article(s.Type), s.Type, kindOf(v))
}

func article(t string) string {
	if t == "object" || t == "array" || t == "integer" {
		return "an"
	}
	return "a"
}

// number reads the numeric kinds an unstructured object may hold.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func isInteger(v any) bool {
	switch n := v.(type) {
	case int, int32, int64:
		return true
	case float64:
		return n == math.Trunc(n) && !math.IsInf(n, 0)
	case json.Number:
		_, err := n.Int64()
		return err == nil
	}
	return false
}

// kindOf names v's JSON kind, or its Go type when it is not a JSON value
// at all (a []string in an unstructured object is a bug: deep copies of it
// panic).
func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	if isInteger(v) {
		return "an integer"
	}
	if _, ok := number(v); ok {
		return "a number"
	}
	return fmt.Sprintf("a Go %T (not a JSON value)", v)
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if s, ok := e.(string); ok {
			if vs, ok := v.(string); ok && vs == s {
				return true
			}
			continue
		}
		if b, ok := e.(bool); ok {
			if vb, ok := v.(bool); ok && vb == b {
				return true
			}
			continue
		}
		ef, ok1 := number(e)
		vf, ok2 := number(v)
		if ok1 && ok2 && ef == vf {
			return true
		}
	}
	return false
}

func show(v any) string {
	if s, ok := v.(string); ok {
		if len(s) > 64 {
			s = s[:64] + "..."
		}
		return strconv.Quote(s)
	}
	if f, ok := number(v); ok {
		return fmtFloat(f)
	}
	return fmt.Sprint(v)
}

func showEnum(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		parts[i] = show(e)
	}
	return strings.Join(parts, ", ")
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// child is the path of field k of path.
func child(path, k string) string {
	if strings.ContainsAny(k, ".[]\" ") || k == "" {
		k = "[" + strconv.Quote(k) + "]"
		return path + k
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
