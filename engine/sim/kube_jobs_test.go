package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// jobSpec changes a test Job.
type jobSpec func(*batchv1.Job)

// testJob is a Job in namespace default whose pods run one busybox
// container, labelled app=<name>.
func testJob(name string, mods ...jobSpec) *batchv1.Job {
	spec := testPod(name).Spec
	spec.RestartPolicy = corev1.RestartPolicyNever
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
			Spec:       spec,
		}},
	}
	for _, m := range mods {
		m(j)
	}
	return j
}

func backoffLimit(n int32) jobSpec { return func(j *batchv1.Job) { j.Spec.BackoffLimit = &n } }
func ttlAfter(s int32) jobSpec     { return func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = &s } }
func deadlineOf(s int64) jobSpec   { return func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = &s } }

// jobIn reads a Job of namespace default.
func jobIn(f *fixture, kc kubernetes.Interface, name string) *batchv1.Job {
	f.t.Helper()
	return ok(kc.BatchV1().Jobs("default").Get(f.ctx, name, metav1.GetOptions{})).must(f.t)
}

// jobGone tells whether Job name is gone.
func jobGone(f *fixture, kc kubernetes.Interface, name string) bool {
	f.t.Helper()
	_, err := kc.BatchV1().Jobs("default").Get(f.ctx, name, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

// jobPods lists the pods of Job job, oldest first.
func jobPods(f *fixture, kc kubernetes.Interface, job string) []corev1.Pod {
	f.t.Helper()
	pods := ok(kc.CoreV1().Pods("default").List(f.ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})).must(f.t).Items
	slices.SortFunc(pods, func(a, b corev1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return pods
}

func jobCondition(j *batchv1.Job, typ batchv1.JobConditionType) batchv1.JobCondition {
	for _, c := range j.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return batchv1.JobCondition{}
}

// endPod has pod name end in phase, as its kubelet would report it.
func endPod(f *fixture, kc kubernetes.Interface, name string, phase corev1.PodPhase) {
	f.t.Helper()
	p := podIn(f, kc, name)
	p.Status.Phase = phase
	ok(kc.CoreV1().Pods("default").UpdateStatus(f.ctx, p, metav1.UpdateOptions{})).must(f.t)
}

// at is a moment as the API shows it: whole seconds.
func at(t time.Time) time.Time { return t.Truncate(time.Second) }

func TestKubeJobRunsAPodAndCompletes(t *testing.T) {
	f, kc, nodes := schedFixture(t)
	created := f.clock.Now()
	job := ok(kc.BatchV1().Jobs("default").Create(f.ctx, testJob("train"), metav1.CreateOptions{})).must(t)

	pods := jobPods(f, kc, "train")
	if len(pods) != 1 {
		t.Fatalf("the Job has %d pods, want 1", len(pods))
	}
	p := pods[0]
	suffix, hasBase := strings.CutPrefix(p.Name, "train-")
	if !hasBase || len(suffix) != 5 || strings.Trim(suffix, kubePodSuffixAlphabet) != "" || p.GenerateName != "train-" {
		t.Errorf("pod name %q (generateName %q), want train- and 5 generated characters", p.Name, p.GenerateName)
	}
	wantLabels := map[string]string{"app": "train", "job-name": "train", "batch.kubernetes.io/job-name": "train",
		"controller-uid": string(job.UID), "batch.kubernetes.io/controller-uid": string(job.UID)}
	for k, v := range wantLabels {
		if p.Labels[k] != v {
			t.Errorf("label %s = %q, want %q (labels %v)", k, p.Labels[k], v, p.Labels)
		}
	}
	if refs := p.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Job" || refs[0].APIVersion != "batch/v1" || refs[0].UID != job.UID ||
		refs[0].Controller == nil || !*refs[0].Controller || refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
		t.Errorf("owner references %+v, want the Job as controller", refs)
	}
	if p.Spec.NodeName != nodes["cpu"] || p.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("the pod is on %q with restartPolicy %s", p.Spec.NodeName, p.Spec.RestartPolicy)
	}
	j := jobIn(f, kc, "train")
	if j.Status.StartTime == nil || !j.Status.StartTime.Time.Equal(at(created)) || j.Status.Active != 1 || j.Status.Ready == nil || *j.Status.Ready != 0 {
		t.Errorf("a new Job's status: %+v", j.Status)
	}

	f.advance(kubePodStartTime)
	if p := podIn(f, kc, p.Name); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("the Job's pod is %s", p.Status.Phase)
	}
	if j := jobIn(f, kc, "train"); *j.Status.Ready != 1 || j.Status.Active != 1 {
		t.Errorf("with its pod running: active %d, ready %d", j.Status.Active, *j.Status.Ready)
	}
	// A Running pod stays so until something ends it.
	f.clock.Advance(time.Hour)
	if p := podIn(f, kc, p.Name); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("an hour later the pod is %s", p.Status.Phase)
	}

	done := f.clock.Now()
	endPod(f, kc, p.Name, corev1.PodSucceeded)
	j = jobIn(f, kc, "train")
	if j.Status.Succeeded != 1 || j.Status.Active != 0 || j.Status.Failed != 0 || j.Status.CompletionTime == nil || !j.Status.CompletionTime.Time.Equal(at(done)) {
		t.Errorf("a completed Job's status: %+v", j.Status)
	}
	for _, typ := range []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete} {
		c := jobCondition(j, typ)
		if c.Status != corev1.ConditionTrue || c.Reason != "CompletionsReached" || c.Message != "Reached expected number of succeeded pods" || !c.LastTransitionTime.Time.Equal(at(done)) {
			t.Errorf("condition %s: %+v", typ, c)
		}
	}
	f.clock.Advance(time.Hour)
	if pods := jobPods(f, kc, "train"); len(pods) != 1 || jobCondition(jobIn(f, kc, "train"), batchv1.JobFailed).Status != "" {
		t.Errorf("a completed Job without a ttl made more pods or failed: %d pods", len(pods))
	}
}

func TestKubeJobBacksOffUntilItsLimit(t *testing.T) {
	f, kc, _ := schedFixture(t)
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, testJob("flaky", backoffLimit(2)), metav1.CreateOptions{})).must(t)
	f.advance(kubePodStartTime)
	for i, backoff := range []time.Duration{10 * time.Second, 20 * time.Second} {
		pods := jobPods(f, kc, "flaky")
		failed := f.clock.Now()
		endPod(f, kc, pods[i].Name, corev1.PodFailed)
		if j := jobIn(f, kc, "flaky"); j.Status.Failed != int32(i+1) || j.Status.Active != 0 {
			t.Fatalf("after failure %d: failed %d, active %d", i+1, j.Status.Failed, j.Status.Active)
		}
		f.clock.Advance(scaled(backoff) - time.Millisecond)
		if n := len(jobPods(f, kc, "flaky")); n != i+1 {
			t.Fatalf("%v after failure %d, within its back-off, the Job has %d pods", scaled(backoff)-time.Millisecond, i+1, n)
		}
		f.clock.Advance(time.Millisecond)
		pods = jobPods(f, kc, "flaky")
		if len(pods) != i+2 || !pods[i+1].CreationTimestamp.Time.Equal(at(failed.Add(scaled(backoff)))) {
			t.Fatalf("once back-off %v is over, pods %d", backoff, len(pods))
		}
		f.advance(kubePodStartTime)
	}
	last := jobPods(f, kc, "flaky")[2]
	failed := f.clock.Now()
	endPod(f, kc, last.Name, corev1.PodFailed)
	j := jobIn(f, kc, "flaky")
	for _, typ := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		c := jobCondition(j, typ)
		if c.Status != corev1.ConditionTrue || c.Reason != "BackoffLimitExceeded" || c.Message != "Job has reached the specified backoff limit" || !c.LastTransitionTime.Time.Equal(at(failed)) {
			t.Errorf("condition %s: %+v", typ, c)
		}
	}
	if j.Status.Failed != 3 || j.Status.Active != 0 || j.Status.CompletionTime != nil {
		t.Errorf("a failed Job's status: %+v", j.Status)
	}
	f.clock.Advance(time.Hour)
	if n := len(jobPods(f, kc, "flaky")); n != 3 {
		t.Errorf("a failed Job made more pods: %d", n)
	}
}

func TestKubeJobBackoffAfter(t *testing.T) {
	cases := []struct {
		failures int
		want     time.Duration
	}{{1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second}, {6, 320 * time.Second}, {7, 6 * time.Minute}, {40, 6 * time.Minute}}
	for _, c := range cases {
		if got := kubeJobBackoffAfter(c.failures); got != c.want {
			t.Errorf("back-off after %d failures = %v, want %v", c.failures, got, c.want)
		}
	}
}

func TestKubeJobAndItsPodsExpireAfterTheirTTL(t *testing.T) {
	f, kc, _ := schedFixture(t)
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, testJob("short", ttlAfter(60)), metav1.CreateOptions{})).must(t)
	f.advance(kubePodStartTime)
	endPod(f, kc, jobPods(f, kc, "short")[0].Name, corev1.PodSucceeded)
	f.clock.Advance(scaled(60*time.Second) - time.Millisecond)
	if jobGone(f, kc, "short") || len(jobPods(f, kc, "short")) != 1 {
		t.Fatalf("before its ttl the Job or its pod is gone")
	}
	f.clock.Advance(time.Millisecond)
	if !jobGone(f, kc, "short") || len(jobPods(f, kc, "short")) != 0 {
		t.Errorf("after its ttl: Job gone %v, pods %d", jobGone(f, kc, "short"), len(jobPods(f, kc, "short")))
	}
}

func TestKubeDeletingAJobDeletesItsPod(t *testing.T) {
	f, kc, _ := schedFixture(t)
	pods := kc.CoreV1().Pods("default")
	ok(pods.Create(f.ctx, testPod("bare"), metav1.CreateOptions{})).must(t)
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, testJob("doomed"), metav1.CreateOptions{})).must(t)
	f.advance(kubePodStartTime)
	if n := len(jobPods(f, kc, "doomed")); n != 1 {
		t.Fatalf("the Job has %d pods", n)
	}
	background := metav1.DeletePropagationBackground
	if err := kc.BatchV1().Jobs("default").Delete(f.ctx, "doomed", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatal(err)
	}
	if n := len(jobPods(f, kc, "doomed")); n != 0 {
		t.Errorf("the deleted Job's pod stays: %d pods", n)
	}
	if p := podIn(f, kc, "bare"); p.Status.Phase != corev1.PodRunning {
		t.Errorf("a pod with no owner is %s", p.Status.Phase)
	}
}

func TestKubeJobPastItsActiveDeadline(t *testing.T) {
	f, kc, _ := schedFixture(t)
	started := f.clock.Now()
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, testJob("slow", deadlineOf(30)), metav1.CreateOptions{})).must(t)
	pod := jobPods(f, kc, "slow")[0].Name
	f.clock.Advance(scaled(30*time.Second) - time.Millisecond)
	if p := podIn(f, kc, pod); p.Status.Phase != corev1.PodRunning {
		t.Fatalf("before the deadline the pod is %s", p.Status.Phase)
	}
	// No call is made at the deadline: a later one finds what it did.
	f.clock.Advance(time.Minute)
	if n := len(jobPods(f, kc, "slow")); n != 0 {
		t.Errorf("past the deadline the Job has %d pods", n)
	}
	j := jobIn(f, kc, "slow")
	deadline := at(started.Add(scaled(30 * time.Second)))
	for _, typ := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		c := jobCondition(j, typ)
		if c.Status != corev1.ConditionTrue || c.Reason != "DeadlineExceeded" || c.Message != "Job was active longer than specified deadline" || !c.LastTransitionTime.Time.Equal(deadline) {
			t.Errorf("condition %s: %+v, want DeadlineExceeded at %v", typ, c, deadline)
		}
	}
	if j.Status.Failed != 1 || j.Status.Active != 0 {
		t.Errorf("past its deadline: failed %d, active %d", j.Status.Failed, j.Status.Active)
	}
}

func TestKubeSuspendedJobHasNoPod(t *testing.T) {
	f, kc, _ := schedFixture(t)
	ok(kc.BatchV1().Jobs("default").Create(f.ctx, testJob("held", func(j *batchv1.Job) { j.Spec.Suspend = new(true) }), metav1.CreateOptions{})).must(t)
	j := jobIn(f, kc, "held")
	if n := len(jobPods(f, kc, "held")); n != 0 || j.Status.StartTime != nil || jobCondition(j, batchv1.JobSuspended).Status != corev1.ConditionTrue {
		t.Errorf("a suspended Job: %d pods, status %+v", n, j.Status)
	}
	j.Spec.Suspend = new(false)
	ok(kc.BatchV1().Jobs("default").Update(f.ctx, j, metav1.UpdateOptions{})).must(t)
	j = jobIn(f, kc, "held")
	if n := len(jobPods(f, kc, "held")); n != 1 || j.Status.StartTime == nil || jobCondition(j, batchv1.JobSuspended).Reason != "JobResumed" {
		t.Errorf("a resumed Job: %d pods, status %+v", n, j.Status)
	}
}

// jobHistory words what a Job and its pods went through, as the API shows
// it.
func jobHistory(f *fixture, kc kubernetes.Interface, job string) string {
	f.t.Helper()
	var b strings.Builder
	j := jobIn(f, kc, job)
	fmt.Fprintf(&b, "job failed=%d succeeded=%d active=%d start=%v", j.Status.Failed, j.Status.Succeeded, j.Status.Active, j.Status.StartTime)
	for _, c := range j.Status.Conditions {
		fmt.Fprintf(&b, " %s=%s(%s@%v)", c.Type, c.Status, c.Reason, c.LastTransitionTime)
	}
	for _, p := range jobPods(f, kc, job) {
		fmt.Fprintf(&b, "\npod %s %s created=%v node=%s", p.Name, p.Status.Phase, p.CreationTimestamp, p.Spec.NodeName)
		for _, cs := range p.Status.ContainerStatuses {
			if term := cs.State.Terminated; term != nil {
				fmt.Fprintf(&b, " exit=%d %s %q %v-%v", term.ExitCode, term.Reason, term.Message, term.StartedAt, term.FinishedAt)
			}
		}
	}
	return b.String()
}
