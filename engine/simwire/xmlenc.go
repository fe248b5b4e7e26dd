package simwire

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"reflect"
	"strconv"
	"time"

	smithytime "github.com/aws/smithy-go/time"
)

// xmlWriter writes an XML response body.
type xmlWriter struct{ bytes.Buffer }

func (w *xmlWriter) start(name string) { w.WriteString("<" + name + ">") }
func (w *xmlWriter) end(name string)   { w.WriteString("</" + name + ">") }

func (w *xmlWriter) text(s string) {
	_ = xml.EscapeText(&w.Buffer, []byte(s))
}

func (w *xmlWriter) element(name, text string) {
	w.start(name)
	w.text(text)
	w.end(name)
}

// members writes the members of struct v by the shape's response names;
// nil members are left out, as AWS leaves them out.
func (w *xmlWriter) members(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("answer nests deeper than %d", maxDepth)
	}
	s := shapeOf(v.Type())
	if s == nil {
		return fmt.Errorf("shape %s has no wire names", v.Type())
	}
	for i := range s.out {
		m := &s.out[i]
		if err := w.member(v.FieldByIndex(m.index), m, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (w *xmlWriter) member(v reflect.Value, m *wireMember, depth int) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		if k := v.Elem().Kind(); k == reflect.Slice || k == reflect.Map {
			return w.member(v.Elem(), m, depth)
		}
		return w.value(v, m.name, m.ts, depth)
	case reflect.String:
		if v.Len() == 0 {
			return nil // an unset enum
		}
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type() == bytesType {
			break
		}
		if m.item != "" {
			w.start(m.name)
		}
		for i := range v.Len() {
			name := m.item
			if name == "" {
				name = m.name
			}
			if err := w.value(v.Index(i), name, m.ts, depth+1); err != nil {
				return err
			}
		}
		if m.item != "" {
			w.end(m.name)
		}
		return nil
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		if m.entry != "" {
			w.start(m.name)
		}
		entry := m.entry
		if entry == "" {
			entry = m.name
		}
		keys := v.MapKeys()
		sortKeys(keys)
		for _, k := range keys {
			w.start(entry)
			w.element(m.key, k.String())
			if err := w.value(v.MapIndex(k), m.value, m.ts, depth+1); err != nil {
				return err
			}
			w.end(entry)
		}
		if m.entry != "" {
			w.end(m.name)
		}
		return nil
	}
	return w.value(v, m.name, m.ts, depth)
}

// value writes one element named name holding v.
func (w *xmlWriter) value(v reflect.Value, name, ts string, depth int) error {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	t := v.Type()
	switch {
	case t == timeType:
		w.element(name, formatTime(v.Interface().(time.Time), ts, "date-time"))
		return nil
	case t == bytesType:
		w.element(name, base64.StdEncoding.EncodeToString(v.Bytes()))
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		w.start(name)
		if err := w.members(v, depth+1); err != nil {
			return err
		}
		w.end(name)
	case reflect.Slice, reflect.Map:
		return fmt.Errorf("a list in a list (%s) is not served", name)
	default:
		s, err := scalarText(v)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		w.element(name, s)
	}
	return nil
}

// scalarText is the text form of a string, boolean or number.
func scalarText(v reflect.Value) (string, error) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, v.Type().Bits()), nil
	}
	return "", fmt.Errorf("member type %s is not served", v.Type())
}

// formatTime writes t in format, or def when the member names none.
func formatTime(t time.Time, format, def string) string {
	if format == "" {
		format = def
	}
	switch format {
	case "epoch-seconds":
		return strconv.FormatFloat(smithytime.FormatEpochSeconds(t), 'f', -1, 64)
	case "http-date":
		return smithytime.FormatHTTPDate(t)
	}
	return smithytime.FormatDateTime(t)
}

func sortKeys(keys []reflect.Value) {
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j].String() < keys[j-1].String(); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}
