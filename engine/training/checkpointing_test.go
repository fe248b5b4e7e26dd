package training_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/training"
)

// tiered turns the cluster's TIERED_CHECKPOINTING feature on for the
// shared bucket, 40% of each instance's memory for the in-memory tier.
func (f *fixture) tiered(t *testing.T) {
	t.Helper()
	op, err := f.features.Update(context.Background(), "tester", f.cluster, []features.Toggle{{Name: hyperpod.TieredCheckpointing, Enable: true,
		Settings: &features.Settings{Bucket: f.bucket, MemoryPercentage: 40}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
}

// TestTieredIsRefusedWhereItCannotRun: a mode that is none and TIERED for
// VERL or on a flexible group are VALIDATION on input.checkpointing;
// TIERED with the feature off is a PRECONDITION that names the feature.
// Nothing is made.
func TestTieredIsRefusedWhereItCannotRun(t *testing.T) {
	f := newFixture(t, true, hyperpod.GroupSpec{Name: "flex", InstanceTypes: []string{"ml.g5.12xlarge", "ml.g5.xlarge"}, Count: 1, Zone: "us-west-2a"})
	cases := []struct {
		name  string
		edit  func(*training.SubmitInput)
		code  errs.Code
		words string
	}{
		{"a mode that is none", func(in *training.SubmitInput) { in.Checkpointing = "DISK" }, errs.Validation, "not S3 or TIERED"},
		{"VERL keeps its own checkpoints", func(in *training.SubmitInput) {
			in.Recipe, in.Settings, in.DatasetPath, in.Checkpointing = "VERL", nil, "datasets/gsm8k/train.parquet", training.CheckpointTiered
		}, errs.Validation, "RayJob"},
		{"a flexible group excludes it", func(in *training.SubmitInput) {
			in.InstanceGroup, in.Nodes, in.Checkpointing = "flex", 1, training.CheckpointTiered
		}, errs.Validation, "flexible"},
		{"the feature is off", func(in *training.SubmitInput) { in.Checkpointing = training.CheckpointTiered }, errs.Precondition, "TIERED_CHECKPOINTING"},
	}
	before := simtest.Mutations(f.world)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := f.input()
			tc.edit(&in)
			_, err := f.svc.Submit(context.Background(), "tester", in, "")
			if !hasProblem(err, tc.code, "input.checkpointing") || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("err = %v, want %s on input.checkpointing saying %q", err, tc.code, tc.words)
			}
		})
	}
	simtest.NoMutationSince(t, f.world, before)
}

// TestATieredJobRunsAsTheFeaturesServiceAccount: the object's pods run as
// the feature's service account, install the checkpointing library, carry
// its environment, and leave the in-memory tier its share of the node's
// memory; an S3 job has none of it.
func TestATieredJobRunsAsTheFeaturesServiceAccount(t *testing.T) {
	f := newFixture(t, true)
	f.tiered(t)
	in := f.input()
	in.Checkpointing = training.CheckpointTiered
	j := f.submit(t, in)
	if j.Checkpointing != training.CheckpointTiered || j.CheckpointPath != "s3://train-1-data/checkpoints/sft-1/" {
		t.Fatalf("job = %s, %s; want TIERED with its S3 tier in the feature's bucket", j.Checkpointing, j.CheckpointPath)
	}
	spec := f.podSpec(t, j)
	if sa, _, _ := unstructured.NestedString(spec, "serviceAccountName"); sa != "tiered-checkpointing" {
		t.Errorf("serviceAccountName = %q, want the feature's tiered-checkpointing", sa)
	}
	c := spec["containers"].([]any)[0].(map[string]any)
	env := map[string]string{}
	for _, e := range c["env"].([]any) {
		m := e.(map[string]any)
		env[m["name"].(string)] = m["value"].(string)
	}
	want := map[string]string{"CHECKPOINTING": "TIERED", "CHECKPOINT_STEPS": "100", "CHECKPOINT_MEMORY_STEPS": "10", "TRAINING_JOB_NAME": "sft-1",
		"CHECKPOINT_S3_TIER_PATH": "s3://train-1-data/checkpoints/sft-1/", "CHECKPOINT_MEMORY_PERCENTAGE": "40"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("env %s = %q, want %q", k, env[k], v)
		}
	}
	if script := strings.Join(toStrings(c["command"]), " "); !strings.Contains(script, "amzn-sagemaker-checkpointing==1.1.3") {
		t.Errorf("the launch script installs no checkpointing library:\n%s", script)
	}
	// A g5.12xlarge has 192 GiB; the memory daemon holds 40% of it.
	for _, kind := range []string{"requests", "limits"} {
		if got, _, _ := unstructured.NestedString(c, "resources", kind, "memory"); got != "115Gi" {
			t.Errorf("resources.%s.memory = %q, want 115Gi (60%% of 192 GiB)", kind, got)
		}
	}

	plain := f.submit(t, f.short("sft-s3"))
	if plain.Checkpointing != training.CheckpointS3 {
		t.Fatalf("a job that does not say is %q, want S3", plain.Checkpointing)
	}
	ps := f.podSpec(t, plain)
	pc := ps["containers"].([]any)[0].(map[string]any)
	if _, ok := ps["serviceAccountName"]; ok || strings.Contains(strings.Join(toStrings(pc["command"]), " "), "checkpointing") {
		t.Errorf("an S3 job runs as %v with %v", ps["serviceAccountName"], pc["command"])
	}
	if _, ok, _ := unstructured.NestedString(pc, "resources", "limits", "memory"); ok {
		t.Error("an S3 job has a memory limit")
	}
}

// TestTieredNeedsItsNamespace: the feature's service account must be in
// the namespace the cluster's jobs run in, or TIERED is a PRECONDITION
// that says which.
func TestTieredNeedsItsNamespace(t *testing.T) {
	f := newFixture(t, true)
	op, err := f.features.Update(context.Background(), "tester", f.cluster, []features.Toggle{{Name: hyperpod.TieredCheckpointing, Enable: true,
		Settings: &features.Settings{Bucket: f.bucket, Namespace: "ckpt"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	in := f.input()
	in.Checkpointing = training.CheckpointTiered
	_, err = f.svc.Submit(context.Background(), "tester", in, "")
	if !hasProblem(err, errs.Precondition, "input.checkpointing") || !strings.Contains(err.Error(), "namespace ckpt") {
		t.Fatalf("err = %v, want PRECONDITION naming the feature's namespace", err)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// podSpec is the pod template's spec of job j's object.
func (f *fixture) podSpec(t *testing.T, j *training.Job) map[string]any {
	t.Helper()
	kc, err := f.p.KubeOf(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := kc.Dynamic.Resource(hyperPodPyTorchJobs).Namespace(j.Namespace).Get(context.Background(), j.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sets, _, _ := unstructured.NestedSlice(obj.Object, "spec", "replicaSpecs")
	spec, _, _ := unstructured.NestedMap(sets[0].(map[string]any), "template", "spec")
	return spec
}

// TestACrashResumesFromTheNewestCheckpointOfItsTier: past step 40 a crash
// sends a TIERED job back to its newest in-memory checkpoint (every 2
// steps) and an S3 job to its newest S3 checkpoint (every 20), and the
// restart timeline says which tier and step, as rank 0's log does.
func TestACrashResumesFromTheNewestCheckpointOfItsTier(t *testing.T) {
	for _, c := range []struct {
		mode  training.Checkpointing
		tier  training.Tier
		every int
		words string
	}{
		{training.CheckpointTiered, training.TierMemory, 2, "resumed from memory at step "},
		{training.CheckpointS3, training.TierS3, 20, "resumed from S3 at step "},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			f := newFixture(t, true)
			if c.mode == training.CheckpointTiered {
				f.tiered(t)
			}
			name := "sft-" + strings.ToLower(string(c.mode))
			in := f.long(name)
			in.Checkpointing = c.mode
			j := f.submitHeld(t, in)
			f.stepUntil(t, j.ID, "past step 40", func(j *training.Job) bool {
				if j.Status != training.Running {
					return false
				}
				chunk, err := f.svc.ReadLogs(context.Background(), j.ID, training.LogsRequest{Tail: 10000}, "step=50 ")
				return err == nil && len(chunk.Lines) > 0
			})
			f.clock.Pause()
			f.inject(t, sim.FaultCrash, name, "", 0)
			got := f.stepUntil(t, j.ID, "resumed", func(j *training.Job) bool {
				return (len(j.Restarts) > 0 && j.Restarts[0].ResumedFrom != nil) || j.Status.Terminal()
			})
			f.clock.Resume()
			r := got.Restarts[0]
			if r.ResumedFrom == nil || r.ResumedFrom.Tier != c.tier || r.ResumedFrom.Step < 40 || r.ResumedFrom.Step%c.every != 0 || !r.ResumedFrom.At.After(r.Time) {
				t.Fatalf("restart %+v resumed from %+v; want %s at a step past 40, a multiple of %d, after the restart", r, r.ResumedFrom, c.tier, c.every)
			}
			chunk, err := f.svc.ReadLogs(context.Background(), j.ID, training.LogsRequest{Tail: 10000}, "resumed from")
			if err != nil {
				t.Fatal(err)
			}
			want := c.words + strconv.Itoa(r.ResumedFrom.Step)
			if !slices.ContainsFunc(chunk.Lines, func(l training.LogLine) bool { return strings.Contains(l.Text, want) }) {
				t.Fatalf("the log has no %q: %v", want, chunk.Lines)
			}
		})
	}
}
