package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKubeObjectLifecycle(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	f.w.ResetCalls()
	sas := kc.Core.CoreV1().ServiceAccounts("default")
	sa := ok(sas.Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
		Name: "runner", Annotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/runner"},
	}}, metav1.CreateOptions{})).must(t)
	if sa.UID == "" || sa.ResourceVersion == "" || sa.Namespace != "default" || !sa.CreationTimestamp.Time.Equal(f.clock.Now()) {
		t.Errorf("created %+v", sa.ObjectMeta)
	}
	if _, err := sas.Create(f.ctx, sa, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v", err)
	}
	if _, err := kc.Core.CoreV1().ServiceAccounts("nope").Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("create in a missing namespace: %v", err)
	}
	if _, err := sas.Create(f.ctx, &corev1.ServiceAccount{}, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("create without a name: %v", err)
	}
	gen := ok(sas.Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{GenerateName: "job-"}}, metav1.CreateOptions{})).must(t)
	if !strings.HasPrefix(gen.Name, "job-") || len(gen.Name) != len("job-")+5 {
		t.Errorf("generated name %q", gen.Name)
	}

	stale := sa.DeepCopy()
	sa.Labels = map[string]string{"team": "a"}
	updated := ok(sas.Update(f.ctx, sa, metav1.UpdateOptions{})).must(t)
	if updated.ResourceVersion == stale.ResourceVersion || updated.UID != stale.UID || updated.Labels["team"] != "a" {
		t.Errorf("updated %+v", updated.ObjectMeta)
	}
	if same := ok(sas.Update(f.ctx, updated, metav1.UpdateOptions{})).must(t); same.ResourceVersion != updated.ResourceVersion {
		t.Errorf("an update that changes nothing made version %s of %s", same.ResourceVersion, updated.ResourceVersion)
	}
	stale.Labels = map[string]string{"team": "b"}
	if _, err := sas.Update(f.ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update of a stale version: %v", err)
	}
	if got := ok(sas.List(f.ctx, metav1.ListOptions{LabelSelector: "team=a"})).must(t); len(got.Items) != 1 || got.Items[0].Name != "runner" {
		t.Errorf("list by label: %+v", got.Items)
	}
	if got := ok(sas.List(f.ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + gen.Name})).must(t); len(got.Items) != 1 {
		t.Errorf("list by field: %+v", got.Items)
	}
	if err := sas.Delete(f.ctx, "runner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sas.Get(f.ctx, "runner", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}
	if err := sas.Delete(f.ctx, "runner", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}

	want := map[string]int{
		"create serviceaccounts": 5, "update serviceaccounts": 3, "list serviceaccounts": 2,
		"delete serviceaccounts": 2, "get serviceaccounts": 1,
	}
	if got := f.w.Calls()[svcKubernetes]; !maps.Equal(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
}

func TestKubeStatusAndGeneration(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	deps := kc.Core.AppsV1().Deployments("default")
	// A Deployment Helm manages has no controller here to write its
	// status: the client does.
	web := deployment("web", 1)
	web.Labels = map[string]string{"app.kubernetes.io/managed-by": "Helm"}
	d := ok(deps.Create(f.ctx, web, metav1.CreateOptions{})).must(t)
	if d.Generation != 1 {
		t.Errorf("generation of a new deployment: %d", d.Generation)
	}
	d.Status.ReadyReplicas = 1
	d = ok(deps.UpdateStatus(f.ctx, d, metav1.UpdateOptions{})).must(t)
	if d.Status.ReadyReplicas != 1 || d.Generation != 1 {
		t.Errorf("after a status update: generation %d, status %+v", d.Generation, d.Status)
	}
	d.Spec.Replicas = aws.Int32(3)
	d.Status.ReadyReplicas = 0 // the main resource leaves the status alone
	d = ok(deps.Update(f.ctx, d, metav1.UpdateOptions{})).must(t)
	if *d.Spec.Replicas != 3 || d.Generation != 2 || d.Status.ReadyReplicas != 1 {
		t.Errorf("after a spec update: generation %d, replicas %d, status %+v", d.Generation, *d.Spec.Replicas, d.Status)
	}
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: aws.Int32(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1"}, {Name: "sidecar", Image: "envoy:1"}}},
			},
		},
	}
}

func TestKubeListPages(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	cms := kc.Core.CoreV1().ConfigMaps("default")
	for i := range 5 {
		ok(cms.Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{})).must(t)
	}
	var names []string
	opts := metav1.ListOptions{Limit: 2}
	for {
		page := ok(cms.List(f.ctx, opts)).must(t)
		for _, cm := range page.Items {
			names = append(names, cm.Name)
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	if !slices.Equal(names, []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4"}) {
		t.Errorf("pages gave %v", names)
	}
}

func TestKubeNamespaceDeletion(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	nss := kc.Core.CoreV1().Namespaces()
	ok(nss.Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{})).must(t)
	ok(kc.Core.CoreV1().ServiceAccounts("team").Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa"}}, metav1.CreateOptions{})).must(t)
	ok(kc.Dynamic.Resource(hyperPodJobs).Namespace("team").Create(f.ctx, hyperPodJob("train"), metav1.CreateOptions{})).must(t)
	ok(kc.Core.CoreV1().ServiceAccounts("default").Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa"}}, metav1.CreateOptions{})).must(t)
	if err := nss.Delete(f.ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Core.CoreV1().ServiceAccounts("team").Get(f.ctx, "sa", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("service account of a deleted namespace: %v", err)
	}
	if got := ok(kc.Dynamic.Resource(hyperPodJobs).List(f.ctx, metav1.ListOptions{})).must(t); len(got.Items) != 0 {
		t.Errorf("jobs of a deleted namespace: %v", got.Items)
	}
	if _, err := kc.Core.CoreV1().ServiceAccounts("default").Get(f.ctx, "sa", metav1.GetOptions{}); err != nil {
		t.Errorf("another namespace's service account: %v", err)
	}
	if err := nss.Delete(f.ctx, "default", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("delete of the default namespace: %v", err)
	}
}
