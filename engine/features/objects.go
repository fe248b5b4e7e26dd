package features

import (
	"context"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/errs"
)

// Custom resources the features make.
var (
	nodePools           = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	hyperPodNodeClasses = schema.GroupVersionResource{Group: "karpenter.sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodnodeclasses"}
)

// objectLink is a cluster-scoped custom resource whose spec the feature
// owns.
func objectLink(e *env, key, title string, gvr schema.GroupVersionResource, kind, name string, spec map[string]any) link {
	ref := gvr.Resource + "." + gvr.Group + "/" + name
	client := func(ctx context.Context) (interface {
		Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
		Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
		Update(context.Context, *unstructured.Unstructured, metav1.UpdateOptions, ...string) (*unstructured.Unstructured, error)
		Delete(context.Context, string, metav1.DeleteOptions, ...string) error
	}, error) {
		kc, err := e.p.KubeOf(ctx, e.c.EKS.Name)
		if err != nil {
			return nil, err
		}
		return kc.Dynamic.Resource(gvr), nil
	}
	return link{key: key, title: title, kind: "KUBERNETES_OBJECT", timeout: 5 * time.Minute,
		state: func(ctx context.Context) (linkState, error) {
			c, err := client(ctx)
			if err != nil {
				return linkState{}, err
			}
			obj, err := c.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return linkState{}, nil
			}
			if err != nil {
				return linkState{}, errs.Wrap(errs.Upstream, err, "read %s: %v", ref, err)
			}
			have, _, _ := unstructured.NestedMap(obj.Object, "spec")
			return linkState{present: true, settled: obj.GetDeletionTimestamp() == nil, matches: sameJSON(have, spec), ref: ref}, nil
		},
		create: func(ctx context.Context) error {
			c, err := client(ctx)
			if err != nil {
				return err
			}
			obj, err := c.Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				obj = &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": kind,
					"metadata": map[string]any{"name": name, "labels": map[string]any{"app.kubernetes.io/managed-by": "instantstart"}}, "spec": spec}}
				_, err = c.Create(ctx, obj, metav1.CreateOptions{})
			case err == nil:
				obj.Object["spec"] = spec
				_, err = c.Update(ctx, obj, metav1.UpdateOptions{})
			}
			if err != nil {
				return errs.Wrap(errs.Upstream, err, "write %s: %v", ref, err)
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			c, err := client(ctx)
			if err != nil {
				return err
			}
			if err := c.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return errs.Wrap(errs.Upstream, err, "delete %s: %v", ref, err)
			}
			return nil
		},
	}
}

// sameJSON compares two JSON-shaped values, numbers by value.
func sameJSON(a, b map[string]any) bool {
	return reflect.DeepEqual(normalize(a), normalize(b))
}

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = normalize(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = normalize(v)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = v
		}
		return out
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	}
	return v
}
