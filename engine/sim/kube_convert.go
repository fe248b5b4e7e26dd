package sim

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
)

// kubeInput turns an object a client sent into its stored form, with its
// kind, which must be the resource's. Built-in kinds are decoded into
// their Go types and back, so that an object sent through the dynamic
// client is checked and pruned of unknown fields as the API server does.
func kubeInput(obj runtime.Object, r kubeReq) (*unstructured.Unstructured, error) {
	var in *unstructured.Unstructured
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		in = &unstructured.Unstructured{Object: runtime.DeepCopyJSON(o.Object)}
	default:
		gvks, _, err := clientscheme.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("unknown object type %T", obj))
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		in = &unstructured.Unstructured{Object: content}
		in.SetGroupVersionKind(gvks[0])
	}
	gvk := in.GroupVersionKind()
	if gvk.Kind == "" {
		return nil, apierrors.NewBadRequest("Object 'Kind' is missing")
	}
	if gvk.GroupVersion() != r.gvr.GroupVersion() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), r.gvr.GroupVersion()))
	}
	k, served := kubeResources()[r.gvr]
	if served && gvk.Kind != k.Kind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the kind of %s (%s)", gvk.Kind, r.gvr.Resource, k.Kind))
	}
	if k.Custom {
		return in, nil
	}
	return kubeCanonical(in)
}

// kubeCanonical decodes a built-in object into its Go type and encodes it
// again.
func kubeCanonical(in *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := in.GroupVersionKind()
	typed, err := clientscheme.Scheme.New(gvk)
	if err != nil {
		return in, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(in.Object, typed); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s is invalid: %v", gvk.Kind, err))
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out := &unstructured.Unstructured{Object: content}
	out.SetGroupVersionKind(gvk)
	return out, nil
}

// kubeOutput turns a stored object into what the client expects: a typed
// object for the typed clientset, an unstructured one for the dynamic
// client.
func kubeOutput(obj *unstructured.Unstructured, typed bool) (runtime.Object, error) {
	if !typed {
		return obj.DeepCopy(), nil
	}
	out, err := clientscheme.Scheme.New(obj.GroupVersionKind())
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no Go type for %s: %w", obj.GroupVersionKind(), err))
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

// kubeOutputList builds the list of kind (the item kind, as the fakes pass
// it) that the client expects.
func kubeOutputList(r kubeReq, kind schema.GroupVersionKind, page kubePage, rv string) (runtime.Object, error) {
	listKind := kind.GroupVersion().WithKind(kind.Kind + "List")
	if !r.typed {
		list := &unstructured.UnstructuredList{Object: map[string]any{}}
		list.SetGroupVersionKind(listKind)
		list.SetResourceVersion(rv)
		list.SetContinue(page.continued)
		list.SetRemainingItemCount(page.remaining)
		for _, obj := range page.items {
			list.Items = append(list.Items, *obj.DeepCopy())
		}
		return list, nil
	}
	list, err := clientscheme.Scheme.New(listKind)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no Go type for %s: %w", listKind, err))
	}
	items := make([]runtime.Object, 0, len(page.items))
	for _, obj := range page.items {
		item, err := kubeOutput(obj, true)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	if err := meta.SetList(list, items); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	lm.SetResourceVersion(rv)
	lm.SetContinue(page.continued)
	lm.SetRemainingItemCount(page.remaining)
	return list, nil
}
