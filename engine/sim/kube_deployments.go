package sim

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The Deployment controller (apps/v1 Deployments), as a settle plays it
// after the Job controller and before the scheduler binds pods:
//
//   - a Deployment's pods are those it controls (its owner reference; the
//     ReplicaSet between them is not simulated), labelled as its template
//     is plus pod-template-hash, a hash of the template, and named
//     <deployment>-<hash>-<5 characters>;
//   - pods of the current template are made up to spec.replicas (default
//     1), and the newest are deleted past it; a pod that failed, or went
//     with its node, is replaced;
//   - a changed template rolls: pods of the new template are made, and
//     the old ones deleted once the new ones are all ready (maxSurge 100%);
//   - a pod whose Deployment is gone is deleted, as the garbage collector
//     does;
//   - the status follows: replicas, updatedReplicas, readyReplicas,
//     availableReplicas, unavailableReplicas, observedGeneration, and the
//     Available and Progressing conditions.
//
// Deployments that Helm renders (labelled app.kubernetes.io/managed-by
// Helm) are the Helm side's (helm_workloads.go): they have no pods here.
// Left out: ReplicaSet objects and revisions, minReadySeconds,
// progressDeadlineSeconds, maxUnavailable, the Recreate strategy and
// paused Deployments.

// kubeTemplateHashLabel is the label of a pod's template hash.
const kubeTemplateHashLabel = "pod-template-hash"

// kubeDeployment is a stored Deployment, decoded.
type kubeDeployment struct {
	obj *unstructured.Unstructured
	dep appsv1.Deployment
}

// playDeployments plays the Deployment controller (see the top of this
// file).
func (sc *kubeScheduler) playDeployments() error {
	s := sc.s
	objs, err := s.list(kubeDeploymentsKey, "")
	if err != nil {
		return err
	}
	present := map[string]bool{}
	var deps []*kubeDeployment
	for _, obj := range objs {
		if obj.GetLabels()[helmManagedBy] == "Helm" {
			continue
		}
		d := &kubeDeployment{obj: obj}
		if err := kubeDecodeAs(obj, &d.dep); err != nil {
			return err
		}
		deps = append(deps, d)
		present[string(d.dep.UID)] = true
	}
	owned := map[string][]*kubeSchedPod{}
	for _, p := range slices.Clone(sc.pods) {
		switch owner := kubeDeploymentOwner(&p.pod); {
		case owner == "":
		case !present[owner]:
			sc.drop(p)
		default:
			owned[owner] = append(owned[owner], p)
		}
	}
	for _, d := range deps {
		if err := sc.syncDeployment(d, owned[string(d.dep.UID)]); err != nil {
			return err
		}
	}
	return nil
}

// kubeDeploymentOwner is the uid of the Deployment that controls pod.
func kubeDeploymentOwner(pod *corev1.Pod) string {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "Deployment" && o.APIVersion == "apps/v1" && o.Controller != nil && *o.Controller {
			return string(o.UID)
		}
	}
	return ""
}

// kubeTemplateHash is the hash of a pod template, as pod-template-hash.
func kubeTemplateHash(t *corev1.PodTemplateSpec) string {
	raw, _ := json.Marshal(t)
	h := fnv.New64a()
	h.Write(raw)
	sum := h.Sum64()
	b := make([]byte, 10)
	for i := range b {
		b[i] = kubePodSuffixAlphabet[sum%uint64(len(kubePodSuffixAlphabet))]
		sum /= uint64(len(kubePodSuffixAlphabet))
	}
	return string(b)
}

// syncDeployment brings one Deployment, which owns pods owned, up to the
// settle's moment.
func (sc *kubeScheduler) syncDeployment(d *kubeDeployment, owned []*kubeSchedPod) error {
	dep := &d.dep
	want := int32(1)
	if dep.Spec.Replicas != nil {
		want = *dep.Spec.Replicas
	}
	hash := kubeTemplateHash(&dep.Spec.Template)
	var current, old []*kubeSchedPod
	for _, p := range owned {
		switch {
		case !p.active():
			sc.drop(p) // failed: the ReplicaSet replaces it
		case p.pod.Labels[kubeTemplateHashLabel] == hash:
			current = append(current, p)
		default:
			old = append(old, p)
		}
	}
	for int32(len(current)) < want {
		p, err := sc.makeDeploymentPod(dep, hash)
		if err != nil {
			return err
		}
		current = append(current, p)
	}
	// The newest go first on scale-down.
	slices.SortFunc(current, func(a, b *kubeSchedPod) int {
		return b.pod.CreationTimestamp.Compare(a.pod.CreationTimestamp.Time)
	})
	for int32(len(current)) > want {
		sc.drop(current[0])
		current = current[1:]
	}
	ready := func(ps []*kubeSchedPod) int32 {
		n := int32(0)
		for _, p := range ps {
			if kubePodReady(&p.pod) {
				n++
			}
		}
		return n
	}
	if ready(current) >= want {
		for _, p := range old {
			sc.drop(p)
		}
		old = nil
	}
	st := appsv1.DeploymentStatus{
		ObservedGeneration: dep.Generation,
		Replicas:           int32(len(current) + len(old)),
		UpdatedReplicas:    int32(len(current)),
		ReadyReplicas:      ready(current) + ready(old),
	}
	st.AvailableReplicas = st.ReadyReplicas
	st.UnavailableReplicas = max(0, want-st.AvailableReplicas)
	now := metav1.NewTime(sc.s.t.now)
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable",
		Message: "Deployment does not have minimum availability.", LastUpdateTime: now, LastTransitionTime: now}
	if st.AvailableReplicas >= want {
		available.Status, available.Reason, available.Message = corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability."
	}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated",
		Message: fmt.Sprintf("ReplicaSet %q is progressing.", dep.Name+"-"+hash), LastUpdateTime: now, LastTransitionTime: now}
	if len(old) == 0 && st.ReadyReplicas >= want {
		progressing.Reason, progressing.Message = "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", dep.Name+"-"+hash)
	}
	for _, c := range []*appsv1.DeploymentCondition{&available, &progressing} {
		for _, was := range dep.Status.Conditions {
			if was.Type == c.Type && was.Status == c.Status {
				c.LastTransitionTime = was.LastTransitionTime
				if was.Reason == c.Reason {
					c.LastUpdateTime = was.LastUpdateTime
				}
			}
		}
		st.Conditions = append(st.Conditions, *c)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		panic(fmt.Sprintf("sim: encode the status of Deployment %s/%s: %v", dep.Namespace, dep.Name, err))
	}
	next := d.obj.DeepCopy()
	next.Object["status"] = content
	d.obj = sc.s.put(kubeDeploymentsKey, d.obj, next)
	return nil
}

// makeDeploymentPod creates a pod of the Deployment's template.
func (sc *kubeScheduler) makeDeploymentPod(dep *appsv1.Deployment, hash string) (*kubeSchedPod, error) {
	s := sc.s
	tmpl := dep.Spec.Template.DeepCopy()
	labels := maps.Clone(tmpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[kubeTemplateHashLabel] = hash
	base := dep.Name + "-" + hash + "-"
	if len(base) > 58 {
		base = base[:58]
	}
	name := base + s.t.drawString(kubePodSuffixAlphabet, 5)
	for s.rec.Objects[kubePodsKey][kubeObjectKey(dep.Namespace, name)] != nil {
		name = base + s.t.drawString(kubePodSuffixAlphabet, 5)
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: base, Namespace: dep.Namespace, Labels: labels, Annotations: tmpl.Annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID,
				Controller: new(true), BlockOwnerDeletion: new(true)}},
		},
		Spec: tmpl.Spec,
	}
	return sc.createPod(pod)
}
