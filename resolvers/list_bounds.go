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
// than MaxListItems.
func checkListBounds(args map[string]any) error {
	names := make([]string, 0, len(args))
	for name := range args {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := listBounds(reflect.ValueOf(args[name]), name, 0); err != nil {
			return err
		}
	}
	return nil
}

// listBounds walks v, at path, down to the depth any input type reaches.
func listBounds(v reflect.Value, path string, depth int) error {
	if depth > 16 || !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return listBounds(v.Elem(), path, depth+1)
	case reflect.Slice, reflect.Array:
		if v.Len() > MaxListItems {
			return errs.Field(path, "%s holds %d items; a list takes at most %d: send fewer", path, v.Len(), MaxListItems)
		}
		for i := range v.Len() {
			if err := listBounds(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := listBounds(iter.Value(), path+"."+fmt.Sprint(iter.Key().Interface()), depth+1); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				name = f.Name
			}
			if err := listBounds(v.Field(i), path+"."+name, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
