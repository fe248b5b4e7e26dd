package simwire

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	smithytime "github.com/aws/smithy-go/time"
)

// Bounds on a query request: how many parameters, how many dotted
// segments a key has, and the highest list index (Filter.N).
const (
	maxQueryParams = 10000
	maxListItems   = 1000
)

// queryNode is one key segment of a query request: Filter.1.Name=x is
// root → Filter → 1 → Name with value x.
type queryNode struct {
	value string
	set   bool
	kids  map[string]*queryNode
}

// readQuery parses a form-encoded query request (the body of a POST, or
// the URL query of a GET) into a tree, bounded in size and depth.
func readQuery(r *http.Request) (url.Values, *queryNode, error) {
	raw := r.URL.RawQuery
	if r.Method == http.MethodPost {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, nil, fmt.Errorf("read body: %w", err)
		}
		raw = string(b)
	}
	if n := strings.Count(raw, "&") + 1; n > maxQueryParams {
		return nil, nil, fmt.Errorf("%d parameters, more than the %d served", n, maxQueryParams)
	}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("body is not form-encoded: %w", err)
	}
	root := &queryNode{}
	for k, vs := range vals {
		segs := strings.Split(k, ".")
		if len(segs) > maxDepth {
			return nil, nil, fmt.Errorf("parameter %.80q nests deeper than %d", k, maxDepth)
		}
		n := root
		for _, s := range segs {
			if n.kids == nil {
				n.kids = map[string]*queryNode{}
			}
			c, ok := n.kids[s]
			if !ok {
				c = &queryNode{}
				n.kids[s] = c
			}
			n = c
		}
		n.value, n.set = vs[len(vs)-1], true
	}
	return vals, root, nil
}

// items returns a list node's items in index order: keys 1..maxListItems.
func (n *queryNode) items(path string) ([]*queryNode, error) {
	type item struct {
		i int
		n *queryNode
	}
	var list []item
	for k, c := range n.kids {
		i, err := strconv.Atoi(k)
		if err != nil || i < 1 {
			return nil, fmt.Errorf("%s.%s: a list item needs an index from 1", path, k)
		}
		if i > maxListItems {
			return nil, fmt.Errorf("%s.%d: list index beyond %d", path, i, maxListItems)
		}
		list = append(list, item{i, c})
	}
	sort.Slice(list, func(a, b int) bool { return list[a].i < list[b].i })
	out := make([]*queryNode, len(list))
	for i, it := range list {
		out[i] = it.n
	}
	return out, nil
}

// decodeQuery sets struct v from query node n by the shape's request
// names.
func decodeQuery(n *queryNode, v reflect.Value, path string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: nesting deeper than %d", path, maxDepth)
	}
	s := shapeOf(v.Type())
	if s == nil {
		return fmt.Errorf("%s: shape %s is not served", path, v.Type())
	}
	for i := range s.in {
		m := &s.in[i]
		c := n.kids[m.name]
		if c == nil {
			continue
		}
		if err := decodeQueryMember(c, v.FieldByIndex(m.index), m, join(path, m.name), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func decodeQueryMember(n *queryNode, v reflect.Value, m *wireMember, path string, depth int) error {
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		if err := decodeQueryMember(n, p.Elem(), m, path, depth); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	switch {
	case t.Kind() == reflect.Slice && t != bytesType:
		list := n
		if m.item != "" {
			list = n.kids[m.item]
			if list == nil {
				if len(n.kids) == 0 && n.set && n.value == "" {
					v.Set(reflect.MakeSlice(t, 0, 0)) // Key= is an empty list
					return nil
				}
				return fmt.Errorf("%s: list items are %s.%s.N", path, path, m.item)
			}
			path += "." + m.item
		}
		items, err := list.items(path)
		if err != nil {
			return err
		}
		s := reflect.MakeSlice(t, len(items), len(items))
		elem := *m
		elem.item = "" // a list in a list is not served
		for i, it := range items {
			if err := decodeQueryValue(it, s.Index(i), &elem, fmt.Sprintf("%s.%d", path, i+1), depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case t.Kind() == reflect.Map:
		entries := n
		if m.entry != "" {
			entries = n.kids[m.entry]
			if entries == nil {
				return fmt.Errorf("%s: map entries are %s.%s.N.%s", path, path, m.entry, m.key)
			}
			path += "." + m.entry
		}
		items, err := entries.items(path)
		if err != nil {
			return err
		}
		mv := reflect.MakeMapWithSize(t, len(items))
		for i, it := range items {
			k, val := it.kids[m.key], it.kids[m.value]
			if k == nil || !k.set {
				return fmt.Errorf("%s.%d: map entry without %s", path, i+1, m.key)
			}
			ev := reflect.New(t.Elem()).Elem()
			if val != nil {
				if err := decodeQueryValue(val, ev, &wireMember{}, fmt.Sprintf("%s.%d.%s", path, i+1, m.value), depth+1); err != nil {
					return err
				}
			}
			mv.SetMapIndex(reflect.ValueOf(k.value).Convert(t.Key()), ev)
		}
		v.Set(mv)
		return nil
	}
	return decodeQueryValue(n, v, m, path, depth)
}

// decodeQueryValue sets a scalar or a structure.
func decodeQueryValue(n *queryNode, v reflect.Value, m *wireMember, path string, depth int) error {
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		if err := decodeQueryValue(n, p.Elem(), m, path, depth); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	if t.Kind() == reflect.Struct && t != timeType {
		return decodeQuery(n, v, path, depth)
	}
	if t.Kind() == reflect.Slice && t != bytesType || t.Kind() == reflect.Map {
		return decodeQueryMember(n, v, m, path, depth)
	}
	if !n.set {
		return fmt.Errorf("%s: a value is expected, not members", path)
	}
	return setScalar(v, n.value, m.ts, path)
}

// setScalar sets v from its text form, as query and REST requests carry
// scalars.
func setScalar(v reflect.Value, s, tsFormat, path string) error {
	t := v.Type()
	switch {
	case t == timeType:
		tm, err := parseTime(s, tsFormat)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		v.Set(reflect.ValueOf(tm))
		return nil
	case t == bytesType:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return fmt.Errorf("%s: blob is not base64: %w", path, err)
		}
		v.SetBytes(b)
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%s: %q is not a boolean", path, s)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer of %d bits", path, s, t.Bits())
		}
		v.SetInt(i)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, t.Bits())
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", path, s)
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("%s: member type %s is not served", path, t)
	}
	return nil
}

func parseTime(s, format string) (time.Time, error) {
	switch format {
	case "epoch-seconds":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("timestamp %q is not epoch seconds", s)
		}
		return smithytime.ParseEpochSeconds(f), nil
	case "http-date":
		return smithytime.ParseHTTPDate(s)
	default:
		t, err := smithytime.ParseDateTime(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("timestamp %q is not ISO 8601", s)
		}
		return t, nil
	}
}
