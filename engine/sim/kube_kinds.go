package sim

import (
	"context"
	"net/http"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
)

// kubeKind is what the simulated API server knows of a resource: the kind
// of its objects and of their lists.
type kubeKind struct {
	Kind, ListKind string
	// Custom marks a custom resource: no strategic merge patch, as on a
	// real API server.
	Custom bool
}

// kubeCustomResources are the custom resources the control plane uses, as
// their CRDs define them (see the Kubernetes CRD section of the HyperPod
// reference). They are installed in every simulated cluster, so that the
// dynamic client can list them before any exists. Those of the Helm charts
// the simulator knows (KubeRay's, KEDA's) come from its chart catalog (see
// helmChartKinds).
var kubeCustomResources = map[schema.GroupVersionResource]string{
	{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}:                                      "NodePool",
	{Group: "karpenter.sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodnodeclasses"}:       "HyperpodNodeClass",
	{Group: "kubeflow.org", Version: "v1", Resource: "pytorchjobs"}:                                    "PyTorchJob",
	{Group: "sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodpytorchjobs"}:                 "HyperPodPyTorchJob",
	{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "inferenceendpointconfigs"}: "InferenceEndpointConfig",
	{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "jumpstartmodels"}:          "JumpStartModel",
}

// kubeResources returns every resource the simulated API server serves:
// the built-in ones of client-go's scheme, with the plural the scheme's
// kind suggests, kubeCustomResources and the custom resources of the Helm
// chart catalog. It is computed once and never changed. The scheme has no
// apiextensions.k8s.io, so CustomResourceDefinition objects are not served.
var kubeResources = sync.OnceValue(func() map[schema.GroupVersionResource]kubeKind {
	out := map[schema.GroupVersionResource]kubeKind{}
	s := clientscheme.Scheme
	for gvk := range s.AllKnownTypes() {
		kind, isList := strings.CutSuffix(gvk.Kind, "List")
		if !isList || kind == "" || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		item := gvk.GroupVersion().WithKind(kind)
		if !s.Recognizes(item) {
			continue
		}
		if list, err := s.New(gvk); err != nil || !meta.IsListType(list) {
			continue
		}
		gvr, _ := meta.UnsafeGuessKindToResource(item)
		out[gvr] = kubeKind{Kind: kind, ListKind: gvk.Kind}
	}
	for gvr, kind := range kubeCustomResources {
		out[gvr] = kubeKind{Kind: kind, ListKind: kind + "List", Custom: true}
	}
	for _, k := range helmChartKinds() {
		out[k.GVR] = kubeKind{Kind: k.Kind, ListKind: k.Kind + "List", Custom: true}
	}
	return out
})

// kubeListKinds maps every served resource to its list kind, as the fake
// dynamic client needs to list it.
func kubeListKinds() map[schema.GroupVersionResource]string {
	out := map[schema.GroupVersionResource]string{}
	for gvr, k := range kubeResources() {
		out[gvr] = k.ListKind
	}
	return out
}

// kubeNodesResource is the resource whose objects come from HyperPod.
var kubeNodesResource = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// Keys of resources the API server itself cares about.
const (
	kubeNodesKey      = "v1/nodes"
	kubeNamespacesKey = "v1/namespaces"
)

// kubeResourceKey names a resource in the world's state: "v1/nodes",
// "apps/v1/deployments", "karpenter.sh/v1/nodepools".
func kubeResourceKey(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Version + "/" + gvr.Resource
	}
	return gvr.Group + "/" + gvr.Version + "/" + gvr.Resource
}

// kubeDynamic is the fake dynamic client without its panic: listing a
// resource the simulated API does not serve fails with NotFound, as on a
// real API server.
type kubeDynamic struct{ *dynamicfake.FakeDynamicClient }

func (d kubeDynamic) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	r := d.FakeDynamicClient.Resource(gvr)
	if _, ok := kubeResources()[gvr]; ok {
		return r
	}
	return kubeUnserved{r, gvr}
}

type kubeUnserved struct {
	dynamic.NamespaceableResourceInterface
	gvr schema.GroupVersionResource
}

func (u kubeUnserved) Namespace(ns string) dynamic.ResourceInterface {
	return kubeUnservedIn{u.NamespaceableResourceInterface.Namespace(ns), u.gvr}
}

func (u kubeUnserved) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return nil, kubeNotServed(u.gvr, "list")
}

type kubeUnservedIn struct {
	dynamic.ResourceInterface
	gvr schema.GroupVersionResource
}

func (u kubeUnservedIn) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return nil, kubeNotServed(u.gvr, "list")
}

// kubeNotServed is the error for a resource the simulated API does not
// serve, as a real API server words it.
func kubeNotServed(gvr schema.GroupVersionResource, verb string) error {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, verb, gvr.GroupResource(), "", "", 0, false)
}
