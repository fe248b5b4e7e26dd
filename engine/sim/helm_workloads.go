package sim

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The Kubernetes side of a Helm release: the Deployments and DaemonSets its
// chart renders, labelled and annotated as Helm labels what it manages.
// There is no Deployment or DaemonSet controller in the simulator and the
// workloads make no pods: their status says what the release's progress
// implies, unavailable while the revision is pending and available once it
// is deployed (a DaemonSet then counts a pod on each node of that moment).

// Resource keys of the workloads charts render.
const (
	kubeDeploymentsKey = "apps/v1/deployments"
	kubeDaemonSetsKey  = "apps/v1/daemonsets"
)

// Labels and annotations Helm puts on what it manages.
const (
	helmManagedBy        = "app.kubernetes.io/managed-by"
	helmInstance         = "app.kubernetes.io/instance"
	helmChartLabel       = "helm.sh/chart"
	helmReleaseName      = "meta.helm.sh/release-name"
	helmReleaseNamespace = "meta.helm.sh/release-namespace"
)

// helmKube opens the Kubernetes API of the ACTIVE cluster c of region for
// Helm's writes, and has the call tell the API's watchers of them once the
// world is saved.
func (t *txn) helmKube(region string, c *eksClusterRec) *kubeSession {
	rt := &txn{w: t.w, st: t.st, region: region, rs: t.st.regionState(region), now: t.now}
	srv := t.st.kube().servers[kubeClusterKey(region, c.Name)]
	if srv != nil && srv.eksID != c.ID {
		srv = nil
	}
	s := &kubeSession{t: rt, rec: rt.kubeCluster(c), eks: c, server: srv}
	t.afterSave = append(t.afterSave, s.publish)
	return s
}

// helmRender renders the Deployments and DaemonSets of version of chart
// for a release.
func helmRender(chart *helmChart, version, release, ns string, values map[string]any) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, w := range chart.Workloads {
		name := w.Name
		if w.FullName {
			name = helmFullName(release, w.Name, values)
		}
		labels := map[string]string{
			"app.kubernetes.io/name":    w.Name,
			helmInstance:                release,
			helmManagedBy:               "Helm",
			"app.kubernetes.io/version": chart.appVersion(version),
			helmChartLabel:              chart.Name + "-" + version,
		}
		meta := metav1.ObjectMeta{
			Name: name, Namespace: ns, Labels: labels,
			Annotations: map[string]string{helmReleaseName: release, helmReleaseNamespace: ns},
		}
		selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": w.Name, helmInstance: release}}
		template := corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
			Spec: corev1.PodSpec{
				ServiceAccountName: name,
				Containers:         []corev1.Container{{Name: w.Name, Image: fmt.Sprintf(w.Image, chart.appVersion(version))}},
			},
		}
		var obj runtime.Object = &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: meta,
			Spec:       appsv1.DeploymentSpec{Replicas: new(int32(1)), Selector: selector, Template: template},
		}
		if w.DaemonSet {
			template.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
			obj = &appsv1.DaemonSet{
				TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
				ObjectMeta: meta,
				Spec:       appsv1.DaemonSetSpec{Selector: selector, Template: template},
			}
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", name, err)
		}
		out = append(out, &unstructured.Unstructured{Object: content})
	}
	return out, nil
}

// helmWorkloadKey is the resource key of a rendered workload of kind.
func helmWorkloadKey(kind string) string {
	if kind == "DaemonSet" {
		return kubeDaemonSetsKey
	}
	return kubeDeploymentsKey
}

// helmOwns tells whether obj belongs to the release name of namespace ns.
func helmOwns(obj *unstructured.Unstructured, name, ns string) bool {
	a := obj.GetAnnotations()
	return a[helmReleaseName] == name && a[helmReleaseNamespace] == ns
}

// helmCheckOwnership refuses, as Helm does, to take over an object that
// exists but belongs to no release or to another.
func (s *kubeSession) helmCheckOwnership(objs []*unstructured.Unstructured, name, ns, verb string) error {
	for _, obj := range objs {
		cur, err := s.get(helmWorkloadKey(obj.GetKind()), ns, obj.GetName())
		if err != nil {
			return err
		}
		if cur == nil || helmOwns(cur, name, ns) {
			continue
		}
		owner := cur.GetAnnotations()[helmReleaseName]
		why := fmt.Sprintf("missing key %q: must be set to %q", helmReleaseName, name)
		if owner != "" {
			why = fmt.Sprintf("key %q must equal %q: current value is %q", helmReleaseName, name, owner)
		}
		return fmt.Errorf("rendered manifests contain a resource that already exists. Unable to continue with %s: %s %q in namespace %q exists and cannot be imported into the current release: invalid ownership metadata; annotation validation error: %s",
			verb, obj.GetKind(), cur.GetName(), ns, why)
	}
	return nil
}

// helmEnsureNamespace creates namespace ns when it is missing, as Helm's
// --create-namespace does.
func (s *kubeSession) helmEnsureNamespace(ns string) error {
	cur, err := s.get(kubeNamespacesKey, "", ns)
	if err != nil || cur != nil {
		return err
	}
	s.put(kubeNamespacesKey, nil, s.stamp(kubeNamespace(ns), s.t.now))
	return nil
}

// helmApply creates or updates the rendered workloads of a new revision.
// A new one is unavailable until the revision is deployed; one whose
// template changes stays available as it was (its old pods serve while
// the new ones roll out) but is no longer up to date.
func (s *kubeSession) helmApply(objs []*unstructured.Unstructured) error {
	for _, obj := range objs {
		key := helmWorkloadKey(obj.GetKind())
		cur, err := s.get(key, obj.GetNamespace(), obj.GetName())
		if err != nil {
			return err
		}
		if cur == nil {
			next := s.stamp(obj, s.t.now)
			next.Object["status"] = s.helmWorkloadStatus(next, false, false, s.t.now)
			s.put(key, nil, next)
			continue
		}
		next := cur.DeepCopy()
		next.SetLabels(helmMerge(cur.GetLabels(), obj.GetLabels()))
		next.SetAnnotations(helmMerge(cur.GetAnnotations(), obj.GetAnnotations()))
		if !reflect.DeepEqual(cur.Object["spec"], obj.Object["spec"]) {
			next.Object["spec"] = obj.Object["spec"]
			next.SetGeneration(cur.GetGeneration() + 1)
			available := helmAvailable(cur)
			next.Object["status"] = s.helmWorkloadStatus(next, available, false, s.t.now)
		}
		s.put(key, cur, next)
	}
	return nil
}

// helmMarkAvailable makes the workloads of release r available and up
// to date, as of the moment its revision was deployed.
func (s *kubeSession) helmMarkAvailable(r *helmReleaseRec) {
	all := r.workloads()
	for _, key := range sortedKeys(all) {
		for _, name := range all[key] {
			cur, err := s.get(key, r.Namespace, name)
			if err != nil || cur == nil || !helmOwns(cur, r.Name, r.Namespace) {
				continue
			}
			next := cur.DeepCopy()
			next.Object["status"] = s.helmWorkloadStatus(next, true, true, r.Life.ReadyAt)
			s.put(key, cur, next)
		}
	}
}

// helmRemoveWorkloads deletes the workloads of gone (by resource key) that
// release r owns.
func (s *kubeSession) helmRemoveWorkloads(r *helmReleaseRec, gone map[string][]string) {
	for _, key := range sortedKeys(gone) {
		for _, name := range gone[key] {
			cur, err := s.get(key, r.Namespace, name)
			if err == nil && cur != nil && helmOwns(cur, r.Name, r.Namespace) {
				s.remove(key, cur)
			}
		}
	}
}

// helmWorkloadStatus is the status of workload d: a Deployment's (see
// helmDeploymentStatus) or a DaemonSet's, with a pod on each node when
// available.
func (s *kubeSession) helmWorkloadStatus(d *unstructured.Unstructured, available, current bool, at time.Time) map[string]any {
	if d.GetKind() != "DaemonSet" {
		return helmDeploymentStatus(d, available, current, at)
	}
	nodes, _ := s.list(kubeNodesKey, "")
	n := int32(len(nodes))
	st := appsv1.DaemonSetStatus{ObservedGeneration: d.GetGeneration(), DesiredNumberScheduled: n, CurrentNumberScheduled: n, NumberUnavailable: n}
	if available {
		st.NumberReady, st.NumberAvailable, st.NumberUnavailable = n, n, 0
	}
	if current {
		st.UpdatedNumberScheduled = n
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		// A DaemonSetStatus always converts.
		panic(fmt.Sprintf("sim: encode a daemonset status: %v", err))
	}
	return out
}

// helmAvailable tells whether the stored workload obj reports an
// available replica (a Deployment) or pod (a DaemonSet).
func helmAvailable(obj *unstructured.Unstructured) bool {
	field := "availableReplicas"
	if obj.GetKind() == "DaemonSet" {
		field = "numberAvailable"
	}
	n, _, _ := unstructured.NestedInt64(obj.Object, "status", field)
	return n > 0
}

// helmDeploymentStatus is the status the Deployment controller reports of
// the one-replica Deployment d: its pod available or not, of the current
// template or not, as of at.
func helmDeploymentStatus(d *unstructured.Unstructured, available, current bool, at time.Time) map[string]any {
	var n int32
	if available {
		n = 1
	}
	rs := fmt.Sprintf("%s-%s", d.GetName(), helmTemplateHash(d))
	st := appsv1.DeploymentStatus{
		ObservedGeneration: d.GetGeneration(), Replicas: 1, ReadyReplicas: n, AvailableReplicas: n, UnavailableReplicas: 1 - n,
	}
	if current {
		st.UpdatedReplicas = 1
	}
	when := metav1.NewTime(at)
	avail := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, LastUpdateTime: when, LastTransitionTime: when,
		Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability.",
	}
	if available {
		avail.Status, avail.Reason, avail.Message = corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability."
	}
	progress := appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: when, LastTransitionTime: when,
		Reason: "ReplicaSetUpdated", Message: fmt.Sprintf("ReplicaSet %q is progressing.", rs),
	}
	if available && current {
		progress.Reason, progress.Message = "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs)
	}
	st.Conditions = []appsv1.DeploymentCondition{avail, progress}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		// A DeploymentStatus always converts.
		panic(fmt.Sprintf("sim: encode a deployment status: %v", err))
	}
	return out
}

// helmTemplateHash stands for the pod-template-hash of d's ReplicaSet: a
// short name derived from its pod template.
func helmTemplateHash(d *unstructured.Unstructured) string {
	raw, _ := json.Marshal(d.Object["spec"])
	h := fnv.New64a()
	h.Write(raw)
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	v := h.Sum64()
	b := make([]byte, 10)
	for i := range b {
		b[i] = alphabet[v%uint64(len(alphabet))]
		v /= uint64(len(alphabet))
	}
	return string(b)
}

// helmMerge returns a copy of base with over's entries set on it.
func helmMerge(base, over map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}
