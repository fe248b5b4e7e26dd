package sim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// kubeSession is one request's view of a stored API server, under the
// world lock.
type kubeSession struct {
	t   *txn
	rec *kubeClusterRec
	eks *eksClusterRec
	// server holds the watches to tell of changes; nil while a new API
	// server is set up, when nobody can watch it yet.
	server *kubeServer
	// views is HyperPod's nodes as the request's settle found them.
	views  []NodeView
	events []kubeEvent
	// onPublished runs once the request's changes are saved and published.
	onPublished []func()
}

// kubeEvent is a change to tell watchers of once the world is saved.
type kubeEvent struct {
	res string
	// old is the object before the change, nil for a new one; obj is the
	// object after it, or as it was deleted.
	old, obj *unstructured.Unstructured
	deleted  bool
}

func (s *kubeSession) publish() {
	if s.server == nil {
		return
	}
	s.server.publish(s.events)
	for _, f := range s.onPublished {
		f()
	}
}

func kubeObjectKey(ns, name string) string { return ns + "/" + name }

func kubeDecode(raw []byte) (*unstructured.Unstructured, error) {
	obj := map[string]any{}
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("decode a stored object: %w", err))
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// get returns the stored object of resource res, or nil.
func (s *kubeSession) get(res, ns, name string) (*unstructured.Unstructured, error) {
	raw, ok := s.rec.Objects[res][kubeObjectKey(ns, name)]
	if !ok {
		return nil, nil
	}
	return kubeDecode(raw)
}

// list returns the stored objects of resource res in namespace ns (in
// every namespace when empty), by namespace and name.
func (s *kubeSession) list(res, ns string) ([]*unstructured.Unstructured, error) {
	objs := s.rec.Objects[res]
	var out []*unstructured.Unstructured
	for _, key := range slices.Sorted(maps.Keys(objs)) {
		if ns != "" && !strings.HasPrefix(key, ns+"/") {
			continue
		}
		obj, err := kubeDecode(objs[key])
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}

// put stores obj, the new version of cur (nil for a new object), under a
// new resourceVersion, and returns what is stored. Like an API server, it
// stores nothing when obj equals cur.
func (s *kubeSession) put(res string, cur, obj *unstructured.Unstructured) *unstructured.Unstructured {
	key := kubeObjectKey(obj.GetNamespace(), obj.GetName())
	if cur != nil {
		obj.SetResourceVersion(cur.GetResourceVersion())
		if raw, err := json.Marshal(obj.Object); err == nil && string(raw) == string(s.rec.Objects[res][key]) {
			return cur
		}
	}
	s.rec.RV++
	obj.SetResourceVersion(strconv.FormatUint(s.rec.RV, 10))
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		// Objects come from JSON or from client-go's converter: they
		// always encode.
		panic(fmt.Sprintf("sim: encode %s %s: %v", res, key, err))
	}
	if s.rec.Objects[res] == nil {
		s.rec.Objects[res] = map[string]json.RawMessage{}
	}
	s.rec.Objects[res][key] = raw
	s.events = append(s.events, kubeEvent{res: res, old: cur, obj: obj.DeepCopy()})
	return obj
}

// remove deletes the stored object cur of resource res.
func (s *kubeSession) remove(res string, cur *unstructured.Unstructured) {
	objs := s.rec.Objects[res]
	delete(objs, kubeObjectKey(cur.GetNamespace(), cur.GetName()))
	if len(objs) == 0 {
		delete(s.rec.Objects, res)
	}
	s.rec.RV++
	gone := cur.DeepCopy()
	gone.SetResourceVersion(strconv.FormatUint(s.rec.RV, 10))
	s.events = append(s.events, kubeEvent{res: res, old: cur, obj: gone, deleted: true})
}

// stamp gives a new object what the API server sets when it creates one.
func (s *kubeSession) stamp(obj *unstructured.Unstructured, created time.Time) *unstructured.Unstructured {
	obj.SetUID(types.UID(s.t.uuid()))
	obj.SetCreationTimestamp(metav1.NewTime(created))
	obj.SetGeneration(1)
	obj.SetResourceVersion("")
	obj.SetManagedFields(nil)
	obj.SetDeletionTimestamp(nil)
	obj.SetSelfLink("")
	if obj.GetKind() == "Namespace" && obj.GetAPIVersion() == "v1" {
		kubeNamespaceDefaults(obj)
	}
	return obj
}

// kubeNamespace is a new namespace object.
func kubeNamespace(name string) *unstructured.Unstructured {
	ns := &unstructured.Unstructured{Object: map[string]any{}}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(name)
	return ns
}

// kubeNamespaceDefaults sets what the API server adds to every namespace.
func kubeNamespaceDefaults(ns *unstructured.Unstructured) {
	l := ns.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	l["kubernetes.io/metadata.name"] = ns.GetName()
	ns.SetLabels(l)
	ns.Object["status"] = map[string]any{"phase": "Active"}
}

// kubeFilter is the label and field selector of a list or watch.
type kubeFilter struct {
	labels labels.Selector
	fields fields.Selector
}

func newKubeFilter(opts metav1.ListOptions) (kubeFilter, error) {
	f := kubeFilter{labels: labels.Everything(), fields: fields.Everything()}
	var err error
	if opts.LabelSelector != "" {
		if f.labels, err = labels.Parse(opts.LabelSelector); err != nil {
			return f, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
	}
	if opts.FieldSelector != "" {
		if f.fields, err = fields.ParseSelector(opts.FieldSelector); err != nil {
			return f, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector: %v", err))
		}
	}
	return f, nil
}

// matches tells whether obj is selected. A field selector may name any
// field path of the object ("metadata.name", "spec.nodeName",
// "status.phase"); a real API server accepts fewer.
func (f kubeFilter) matches(obj *unstructured.Unstructured) bool {
	if !f.labels.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	if f.fields.Empty() {
		return true
	}
	set := fields.Set{}
	for _, r := range f.fields.Requirements() {
		set[r.Field] = kubeFieldValue(obj.Object, r.Field)
	}
	return f.fields.Matches(set)
}

// kubeFieldValue is the value of a dotted field path, as text; "" when it
// is missing or not a scalar.
func kubeFieldValue(obj map[string]any, path string) string {
	var v any = obj
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[part]
	}
	switch v := v.(type) {
	case string:
		return v
	case bool, int64, float64:
		return fmt.Sprint(v)
	}
	return ""
}

// kubePage is one page of a list.
type kubePage struct {
	items     []*unstructured.Unstructured
	continued string // the token of the next page, if any
	remaining *int64
}

// paginate cuts the page opts.Limit and opts.Continue ask for out of
// items, sorted by namespace and name. The continue token is the key of
// the last object returned.
func paginate(items []*unstructured.Unstructured, opts metav1.ListOptions) (kubePage, error) {
	start := 0
	if opts.Continue != "" {
		after, err := base64.RawURLEncoding.DecodeString(opts.Continue)
		if err != nil {
			return kubePage{}, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token %q", opts.Continue))
		}
		start, _ = slices.BinarySearchFunc(items, string(after), func(o *unstructured.Unstructured, key string) int {
			return strings.Compare(kubeObjectKey(o.GetNamespace(), o.GetName()), key)
		})
		if start < len(items) && kubeObjectKey(items[start].GetNamespace(), items[start].GetName()) == string(after) {
			start++
		}
	}
	items = items[start:]
	if opts.Limit <= 0 || int64(len(items)) <= opts.Limit {
		return kubePage{items: items}, nil
	}
	last := items[opts.Limit-1]
	remaining := int64(len(items)) - opts.Limit
	return kubePage{
		items:     items[:opts.Limit],
		continued: base64.RawURLEncoding.EncodeToString([]byte(kubeObjectKey(last.GetNamespace(), last.GetName()))),
		remaining: &remaining,
	}, nil
}
