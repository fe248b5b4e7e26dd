package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/models"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// TestCascadeDeleteLeavesNothing makes one of everything on a cluster
// (every feature, both kinds of storage, a model download, a job of each
// recipe, endpoints of each path and service form, a router and
// autoscaling), is refused a plain delete, deletes the cluster with
// cascade and compares the simulated world with what it held before the
// cluster existed: only the shared bucket and its objects, kept as asked,
// may differ. Every record ends DELETED, and the refreshers call nothing
// for the deleted cluster.
func TestCascadeDeleteLeavesNothing(t *testing.T) {
	a := apptest.New(t, apptest.Options{Speed: cascadeSpeed})
	checkCascadeLeavesNothing(t, a)
}

// TestCascadeDeleteLeavesNothingOnTheWire runs the same through the real
// SDK clients against the simulator's AWS wire endpoint.
func TestCascadeDeleteLeavesNothingOnTheWire(t *testing.T) {
	a := apptest.New(t, apptest.Options{Speed: cascadeSpeed, SimPorts: apptest.OnTheWire(t)})
	checkCascadeLeavesNothing(t, a)
}

// cascadeSpeed leaves the many operations of these tests time enough on a
// busy machine: a phase's deadline is at least 2 s, and at this speed the
// default one is 29 s.
const cascadeSpeed = 250

func checkCascadeLeavesNothing(t *testing.T, a *app.App) {
	ctx := context.Background()
	before := a.World.Inventory()

	c := apptest.Cluster(t, a, cluster.CreateInput{
		Name: "whole-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{
			{Name: "gpu", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 2, Zone: "us-west-2a"},
			{Name: "burst", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 0, Zone: "us-west-2a"},
		},
	})
	const bucket = "whole-1-data"
	apptest.SharedBucket(t, a, c.ID, bucket)
	putObjects(t, a, bucket, "models/qwen3-8b/config.json", "models/qwen3-0-6b/config.json", "datasets/alpaca/train.json", "datasets/gsm8k/train.parquet", "code/train.py")
	succeed := succeeder(t, a)

	succeed(a.Features.Update(ctx, "tester", c.ID, []features.Toggle{
		{Name: hyperpod.NodeAutoRecovery, Enable: true},
		{Name: hyperpod.DeepHealthChecks, Enable: true},
		{Name: hyperpod.TrainingOperator, Enable: true},
		{Name: hyperpod.KubeRay, Enable: true},
		{Name: hyperpod.TieredCheckpointing, Enable: true, Settings: &features.Settings{Bucket: bucket, MemoryPercentage: 40}},
		{Name: hyperpod.KarpenterAutoscaling, Enable: true, Settings: &features.Settings{InstanceGroups: []string{"burst"}}},
		{Name: hyperpod.InferenceOperator, Enable: true, Settings: &features.Settings{Bucket: bucket}},
		{Name: hyperpod.Observability, Enable: true, Settings: &features.Settings{WorkspaceArn: "arn:aws:aps:us-west-2:123456789012:workspace/ws-1111"}},
		{Name: hyperpod.KEDA, Enable: true},
		{Name: hyperpod.MLflow, Enable: true, Settings: &features.Settings{}},
	}, ""))
	succeed(a.Storage.Add(ctx, "tester", storage.AddInput{ClusterID: c.ID, Kind: storage.KindFSxLustre,
		FSx: &storage.FSxInput{Name: "scratch", DeploymentType: storage.Persistent2, CapacityGiB: 2400, ThroughputPerTiB: 250, LinkSharedBucket: true}}, ""))
	// A download still running when the cluster goes.
	download, err := a.Models.Download(ctx, "tester", models.DownloadInput{ClusterID: c.ID, Source: models.HuggingFace, ModelID: "Qwen/Qwen2.5-0.5B-Instruct"}, "")
	if err != nil {
		t.Fatal(err)
	}

	job := func(name string, r recipe.Name, model, dataset string) training.SubmitInput {
		return training.SubmitInput{ClusterID: c.ID, Name: name, Recipe: r, Model: model, DatasetPath: dataset, InstanceGroup: "gpu", Nodes: 1}
	}
	pytorch := job("pt-1", recipe.PyTorch, "", "datasets/alpaca/")
	pytorch.Script = "code/train.py"
	ray := job("ray-1", recipe.Ray, "", "datasets/alpaca/")
	ray.Script, ray.Ray = "code/train.py", &recipe.RayProgram{Workers: []recipe.RayWorkers{{InstanceGroup: "burst", Replicas: 1}}}
	for _, in := range []training.SubmitInput{
		pytorch,
		ray,
		job("lf-1", recipe.LlamaFactory, "qwen3-0-6b", "datasets/alpaca/"),
		job("swift-1", recipe.MSSwift, "qwen3-0-6b", "datasets/alpaca/"),
		job("grpo-1", recipe.Verl, "qwen3-0-6b", "datasets/gsm8k/train.parquet"),
	} {
		succeed(a.Training.Submit(ctx, "tester", in, ""))
	}

	self := func(name string, engine inference.Engine, image string, form inference.Form) inference.DeployInput {
		return inference.DeployInput{ClusterID: c.ID, Name: name, Path: inference.SelfManaged, Model: "qwen3-8b", InstanceType: "ml.g5.12xlarge",
			Replicas: 1, GPUsPerReplica: 1, Engine: engine, Image: image, Form: form}
	}
	var endpoints []*ops.Operation
	for _, in := range []inference.DeployInput{
		self("chat-ip", inference.VLLM, "vllm/vllm-openai:v0.10.1", inference.ClusterIP),
		self("chat-lb", inference.VLLM, "vllm/vllm-openai:v0.10.1", inference.LoadBalancer),
		self("pool", inference.SGLang, "lmsysorg/sglang:v0.5.3-cu126", inference.ModelPool),
		self("routed", inference.SGLang, "lmsysorg/sglang:v0.5.3-cu126", inference.ClusterIP),
		{ClusterID: c.ID, Name: "managed", Path: inference.Managed, Model: "qwen3-8b", InstanceType: "ml.g5.12xlarge",
			Replicas: 1, GPUsPerReplica: 4, Routing: &inference.Routing{Enabled: true, Strategy: "SESSION"}, KVCache: &inference.KVCacheInput{L2: aws.Bool(true)}},
	} {
		endpoints = append(endpoints, succeed(a.Inference.Deploy(ctx, "tester", in, "")))
	}
	succeed(a.Inference.DeployRouter(ctx, "tester", endpoints[3].Target.ID, inference.RoundRobin, ""))
	succeed(a.Inference.SetAutoscaling(ctx, "tester", endpoints[0].Target.ID,
		inference.AutoscalingInput{Bounds: inference.Bounds{Min: 1, Max: 3}, Trigger: inference.RequestsPerReplica, Target: 1}, ""))

	made := a.World.Inventory()
	t.Logf("the world: %d resources before the cluster, %d with everything made", len(before), len(made))

	// A plain delete is refused, naming what is there.
	_, err = a.Clusters.Delete(ctx, "tester", c.ID, cluster.DeleteOptions{}, "")
	if e := errs.As(err); e == nil || e.Code != errs.Precondition || e.Field != "cascade" || !strings.Contains(e.Message, "chat-lb") || !strings.Contains(e.Message, "grpo-1") || !strings.Contains(e.Message, "scratch") {
		t.Fatalf("a plain delete of a cluster with workloads: %v; want PRECONDITION on cascade naming them", err)
	}

	del := succeed(a.Clusters.Delete(ctx, "tester", c.ID, cluster.DeleteOptions{Cascade: true}, ""))
	for _, phase := range []string{"endpoints", "jobs", "models", "file-systems", "shared-bucket", "feature-leftovers"} {
		if p := del.Phase(phase); p == nil || p.Status != ops.PhaseSucceeded {
			t.Errorf("phase %s of the cascade delete: %+v", phase, p)
		}
	}
	if got, err := a.Runner.Get(download.ID); err != nil || !got.Status.Terminal() {
		t.Errorf("the running download after the cascade: %v, %v", got.Status, err)
	}

	after := a.World.Inventory()
	var left, lost []string
	for _, r := range after {
		if !slices.Contains(before, r) && r != "s3 bucket "+bucket && !strings.HasPrefix(r, "s3 object "+bucket+"/") {
			left = append(left, r)
		}
	}
	for _, r := range before {
		if !slices.Contains(after, r) {
			lost = append(lost, r)
		}
	}
	if len(left) > 0 || len(lost) > 0 {
		t.Errorf("the world after the cascade delete differs from before the cluster:\nleft behind:\n  %s\ngone that was there:\n  %s", strings.Join(left, "\n  "), strings.Join(lost, "\n  "))
	}
	if !slices.Contains(after, "s3 object "+bucket+"/datasets/alpaca/train.json") {
		t.Error("the shared bucket's objects were deleted; without deleteBucket they stay")
	}

	allDeleted(t, a, c.ID)
	if got, err := a.Clusters.Get(c.ID); err != nil || got.Status != hyperpod.ClusterDeleted {
		t.Fatalf("cluster after the cascade: %v, %v", got.Status, err)
	}

	refreshCallsNothing(t, a) // nothing polls what is gone
}

// TestCreateClusterSucceedsWithItsGroupsReadable: once createCluster has
// SUCCEEDED, its instance groups are listed, with no refresher run, so
// that a deployEndpoint or submitTrainingJob right after finds them.
func TestCreateClusterSucceedsWithItsGroupsReadable(t *testing.T) {
	a := apptest.New(t, apptest.Options{})
	op, err := a.Clusters.Create(context.Background(), "tester", cluster.CreateInput{
		Name: "ready-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 2, Zone: "us-west-2a"}},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, a.Runner, op)
	groups, err := a.Compute.Groups(op.Target.ID, false)
	if err != nil || len(groups) != 1 || groups[0].Name != "gpu" {
		t.Fatalf("groups right after createCluster SUCCEEDED: %+v, %v; want the gpu group", groups, err)
	}
}

// TestRecordsOfAClusterDeletedWithoutThemEnd: records left on a cluster
// an earlier version deleted without them (a job, an endpoint, the shared
// bucket's storage) are not polled, and their deletes end them DELETED
// with nothing left to call, where they failed on the missing cluster.
func TestRecordsOfAClusterDeletedWithoutThemEnd(t *testing.T) {
	a := apptest.New(t, apptest.Options{Speed: cascadeSpeed})
	ctx := context.Background()
	c := apptest.Cluster(t, a, cluster.CreateInput{
		Name: "orphans-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 1, Zone: "us-west-2a"}},
	})
	st := apptest.SharedBucket(t, a, c.ID, "orphans-1-data")
	putObjects(t, a, "orphans-1-data", "models/qwen3-8b/config.json", "datasets/alpaca/train.json")
	succeed := succeeder(t, a)
	succeed(a.Features.Update(ctx, "tester", c.ID, []features.Toggle{{Name: hyperpod.TrainingOperator, Enable: true}}, ""))
	job := succeed(a.Training.Submit(ctx, "tester", training.SubmitInput{ClusterID: c.ID, Name: "lf-1", Recipe: recipe.LlamaFactory, Model: "qwen3-8b",
		DatasetPath: "datasets/alpaca/", InstanceGroup: "gpu", Nodes: 1}, "")).Target.ID
	ep := succeed(a.Inference.Deploy(ctx, "tester", inference.DeployInput{ClusterID: c.ID, Name: "chat", Path: inference.SelfManaged, Model: "qwen3-8b",
		InstanceType: "ml.g5.12xlarge", Replicas: 1, GPUsPerReplica: 1, Engine: inference.VLLM, Image: "vllm/vllm-openai:v0.10.1", Form: inference.ClusterIP}, "")).Target.ID

	// What an earlier version's deleteCluster left: the cluster DELETED,
	// its records as they were.
	if err := a.Store.Update(func(tx *store.Tx) error {
		var rec hyperpod.Cluster
		if err := tx.Get(cluster.RecordKind, c.ID, &rec); err != nil {
			return err
		}
		rec.Status = hyperpod.ClusterDeleted
		return tx.Put(cluster.RecordKind, c.ID, &rec)
	}); err != nil {
		t.Fatal(err)
	}
	refreshCallsNothing(t, a)
	succeed(a.Training.Delete(ctx, "tester", job, ""))
	succeed(a.Inference.Delete(ctx, "tester", ep, ""))
	succeed(a.Storage.Remove(ctx, "tester", st.ID, false, ""))
	if calls := a.World.Calls(); len(calls["kubernetes"]) > 0 || len(calls["eks"]) > 0 {
		t.Errorf("deleting records of a deleted cluster called %v", calls)
	}
	allDeleted(t, a, c.ID)
}

// succeeder returns what follows an operation just submitted to its end,
// failing the test unless it was submitted and SUCCEEDED.
func succeeder(t *testing.T, a *app.App) func(*ops.Operation, error) *ops.Operation {
	return func(op *ops.Operation, err error) *ops.Operation {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return simtest.Succeeded(t, a.Runner, op)
	}
}

// putObjects puts small objects in bucket, as a user uploading data would.
func putObjects(t *testing.T, a *app.App, bucket string, keys ...string) {
	t.Helper()
	p, err := a.World.Provider(apptest.Region)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		if _, err := p.S3.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("{}")}); err != nil {
			t.Fatal(err)
		}
	}
}

// refreshCallsNothing runs a pass of the job and endpoint refreshers and
// fails the test if they call any simulated service.
func refreshCallsNothing(t *testing.T, a *app.App) {
	t.Helper()
	ctx := context.Background()
	a.World.ResetCalls()
	if _, err := a.Training.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Inference.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if calls := a.World.Calls(); len(calls) > 0 {
		t.Errorf("the refreshers called %v for records of a deleted cluster", calls)
	}
}

// allDeleted fails the test if an endpoint, job, model or storage record
// of the cluster is not DELETED.
func allDeleted(t *testing.T, a *app.App, clusterID string) {
	t.Helper()
	for _, d := range []cluster.Dependent{a.Inference, a.Training, a.Models, a.Storage} {
		if live, err := d.Workloads(clusterID); err != nil || len(live) > 0 {
			t.Errorf("records left that are not DELETED: %+v, %v", live, err)
		}
	}
}
