package sim

import (
	"fmt"
	"reflect"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8stesting "k8s.io/client-go/testing"
)

// kubeReq is one request as a fake client hands it over.
type kubeReq struct {
	verb, sub string
	gvr       schema.GroupVersionResource
	res       string // kubeResourceKey(gvr)
	ns        string
	// typed tells whether the request came from the typed clientset,
	// which wants typed objects back, or from the dynamic client.
	typed bool
}

func newKubeReq(action k8stesting.Action, typed bool) kubeReq {
	gvr := action.GetResource()
	return kubeReq{verb: action.GetVerb(), sub: action.GetSubresource(), gvr: gvr, res: kubeResourceKey(gvr), ns: action.GetNamespace(), typed: typed}
}

// op is the request's name in the call counters: "list nodes", "update
// deployments/status".
func (r kubeReq) op() string {
	verb := r.verb
	if verb == "delete-collection" {
		verb = "deletecollection"
	}
	if r.sub != "" {
		return verb + " " + r.gvr.Resource + "/" + r.sub
	}
	return verb + " " + r.gvr.Resource
}

// kind is what the API serves for the request's resource. The typed
// clientset reaches only built-in resources, some with plurals the kind
// table cannot guess, so its requests are not checked against the table.
func (r kubeReq) kind() (kubeKind, error) {
	k, ok := kubeResources()[r.gvr]
	if !ok && !r.typed {
		return k, kubeNotServed(r.gvr, r.verb)
	}
	return k, nil
}

// serve answers a request other than a watch.
func (srv *kubeServer) serve(action k8stesting.Action, typed bool) (runtime.Object, error) {
	r := newKubeReq(action, typed)
	if _, err := r.kind(); err != nil {
		return nil, err
	}
	if r.sub != "" && r.sub != "status" {
		return nil, apierrors.NewMethodNotSupported(r.gvr.GroupResource(), r.verb+" "+r.sub)
	}
	if r.gvr == kubeNodesResource {
		return srv.serveNode(action, r)
	}
	var out runtime.Object
	err := srv.call(r.op(), func(s *kubeSession) error {
		var err error
		out, err = s.serve(action, r)
		return err
	})
	return out, err
}

// serve answers a request on the stored objects.
func (s *kubeSession) serve(action k8stesting.Action, r kubeReq) (runtime.Object, error) {
	switch a := action.(type) {
	case k8stesting.GetActionImpl:
		cur, err := s.mustGet(r, a.Name)
		if err != nil {
			return nil, err
		}
		return kubeOutput(cur, r.typed)
	case k8stesting.ListActionImpl:
		return s.serveList(r, a.Kind, a.ListOptions)
	case k8stesting.CreateActionImpl:
		if r.sub != "" {
			return nil, apierrors.NewMethodNotSupported(r.gvr.GroupResource(), "create "+r.sub)
		}
		in, err := kubeInput(a.Object, r)
		if err != nil {
			return nil, err
		}
		obj, err := s.create(r, in, kubeDryRun(a.CreateOptions.DryRun))
		if err != nil {
			return nil, err
		}
		return kubeOutput(obj, r.typed)
	case k8stesting.UpdateActionImpl, k8stesting.PatchActionImpl:
		obj, err := s.modify(r, action)
		if err != nil {
			return nil, err
		}
		return kubeOutput(obj, r.typed)
	case k8stesting.DeleteActionImpl:
		return nil, s.delete(r, a.Name, a.DeleteOptions)
	case k8stesting.DeleteCollectionActionImpl:
		return nil, s.deleteCollection(r, a.ListOptions, a.DeleteOptions)
	}
	return nil, apierrors.NewMethodNotSupported(r.gvr.GroupResource(), r.verb)
}

func (s *kubeSession) mustGet(r kubeReq, name string) (*unstructured.Unstructured, error) {
	cur, err := s.get(r.res, r.ns, name)
	if err == nil && cur == nil {
		err = apierrors.NewNotFound(r.gvr.GroupResource(), name)
	}
	return cur, err
}

func (s *kubeSession) serveList(r kubeReq, kind schema.GroupVersionKind, opts metav1.ListOptions) (runtime.Object, error) {
	items, err := s.selectObjects(r, opts)
	if err != nil {
		return nil, err
	}
	// A real API server may return fewer items than a limit asks for, with
	// a continue token; without a limit it returns them all.
	if size := s.t.pageSize(svcKubernetes, r.op(), nil); size != nil && opts.Limit > int64(*size) {
		opts.Limit = int64(*size)
	}
	page, err := paginate(items, opts)
	if err != nil {
		return nil, err
	}
	return kubeOutputList(r, kind, page, strconv.FormatUint(s.rec.RV, 10))
}

// selectObjects returns the objects of a list or delete-collection request.
func (s *kubeSession) selectObjects(r kubeReq, opts metav1.ListOptions) ([]*unstructured.Unstructured, error) {
	f, err := newKubeFilter(opts)
	if err != nil {
		return nil, err
	}
	all, err := s.list(r.res, r.ns)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, obj := range all {
		if f.matches(obj) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// create stores a new object, as an API server does: the namespace must
// exist, the name must be free, and the server sets the object's uid,
// creation time and version.
func (s *kubeSession) create(r kubeReq, in *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	gr := r.gvr.GroupResource()
	if in.GetName() == "" {
		prefix := in.GetGenerateName()
		if prefix == "" {
			return nil, apierrors.NewInvalid(in.GroupVersionKind().GroupKind(), "", field.ErrorList{
				field.Required(field.NewPath("metadata", "name"), "name or generateName is required"),
			})
		}
		in.SetName(prefix + s.t.randString("bcdfghjklmnpqrstvwxz2456789", 5))
	}
	if err := kubeSameNamespace(r, in); err != nil {
		return nil, err
	}
	if r.ns != "" {
		ns, err := s.get(kubeNamespacesKey, "", r.ns)
		if err != nil {
			return nil, err
		}
		if ns == nil {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, r.ns)
		}
	}
	cur, err := s.get(r.res, r.ns, in.GetName())
	if err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, apierrors.NewAlreadyExists(gr, in.GetName())
	}
	obj := s.stamp(in, s.t.now)
	if dryRun {
		return obj, nil
	}
	return s.put(r.res, nil, obj), nil
}

// kubeSameNamespace puts an object without a namespace in the request's,
// and refuses one whose namespace differs.
func kubeSameNamespace(r kubeReq, obj *unstructured.Unstructured) error {
	switch obj.GetNamespace() {
	case r.ns:
		return nil
	case "":
		obj.SetNamespace(r.ns)
		return nil
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the namespace of the provided object (%s) does not match the namespace sent on the request (%s)", obj.GetNamespace(), r.ns))
}

// modify answers an update or a patch. An apply patch of a missing object
// creates it.
func (s *kubeSession) modify(r kubeReq, action k8stesting.Action) (*unstructured.Unstructured, error) {
	name, dryRun := kubeTarget(action)
	cur, err := s.get(r.res, r.ns, name)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		if p, ok := action.(k8stesting.PatchActionImpl); ok && p.PatchType == types.ApplyPatchType && r.sub == "" {
			in, err := kubeApplied(r, p)
			if err != nil {
				return nil, err
			}
			return s.create(r, in, dryRun)
		}
		return nil, apierrors.NewNotFound(r.gvr.GroupResource(), name)
	}
	next, err := kubeNextVersion(r, action, cur)
	if err != nil || dryRun {
		return next, err
	}
	return s.put(r.res, cur, next), nil
}

// kubeTarget returns the name an update or patch is for, and whether it is
// a dry run.
func kubeTarget(action k8stesting.Action) (string, bool) {
	switch a := action.(type) {
	case k8stesting.UpdateActionImpl:
		name := ""
		if m, err := meta.Accessor(a.Object); err == nil {
			name = m.GetName()
		}
		return name, kubeDryRun(a.UpdateOptions.DryRun)
	case k8stesting.PatchActionImpl:
		return a.Name, kubeDryRun(a.PatchOptions.DryRun)
	}
	return "", false
}

func kubeDryRun(dryRun []string) bool { return len(dryRun) > 0 }

// kubeNextVersion is the object an update or patch makes of cur, checked as
// an API server checks it: a resourceVersion sent must be cur's; the name,
// uid and creation time stay; the main resource leaves the status alone
// and the status subresource changes nothing else; a change of spec bumps
// the generation.
func kubeNextVersion(r kubeReq, action k8stesting.Action, cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gr := r.gvr.GroupResource()
	var next *unstructured.Unstructured
	var err error
	switch a := action.(type) {
	case k8stesting.UpdateActionImpl:
		next, err = kubeInput(a.Object, r)
	case k8stesting.PatchActionImpl:
		next, err = kubePatched(r, cur, a.PatchType, a.Patch)
	default:
		err = apierrors.NewMethodNotSupported(gr, r.verb)
	}
	if err != nil {
		return nil, err
	}
	if rv := next.GetResourceVersion(); rv != "" && rv != cur.GetResourceVersion() {
		return nil, apierrors.NewConflict(gr, cur.GetName(), fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if next.GetName() != cur.GetName() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", next.GetName(), cur.GetName()))
	}
	if err := kubeSameNamespace(r, next); err != nil {
		return nil, err
	}
	if r.sub == "status" {
		status, ok := next.Object["status"]
		next = cur.DeepCopy()
		delete(next.Object, "status")
		if ok {
			next.Object["status"] = status
		}
	} else {
		delete(next.Object, "status")
		if status, ok := cur.Object["status"]; ok {
			next.Object["status"] = runtime.DeepCopyJSONValue(status)
		}
	}
	next.SetAPIVersion(cur.GetAPIVersion())
	next.SetKind(cur.GetKind())
	next.SetUID(cur.GetUID())
	next.SetCreationTimestamp(cur.GetCreationTimestamp())
	next.SetManagedFields(nil)
	next.SetGeneration(cur.GetGeneration())
	if !reflect.DeepEqual(next.Object["spec"], cur.Object["spec"]) {
		next.SetGeneration(cur.GetGeneration() + 1)
	}
	return next, nil
}

// delete removes an object. Deleting a namespace deletes what is in it;
// the default ones cannot be deleted. Finalizers and owner references are
// not honoured: the object goes at once; of its dependents, only a
// Job's pods go after it, deleted by the Job controller's next settle
// (kube_jobs.go).
func (s *kubeSession) delete(r kubeReq, name string, opts metav1.DeleteOptions) error {
	cur, err := s.mustGet(r, name)
	if err != nil {
		return err
	}
	if p := opts.Preconditions; p != nil {
		if (p.UID != nil && *p.UID != cur.GetUID()) || (p.ResourceVersion != nil && *p.ResourceVersion != cur.GetResourceVersion()) {
			return apierrors.NewConflict(r.gvr.GroupResource(), name, fmt.Errorf("the precondition of the delete does not hold"))
		}
	}
	if kubeDryRun(opts.DryRun) {
		return nil
	}
	if r.res == kubeNamespacesKey {
		for _, ns := range kubeDefaultNamespaces {
			if ns == name {
				return apierrors.NewForbidden(r.gvr.GroupResource(), name, fmt.Errorf("this namespace may not be deleted"))
			}
		}
		for res := range s.rec.Objects {
			inside, err := s.list(res, name)
			if err != nil {
				return err
			}
			for _, obj := range inside {
				s.remove(res, obj)
			}
		}
	}
	s.remove(r.res, cur)
	if r.res == kubeNodesKey {
		delete(s.rec.NodeOwned, name)
	}
	return nil
}

func (s *kubeSession) deleteCollection(r kubeReq, listOpts metav1.ListOptions, opts metav1.DeleteOptions) error {
	objs, err := s.selectObjects(r, listOpts)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := s.delete(r, obj.GetName(), opts); err != nil && !apierrors.IsForbidden(err) {
			return err
		}
	}
	return nil
}
