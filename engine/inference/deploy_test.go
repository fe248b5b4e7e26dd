package inference_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/simtest"
)

// TestBadInputNamesTheFix sends what a user gets wrong: each is refused
// before anything is made, with the code and field to change.
func TestBadInputNamesTheFix(t *testing.T) {
	f := newFixture(t)
	base := f.vllm("chat", inference.ClusterIP)
	cases := []struct {
		name  string
		edit  func(*inference.DeployInput)
		code  errs.Code
		field string
		words []string
	}{
		{"tensor parallelism that does not divide the GPUs", func(in *inference.DeployInput) { in.GPUsPerReplica, in.TensorParallelSize = 4, 3 },
			errs.Validation, "input.tensorParallelSize", []string{"does not divide", "1, 2, 4"}},
		{"more GPUs than the type has", func(in *inference.DeployInput) { in.GPUsPerReplica, in.TensorParallelSize = 8, 8 },
			errs.Validation, "input.gpusPerReplica", []string{"has 4"}},
		{"no GPU count", func(in *inference.DeployInput) { in.GPUsPerReplica = 0 }, errs.Validation, "input.gpusPerReplica", []string{"never guessed"}},
		{"a model not in the bucket", func(in *inference.DeployInput) { in.Model = "llama-70b" }, errs.Precondition, "input.model", []string{"downloadModel"}},
		{"an instance type the cluster lacks", func(in *inference.DeployInput) { in.InstanceType = "ml.p5.48xlarge" }, errs.Precondition, "input.instanceType", []string{"ml.g5.12xlarge"}},
		{"no image", func(in *inference.DeployInput) { in.Image = "" }, errs.Validation, "input.image", nil},
		{"a managed field on a self-managed endpoint", func(in *inference.DeployInput) { in.Routing = &inference.Routing{Enabled: true} }, errs.Validation, "input.intelligentRouting", nil},
		{"a managed endpoint without the operator", func(in *inference.DeployInput) {
			in.Path, in.Engine, in.Form, in.Image, in.TensorParallelSize = inference.Managed, "", "", "", 0
		}, errs.Precondition, "input.path", []string{"INFERENCE_OPERATOR"}},
		{"a bad name", func(in *inference.DeployInput) { in.Name = "Chat_1" }, errs.Validation, "input.name", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := base
			c.edit(&in)
			_, err := f.svc.Deploy(context.Background(), "tester", in, "")
			wantCode(t, err, c.code, c.field, c.words...)
		})
	}
	list, err := f.kube(t).Core.AppsV1().Deployments("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range list.Items {
		if d.Labels["instantstart.io/endpoint-id"] != "" {
			t.Fatalf("a refused request made Deployment %s", d.Name)
		}
	}
}

// TestDeployMakesTheObjects deploys a vLLM endpoint with a ClusterIP
// Service: kubectl sees its Deployment and Service, labelled as the
// endpoint's, and the record says what was made.
func TestDeployMakesTheObjects(t *testing.T) {
	f := newFixture(t)
	e := f.deploy(t, f.vllm("chat", inference.ClusterIP))
	if e.Status != inference.Deploying || e.Object != "Deployment/vllm-chat" {
		t.Fatalf("endpoint %s %s (%s)", e.Status, e.Object, e.StatusMessage)
	}
	kc := f.kube(t)
	dep, err := kc.Core.AppsV1().Deployments("default").Get(context.Background(), "vllm-chat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dep.Labels["instantstart.io/endpoint-id"] != e.ID || *dep.Spec.Replicas != 1 {
		t.Fatalf("Deployment labels %v replicas %d", dep.Labels, *dep.Spec.Replicas)
	}
	svc, err := kc.Core.CoreV1().Services("default").Get(context.Background(), "vllm-chat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Type != "ClusterIP" || svc.Spec.Selector["app"] != "vllm-chat" {
		t.Fatalf("Service %s selector %v", svc.Spec.Type, svc.Spec.Selector)
	}
	_, err = f.svc.Deploy(context.Background(), "tester", f.vllm("chat", inference.ClusterIP), "")
	wantCode(t, err, errs.Conflict, "input.name")
}

// TestUpdateChangesOnlyWhatDiffers: the same replicas and image are a
// no-op operation; a new replica count changes the Deployment and nothing
// else.
func TestUpdateChangesOnlyWhatDiffers(t *testing.T) {
	f := newFixture(t)
	e := f.deploy(t, f.vllm("chat", inference.ClusterIP))
	ctx := context.Background()
	same, img := 1, "vllm/vllm-openai:v0.10.1"
	op, err := f.svc.Update(ctx, "tester", e.ID, inference.UpdateInput{Replicas: &same, Image: &img}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !op.Noop {
		t.Fatalf("an update that changes nothing ran phases: %+v", op.Phases)
	}
	kc := f.kube(t)
	before, err := kc.Core.AppsV1().Deployments("default").Get(ctx, "vllm-chat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	three := 3
	op, err = f.svc.Update(ctx, "tester", e.ID, inference.UpdateInput{Replicas: &three, Image: &img}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	after, err := kc.Core.AppsV1().Deployments("default").Get(ctx, "vllm-chat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *after.Spec.Replicas != 3 || after.Spec.Template.Spec.Containers[0].Image != img || after.UID != before.UID {
		t.Fatalf("after the update: replicas %d image %s uid %s (was %s)", *after.Spec.Replicas, after.Spec.Template.Spec.Containers[0].Image, after.UID, before.UID)
	}
	if got, _ := f.svc.Get(e.ID); got.Replicas != 3 {
		t.Fatalf("the record has %d replicas", got.Replicas)
	}
	bad := -1
	_, err = f.svc.Update(ctx, "tester", e.ID, inference.UpdateInput{Replicas: &bad}, "")
	wantCode(t, err, errs.Validation, "input.replicas")
}

// TestLoadBalancerFormTurnsTheControllerOn deploys an internet-facing
// endpoint on a cluster without the AWS Load Balancer Controller: the
// deployment installs it first (the feature reads ENABLED after), and the
// endpoint's address becomes the NLB's DNS name the controller gives its
// Service.
func TestLoadBalancerFormTurnsTheControllerOn(t *testing.T) {
	f := newFixture(t)
	e := f.deploy(t, f.vllm("public", inference.LoadBalancer))
	list, err := f.features.List(context.Background(), f.cluster)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.Name == hyperpod.LoadBalancerController && x.Status != features.Enabled {
			t.Fatalf("the load balancer controller is %s after the deployment", x.Status)
		}
	}
	got := f.until(t, e.ID, "given the load balancer's address", func(e *inference.Endpoint) bool {
		return e.Address != nil && strings.HasSuffix(e.Address.Host, ".elb.us-west-2.amazonaws.com")
	})
	if a := got.Address; a.Kind != "LOAD_BALANCER" || a.Port != 80 || a.Service != "vllm-public" {
		t.Fatalf("address %+v", a)
	}
	// A second LOAD_BALANCER endpoint finds the controller on and makes
	// nothing of it again.
	before := simtest.Mutations(f.world)
	f.deploy(t, f.vllm("public-2", inference.LoadBalancer))
	if n := simtest.Mutations(f.world)["helm.Install"] - before["helm.Install"]; n != 0 {
		t.Fatalf("the controller was installed %d more times", n)
	}
}
