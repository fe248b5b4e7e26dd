package inference_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/storage"
)

const speed = 2000

// fixture is a control plane on the simulator with an ACTIVE cluster that
// has a group of ml.g5.12xlarge (4 GPUs each) and its shared bucket
// AVAILABLE with a model in it.
type fixture struct {
	clock    *simtest.PausableClock
	world    *sim.World
	runner   *ops.Runner
	features *features.Service
	storage  *storage.Service
	svc      *inference.Service
	cluster  string
	eks      string
	bucket   string
	p        *cloud.Provider
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clock := &simtest.PausableClock{}
	a := apptest.New(t, apptest.Options{Speed: speed, Sim: sim.Options{Clock: clock.Now}})
	c := apptest.Cluster(t, a, cluster.CreateInput{
		Name: "infer-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 2, Zone: "us-west-2a"}},
	})
	apptest.SharedBucket(t, a, c.ID, "infer-1-data")
	p, err := a.World.Provider(apptest.Region)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{clock: clock, world: a.World, runner: a.Runner, features: a.Features, storage: a.Storage, svc: a.Inference, cluster: c.ID, eks: c.EKS.Name, bucket: "infer-1-data", p: p}
	f.put(t, "models/qwen3-8b/config.json", "{}")
	f.put(t, "models/qwen3-8b/model.safetensors", strings.Repeat("w", 4096))
	return f
}

func (f *fixture) put(t *testing.T, key, body string) {
	t.Helper()
	if _, err := f.p.S3.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(f.bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
}

// enable turns features on and waits for the operation.
func (f *fixture) enable(t *testing.T, toggles ...features.Toggle) {
	t.Helper()
	op, err := f.features.Update(context.Background(), "tester", f.cluster, toggles, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
}

func (f *fixture) kube(t *testing.T) *cloud.KubeClients {
	t.Helper()
	kc, err := f.p.KubeOf(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// vllm is a self-managed vLLM endpoint on the group.
func (f *fixture) vllm(name string, form inference.Form) inference.DeployInput {
	return inference.DeployInput{ClusterID: f.cluster, Name: name, Path: inference.SelfManaged, Model: "qwen3-8b", InstanceType: "ml.g5.12xlarge",
		Replicas: 1, GPUsPerReplica: 2, Engine: inference.VLLM, Image: "vllm/vllm-openai:v0.10.1", Form: form}
}

// deploy deploys in and waits for its operation to succeed.
func (f *fixture) deploy(t *testing.T, in inference.DeployInput) *inference.Endpoint {
	t.Helper()
	op, err := f.svc.Deploy(context.Background(), "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	e, err := f.svc.Get(op.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// wantCode checks err is an engine error of code on field.
func wantCode(t *testing.T, err error, code errs.Code, field string, words ...string) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a %s error", err, code)
	}
	if e.Code != code || (field != "" && e.Field != field) {
		t.Fatalf("got %s on %q (%s), want %s on %q", e.Code, e.Field, e.Message, code, field)
	}
	for _, w := range words {
		if !strings.Contains(e.Message, w) {
			t.Fatalf("the message %q does not say %q", e.Message, w)
		}
	}
}
