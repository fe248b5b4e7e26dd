package simwire

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
	"github.com/aws/smithy-go/traits"
)

// wireName is one member's Go field and wire name, as the generated EC2
// table lists it; item is the element of each item of a list.
type wireName struct{ field, name, item string }

// wireNames are a shape's member names in requests and in responses.
type wireNames struct{ in, out []wireName }

// location is where a request member travels.
type location int

const (
	inBody location = iota
	inLabel
	inQuery
	inHeader
)

// wireMember is one member of a shape, resolved against its Go struct.
type wireMember struct {
	field string
	index []int
	name  string
	// item is the key segment (query) or element (XML) of each list item;
	// "" for a flattened list, whose items repeat the member's own name.
	item string
	// entry, key and value name a map's entries ("" entry: flattened).
	entry, key, value string
	loc               location
	// ts is the timestamp format: "date-time", "epoch-seconds" or
	// "http-date"; "" for the protocol's default.
	ts string
}

// wireShape is a structure's members in each direction.
type wireShape struct {
	in, out []wireMember
}

func (s *wireShape) inMember(name string) *wireMember {
	for i := range s.in {
		if s.in[i].name == name {
			return &s.in[i]
		}
	}
	return nil
}

var (
	shapesMu sync.RWMutex
	shapes   = map[reflect.Type]*wireShape{}
)

// shapeOf returns the wire names of struct type t, nil when no served
// operation reaches it.
func shapeOf(t reflect.Type) *wireShape {
	shapesMu.RLock()
	defer shapesMu.RUnlock()
	return shapes[t]
}

// registerNames adds a table of names (the generated EC2 one).
func registerNames(table map[reflect.Type]wireNames) {
	shapesMu.Lock()
	defer shapesMu.Unlock()
	for t, n := range table {
		s := &wireShape{}
		for _, w := range n.in {
			s.in = append(s.in, resolve(t, wireMember{field: w.field, name: w.name}))
		}
		for _, w := range n.out {
			s.out = append(s.out, resolve(t, wireMember{field: w.field, name: w.name, item: w.item}))
		}
		shapes[t] = s
	}
}

func resolve(t reflect.Type, m wireMember) wireMember {
	f, ok := t.FieldByName(m.field)
	if !ok {
		panic(fmt.Sprintf("simwire: %s has no field %s", t, m.field))
	}
	m.index = f.Index
	return m
}

// schemaProtocol says how a schema's traits become wire names.
type schemaProtocol int

const (
	protoRestJSON schemaProtocol = iota
	protoQuery
)

// unmappedMembers lists schema members no Go field was found for: a test
// wants none.
var unmappedMembers []string

// registerSchema walks struct type t along its SDK schema s and records
// each member's wire names as the protocol derives them from the traits.
func registerSchema(t reflect.Type, s *smithy.Schema, proto schemaProtocol) {
	shapesMu.Lock()
	defer shapesMu.Unlock()
	registerSchemaLocked(t, s, proto)
}

func registerSchemaLocked(t reflect.Type, s *smithy.Schema, proto schemaProtocol) {
	if t.Kind() != reflect.Struct || t == timeType || s == nil {
		return
	}
	if _, done := shapes[t]; done {
		return
	}
	ws := &wireShape{}
	shapes[t] = ws
	for name, ms := range s.Members() {
		f, ok := fieldFor(t, name)
		if !ok {
			unmappedMembers = append(unmappedMembers, t.String()+"."+name)
			continue
		}
		in := wireMember{field: f.Name, index: f.Index, name: name}
		out := in
		if ts, ok := smithy.SchemaTrait[*traits.TimestampFormat](ms); ok {
			in.ts, out.ts = ts.Format, ts.Format
		}
		switch proto {
		case protoRestJSON:
			if jn, ok := smithy.SchemaTrait[*traits.JSONName](ms); ok {
				in.name, out.name = jn.Name, jn.Name
			}
			if _, ok := smithy.SchemaTrait[*traits.HTTPLabel](ms); ok {
				in.loc, in.name = inLabel, name
			} else if q, ok := smithy.SchemaTrait[*traits.HTTPQuery](ms); ok {
				in.loc, in.name = inQuery, q.Name
			} else if h, ok := smithy.SchemaTrait[*traits.HTTPHeader](ms); ok {
				in.loc, in.name = inHeader, h.Name
				out.loc, out.name = inHeader, h.Name
			}
		case protoQuery:
			// A request names a member by its @xmlName, from the member or
			// its target; a response only by the member's own.
			if xn, ok := smithy.SchemaTrait[*traits.XMLName](ms); ok {
				in.name = xn.Name
			}
			if xn, ok := smithy.SchemaDirectTrait[*traits.XMLName](ms); ok {
				out.name = xn.Name
			}
			_, flat := smithy.SchemaTrait[*traits.XMLFlattened](ms)
			switch ms.Type() {
			case smithy.ShapeTypeList, smithy.ShapeTypeSet:
				if !flat {
					in.item, out.item = "member", "member"
					if lm := ms.ListMember(); lm != nil {
						if xn, ok := smithy.SchemaTrait[*traits.XMLName](lm); ok {
							in.item = xn.Name
						}
						if xn, ok := smithy.SchemaDirectTrait[*traits.XMLName](lm); ok {
							out.item = xn.Name
						}
					}
				}
			case smithy.ShapeTypeMap:
				in.key, in.value = "key", "value"
				if mk := ms.MapKey(); mk != nil {
					if xn, ok := smithy.SchemaTrait[*traits.XMLName](mk); ok {
						in.key = xn.Name
					}
				}
				if mv := ms.MapValue(); mv != nil {
					if xn, ok := smithy.SchemaTrait[*traits.XMLName](mv); ok {
						in.value = xn.Name
					}
				}
				out.key, out.value = in.key, in.value
				if !flat {
					in.entry, out.entry = "entry", "entry"
				}
			}
		}
		ws.in = append(ws.in, in)
		ws.out = append(ws.out, out)
		registerTarget(f.Type, ms, proto)
	}
	sortMembers(ws.in)
	sortMembers(ws.out)
}

// registerTarget registers the struct a member of type ft reaches,
// through pointers, lists and maps.
func registerTarget(ft reflect.Type, ms *smithy.Schema, proto schemaProtocol) {
	for ms != nil {
		switch ft.Kind() {
		case reflect.Pointer:
			ft = ft.Elem()
			continue
		case reflect.Slice:
			if ft == bytesType {
				return
			}
			ft, ms = ft.Elem(), ms.ListMember()
			continue
		case reflect.Map:
			ft, ms = ft.Elem(), ms.MapValue()
			continue
		case reflect.Struct:
			registerSchemaLocked(ft, ms, proto)
		}
		return
	}
}

// fieldFor finds the Go field of a schema member: the SDK's code
// generator capitalizes the member name.
func fieldFor(t reflect.Type, member string) (reflect.StructField, bool) {
	if member == "" {
		return reflect.StructField{}, false
	}
	if f, ok := t.FieldByName(strings.ToUpper(member[:1]) + member[1:]); ok && !skipField(f) {
		return f, true
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !skipField(f) && strings.EqualFold(f.Name, member) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// sortMembers puts members in Go field order, so answers are stable.
func sortMembers(ms []wireMember) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && lessIndex(ms[j].index, ms[j-1].index); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func lessIndex(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// schemaOf returns the schema a generated SDK shape serializes itself
// with: its Serialize method opens it first.
func schemaOf(v any) *smithy.Schema {
	ser, ok := v.(smithy.Serializable)
	if !ok {
		return nil
	}
	var r schemaRecorder
	ser.Serialize(&r)
	return r.first
}

// schemaRecorder is a ShapeSerializer that only notes the first struct
// schema written.
type schemaRecorder struct{ first *smithy.Schema }

func (r *schemaRecorder) WriteStruct(s *smithy.Schema) {
	if r.first == nil {
		r.first = s
	}
}
func (*schemaRecorder) Bytes() []byte                                { return nil }
func (*schemaRecorder) WriteInt8(*smithy.Schema, int8)               {}
func (*schemaRecorder) WriteInt16(*smithy.Schema, int16)             {}
func (*schemaRecorder) WriteInt32(*smithy.Schema, int32)             {}
func (*schemaRecorder) WriteInt64(*smithy.Schema, int64)             {}
func (*schemaRecorder) WriteFloat32(*smithy.Schema, float32)         {}
func (*schemaRecorder) WriteFloat64(*smithy.Schema, float64)         {}
func (*schemaRecorder) WriteBool(*smithy.Schema, bool)               {}
func (*schemaRecorder) WriteString(*smithy.Schema, string)           {}
func (*schemaRecorder) WriteBigInt(*smithy.Schema, *big.Int)         {}
func (*schemaRecorder) WriteBigFloat(*smithy.Schema, *big.Float)     {}
func (*schemaRecorder) WriteBlob(*smithy.Schema, []byte)             {}
func (*schemaRecorder) WriteTime(*smithy.Schema, time.Time)          {}
func (*schemaRecorder) WriteUnion(_, _ *smithy.Schema)               {}
func (*schemaRecorder) CloseUnion()                                  {}
func (*schemaRecorder) WriteDocument(*smithy.Schema, document.Value) {}
func (*schemaRecorder) WriteNil(*smithy.Schema)                      {}
func (*schemaRecorder) CloseStruct()                                 {}
func (*schemaRecorder) WriteList(*smithy.Schema)                     {}
func (*schemaRecorder) CloseList()                                   {}
func (*schemaRecorder) WriteMap(*smithy.Schema)                      {}
func (*schemaRecorder) WriteKey(*smithy.Schema, string)              {}
func (*schemaRecorder) CloseMap()                                    {}

// registerPort registers the inputs and outputs of every method of the
// port interface type port, by their SDK schemas.
func registerPort(port reflect.Type, proto schemaProtocol) {
	for i := range port.NumMethod() {
		m := port.Method(i).Type
		for _, t := range []reflect.Type{m.In(1).Elem(), m.Out(0).Elem()} {
			s := schemaOf(reflect.New(t).Interface())
			if s == nil {
				if hasMembers(t) {
					panic(fmt.Sprintf("simwire: %s has no SDK schema", t))
				}
				shapesMu.Lock()
				shapes[t] = &wireShape{} // a unit shape: nothing travels
				shapesMu.Unlock()
				continue
			}
			registerSchema(t, s, proto)
		}
	}
}

// errorStatus is the HTTP status each modeled error type answers with.
var errorStatus = map[reflect.Type]int{}

// statusOf returns the modeled status of error err, or def.
func statusOf(err error, def int) int {
	shapesMu.RLock()
	defer shapesMu.RUnlock()
	if s, ok := errorStatus[reflect.TypeOf(err)]; ok {
		return s
	}
	return def
}

// registerErrors registers the modeled errors of a service's type
// registry, so their members travel with them.
func registerErrors(reg *smithy.TypeRegistry, proto schemaProtocol) {
	for _, e := range reg.Entries {
		if e.Schema == nil || e.New == nil {
			continue
		}
		t := reflect.TypeOf(e.New())
		if t.Kind() != reflect.Pointer {
			continue
		}
		registerSchema(t.Elem(), e.Schema, proto)
		status := 0
		if he, ok := smithy.SchemaTrait[*traits.HTTPError](e.Schema); ok {
			status = he.Code
		}
		if qe, ok := smithy.SchemaTrait[*traits.AWSQueryError](e.Schema); ok && qe.StatusCode != 0 {
			status = qe.StatusCode
		}
		if status != 0 {
			shapesMu.Lock()
			errorStatus[t] = status
			shapesMu.Unlock()
		}
	}
}

// hasMembers says whether struct t has members beyond the SDK's
// bookkeeping.
func hasMembers(t reflect.Type) bool {
	for i := range t.NumField() {
		if !skipField(t.Field(i)) {
			return true
		}
	}
	return false
}
