package training_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/testwait"
	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

var (
	rayJobs     = schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayjobs"}
	rayClusters = schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayclusters"}
)

// rayInput is a RAY job of 60 steps: the head and one worker of the gpu
// group, with arguments and a runtime environment.
func (f *fixture) rayInput(t *testing.T, name string) training.SubmitInput {
	t.Helper()
	f.put(t, "code/train.py")
	return training.SubmitInput{ClusterID: f.cluster, Name: name, Recipe: recipe.Ray, Script: "code/train.py",
		DatasetPath: "datasets/alpaca/", InstanceGroup: "gpu", Nodes: 1,
		Settings: []training.Setting{{Key: "max_steps", Value: "60"}, {Key: "save_steps", Value: "20"}},
		Ray: &recipe.RayProgram{Args: []string{"--epochs", "1"}, Pip: []string{"datasets==3.2.0"},
			Env:     []recipe.EnvVar{{Name: "WANDB_MODE", Value: "offline"}},
			Workers: []recipe.RayWorkers{{InstanceGroup: "gpu", Replicas: 1}}}}
}

// TestRAYRunsAsARayJob: with KubeRay on, a RAY job is a RayJob; the
// simulated KubeRay makes its RayCluster (a head and a worker) and, once
// the cluster is ready, the submitter Job; the job goes from PENDING
// (Initializing) to RUNNING to SUCCEEDED, and the submitter's log carries
// the entrypoint's output. Deleting the job leaves no RayJob, RayCluster,
// submitter Job or pod.
func TestRAYRunsAsARayJob(t *testing.T) {
	f := newFixture(t, false)
	f.enable(t, features.Toggle{Name: hyperpod.KubeRay, Enable: true})
	j := f.submitHeld(t, f.rayInput(t, "ray-1"))
	if j.Kind != training.RayJob || j.Nodes != 2 || j.Ray == nil || j.Ray.Entrypoint != "python /s3/code/train.py --epochs 1" ||
		!slices.Equal(j.Ray.EnvNames, []string{"WANDB_MODE"}) || len(j.Ray.Workers) != 1 || j.Ray.Workers[0].GPUsPerNode != 4 {
		t.Fatalf("record = %+v, ray %+v", j, j.Ray)
	}
	pending := f.stepUntil(t, j.ID, "Initializing", func(j *training.Job) bool { return j.OperatorState != "" })
	if pending.Status != training.Pending || pending.OperatorState != "Initializing/PENDING" {
		t.Fatalf("first state %s (%s), want PENDING (Initializing/PENDING)", pending.Status, pending.OperatorState)
	}
	running := f.stepUntil(t, j.ID, "RUNNING", func(j *training.Job) bool { return j.Status == training.Running || j.Status.Terminal() })
	if running.Status != training.Running || running.OperatorState != "Running/RUNNING" {
		t.Fatalf("then %s (%s), want RUNNING (Running/RUNNING)", running.Status, running.OperatorState)
	}
	kc, err := f.p.KubeOf(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rj, err := kc.Dynamic.Resource(rayJobs).Namespace(j.Namespace).Get(ctx, "ray-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clusterName, _, _ := unstructured.NestedString(rj.Object, "status", "rayClusterName")
	jobID, _, _ := unstructured.NestedString(rj.Object, "status", "jobId")
	if !strings.HasPrefix(clusterName, "ray-1-") || !strings.HasPrefix(jobID, "ray-1-") {
		t.Fatalf("RayJob status = %v", rj.Object["status"])
	}
	rc, err := kc.Dynamic.Resource(rayClusters).Namespace(j.Namespace).Get(ctx, clusterName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	state, _, _ := unstructured.NestedString(rc.Object, "status", "state")
	desired, _, _ := unstructured.NestedInt64(rc.Object, "status", "desiredWorkerReplicas")
	if state != "ready" || desired != 1 || rc.GetOwnerReferences()[0].UID != rj.GetUID() {
		t.Fatalf("RayCluster %s: state %q, %d workers desired, owners %v", clusterName, state, desired, rc.GetOwnerReferences())
	}
	pods, err := kc.Core.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "ray.io/cluster=" + clusterName})
	if err != nil || len(pods.Items) != 2 {
		t.Fatalf("pods of the Ray cluster: %v, %v", pods, err)
	}
	for _, p := range pods.Items {
		if p.OwnerReferences[0].Kind != "RayCluster" || p.OwnerReferences[0].Name != clusterName {
			t.Fatalf("pod %s is owned by %v, want the RayCluster", p.Name, p.OwnerReferences)
		}
	}
	sub, err := kc.Core.BatchV1().Jobs(j.Namespace).Get(ctx, "ray-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if args := sub.Spec.Template.Spec.Containers[0].Args; len(args) != 1 || !strings.Contains(args[0], "ray job submit --address http://"+clusterName+"-head-svc.") ||
		!strings.Contains(args[0], "--submission-id "+jobID+" --no-wait -- python /s3/code/train.py --epochs 1") || !strings.Contains(args[0], `datasets==3.2.0`) {
		t.Fatalf("submitter command %v", sub.Spec.Template.Spec.Containers[0].Args)
	}

	done := waitJob(t, f, j.ID, "SUCCEEDED", func(j *training.Job) bool { return j.Status.Terminal() })
	if done.Status != training.Succeeded || done.OperatorState != "Complete/SUCCEEDED" || done.FinishedAt == nil {
		t.Fatalf("job = %s (%s) %q, want SUCCEEDED (Complete/SUCCEEDED)", done.Status, done.OperatorState, done.StatusMessage)
	}
	submitter := ""
	for _, p := range done.Pods {
		if !strings.HasPrefix(p.Name, clusterName) {
			submitter = p.Name
		}
	}
	if submitter == "" || len(done.Pods) != 3 {
		t.Fatalf("pods = %v, want the head, the worker and the submitter", podNames(done.Pods))
	}
	testwait.Eventually(t, "the submitter Job complete", func() bool {
		sub, err := kc.Core.BatchV1().Jobs(j.Namespace).Get(ctx, "ray-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return jobComplete(sub)
	})
	chunk, err := f.svc.ReadLogs(ctx, j.ID, training.LogsRequest{Pod: submitter, Tail: 1000}, "")
	if err != nil {
		t.Fatal(err)
	}
	text := joinLines(chunk.Lines)
	for _, want := range []string{"Job '" + jobID + "' submitted successfully", "step=60 ", "Training completed"} {
		if !strings.Contains(text, want) {
			t.Errorf("the submitter's log has no %q:\n%s", want, text)
		}
	}
	head, err := f.svc.ReadLogs(ctx, j.ID, training.LogsRequest{Pod: clusterName + "-head", Tail: 1000}, "")
	if err != nil || !strings.Contains(joinLines(head.Lines), "step=60 ") {
		t.Fatalf("the head's log: %v\n%s", err, joinLines(head.Lines))
	}

	del, err := f.svc.Delete(ctx, "tester", j.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, del)
	testwait.Eventually(t, "KubeRay's objects gone", func() bool {
		rcs, err := kc.Dynamic.Resource(rayClusters).Namespace(j.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := kc.Core.BatchV1().Jobs(j.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pods, err := kc.Core.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(rcs.Items) == 0 && len(jobs.Items) == 0 && len(pods.Items) == 0
	})
	if _, err := kc.Dynamic.Resource(rayJobs).Namespace(j.Namespace).Get(ctx, "ray-1", metav1.GetOptions{}); err == nil {
		t.Fatal("the RayJob is still there after deleteJob")
	}
}

func jobComplete(j *batchv1.Job) bool {
	return slices.ContainsFunc(j.Status.Conditions, func(c batchv1.JobCondition) bool { return c.Type == batchv1.JobComplete && c.Status == "True" })
}

// TestRAYIsRefusedBeforeAnythingIsMade: a RAY job without KubeRay, with a
// worker group the cluster lacks, or with more nodes than a group holds
// is refused with the field to change.
func TestRAYIsRefusedBeforeAnythingIsMade(t *testing.T) {
	f := newFixture(t, false)
	in := f.rayInput(t, "ray-1")
	check := func(name string, edit func(*training.SubmitInput), code errs.Code, field string) {
		t.Run(name, func(t *testing.T) {
			in := in
			p := *in.Ray
			p.Workers = slices.Clone(p.Workers)
			in.Ray = &p
			edit(&in)
			if _, err := f.svc.Submit(context.Background(), "tester", in, ""); !hasProblem(err, code, field) {
				t.Fatalf("got %v, want %s on %s", err, code, field)
			}
		})
	}
	check("without KubeRay", func(*training.SubmitInput) {}, errs.Precondition, "input.recipe")
	f.enable(t, features.Toggle{Name: hyperpod.KubeRay, Enable: true})
	check("a worker group the cluster lacks", func(in *training.SubmitInput) { in.Ray.Workers[0].InstanceGroup = "cpu" }, errs.Precondition, "input.ray.workerGroups[0].instanceGroup")
	check("more nodes than the group holds", func(in *training.SubmitInput) { in.Ray.Workers[0].Replicas = 2 }, errs.Precondition, "input.ray.workerGroups[0].replicas")
	check("more GPUs than the workers have", func(in *training.SubmitInput) { in.Ray.Workers[0].GPUsPerNode = 5 }, errs.Validation, "input.ray.workerGroups[0].gpusPerNode")
	check("a bad pip package", func(in *training.SubmitInput) { in.Ray.Pip = []string{"-e ."} }, errs.Validation, "input.ray.pip")
	check("no script", func(in *training.SubmitInput) { in.Script = "" }, errs.Validation, "input.script")
	check("a script not in the bucket", func(in *training.SubmitInput) { in.Script = "code/missing.py" }, errs.Precondition, "input.script")
}
