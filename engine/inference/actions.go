package inference

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// Every endpoint operation is a list of actions on Kubernetes objects,
// built once when it is asked and stored with the operation, so that a
// restarted process runs the same ones. An action is a phase: Observe
// reads the object, Apply makes or changes it.

// The resources an endpoint's objects are.
var (
	deployments     = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	services        = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	pods            = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	serviceAccounts = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	roles           = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}
	roleBindings    = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}
	scaledObjects   = schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects"}
	triggerAuths    = schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "triggerauthentications"}
	endpointConfigs = schema.GroupVersionResource{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "inferenceendpointconfigs"}
	jumpStartModels = schema.GroupVersionResource{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "jumpstartmodels"}
)

// ownedResources are every resource an endpoint may have objects of, in
// the order they are deleted.
var ownedResources = []schema.GroupVersionResource{scaledObjects, triggerAuths, endpointConfigs, jumpStartModels, deployments, services, roleBindings, roles, serviceAccounts}

// Verbs of actions.
const (
	// verbEnsure makes the object when it is absent and changes it when it
	// differs from what is asked.
	verbEnsure = "ensure"
	// verbChange changes an object that must exist (a pod's labels).
	verbChange = "change"
	// verbDeleteAll deletes every object of the endpoint.
	verbDeleteAll = "delete-all"
	// verbDelete deletes one object of the endpoint.
	verbDelete = "delete"
)

// action is one stored action.
type action struct {
	Verb     string                      `json:"verb"`
	Resource schema.GroupVersionResource `json:"resource"`
	// Object is the object asked for (ensure), the fields to change
	// (change), or the object's name and namespace (delete).
	Object json.RawMessage `json:"object,omitempty"`
	// Phase names the action's phase in the operation.
	Phase string `json:"phase"`
	Title string `json:"title"`
}

// newAction encodes obj (a typed object or an unstructured one) as an
// action on resource.
func newAction(verb string, resource schema.GroupVersionResource, phase, title string, obj any) (action, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return action{}, errs.Wrap(errs.Internal, err, "encode %s: %v", title, err)
	}
	return action{Verb: verb, Resource: resource, Object: raw, Phase: phase, Title: title}, nil
}

// decode reads the action's object.
func (a action) decode() (*unstructured.Unstructured, error) {
	var u unstructured.Unstructured
	if err := json.Unmarshal(a.Object, &u.Object); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored object of %s: %v", a.Title, err)
	}
	return &u, nil
}

// kubeOf returns the clients of the cluster, for steps.
type kubeOf func(ctx context.Context) (*cloud.KubeClients, error)

// step builds the action's phase for endpoint id.
func (a action) step(kube kubeOf, endpointID string) ops.Step {
	switch a.Verb {
	case verbDeleteAll:
		return deleteAllStep(a, kube, endpointID)
	case verbDelete:
		return deleteStep(a, kube, endpointID)
	case verbSet:
		return setStep(a, kube, endpointID)
	}
	st := ops.Step{Name: a.Phase, Title: a.Title}
	st.Observe = func(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
		want, err := a.decode()
		if err != nil {
			return ops.Observation{}, err
		}
		kc, err := kube(ctx)
		if err != nil {
			return ops.Observation{}, err
		}
		live, err := kc.Dynamic.Resource(a.Resource).Namespace(want.GetNamespace()).Get(ctx, want.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) && a.Verb == verbChange:
			return ops.Observation{State: ops.Broken, Err: errs.New(errs.NotFound, "%s/%s is gone; list the endpoint's pods again", want.GetNamespace(), want.GetName())}, nil
		case apierrors.IsNotFound(err):
			return ops.Observation{State: ops.Absent}, nil
		case err != nil:
			return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read %s: %v", a.Title, err)
		case live.GetLabels()[endpointIDLabel] != endpointID:
			return ops.Observation{State: ops.Broken, Err: errs.New(errs.Conflict, "%s/%s exists and is not this endpoint's (label %s=%q); delete it, or deploy under another name",
				want.GetNamespace(), want.GetName(), endpointIDLabel, live.GetLabels()[endpointIDLabel])}, nil
		case live.GetDeletionTimestamp() != nil:
			return ops.Observation{State: ops.Pending, Message: "an earlier copy is being deleted"}, nil
		case !holds(live.Object, wanted(want)):
			return ops.Observation{State: ops.Absent, Message: "it differs from what is asked"}, nil
		}
		return ops.Observation{State: ops.Done}, nil
	}
	st.Apply = func(ctx context.Context, _ *ops.Run) (any, error) {
		want, err := a.decode()
		if err != nil {
			return nil, err
		}
		kc, err := kube(ctx)
		if err != nil {
			return nil, err
		}
		r := kc.Dynamic.Resource(a.Resource).Namespace(want.GetNamespace())
		if a.Verb == verbEnsure {
			_, err = r.Create(ctx, want, metav1.CreateOptions{})
			if err == nil {
				return nil, nil
			}
			if !apierrors.IsAlreadyExists(err) {
				return nil, kubeError(err, "create "+a.Title)
			}
		}
		patch, err := json.Marshal(wanted(want))
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "encode the change of %s: %v", a.Title, err)
		}
		if _, err := r.Patch(ctx, want.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return nil, kubeError(err, "change "+a.Title)
		}
		return nil, nil
	}
	return st
}

// wanted is the part of an object an action sets: its labels, annotations
// and everything but metadata and status.
func wanted(u *unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	for k, v := range u.Object {
		if k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
			out[k] = v
		}
	}
	meta := map[string]any{}
	if l := u.GetLabels(); len(l) > 0 {
		meta["labels"] = l
	}
	if a := u.GetAnnotations(); len(a) > 0 {
		meta["annotations"] = a
	}
	if len(meta) > 0 {
		out["metadata"] = meta
	}
	return normal(out).(map[string]any)
}

// holds tells whether live has every field of want with its value; a
// list holds another of the same length whose items hold each other's.
// Fields the API server defaults (protocols, pull policies) are in live
// only, and do not make a difference.
func holds(live, want any) bool {
	live, want = normal(live), normal(want)
	switch w := want.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !holds(l[k], v) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok || len(l) != len(w) {
			return false
		}
		for i := range w {
			if !holds(l[i], w[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(live, want)
}

// normal is v as JSON decodes it (numbers as float64, maps of any).
func normal(v any) any {
	switch v.(type) {
	case nil, string, bool, float64:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// deleteStep deletes one object of the endpoint.
func deleteStep(a action, kube kubeOf, endpointID string) ops.Step {
	return ops.Step{Name: a.Phase, Title: a.Title,
		Observe: func(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
			u, err := a.decode()
			if err != nil {
				return ops.Observation{}, err
			}
			kc, err := kube(ctx)
			if err != nil {
				return ops.Observation{}, err
			}
			live, err := kc.Dynamic.Resource(a.Resource).Namespace(u.GetNamespace()).Get(ctx, u.GetName(), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return ops.Observation{State: ops.Done}, nil
			case err != nil:
				return ops.Observation{}, errs.Wrap(errs.Upstream, err, "read %s: %v", a.Title, err)
			case live.GetLabels()[endpointIDLabel] != endpointID:
				return ops.Observation{State: ops.Done, Message: "what is there is not this endpoint's; it is left alone"}, nil
			case live.GetDeletionTimestamp() != nil:
				return ops.Observation{State: ops.Pending, Message: "being deleted"}, nil
			}
			return ops.Observation{State: ops.Absent}, nil
		},
		Apply: func(ctx context.Context, _ *ops.Run) (any, error) {
			u, err := a.decode()
			if err != nil {
				return nil, err
			}
			kc, err := kube(ctx)
			if err != nil {
				return nil, err
			}
			return nil, deleteObject(ctx, kc, a.Resource, u.GetNamespace(), u.GetName())
		}}
}

// deleteAllStep deletes every object labelled as the endpoint's.
func deleteAllStep(a action, kube kubeOf, endpointID string) ops.Step {
	selector := endpointIDLabel + "=" + endpointID
	find := func(ctx context.Context, kc *cloud.KubeClients, ns string) ([]found, error) {
		var out []found
		for _, r := range ownedResources {
			list, err := kc.Dynamic.Resource(r).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if apierrors.IsNotFound(err) {
				continue // the cluster does not serve the kind: nothing of it
			}
			if err != nil {
				return nil, errs.Wrap(errs.Upstream, err, "list the endpoint's %s: %v", r.Resource, err)
			}
			for _, it := range list.Items {
				// The label is checked here too: a server that ignored
				// the selector must not make us delete what is not ours.
				if it.GetLabels()[endpointIDLabel] == endpointID {
					out = append(out, found{r, it.GetName(), it.GetDeletionTimestamp() != nil})
				}
			}
		}
		return out, nil
	}
	return ops.Step{Name: a.Phase, Title: a.Title,
		Observe: func(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
			u, err := a.decode()
			if err != nil {
				return ops.Observation{}, err
			}
			kc, err := kube(ctx)
			if err != nil {
				return ops.Observation{}, err
			}
			left, err := find(ctx, kc, u.GetNamespace())
			if err != nil {
				return ops.Observation{}, err
			}
			if len(left) == 0 {
				return ops.Observation{State: ops.Done}, nil
			}
			names := make([]string, 0, len(left))
			going := true
			for _, f := range left {
				names = append(names, f.resource.Resource+"/"+f.name)
				going = going && f.deleting
			}
			msg := "left: " + strings.Join(names, ", ")
			if going {
				return ops.Observation{State: ops.Pending, Message: msg}, nil
			}
			return ops.Observation{State: ops.Absent, Message: msg}, nil
		},
		Apply: func(ctx context.Context, _ *ops.Run) (any, error) {
			u, err := a.decode()
			if err != nil {
				return nil, err
			}
			kc, err := kube(ctx)
			if err != nil {
				return nil, err
			}
			left, err := find(ctx, kc, u.GetNamespace())
			if err != nil {
				return nil, err
			}
			for _, f := range left {
				if err := deleteObject(ctx, kc, f.resource, u.GetNamespace(), f.name); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}}
}

type found struct {
	resource schema.GroupVersionResource
	name     string
	deleting bool
}

func deleteObject(ctx context.Context, kc *cloud.KubeClients, r schema.GroupVersionResource, ns, name string) error {
	background := metav1.DeletePropagationBackground
	err := kc.Dynamic.Resource(r).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) {
		return errs.Wrap(errs.Upstream, err, "delete %s %s/%s: %v", r.Resource, ns, name, err)
	}
	return nil
}

// kubeError is an error of the API server, as an engine error.
func kubeError(err error, what string) error {
	switch {
	case apierrors.IsNotFound(err):
		return errs.Wrap(errs.Precondition, err, "%s: the cluster does not serve the kind (%v): is its operator installed? Turn its feature on", what, err)
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		return errs.Wrap(errs.Validation, err, "%s: the API server refused it: %v", what, err)
	}
	return errs.Wrap(errs.Upstream, err, "%s: %v", what, err)
}

// toUnstructured converts a typed object.
func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "convert %T: %v", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	return u, nil
}

// objectTitle names an object for a phase's title.
func objectTitle(kind, ns, name string) string { return fmt.Sprintf("%s %s/%s", kind, ns, name) }

// verbSet sets fields of an object that must exist, leaving the rest as
// it is: an update changes a replica count or an image and nothing else.
const verbSet = "set"

// setField is one field to set: a path of map keys, where "#<i>" is the
// i-th item of a list.
type setField struct {
	Path  []string `json:"path"`
	Value any      `json:"value"`
}

// setObject is what a set action stores.
type setObject struct {
	Namespace string     `json:"namespace"`
	Name      string     `json:"name"`
	Fields    []setField `json:"fields"`
}

// field returns the value at path in obj, and whether it is there.
func field(obj any, path []string) (any, bool) {
	for _, k := range path {
		if i, ok := listIndex(k); ok {
			l, isList := obj.([]any)
			if !isList || i >= len(l) {
				return nil, false
			}
			obj = l[i]
			continue
		}
		m, isMap := obj.(map[string]any)
		if !isMap {
			return nil, false
		}
		if obj, isMap = m[k]; !isMap {
			return nil, false
		}
	}
	return obj, true
}

// setAt sets the value at path in obj, making maps on the way; a list
// item must exist.
func setAt(obj map[string]any, path []string, v any) bool {
	var cur any = obj
	for n, k := range path {
		last := n == len(path)-1
		if i, ok := listIndex(k); ok {
			l, isList := cur.([]any)
			if !isList || i >= len(l) {
				return false
			}
			if last {
				l[i] = v
				return true
			}
			cur = l[i]
			continue
		}
		m, isMap := cur.(map[string]any)
		if !isMap {
			return false
		}
		if last {
			m[k] = v
			return true
		}
		if _, ok := m[k]; !ok {
			m[k] = map[string]any{}
		}
		cur = m[k]
	}
	return false
}

func listIndex(k string) (int, bool) {
	if !strings.HasPrefix(k, "#") {
		return 0, false
	}
	var i int
	if _, err := fmt.Sscanf(k, "#%d", &i); err != nil || i < 0 {
		return 0, false
	}
	return i, true
}

// setStep sets the fields of a set action.
func setStep(a action, kube kubeOf, endpointID string) ops.Step {
	read := func(ctx context.Context) (*setObject, *unstructured.Unstructured, error) {
		var so setObject
		if err := json.Unmarshal(a.Object, &so); err != nil {
			return nil, nil, errs.Wrap(errs.Internal, err, "read the stored change of %s: %v", a.Title, err)
		}
		kc, err := kube(ctx)
		if err != nil {
			return nil, nil, err
		}
		live, err := kc.Dynamic.Resource(a.Resource).Namespace(so.Namespace).Get(ctx, so.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil, errs.New(errs.NotFound, "%s/%s is gone: the endpoint's object was deleted outside InstantStart; delete the endpoint and deploy it again", so.Namespace, so.Name)
		case err != nil:
			return nil, nil, errs.Wrap(errs.Upstream, err, "read %s: %v", a.Title, err)
		case live.GetLabels()[endpointIDLabel] != endpointID:
			return nil, nil, errs.New(errs.Conflict, "%s/%s is not this endpoint's (label %s=%q)", so.Namespace, so.Name, endpointIDLabel, live.GetLabels()[endpointIDLabel])
		}
		return &so, live, nil
	}
	return ops.Step{Name: a.Phase, Title: a.Title,
		Observe: func(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
			so, live, err := read(ctx)
			if err != nil {
				if e := errs.As(err); e.Code == errs.NotFound || e.Code == errs.Conflict {
					return ops.Observation{State: ops.Broken, Err: e}, nil
				}
				return ops.Observation{}, err
			}
			for _, f := range so.Fields {
				if v, ok := field(live.Object, f.Path); !ok || !holds(v, f.Value) {
					return ops.Observation{State: ops.Absent}, nil
				}
			}
			return ops.Observation{State: ops.Done}, nil
		},
		Apply: func(ctx context.Context, _ *ops.Run) (any, error) {
			so, live, err := read(ctx)
			if err != nil {
				return nil, err
			}
			for _, f := range so.Fields {
				if !setAt(live.Object, f.Path, normal(f.Value)) {
					return nil, errs.New(errs.Conflict, "%s has no field %s to set; it was changed outside InstantStart", a.Title, strings.Join(f.Path, "."))
				}
			}
			kc, err := kube(ctx)
			if err != nil {
				return nil, err
			}
			if _, err := kc.Dynamic.Resource(a.Resource).Namespace(so.Namespace).Update(ctx, live, metav1.UpdateOptions{}); err != nil {
				if apierrors.IsConflict(err) {
					// Changed since it was read: the next Observe reads
					// it again.
					e := errs.Wrap(errs.Upstream, err, "%s changed while it was being updated; retrying", a.Title)
					e.Retryable = true
					return nil, e
				}
				return nil, kubeError(err, "update "+a.Title)
			}
			return nil, nil
		}}
}
