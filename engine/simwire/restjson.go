package simwire

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/schemas"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/traits"

	"github.com/instantstart/instantstart/engine/cloud"
)

// restRoute is one REST operation: its method and path template, as the
// SDK's schema of the operation gives them.
type restRoute struct {
	op     string
	method string
	segs   []string // a segment in braces is a label
	code   int
}

// eksOperations are the operations of the EKS port, by the SDK schemas
// that carry their HTTP bindings.
var eksOperations = map[string]*smithy.Schema{
	"CreateCluster":                schemas.CreateCluster,
	"DescribeCluster":              schemas.DescribeCluster,
	"ListClusters":                 schemas.ListClusters,
	"DeleteCluster":                schemas.DeleteCluster,
	"CreateAddon":                  schemas.CreateAddon,
	"DescribeAddon":                schemas.DescribeAddon,
	"ListAddons":                   schemas.ListAddons,
	"DeleteAddon":                  schemas.DeleteAddon,
	"UpdateAddon":                  schemas.UpdateAddon,
	"CreateAccessEntry":            schemas.CreateAccessEntry,
	"DescribeAccessEntry":          schemas.DescribeAccessEntry,
	"DeleteAccessEntry":            schemas.DeleteAccessEntry,
	"AssociateAccessPolicy":        schemas.AssociateAccessPolicy,
	"ListAssociatedAccessPolicies": schemas.ListAssociatedAccessPolicies,
	"ListAccessEntries":            schemas.ListAccessEntries,
	"DisassociateAccessPolicy":     schemas.DisassociateAccessPolicy,
	"CreatePodIdentityAssociation": schemas.CreatePodIdentityAssociation,
	"ListPodIdentityAssociations":  schemas.ListPodIdentityAssociations,
	"DeletePodIdentityAssociation": schemas.DeletePodIdentityAssociation,
	"CreateNodegroup":              schemas.CreateNodegroup,
	"DescribeNodegroup":            schemas.DescribeNodegroup,
	"ListNodegroups":               schemas.ListNodegroups,
	"UpdateNodegroupConfig":        schemas.UpdateNodegroupConfig,
	"DeleteNodegroup":              schemas.DeleteNodegroup,
}

var eksRoutes []restRoute

func init() {
	registerPort(reflect.TypeFor[cloud.EKS](), protoRestJSON)
	registerErrors(eks.TypeRegistry, protoRestJSON)
	for op, s := range eksOperations {
		h, ok := smithy.SchemaTrait[*traits.HTTP](s)
		if !ok {
			panic("simwire: EKS operation " + op + " has no HTTP binding")
		}
		path, _, _ := strings.Cut(h.URI, "?")
		eksRoutes = append(eksRoutes, restRoute{op: op, method: h.Method, segs: strings.Split(strings.Trim(path, "/"), "/"), code: h.Code})
	}
}

// matchRoute finds the route of method and escaped path, and the values
// of its labels.
func matchRoute(routes []restRoute, method, escapedPath string) (*restRoute, map[string]string, error) {
	segs := strings.Split(strings.Trim(escapedPath, "/"), "/")
	for i := range routes {
		rt := &routes[i]
		if rt.method != method || len(rt.segs) != len(segs) {
			continue
		}
		labels := map[string]string{}
		ok := true
		for j, s := range rt.segs {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
				v, err := url.PathUnescape(segs[j])
				if err != nil {
					return nil, nil, fmt.Errorf("path segment %q: %w", segs[j], err)
				}
				if v == "" {
					ok = false
					break
				}
				labels[strings.TrimSuffix(s[1:len(s)-1], "+")] = v
			} else if s != segs[j] {
				ok = false
				break
			}
		}
		if ok {
			return rt, labels, nil
		}
	}
	return nil, nil, nil
}

// serveRestJSON answers one EKS call: the method and path pick the
// operation, the port method of the same name.
func serveRestJSON(w http.ResponseWriter, r *http.Request, port any) {
	rt, labels, err := matchRoute(eksRoutes, r.Method, r.URL.EscapedPath())
	if err != nil {
		writeRestError(w, http.StatusBadRequest, "BadRequestException", err.Error(), nil)
		return
	}
	if rt == nil {
		writeRestError(w, http.StatusNotFound, "UnknownOperationException",
			fmt.Sprintf("no EKS operation served by the simulator at %s %s", r.Method, r.URL.Path), nil)
		return
	}
	m := reflect.ValueOf(port).MethodByName(rt.op)
	if !m.IsValid() {
		writeRestError(w, http.StatusNotFound, "UnknownOperationException",
			fmt.Sprintf("operation %s is not served by the simulator", rt.op), nil)
		return
	}
	in := reflect.New(m.Type().In(1).Elem())
	if err := decodeRestRequest(r, labels, in.Elem()); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRestError(w, http.StatusRequestEntityTooLarge, "BadRequestException", err.Error(), nil)
			return
		}
		writeRestError(w, http.StatusBadRequest, "BadRequestException", err.Error(), nil)
		return
	}
	outs := m.Call([]reflect.Value{reflect.ValueOf(r.Context()), in})
	if err, _ := outs[1].Interface().(error); err != nil {
		writeRestAPIError(w, err)
		return
	}
	doc, err := encodeJSONShape(outs[0].Elem(), 0)
	if err != nil {
		writeRestError(w, http.StatusInternalServerError, "ServerException", err.Error(), nil)
		return
	}
	body, err := json.Marshal(doc)
	if err != nil {
		writeRestError(w, http.StatusInternalServerError, "ServerException", err.Error(), nil)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rt.code)
	_, _ = w.Write(body)
}

// decodeRestRequest sets the input v from the path labels, the query
// string, the headers and the JSON body.
func decodeRestRequest(r *http.Request, labels map[string]string, v reflect.Value) error {
	s := shapeOf(v.Type())
	if s == nil {
		return fmt.Errorf("input %s is not served", v.Type())
	}
	query := r.URL.Query()
	for i := range s.in {
		m := &s.in[i]
		f := v.FieldByIndex(m.index)
		var vals []string
		switch m.loc {
		case inLabel:
			if l, ok := labels[m.name]; ok {
				vals = []string{l}
			}
		case inQuery:
			vals = query[m.name]
		case inHeader:
			vals = r.Header.Values(m.name)
		default:
			continue
		}
		if len(vals) == 0 {
			continue
		}
		if len(vals) > maxListItems {
			return fmt.Errorf("%s: more than %d values", m.name, maxListItems)
		}
		if err := setRestParam(f, vals, m); err != nil {
			return err
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	var doc any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("body must be a JSON object, got %T", doc)
	}
	return decodeJSONMembers(obj, v, s, 1)
}

// setRestParam sets a label, query or header member from its strings.
func setRestParam(f reflect.Value, vals []string, m *wireMember) error {
	t := f.Type()
	if t.Kind() == reflect.Slice && t != bytesType {
		s := reflect.MakeSlice(t, len(vals), len(vals))
		for i, x := range vals {
			if err := setRestParam(s.Index(i), []string{x}, m); err != nil {
				return err
			}
		}
		f.Set(s)
		return nil
	}
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		if err := setRestParam(p.Elem(), vals, m); err != nil {
			return err
		}
		f.Set(p)
		return nil
	}
	ts := m.ts
	if ts == "" && m.loc == inHeader {
		ts = "http-date"
	}
	return setScalar(f, vals[0], ts, m.name)
}

// decodeJSONMembers sets struct v from a JSON object by the shape's
// body names; unknown members are ignored, as AWS ignores them.
func decodeJSONMembers(obj map[string]any, v reflect.Value, s *wireShape, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	for k, val := range obj {
		m := s.inMember(k)
		if m == nil || m.loc != inBody {
			continue
		}
		if err := decodeJSONValue(val, v.FieldByIndex(m.index), m.ts, depth+1); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func decodeJSONValue(doc any, v reflect.Value, ts string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	if doc == nil {
		return nil
	}
	t := v.Type()
	switch {
	case t == timeType:
		if ts == "" || ts == "epoch-seconds" {
			return decodeEpochSeconds(doc, v)
		}
		str, ok := doc.(string)
		if !ok {
			return fmt.Errorf("timestamp must be a string, got %T", doc)
		}
		tm, err := parseTime(str, ts)
		if err != nil {
			return err
		}
		v.Set(reflect.ValueOf(tm))
		return nil
	case t == bytesType:
		return decodeBlob(doc, v)
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := decodeJSONValue(doc, p.Elem(), ts, depth+1); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		obj, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("%s must be an object, got %T", t.Name(), doc)
		}
		s := shapeOf(t)
		if s == nil {
			return fmt.Errorf("shape %s is not served", t.Name())
		}
		return decodeJSONMembers(obj, v, s, depth+1)
	case reflect.Slice:
		list, ok := doc.([]any)
		if !ok {
			return fmt.Errorf("list must be an array, got %T", doc)
		}
		if len(list) > maxListItems {
			return fmt.Errorf("list of %d items, more than %d", len(list), maxListItems)
		}
		s := reflect.MakeSlice(t, len(list), len(list))
		for i, e := range list {
			if err := decodeJSONValue(e, s.Index(i), ts, depth+1); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		obj, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("map must be an object, got %T", doc)
		}
		m := reflect.MakeMapWithSize(t, len(obj))
		for k, e := range obj {
			ev := reflect.New(t.Elem()).Elem()
			if err := decodeJSONValue(e, ev, ts, depth+1); err != nil {
				return fmt.Errorf("[%q]: %w", k, err)
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		v.Set(m)
		return nil
	}
	// Scalars read as the JSON 1.1 decoder reads them.
	return decodeJSON(doc, v, depth)
}

// encodeJSONShape turns an SDK shape into JSON values by the shape's
// response names: timestamps as epoch seconds, blobs as base64; nil
// members are left out.
func encodeJSONShape(v reflect.Value, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("answer nests deeper than %d", maxDepth)
	}
	s := shapeOf(v.Type())
	if s == nil {
		return nil, fmt.Errorf("shape %s has no wire names", v.Type())
	}
	obj := map[string]any{}
	for i := range s.out {
		m := &s.out[i]
		if m.loc != inBody {
			continue
		}
		f := v.FieldByIndex(m.index)
		if f.Kind() == reflect.String && f.Len() == 0 {
			continue // an unset enum
		}
		e, err := encodeJSONMember(f, m.ts, depth+1)
		if err != nil {
			return nil, err
		}
		if e != nil {
			obj[m.name] = e
		}
	}
	return obj, nil
}

func encodeJSONMember(v reflect.Value, ts string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("answer nests deeper than %d", maxDepth)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return encodeJSONMember(v.Elem(), ts, depth+1)
	case reflect.Struct:
		if v.Type() == timeType {
			t := v.Interface().(time.Time)
			if ts == "" || ts == "epoch-seconds" {
				return json.Number(formatTime(t, "epoch-seconds", "")), nil
			}
			return formatTime(t, ts, ""), nil
		}
		return encodeJSONShape(v, depth+1)
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		if v.Type() == bytesType {
			return base64.StdEncoding.EncodeToString(v.Bytes()), nil
		}
		list := make([]any, v.Len())
		for i := range v.Len() {
			e, err := encodeJSONMember(v.Index(i), ts, depth+1)
			if err != nil {
				return nil, err
			}
			list[i] = e
		}
		return list, nil
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		m := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			e, err := encodeJSONMember(it.Value(), ts, depth+1)
			if err != nil {
				return nil, err
			}
			m[it.Key().String()] = e
		}
		return m, nil
	default:
		return v.Interface(), nil
	}
}

// writeRestAPIError answers with the typed error inside err: its code in
// x-amzn-ErrorType, its members in the body, its modeled status.
func writeRestAPIError(w http.ResponseWriter, err error) {
	var api smithy.APIError
	if !errors.As(err, &api) {
		var params *smithy.InvalidParamsError
		if errors.As(err, &params) {
			writeRestError(w, http.StatusBadRequest, "InvalidParameterException", params.Error(), nil)
			return
		}
		writeRestError(w, http.StatusInternalServerError, "ServerException", err.Error(), nil)
		return
	}
	status := http.StatusBadRequest
	if api.ErrorFault() == smithy.FaultServer {
		status = http.StatusInternalServerError
	}
	writeRestError(w, statusOf(api, status), api.ErrorCode(), api.ErrorMessage(), api)
}

func writeRestError(w http.ResponseWriter, status int, code, msg string, modeled error) {
	doc := map[string]any{}
	if modeled != nil {
		v := reflect.ValueOf(modeled)
		for v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() == reflect.Struct && shapeOf(v.Type()) != nil {
			if d, err := encodeJSONShape(v, 0); err == nil {
				doc = d.(map[string]any)
			}
		}
	}
	doc["message"] = msg
	body, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", code)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
