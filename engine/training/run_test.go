package training_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/training"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// short is a job of 60 steps, a checkpoint every 20.
func (f *fixture) short(name string) training.SubmitInput {
	in := f.input()
	in.Name = name
	in.Settings = append(in.Settings, training.Setting{Key: "max_steps", Value: "60"}, training.Setting{Key: "save_steps", Value: "20"})
	return in
}

// submitHeld holds the simulator's clock, then submits in, so that the
// job's first states wait for the test's stepUntil.
func (f *fixture) submitHeld(t *testing.T, in training.SubmitInput) *training.Job {
	t.Helper()
	f.clock.Pause()
	t.Cleanup(f.clock.Resume)
	return f.submit(t, in)
}

// submit submits in and waits for the object to be made.
func (f *fixture) submit(t *testing.T, in training.SubmitInput) *training.Job {
	t.Helper()
	op, err := f.svc.Submit(context.Background(), "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
	j, err := f.svc.Get(op.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// stepUntil holds the simulator's clock and moves it on in small steps
// until ok accepts the job, so that a test sees a state that would last
// only moments; the clock runs again when it returns.
func (f *fixture) stepUntil(t *testing.T, id, what string, ok func(*training.Job) bool) *training.Job {
	t.Helper()
	f.clock.Pause()
	defer f.clock.Resume()
	return waitJob(t, f, id, what, func(j *training.Job) bool {
		if ok(j) {
			return true
		}
		f.clock.Step(5 * time.Millisecond)
		return false
	})
}

// inject injects a training fault on job name.
func (f *fixture) inject(t *testing.T, kind, job, pod string, count int) {
	t.Helper()
	if _, err := f.world.InjectFault(sim.Fault{Kind: kind, Job: job, Pod: pod, Count: count}); err != nil {
		t.Fatal(err)
	}
}

// TestAJobIsFollowedToSucceeded: a LLaMA-Factory job runs on both nodes,
// its pods on the group's nodes, and ends SUCCEEDED with its times and
// an untouched budget; its log holds the ranks' start, NCCL and steps.
func TestAJobIsFollowedToSucceeded(t *testing.T) {
	f := newFixture(t, true)
	j := f.submitHeld(t, f.short("sft-ok"))
	running := f.stepUntil(t, j.ID, "RUNNING", func(j *training.Job) bool { return j.Status == training.Running })
	if len(running.Pods) != 2 || running.Pods[0].Node == "" || running.Pods[0].Node == running.Pods[1].Node {
		t.Fatalf("pods = %+v, want two pods on two nodes", running.Pods)
	}
	done := waitJob(t, f, j.ID, "SUCCEEDED", func(j *training.Job) bool { return j.Status.Terminal() })
	if done.Status != training.Succeeded || done.StartedAt == nil || done.FinishedAt == nil || done.Budget.RestartsUsed != 0 || len(done.Restarts) != 0 {
		t.Fatalf("job = %s %q, budget %+v, restarts %v, want SUCCEEDED with no restart", done.Status, done.StatusMessage, done.Budget, done.Restarts)
	}
	if done.Budget.RestartsAllowed != 5 || done.Budget.Exhausted {
		t.Fatalf("budget = %+v, want 0 of 5 used", done.Budget)
	}
	chunk, err := f.svc.ReadLogs(context.Background(), j.ID, training.LogsRequest{Pod: done.Pods[0].Name, Tail: 1000}, "")
	if err != nil {
		t.Fatal(err)
	}
	text := joinLines(chunk.Lines)
	for _, want := range []string{"NCCL INFO", "Init COMPLETE", "step=60 ", "Saving model checkpoint to /s3/checkpoints/sft-ok/checkpoint-20", "Training completed"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log has no %q:\n%s", want, text)
		}
	}
	if !slices.IsSortedFunc(chunk.Lines, func(a, b training.LogLine) int { return a.Time.Compare(b.Time) }) {
		t.Error("the lines are not in time order")
	}
	// A tail of 0 (from the log's end) asks for no earlier line.
	none, err := f.svc.ReadLogs(context.Background(), j.ID, training.LogsRequest{Pod: done.Pods[0].Name, FromEnd: true}, "")
	if err != nil || len(none.Lines) != 0 {
		t.Fatalf("a read from the log's end gave %d lines, %v; want none", len(none.Lines), err)
	}
}

func joinLines(lines []training.LogLine) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s %s\n", l.Pod, l.Text)
	}
	return b.String()
}

// long is a job of 100,000 steps: it runs for as long as a test needs.
func (f *fixture) long(name string) training.SubmitInput {
	in := f.input()
	in.Name = name
	in.Settings = append(in.Settings, training.Setting{Key: "max_steps", Value: "100000"}, training.Setting{Key: "save_steps", Value: "20"})
	return in
}

// TestEachFaultSpendsBudget: a crash, a hang, an NCCL timeout, a lost
// node and a throughput under the slowness rule's floor each restart the
// job once, with their reason, and the job then
// runs again.
func TestEachFaultSpendsBudget(t *testing.T) {
	cases := []struct {
		kind   string
		reason training.RestartReason
		word   string
	}{
		{sim.FaultCrash, training.ProcessCrash, "exited with code 1"},
		{sim.FaultHang, training.Hang, "no line matching"},
		{sim.FaultNCCL, training.ProcessCrash, "NCCL"},
		{sim.FaultNode, training.NodeFailure, "lost"},
		{sim.FaultSlow, training.Slow, "tokens_per_sec under"},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			f := newFixture(t, true)
			name := "sft-" + tc.kind
			j := f.submit(t, f.long(name))
			waitJob(t, f, j.ID, "RUNNING", func(j *training.Job) bool { return j.Status == training.Running })
			if tc.kind == sim.FaultNode {
				if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultNode, Cluster: "train-1", Group: "gpu", Recovery: "replace"}); err != nil {
					t.Fatal(err)
				}
			} else {
				f.inject(t, tc.kind, name, "", 0)
			}
			// The object and its events are read one after the other: wait
			// for both to show the restart.
			got := waitJob(t, f, j.ID, "restarted", func(j *training.Job) bool {
				return (len(j.Restarts) > 0 && j.Budget.RestartsUsed > 0) || j.Status.Terminal()
			})
			if got.Budget.RestartsUsed != 1 || len(got.Restarts) != 1 || got.Restarts[0].Reason != tc.reason || !strings.Contains(got.Restarts[0].Message, tc.word) {
				t.Fatalf("after a %s: %s, budget %+v, restarts %+v; want one %s restart", tc.kind, got.Status, got.Budget, got.Restarts, tc.reason)
			}
			again := waitJob(t, f, j.ID, "running again", func(j *training.Job) bool { return j.Status == training.Running || j.Status.Terminal() })
			if again.Status != training.Running || again.Budget.RestartsUsed != 1 || len(again.Pods) != 2 {
				t.Fatalf("after the restart: %s %q, budget %+v, pods %+v; want RUNNING again on 2 pods with 1 restart used", again.Status, again.StatusMessage, again.Budget, again.Pods)
			}
			chunk, err := f.svc.ReadLogs(context.Background(), j.ID, training.LogsRequest{Tail: 10000}, "")
			if err != nil {
				t.Fatal(err)
			}
			if text := joinLines(chunk.Lines); !strings.Contains(text, "attempt 2") {
				t.Fatalf("the log shows no second attempt:\n%s", text)
			}
		})
	}
}

// TestAnExhaustedBudgetFailsTheJob: with two restarts allowed, a crash
// fault that strikes every attempt fails the job on the third, naming the
// crash and the spent budget. With the API server answering one item a
// page, the failed job still shows both its pods and both its restarts,
// read from every page of the pod and event lists.
func TestAnExhaustedBudgetFailsTheJob(t *testing.T) {
	for _, c := range []struct {
		name, job  string
		smallPages bool
	}{
		{name: "whole pages", job: "sft-doomed"},
		{name: "one item a page", job: "sft-paged", smallPages: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, true)
			if c.smallPages {
				if _, err := f.world.InjectFault(sim.Fault{Kind: sim.FaultSmallPages, Service: "kubernetes", Value: 1}); err != nil {
					t.Fatal(err)
				}
			}
			in := f.long(c.job)
			two := 2
			in.Recovery.MaxRestarts = &two
			j := f.submit(t, in)
			waitJob(t, f, j.ID, "RUNNING", func(j *training.Job) bool { return j.Status == training.Running })
			f.inject(t, sim.FaultCrash, c.job, c.job+"-pods-1", 100)
			done := waitJob(t, f, j.ID, "ended", func(j *training.Job) bool { return j.Status.Terminal() })
			if done.Status != training.Failed || done.Budget.RestartsUsed != 2 || !done.Budget.Exhausted {
				t.Fatalf("job = %s, budget %+v; want FAILED with 2 of 2 restarts used", done.Status, done.Budget)
			}
			if !strings.Contains(done.StatusMessage, "ProcessCrash") || !strings.Contains(done.StatusMessage, "jobMaxRetryCount") {
				t.Fatalf("message = %q, want the crash and the spent jobMaxRetryCount", done.StatusMessage)
			}
			if len(done.Pods) != 2 || len(done.Restarts) != 2 {
				t.Fatalf("pods %+v, restarts %+v: want the 2 pods and 2 restarts across pages", done.Pods, done.Restarts)
			}
			for _, p := range done.Pods {
				if p.Phase != "Failed" {
					t.Fatalf("pod %s is %s, want Failed", p.Name, p.Phase)
				}
			}
		})
	}
}

// TestLogsResumeFromACursorWithNoGap reads part of a running job's log,
// then follows it from the chunk's cursor: the lines go on from the next
// one, none missing, none twice.
func TestLogsResumeFromACursorWithNoGap(t *testing.T) {
	f := newFixture(t, true)
	j := f.submitHeld(t, f.short("sft-logs"))
	j = f.stepUntil(t, j.ID, "RUNNING", func(j *training.Job) bool { return j.Status == training.Running })
	f.clock.Pause()
	f.clock.Step(50 * time.Millisecond)
	pod := j.Pods[0].Name
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, err := f.svc.ReadLogs(ctx, j.ID, training.LogsRequest{Pod: pod, Tail: 10000}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Resume()
	if len(first.Lines) == 0 || strings.Contains(joinLines(first.Lines), "Training completed") {
		t.Fatalf("the first read should hold part of the log:\n%s", joinLines(first.Lines))
	}
	// The stream ends once the job has: the refresher would see it end.
	waitJob(t, f, j.ID, "SUCCEEDED", func(j *training.Job) bool { return j.Status.Terminal() })
	ch, err := f.svc.Logs(ctx, j.ID, training.LogsRequest{Pod: pod, Since: first.Cursor, Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	var rest []training.LogLine
	for c := range ch {
		rest = append(rest, c.Lines...)
		if c.End != "" {
			break
		}
	}
	all, err := f.svc.ReadLogs(ctx, j.ID, training.LogsRequest{Pod: pod, Tail: 10000}, "")
	if err != nil {
		t.Fatal(err)
	}
	joined := append(slices.Clone(first.Lines), rest...)
	if got, want := joinLines(joined), joinLines(all.Lines); got != want {
		t.Fatalf("resumed log differs from the whole log:\n--- resumed\n%s\n--- whole\n%s", got, want)
	}
	if !strings.Contains(joinLines(rest), "Training completed") {
		t.Fatalf("the followed log did not reach the end:\n%s", joinLines(rest))
	}
}

// TestVERLRunsAsARayJob: with KubeRay on, a VERL job runs as a RayJob on
// a head and a worker, a crash makes KubeRay retry it on new pods (a
// spent restart), and it then succeeds.
func TestVERLRunsAsARayJob(t *testing.T) {
	f := newFixture(t, true)
	f.enable(t, features.Toggle{Name: hyperpod.KubeRay, Enable: true})
	f.put(t, "datasets/gsm8k/train.parquet")
	in := f.input()
	in.Name, in.Recipe, in.DatasetPath = "grpo-1", recipe.Name("VERL"), "datasets/gsm8k/train.parquet"
	in.Settings = []training.Setting{{Key: "max_steps", Value: "100000"}, {Key: "save_steps", Value: "20"}, {Key: "train_batch_size", Value: "64"}}
	j := f.submit(t, in)
	if j.Kind != training.RayJob {
		t.Fatalf("kind = %s, want a RayJob", j.Kind)
	}
	running := waitJob(t, f, j.ID, "RUNNING", func(j *training.Job) bool { return j.Status == training.Running })
	// The Ray cluster's head and worker, <job>-<5 characters>-head and
	// -gpu-worker-0, and the submitter's pod once its Job made it.
	names := podNames(running.Pods)
	head := slices.IndexFunc(names, func(n string) bool { return strings.HasPrefix(n, "grpo-1-") && strings.HasSuffix(n, "-head") })
	if len(names) < 2 || len(names) > 3 || head < 0 || !slices.Contains(names, strings.TrimSuffix(names[head], "head")+"gpu-worker-0") {
		t.Fatalf("pods = %v, want the head, one worker and the submitter", names)
	}
	first := names[head]
	uid := f.podUID(t, first)
	f.inject(t, sim.FaultCrash, "grpo-1", "", 0)
	again := waitJob(t, f, j.ID, "retried", func(j *training.Job) bool {
		return (j.Status == training.Running && j.Budget.RestartsUsed == 1) || j.Status.Terminal()
	})
	if again.Status != training.Running || again.Budget.RestartsAllowed != 5 || again.OperatorState != "Running/RUNNING" {
		t.Fatalf("after a crash: %s (%s), budget %+v; want RUNNING again with 1 of 5 retries used", again.Status, again.OperatorState, again.Budget)
	}
	if f.podUID(t, first) == uid {
		t.Fatal("KubeRay's retry kept the pod; it makes a new Ray cluster")
	}
}

// TestKarpenterScalesAGroupFromZeroForAPendingJob: a job on a group at
// count 0 that Karpenter scales waits PENDING, its pods unschedulable,
// until Karpenter grows the group; then it runs.
func TestKarpenterScalesAGroupFromZeroForAPendingJob(t *testing.T) {
	f := newFixture(t, true, hyperpod.GroupSpec{Name: "burst", InstanceTypes: []string{"ml.g5.12xlarge"}, Count: 0, Zone: "us-west-2a"})
	f.enable(t, features.Toggle{Name: hyperpod.KarpenterAutoscaling, Enable: true, Settings: &features.Settings{InstanceGroups: []string{"burst"}}})
	in := f.long("burst-1")
	in.InstanceGroup = "burst"
	j := f.submitHeld(t, in)
	pending := f.stepUntil(t, j.ID, "PENDING with its pods", func(j *training.Job) bool {
		return j.Status == training.Pending && len(j.Pods) == 2 && j.Pods[0].Phase == "Pending"
	})
	if !strings.Contains(pending.StatusMessage, "pending") {
		t.Fatalf("message = %q, want why the pods wait", pending.StatusMessage)
	}
	running := waitJob(t, f, j.ID, "RUNNING", func(j *training.Job) bool { return j.Status == training.Running || j.Status.Terminal() })
	if running.Status != training.Running {
		t.Fatalf("job = %s %q, want RUNNING once Karpenter added nodes", running.Status, running.StatusMessage)
	}
	kc, err := f.p.KubeOf(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := kc.Core.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "sagemaker.amazonaws.com/instance-group-name=burst"})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 2 {
		t.Fatalf("burst has %d nodes, want the 2 Karpenter added", len(nodes.Items))
	}
	for _, p := range running.Pods {
		if !slices.ContainsFunc(nodes.Items, func(n corev1.Node) bool { return n.Name == p.Node }) {
			t.Fatalf("pod %s runs on %s, not on a burst node", p.Name, p.Node)
		}
	}
}

// TestPodLogOptions reads a training pod's log through the pods/log port
// as kubectl logs would: the tail, from a time, with timestamps, and the
// refusals.
func TestPodLogOptions(t *testing.T) {
	f := newFixture(t, true)
	j := f.submit(t, f.short("sft-opts"))
	done := waitJob(t, f, j.ID, "SUCCEEDED", func(j *training.Job) bool { return j.Status.Terminal() })
	kc, err := f.p.KubeOf(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	read := func(opts *corev1.PodLogOptions) []string {
		t.Helper()
		rc, err := kc.Logs.Stream(context.Background(), done.Namespace, done.Pods[0].Name, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		raw, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	}
	all := read(&corev1.PodLogOptions{Timestamps: true})
	if len(all) < 10 {
		t.Fatalf("log = %v", all)
	}
	two := int64(2)
	if tail := read(&corev1.PodLogOptions{Timestamps: true, TailLines: &two}); !slices.Equal(tail, all[len(all)-2:]) {
		t.Fatalf("tail 2 = %v, want %v", tail, all[len(all)-2:])
	}
	stamp, _, _ := strings.Cut(all[len(all)-3], " ")
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		t.Fatal(err)
	}
	since := read(&corev1.PodLogOptions{SinceTime: &metav1.Time{Time: at}})
	if len(since) < 3 || len(since) > len(all) || strings.HasPrefix(since[0], "20") {
		t.Fatalf("since %s = %v, want the last lines without timestamps", at, since)
	}
	if _, err := kc.Logs.Stream(context.Background(), done.Namespace, done.Pods[0].Name, &corev1.PodLogOptions{Container: "sidecar"}); !apierrors.IsBadRequest(err) {
		t.Fatalf("another container: %v, want BadRequest", err)
	}
	if _, err := kc.Logs.Stream(context.Background(), done.Namespace, "nope", &corev1.PodLogOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("no such pod: %v, want NotFound", err)
	}
}

func podNames(pods []training.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// podUID reads a pod's uid.
func (f *fixture) podUID(t *testing.T, name string) string {
	t.Helper()
	kc, err := f.p.KubeOf(context.Background(), f.eks)
	if err != nil {
		t.Fatal(err)
	}
	p, err := kc.Core.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return string(p.UID)
}

// enable turns features on.
func (f *fixture) enable(t *testing.T, toggles ...features.Toggle) {
	t.Helper()
	op, err := f.features.Update(context.Background(), "tester", f.cluster, toggles, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, op)
}
