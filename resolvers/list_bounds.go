package resolvers

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
)

// MaxListItems is the most items any list argument may hold: more than a
// cluster has of anything a request names (instance groups, nodes,
// buckets, settings, labels). A longer list is refused before any work,
// so what a request makes the server do and answer is bounded by this,
// not by what was sent.
const MaxListItems = 1000

// checkListBounds refuses, with a VALIDATION naming its path, the first
// list in args (a root field's arguments as gqlgen decoded them) longer
// than MaxListItems. It runs on every root field, so it builds no path
// unless it finds a list too long, and does not walk lists of scalars.
func checkListBounds(args map[string]any) error {
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if long := longList(reflect.ValueOf(args[name]), 0); long != nil {
			path := name + long.path()
			return errs.Field(path, "%s holds %d items; a list takes at most %d: send fewer", path, long.n, MaxListItems)
		}
	}
	return nil
}

// tooLong is a list longer than MaxListItems: its length, and the path to
// it from the argument, innermost step first.
type tooLong struct {
	n     int
	steps []string
}

func (l *tooLong) path() string {
	var b strings.Builder
	for i := len(l.steps) - 1; i >= 0; i-- {
		b.WriteString(l.steps[i])
	}
	return b.String()
}

// longList finds the first list under v longer than MaxListItems, down to
// the depth any input type reaches; nil when there is none.
func longList(v reflect.Value, depth int) *tooLong {
	if depth > 16 || !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return longList(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if v.Len() > MaxListItems {
			return &tooLong{n: v.Len()}
		}
		if scalar(v.Type().Elem().Kind()) {
			return nil
		}
		for i := range v.Len() {
			if l := longList(v.Index(i), depth+1); l != nil {
				l.steps = append(l.steps, fmt.Sprintf("[%d]", i))
				return l
			}
		}
	case reflect.Map:
		if scalar(v.Type().Elem().Kind()) {
			return nil
		}
		iter := v.MapRange()
		for iter.Next() {
			if l := longList(iter.Value(), depth+1); l != nil {
				l.steps = append(l.steps, fmt.Sprintf(".%v", iter.Key().Interface()))
				return l
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if l := longList(v.Field(i), depth+1); l != nil {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "" || name == "-" {
					name = f.Name
				}
				l.steps = append(l.steps, "."+name)
				return l
			}
		}
	}
	return nil
}

// scalar reports whether values of kind k hold no list.
func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
		return false
	}
	return true
}
