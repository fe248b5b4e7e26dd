package simwire

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// maxDepth bounds the nesting a decoder follows, so a hostile body cannot
// recurse without end.
const maxDepth = 32

var (
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[[]byte]()
)

// skipField says whether a struct field is the SDK's bookkeeping rather
// than a member of the shape.
func skipField(f reflect.StructField) bool {
	return !f.IsExported() || f.Name == "ResultMetadata" || f.Anonymous
}

// encodeJSON turns an SDK shape into JSON values: members by Go field
// name, timestamps as epoch seconds, blobs as base64, a union as
// {"Member": value}. Nil members are left out.
func encodeJSON(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		if v.Kind() == reflect.Interface {
			return encodeUnion(v.Elem())
		}
		return encodeJSON(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			t := v.Interface().(time.Time)
			return float64(t.UnixMilli()) / 1000
		}
		m := map[string]any{}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if skipField(f) {
				continue
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.String && fv.Len() == 0 {
				continue // an unset enum
			}
			if e := encodeJSON(fv); e != nil {
				m[f.Name] = e
			}
		}
		return m
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type() == bytesType {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		list := make([]any, v.Len())
		for i := range v.Len() {
			list[i] = encodeJSON(v.Index(i))
		}
		return list
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		m := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			m[it.Key().String()] = encodeJSON(it.Value())
		}
		return m
	default:
		return v.Interface()
	}
}

// encodeUnion encodes one member of a union: the SDK names its types
// <Union>Member<Name> and keeps the value in Value.
func encodeUnion(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	name := v.Type().Name()
	i := strings.LastIndex(name, "Member")
	f := v.FieldByName("Value")
	if i < 0 || !f.IsValid() {
		return encodeJSON(v)
	}
	return map[string]any{name[i+len("Member"):]: encodeJSON(f)}
}

// unionMembers lists, for each union that a served operation takes as
// input, its member types: Go cannot enumerate a union's implementations.
var unionMembers = map[reflect.Type][]reflect.Type{
	// CreateCluster's and UpdateCluster's instance groups.
	reflect.TypeFor[smtypes.ClusterInstanceStorageConfig](): {
		reflect.TypeFor[smtypes.ClusterInstanceStorageConfigMemberEbsVolumeConfig](),
		reflect.TypeFor[smtypes.ClusterInstanceStorageConfigMemberFsxLustreConfig](),
		reflect.TypeFor[smtypes.ClusterInstanceStorageConfigMemberFsxOpenZfsConfig](),
	},
}

// decodeJSON sets v from a JSON value decoded with UseNumber.
func decodeJSON(doc any, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	if doc == nil {
		return nil
	}
	t := v.Type()
	switch {
	case t == timeType:
		return decodeEpochSeconds(doc, v)
	case t == bytesType:
		return decodeBlob(doc, v)
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := decodeJSON(doc, p.Elem(), depth+1); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		obj, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("%s must be an object, got %T", t.Name(), doc)
		}
		for k, val := range obj {
			f, ok := t.FieldByName(k)
			if !ok || skipField(f) {
				continue // as AWS does, unknown members are ignored
			}
			if err := decodeJSON(val, v.FieldByIndex(f.Index), depth+1); err != nil {
				return fmt.Errorf("%s.%s: %w", t.Name(), k, err)
			}
		}
	case reflect.Slice:
		list, ok := doc.([]any)
		if !ok {
			return fmt.Errorf("list must be an array, got %T", doc)
		}
		s := reflect.MakeSlice(t, len(list), len(list))
		for i, e := range list {
			if err := decodeJSON(e, s.Index(i), depth+1); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		v.Set(s)
	case reflect.Map:
		obj, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("map must be an object, got %T", doc)
		}
		m := reflect.MakeMapWithSize(t, len(obj))
		for k, e := range obj {
			ev := reflect.New(t.Elem()).Elem()
			if err := decodeJSON(e, ev, depth+1); err != nil {
				return fmt.Errorf("[%q]: %w", k, err)
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		v.Set(m)
	case reflect.Interface:
		return decodeUnion(doc, v, depth)
	case reflect.String:
		s, ok := doc.(string)
		if !ok {
			return fmt.Errorf("must be a string, got %T", doc)
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := doc.(bool)
		if !ok {
			return fmt.Errorf("must be a boolean, got %T", doc)
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := doc.(json.Number)
		if !ok {
			return fmt.Errorf("must be a number, got %T", doc)
		}
		i, err := n.Int64()
		if err != nil || v.OverflowInt(i) {
			return fmt.Errorf("integer %s out of range", n)
		}
		v.SetInt(i)
	case reflect.Float32, reflect.Float64:
		n, ok := doc.(json.Number)
		if !ok {
			return fmt.Errorf("must be a number, got %T", doc)
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("number %s: %w", n, err)
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("unsupported member type %s", t)
	}
	return nil
}

func decodeUnion(doc any, v reflect.Value, depth int) error {
	obj, ok := doc.(map[string]any)
	if !ok || len(obj) != 1 {
		return fmt.Errorf("union %s must be an object with one member", v.Type().Name())
	}
	for name, val := range obj {
		for _, mt := range unionMembers[v.Type()] {
			if strings.HasSuffix(mt.Name(), "Member"+name) {
				p := reflect.New(mt)
				if err := decodeJSON(val, p.Elem().FieldByName("Value"), depth+1); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				v.Set(p)
				return nil
			}
		}
		return fmt.Errorf("union %s has no member %q the simulator knows", v.Type().Name(), name)
	}
	return nil
}

// decodeEpochSeconds sets the time v from a JSON number of seconds.
func decodeEpochSeconds(doc any, v reflect.Value) error {
	n, ok := doc.(json.Number)
	if !ok {
		return fmt.Errorf("timestamp must be epoch seconds, got %T", doc)
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("timestamp %s is not a number of seconds", n)
	}
	sec, frac := math.Modf(f)
	v.Set(reflect.ValueOf(time.Unix(int64(sec), int64(frac*1e9)).UTC()))
	return nil
}

// decodeBlob sets the bytes v from a base64 JSON string.
func decodeBlob(doc any, v reflect.Value) error {
	s, ok := doc.(string)
	if !ok {
		return fmt.Errorf("blob must be a base64 string, got %T", doc)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	v.SetBytes(b)
	return nil
}
