package training_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/testwait"
	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

const speed = 2000

// fixture is a control plane on the simulator with an ACTIVE cluster that
// has a GPU group, its shared bucket AVAILABLE with a model and a dataset
// in it, and (unless asked otherwise) the training operator on.
type fixture struct {
	clock    *simtest.PausableClock
	world    *sim.World
	runner   *ops.Runner
	features *features.Service
	svc      *training.Service
	cluster  string
	eks      string
	bucket   string
	p        *cloud.Provider
}

func newFixture(t *testing.T, operator bool, extra ...hyperpod.GroupSpec) *fixture {
	t.Helper()
	clock := &simtest.PausableClock{}
	a := apptest.New(t, apptest.Options{Speed: speed, Sim: sim.Options{Clock: clock.Now}})
	c := apptest.Cluster(t, a, cluster.CreateInput{
		Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: append([]hyperpod.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 2, Zone: "us-west-2a"}}, extra...),
	})
	apptest.SharedBucket(t, a, c.ID, "train-1-data")
	if operator {
		up, err := a.Features.Update(context.Background(), "tester", c.ID, []features.Toggle{{Name: hyperpod.TrainingOperator, Enable: true}}, "")
		if err != nil {
			t.Fatal(err)
		}
		simtest.Succeeded(t, a.Runner, up)
	}
	p, err := a.World.Provider(apptest.Region)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{clock: clock, world: a.World, runner: a.Runner, features: a.Features, svc: a.Training, cluster: c.ID, eks: c.EKS.Name, bucket: "train-1-data", p: p}
	f.put(t, "models/qwen3-0-6b/config.json")
	f.put(t, "datasets/alpaca/train.json")
	return f
}

func (f *fixture) put(t *testing.T, key string) {
	t.Helper()
	if _, err := f.p.S3.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(f.bucket), Key: aws.String(key), Body: strings.NewReader("{}")}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) input() training.SubmitInput {
	return training.SubmitInput{ClusterID: f.cluster, Name: "sft-1", Recipe: recipe.Name("LLAMA_FACTORY"), Model: "qwen3-0-6b",
		DatasetPath: "datasets/alpaca/", InstanceGroup: "gpu", Nodes: 2,
		Settings: []training.Setting{{Key: "stage", Value: "sft"}, {Key: "finetuning_type", Value: "lora"}}}
}

var hyperPodPyTorchJobs = schema.GroupVersionResource{Group: "sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodpytorchjobs"}

// TestSubmitMakesTheObject submits a LLaMA-Factory job: the operation
// makes a HyperPodPyTorchJob that kubectl would show, labelled with the
// job's id, and the record carries what was derived.
func TestSubmitMakesTheObject(t *testing.T) {
	f := newFixture(t, true)
	op, err := f.svc.Submit(context.Background(), "tester", f.input(), "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	j, err := f.svc.Get(op.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.Kind != training.HyperPodPyTorchJob || j.GPUsPerNode != 4 || j.ProcessesPerNode != 4 || j.Nodes != 2 || j.UID == "" {
		t.Fatalf("job = %+v, want a HyperPodPyTorchJob of 2 nodes with 4 GPUs and 4 processes each, its object's uid kept", j)
	}
	if !strings.HasPrefix(j.OutputPath, "s3://train-1-data/outputs/sft-1") || !strings.HasPrefix(j.CheckpointPath, "s3://train-1-data/checkpoints/sft-1") {
		t.Fatalf("paths = %s, %s", j.OutputPath, j.CheckpointPath)
	}
	kc, err := f.p.KubeOf(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := kc.Dynamic.Resource(hyperPodPyTorchJobs).Namespace(j.Namespace).Get(context.Background(), "sft-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if obj.GetLabels()["instantstart.io/job-id"] != j.ID {
		t.Fatalf("labels = %v", obj.GetLabels())
	}
	// The same name again is a CONFLICT that names the job.
	_, err = f.svc.Submit(context.Background(), "tester", f.input(), "")
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Conflict || e.Field != "input.name" {
		t.Fatalf("second submit: %v, want CONFLICT on input.name", err)
	}
	del, err := f.svc.Delete(context.Background(), "tester", j.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, del)
	if j, _ = f.svc.Get(j.ID); j.Status != training.Deleted {
		t.Fatalf("after delete: %s", j.Status)
	}
	if _, err := kc.Dynamic.Resource(hyperPodPyTorchJobs).Namespace(j.Namespace).Get(context.Background(), "sft-1", metav1.GetOptions{}); err == nil {
		t.Fatal("the object is still there after deleteJob")
	}
}

// TestBadJobsAreRefusedBeforeAnythingIsMade: each bad request is refused
// with the code and field to change, and nothing mutating is called.
func TestBadJobsAreRefusedBeforeAnythingIsMade(t *testing.T) {
	f := newFixture(t, true)
	cases := []struct {
		name  string
		edit  func(*training.SubmitInput)
		code  errs.Code
		field string
	}{
		{"more GPUs than the type has", func(in *training.SubmitInput) { in.GPUsPerNode = 8 }, errs.Validation, "input.gpusPerNode"},
		{"more nodes than the group holds", func(in *training.SubmitInput) { in.Nodes = 3 }, errs.Precondition, "input.nodes"},
		{"a model not in the bucket", func(in *training.SubmitInput) { in.Model = "missing" }, errs.Precondition, "input.model"},
		{"a dataset not in the bucket", func(in *training.SubmitInput) { in.DatasetPath = "datasets/none/" }, errs.Precondition, "input.datasetPath"},
		{"a setting the recipe does not have", func(in *training.SubmitInput) {
			in.Settings = append(in.Settings, training.Setting{Key: "train_type", Value: "lora"})
		}, errs.Validation, "input.settings"},
		{"a setting value the recipe does not take", func(in *training.SubmitInput) {
			in.Settings = []training.Setting{{Key: "stage", Value: "nope"}}
		}, errs.Validation, "input.settings"},
		{"a group that does not exist", func(in *training.SubmitInput) { in.InstanceGroup = "none" }, errs.Precondition, "input.instanceGroup"},
		{"KubeRay off for VERL", func(in *training.SubmitInput) {
			in.Recipe, in.Settings, in.DatasetPath = "VERL", nil, "datasets/gsm8k/train.parquet"
		}, errs.Precondition, "input.recipe"},
	}
	before := simtest.Mutations(f.world)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := f.input()
			tc.edit(&in)
			_, err := f.svc.Submit(context.Background(), "tester", in, "")
			if !hasProblem(err, tc.code, tc.field) {
				t.Fatalf("err = %v, want %s on %s", err, tc.code, tc.field)
			}
		})
	}
	simtest.NoMutationSince(t, f.world, before)
}

// hasProblem reports whether err, one error or an errs.List, has code on
// field.
func hasProblem(err error, code errs.Code, field string) bool {
	var list errs.List
	if !errors.As(err, &list) {
		if err == nil {
			return false
		}
		list = errs.List{errs.As(err)}
	}
	for _, e := range list {
		if e.Code == code && e.Field == field {
			return true
		}
	}
	return false
}

// TestTheOperatorMustBeOn: with the training operator off the job is
// refused, naming the feature to turn on.
func TestTheOperatorMustBeOn(t *testing.T) {
	f := newFixture(t, false)
	_, err := f.svc.Submit(context.Background(), "tester", f.input(), "")
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Precondition || !strings.Contains(e.Message, "TRAINING_OPERATOR") {
		t.Fatalf("err = %v, want PRECONDITION naming TRAINING_OPERATOR", err)
	}
}

// waitJob syncs job id until ok accepts it, and returns it as ok saw it.
func waitJob(t *testing.T, f *fixture, id string, what string, ok func(*training.Job) bool) *training.Job {
	t.Helper()
	var last *training.Job
	settled := false
	defer func() {
		if !settled {
			t.Logf("job %s as last synced: %+v", id, last)
		}
	}()
	testwait.Eventually(t, "job "+what, func() bool {
		j, err := f.svc.Sync(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		last = j
		return ok(j)
	})
	settled = true
	return last
}
