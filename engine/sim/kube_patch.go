package sim

import (
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
)

// kubePatched applies a patch to cur. Server-side apply is approximated: the
// configuration is merged into the object (strategically for built-in
// kinds) with no field ownership.
func kubePatched(r kubeReq, cur *unstructured.Unstructured, pt types.PatchType, patch []byte) (*unstructured.Unstructured, error) {
	k, _ := r.kind()
	old, err := json.Marshal(cur.Object)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var merged []byte
	switch pt {
	case types.JSONPatchType:
		var p jsonpatch.Patch
		if p, err = jsonpatch.DecodePatch(patch); err == nil {
			merged, err = p.Apply(old)
		}
	case types.MergePatchType:
		merged, err = jsonpatch.MergePatch(old, patch)
	case types.StrategicMergePatchType, types.ApplyPatchType:
		if pt == types.ApplyPatchType {
			if patch, err = utilyaml.ToJSON(patch); err != nil {
				break
			}
		}
		if k.Custom {
			if pt == types.StrategicMergePatchType {
				return nil, kubeUnsupportedPatch(pt)
			}
			merged, err = jsonpatch.MergePatch(old, patch)
			break
		}
		var schemaObj runtime.Object
		if schemaObj, err = clientscheme.Scheme.New(cur.GroupVersionKind()); err == nil {
			merged, err = strategicpatch.StrategicMergePatch(old, patch, schemaObj)
		}
	default:
		return nil, kubeUnsupportedPatch(pt)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the patch could not be applied: %v", err))
	}
	out := map[string]any{}
	if err := utiljson.Unmarshal(merged, &out); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the patched object is not valid JSON: %v", err))
	}
	next := &unstructured.Unstructured{Object: out}
	if !k.Custom {
		return kubeCanonical(next)
	}
	return next, nil
}

func kubeUnsupportedPatch(pt types.PatchType) error {
	return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "patch", schema.GroupResource{}, "", fmt.Sprintf(
		"the body of the request was in an unknown format (%s) - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml", pt), 0, false)
}

// kubeApplied is the object an apply patch creates.
func kubeApplied(r kubeReq, p k8stesting.PatchActionImpl) (*unstructured.Unstructured, error) {
	data, err := utilyaml.ToJSON(p.Patch)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the apply configuration is not valid YAML or JSON: %v", err))
	}
	cfg := map[string]any{}
	if err := utiljson.Unmarshal(data, &cfg); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the apply configuration is not an object: %v", err))
	}
	in := &unstructured.Unstructured{Object: cfg}
	if in.GetName() == "" {
		in.SetName(p.Name)
	}
	return kubeInput(in, r)
}
