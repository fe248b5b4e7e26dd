package sim

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
)

// servingDeployment is a plain Deployment of replicas pods of image.
func servingDeployment(name, image string, replicas int32) *appsv1.Deployment {
	l := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: l},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}}}}}
}

func (f *fixture) deploymentPods(kc *cloud.KubeClients, name string) []corev1.Pod {
	f.t.Helper()
	return ok(kc.Core.CoreV1().Pods("default").List(f.ctx, metav1.ListOptions{LabelSelector: "app=" + name})).must(f.t).Items
}

// TestDeploymentScalesAndRolls: a Deployment gets its replicas' pods,
// Ready once they run; scaled down it loses its newest; a new template
// replaces every pod once the new ones are ready.
func TestDeploymentScalesAndRolls(t *testing.T) {
	f, kc := inferenceFixture(t)
	deps := kc.Core.AppsV1().Deployments("default")
	ok(deps.Create(f.ctx, servingDeployment("web", "nginx:1", 3), metav1.CreateOptions{})).must(t)
	f.advance(time.Minute)
	d := ok(deps.Get(f.ctx, "web", metav1.GetOptions{})).must(t)
	if d.Status.ReadyReplicas != 3 || d.Status.UpdatedReplicas != 3 || len(f.deploymentPods(kc, "web")) != 3 {
		t.Fatalf("status %+v", d.Status)
	}
	d.Spec.Replicas = new(int32(1))
	ok(deps.Update(f.ctx, d, metav1.UpdateOptions{})).must(t)
	if n := len(f.deploymentPods(kc, "web")); n != 1 {
		t.Fatalf("%d pods after scaling to 1", n)
	}
	d = ok(deps.Get(f.ctx, "web", metav1.GetOptions{})).must(t)
	old := f.deploymentPods(kc, "web")[0].Name
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	ok(deps.Update(f.ctx, d, metav1.UpdateOptions{})).must(t)
	f.advance(time.Minute)
	pods := f.deploymentPods(kc, "web")
	if len(pods) != 1 || pods[0].Name == old || pods[0].Spec.Containers[0].Image != "nginx:2" {
		t.Fatalf("after the rollout: %d pods, %s", len(pods), pods[0].Name)
	}
	if err := deps.Delete(f.ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.advance(time.Second)
	if n := len(f.deploymentPods(kc, "web")); n != 0 {
		t.Fatalf("%d pods left with their Deployment gone", n)
	}
}

// TestImagePullFaultKeepsPodsPending: an image that cannot be pulled
// leaves the pod Pending with ErrImagePull, until the fault is cleared.
func TestImagePullFaultKeepsPodsPending(t *testing.T) {
	f, kc := inferenceFixture(t)
	fault, err := ParseFault("imagepull:image=nginx:missing,message=manifest unknown")
	if err != nil {
		t.Fatal(err)
	}
	id := ok(f.w.InjectFault(fault)).must(t)
	ok(kc.Core.AppsV1().Deployments("default").Create(f.ctx, servingDeployment("web", "nginx:missing", 1), metav1.CreateOptions{})).must(t)
	f.advance(time.Minute)
	p := f.deploymentPods(kc, "web")[0]
	if w := p.Status.ContainerStatuses[0].State.Waiting; p.Status.Phase != corev1.PodPending || w == nil || w.Reason != "ErrImagePull" {
		t.Fatalf("pod %s %+v", p.Status.Phase, p.Status.ContainerStatuses)
	}
	if err := f.w.ClearFault(id.ID); err != nil {
		t.Fatal(err)
	}
	f.advance(time.Minute)
	if p := f.deploymentPods(kc, "web")[0]; p.Status.Phase != corev1.PodRunning {
		t.Fatalf("after the fault is cleared: %s", p.Status.Phase)
	}
	bad, _ := ParseFault("imagepull:deployment=web")
	if _, err := f.w.InjectFault(bad); err == nil {
		t.Fatal("an imagepull fault without an image was accepted")
	}
}
