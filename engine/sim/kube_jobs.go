package sim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The Job controller (batch/v1 Jobs) and the part of the garbage
// collector that deletes a Job's pods. A settle plays them after the pods'
// programs (kube_programs.go) and before the scheduler binds pods:
//
//   - a pod whose controller is a Job that no longer exists (deleted, or
//     deleted and created again under its name) is deleted; a pod with no
//     owner is left alone;
//   - a Job that is not finished, not suspended and has no active pod gets
//     one made from spec.template: named <job>-<5 characters drawn from the
//     world's seeded draws>, labelled as the template is plus job-name,
//     batch.kubernetes.io/job-name, controller-uid and
//     batch.kubernetes.io/controller-uid, with the Job as its controller
//     owner (blockOwnerDeletion). The scheduler binds and starts it; it
//     stays Running until its program ends it or it is deleted;
//   - the Job's status follows as the real controller writes it:
//     startTime, active, ready, terminating, succeeded, failed and
//     uncountedTerminatedPods; on success SuccessCriteriaMet and Complete
//     (CompletionsReached) with completionTime; once failed exceeds
//     spec.backoffLimit (default 6), FailureTarget and Failed
//     (BackoffLimitExceeded); once spec.activeDeadlineSeconds have passed
//     since startTime, the active pod is deleted (a failure) and the Job
//     Fails with DeadlineExceeded. A pod that fails, or is deleted before
//     it succeeds (by a client, or evicted with its node), is a failure;
//     the next pod waits the back-off: 10s after the first failure,
//     doubling with each, at most 6 minutes;
//   - spec.suspend deletes the active pod (not a failure) and sets the
//     Suspended condition; resuming starts the Job's clock again;
//   - spec.ttlSecondsAfterFinished after a Job finished, the Job and its
//     pods are deleted, as the TTL controller and the garbage collector do.
//
// Every duration (back-off, deadline, ttl) is real-world time, divided by
// the world's speed like every latency. Nothing runs in the background:
// the controller keeps the exact moments it needs in kubeJobRec (the
// objects' timestamps keep whole seconds only) and tells nextKubeWake of
// the next moment each Job needs it (kubeClusterRec.Wakes), so that a
// settle plays what fell due since the last one in order, at its moment.
//
// Left out: parallelism and completions other than 1 (one pod at a time,
// and the first success completes the Job; parallelism 0 makes no pod),
// Indexed completion, podFailurePolicy, successPolicy, backoffLimitPerIndex,
// podReplacementPolicy, manualSelector (the Job's pods are those it
// owns, and spec.selector is neither defaulted nor read), the
// job-tracking finalizer, Events, and restarts: restartPolicy OnFailure is
// played as Never, a failed pod is a failure and a new pod replaces it.
// Deleting a Job with propagationPolicy Orphan deletes its pods too.

// kubeJobsKey is the resource key of Jobs.
const kubeJobsKey = "batch/v1/jobs"

// Labels the Job controller puts on its pods.
const (
	kubeJobNameLabel          = "batch.kubernetes.io/job-name"
	kubeJobUIDLabel           = "batch.kubernetes.io/controller-uid"
	kubeLegacyJobNameLabel    = "job-name"
	kubeLegacyControllerLabel = "controller-uid"
)

// Back-off of a Job's pods after failures, and its default limit.
const (
	kubeJobBackoff        = 10 * time.Second
	kubeJobMaxBackoff     = 6 * time.Minute
	kubeJobDefaultBackoff = 6
)

// kubePodSuffixAlphabet is what the API server draws generated names'
// suffixes from.
const kubePodSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// kubeJobRec is what the Job controller remembers of one Job, at full
// precision.
type kubeJobRec struct {
	// Pod is the uid of the pod the Job waits on, "" between pods.
	Pod string `json:",omitempty"`
	// StartedAt is when the Job started, or resumed: its active deadline
	// counts from it.
	StartedAt time.Time `json:",omitzero"`
	// NextPodAt is when the next pod may be made, once the back-off of
	// the last failure is over.
	NextPodAt time.Time `json:",omitzero"`
	// FinishedAt is when the Job completed or failed.
	FinishedAt time.Time `json:",omitzero"`
	// Wake is the next moment the Job needs the controller, zero for none.
	Wake time.Time `json:",omitzero"`
}

// kubeJob is a stored Job, decoded.
type kubeJob struct {
	obj *unstructured.Unstructured
	job batchv1.Job
}

// playJobs plays the garbage collector and the Job controller (see the top
// of this file). ended holds, by pod uid, when the pods whose programs
// ended in this settle ended.
func (sc *kubeScheduler) playJobs(ended map[string]time.Time) error {
	s := sc.s
	objs, err := s.list(kubeJobsKey, "")
	if err != nil {
		return err
	}
	jobs := make([]*kubeJob, 0, len(objs))
	present := map[string]bool{}
	for _, obj := range objs {
		j := &kubeJob{obj: obj}
		if err := kubeDecodeAs(obj, &j.job); err != nil {
			return err
		}
		jobs = append(jobs, j)
		present[string(j.job.UID)] = true
	}
	owned := map[string][]*kubeSchedPod{}
	for _, p := range slices.Clone(sc.pods) {
		switch owner := kubeJobOwner(&p.pod); {
		case owner == "":
		case !present[owner]:
			sc.drop(p)
		default:
			owned[owner] = append(owned[owner], p)
		}
	}
	for uid := range s.rec.Jobs {
		if !present[uid] {
			delete(s.rec.Jobs, uid)
		}
	}
	for _, j := range jobs {
		if err := sc.syncJob(j, owned[string(j.job.UID)], ended); err != nil {
			return err
		}
	}
	return nil
}

// kubeJobOwner is the uid of the Job that controls pod, "" when no Job
// does.
func kubeJobOwner(pod *corev1.Pod) string {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "Job" && strings.HasPrefix(o.APIVersion, "batch/") && o.Controller != nil && *o.Controller {
			return string(o.UID)
		}
	}
	return ""
}

// syncJob brings one Job, which owns pods owned, up to the settle's
// moment.
func (sc *kubeScheduler) syncJob(j *kubeJob, owned []*kubeSchedPod, ended map[string]time.Time) error {
	s := sc.s
	now := s.t.now
	job := &j.job
	uid := string(job.UID)
	if s.rec.Jobs == nil {
		s.rec.Jobs = map[string]*kubeJobRec{}
	}
	rec := s.rec.Jobs[uid]
	if rec == nil {
		rec = &kubeJobRec{}
		s.rec.Jobs[uid] = rec
	}
	rec.Wake = time.Time{}
	st := job.Status.DeepCopy()

	if at, done := kubeJobFinished(st); done {
		if rec.FinishedAt.IsZero() {
			rec.FinishedAt = at
		}
		sc.expireJob(j, rec, owned)
		return nil
	}

	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		for _, p := range owned {
			if p.active() {
				sc.drop(p)
			}
		}
		rec.Pod = ""
		if c := kubeJobCondition(st, batchv1.JobSuspended); c == nil || c.Status != corev1.ConditionTrue {
			kubeSetJobCondition(st, batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended", now)
		}
		st.Active = 0
		st.Ready, st.Terminating = new(int32(0)), new(int32(0))
		sc.writeJobStatus(j, st)
		return nil
	}
	if c := kubeJobCondition(st, batchv1.JobSuspended); c != nil && c.Status == corev1.ConditionTrue {
		kubeSetJobCondition(st, batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", now)
		st.StartTime, rec.StartedAt = nil, time.Time{}
	}
	if st.StartTime == nil {
		started := metav1.NewTime(now)
		st.StartTime, rec.StartedAt = &started, now
	}
	if rec.StartedAt.IsZero() {
		rec.StartedAt = st.StartTime.Time
	}

	// What became of the pod the Job waits on.
	var cur *kubeSchedPod
	if rec.Pod == "" {
		for _, p := range owned {
			if p.active() {
				rec.Pod = string(p.pod.UID) // adopted: made before the controller's memory
			}
		}
	}
	for _, p := range owned {
		if string(p.pod.UID) == rec.Pod {
			cur = p
		}
	}
	var endedAt time.Time
	var outcome corev1.PodPhase
	if rec.Pod != "" && (cur == nil || !cur.active()) {
		outcome, endedAt = corev1.PodFailed, now
		if cur != nil {
			outcome = cur.pod.Status.Phase
			if at, ok := ended[rec.Pod]; ok {
				endedAt = at
			}
		}
	}

	deadline, hasDeadline := time.Time{}, job.Spec.ActiveDeadlineSeconds != nil
	if hasDeadline {
		deadline = rec.StartedAt.Add(s.t.w.scale(time.Duration(*job.Spec.ActiveDeadlineSeconds) * time.Second))
	}
	switch {
	case hasDeadline && !now.Before(deadline) && (outcome == "" || deadline.Before(endedAt)):
		// The deadline came while the Job waited on its pod, or between pods.
		if rec.Pod != "" {
			st.Failed++
			if cur != nil && cur.active() {
				sc.drop(cur)
			}
		}
		rec.Pod = ""
		kubeFinishJob(st, batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline", deadline)
		rec.FinishedAt = deadline
	case outcome == corev1.PodSucceeded:
		st.Succeeded++
		rec.Pod = ""
		kubeFinishJob(st, batchv1.JobComplete, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", endedAt)
		rec.FinishedAt = endedAt
	case outcome != "":
		st.Failed++
		rec.Pod = ""
		rec.NextPodAt = endedAt.Add(s.t.w.scale(kubeJobBackoffAfter(int(st.Failed))))
		limit := int32(kubeJobDefaultBackoff)
		if job.Spec.BackoffLimit != nil {
			limit = *job.Spec.BackoffLimit
		}
		if st.Failed > limit {
			kubeFinishJob(st, batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", endedAt)
			rec.FinishedAt = endedAt
		}
	}
	_, finished := kubeJobFinished(st)
	if !finished {
		if rec.Pod == "" && (job.Spec.Parallelism == nil || *job.Spec.Parallelism > 0) {
			if now.Before(rec.NextPodAt) {
				rec.Wake = rec.NextPodAt
			} else {
				p, err := sc.makeJobPod(job)
				if err != nil {
					return err
				}
				cur, rec.Pod = p, string(p.pod.UID)
			}
		}
		if hasDeadline && (rec.Wake.IsZero() || deadline.Before(rec.Wake)) {
			rec.Wake = deadline
		}
	}

	st.Active, st.Ready, st.Terminating = 0, new(int32(0)), new(int32(0))
	if rec.Pod != "" && cur != nil {
		st.Active = 1
		if kubePodReady(&cur.pod) {
			*st.Ready = 1
		}
	}
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	sc.writeJobStatus(j, st)
	if finished {
		sc.expireJob(j, rec, owned)
	}
	return nil
}

// kubePodReady tells whether a pod's Ready condition is true.
func kubePodReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// kubeJobBackoffAfter is how long a Job waits for its next pod after its
// failures-th failure (real time).
func kubeJobBackoffAfter(failures int) time.Duration {
	d := kubeJobBackoff
	for i := 1; i < failures && d < kubeJobMaxBackoff; i++ {
		d *= 2
	}
	return min(d, kubeJobMaxBackoff)
}

// expireJob deletes a finished Job, and its pods, once its
// ttlSecondsAfterFinished are over; until then it has the Job woken at
// that moment.
func (sc *kubeScheduler) expireJob(j *kubeJob, rec *kubeJobRec, owned []*kubeSchedPod) {
	ttl := j.job.Spec.TTLSecondsAfterFinished
	if ttl == nil {
		return
	}
	at := rec.FinishedAt.Add(sc.s.t.w.scale(time.Duration(*ttl) * time.Second))
	if sc.s.t.now.Before(at) {
		rec.Wake = at
		return
	}
	for _, p := range owned {
		sc.drop(p)
	}
	sc.s.remove(kubeJobsKey, j.obj)
	delete(sc.s.rec.Jobs, string(j.job.UID))
}

// kubeJobFinished tells whether a Job's status says it completed or
// failed, and when.
func kubeJobFinished(st *batchv1.JobStatus) (time.Time, bool) {
	for _, c := range st.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}

func kubeJobCondition(st *batchv1.JobStatus, typ batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

// kubeSetJobCondition sets a Job condition at at; its transition time
// moves only when its status changes.
func kubeSetJobCondition(st *batchv1.JobStatus, typ batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string, at time.Time) {
	when := metav1.NewTime(at)
	c := batchv1.JobCondition{Type: typ, Status: status, Reason: reason, Message: message, LastProbeTime: when, LastTransitionTime: when}
	if old := kubeJobCondition(st, typ); old != nil {
		if old.Status == status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		return
	}
	st.Conditions = append(st.Conditions, c)
}

// kubeFinishJob ends a Job as complete or failed at at: the interim
// condition first, as the controller adds it before the final one.
func kubeFinishJob(st *batchv1.JobStatus, typ batchv1.JobConditionType, reason, message string, at time.Time) {
	interim := batchv1.JobFailureTarget
	if typ == batchv1.JobComplete {
		interim = batchv1.JobSuccessCriteriaMet
		done := metav1.NewTime(at)
		st.CompletionTime = &done
	}
	kubeSetJobCondition(st, interim, corev1.ConditionTrue, reason, message, at)
	kubeSetJobCondition(st, typ, corev1.ConditionTrue, reason, message, at)
}

// writeJobStatus stores the Job with status st, if it changed. Only the
// status is written: the spec stays as its client sent it.
func (sc *kubeScheduler) writeJobStatus(j *kubeJob, st *batchv1.JobStatus) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(st)
	if err != nil {
		// A status decoded from its stored form always encodes again.
		panic(fmt.Sprintf("sim: encode the status of Job %s/%s: %v", j.job.Namespace, j.job.Name, err))
	}
	next := j.obj.DeepCopy()
	next.Object["status"] = content
	j.obj = sc.s.put(kubeJobsKey, j.obj, next)
}

// makeJobPod creates the Job's next pod from its template, and hands it
// to the scheduler.
func (sc *kubeScheduler) makeJobPod(job *batchv1.Job) (*kubeSchedPod, error) {
	s := sc.s
	tmpl := job.Spec.Template.DeepCopy()
	labels := maps.Clone(tmpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[kubeJobNameLabel], labels[kubeLegacyJobNameLabel] = job.Name, job.Name
	labels[kubeJobUIDLabel], labels[kubeLegacyControllerLabel] = string(job.UID), string(job.UID)
	base := job.Name + "-"
	if len(base) > 58 {
		base = base[:58] // the API server's room for a generated name's suffix
	}
	name := base + s.t.drawString(kubePodSuffixAlphabet, 5)
	for s.rec.Objects[kubePodsKey][kubeObjectKey(job.Namespace, name)] != nil {
		name = base + s.t.drawString(kubePodSuffixAlphabet, 5)
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: base, Namespace: job.Namespace, Labels: labels, Annotations: tmpl.Annotations,
			Finalizers: tmpl.Finalizers,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID,
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: tmpl.Spec,
	}
	return sc.createPod(pod)
}

// createPod stores a pod a controller makes, as of the settle's moment,
// and hands it to the scheduler.
func (sc *kubeScheduler) createPod(pod *corev1.Pod) (*kubeSchedPod, error) {
	s := sc.s
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encode pod %s/%s: %w", pod.Namespace, pod.Name, err))
	}
	stored := s.put(kubePodsKey, nil, s.stamp(&unstructured.Unstructured{Object: content}, s.t.now))
	raw, err := json.Marshal(stored.Object)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encode pod %s/%s: %w", pod.Namespace, pod.Name, err))
	}
	p := &kubeSchedPod{}
	if err := json.Unmarshal(raw, &p.pod); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("decode pod %s/%s: %w", pod.Namespace, pod.Name, err))
	}
	p.req = kubePodRequests(&p.pod.Spec)
	sc.insert(p)
	return p, nil
}

// insert adds a new pod to the settle's view, in the scheduler's order:
// oldest first, then by namespace and name.
func (sc *kubeScheduler) insert(p *kubeSchedPod) {
	i, _ := slices.BinarySearchFunc(sc.pods, p, func(a, b *kubeSchedPod) int {
		if c := a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.key(), b.key())
	})
	sc.pods = slices.Insert(sc.pods, i, p)
}

// drop deletes a pod in the middle of a settle: from the store, from the
// settle's view and from its node's account, with what the world kept of
// it (its start, its program's run).
func (sc *kubeScheduler) drop(p *kubeSchedPod) {
	i := slices.Index(sc.pods, p)
	if i < 0 {
		return // dropped already
	}
	sc.pods = slices.Delete(sc.pods, i, i+1)
	if n := sc.node[p.pod.Spec.NodeName]; n != nil && p.active() {
		n.remove(p)
	}
	sc.remove(p)
	uid := string(p.pod.UID)
	delete(sc.s.rec.PodStarts, uid)
	delete(sc.s.rec.Runs, uid)
}

// drawString returns n characters of alphabet from the world's seeded
// draws (see txn.draw), so that names differ from one seed to another yet
// replay identically for one.
func (t *txn) drawString(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[t.draw(0, time.Duration(len(alphabet)-1))]
	}
	return string(b)
}

// planWakes records the coming moments at which the cluster's Jobs and
// programs need a settle: a Job's next pod, deadline or expiry, a
// program's end, the start of a pod that runs a program, and the moments
// other controllers asked for (kubeScheduler.later: a model loaded, a
// KEDA cooldown over). It runs once the settle has bound the pods it
// could.
func (sc *kubeScheduler) planWakes() {
	s := sc.s
	now := s.t.now
	var wakes []time.Time
	for _, rec := range s.rec.Jobs {
		if rec.Wake.After(now) {
			wakes = append(wakes, rec.Wake)
		}
	}
	for _, run := range s.rec.Runs {
		if run.End.After(now) {
			wakes = append(wakes, run.End)
		}
	}
	for _, rec := range s.rec.Training {
		if rec.Wake.After(now) {
			wakes = append(wakes, rec.Wake)
		}
	}
	for _, p := range sc.pods {
		if at, ok := s.rec.PodStarts[string(p.pod.UID)]; ok && at.After(now) && kubeRunsProgram(&p.pod) {
			wakes = append(wakes, at)
		}
	}
	for _, at := range sc.later {
		if at.After(now) {
			wakes = append(wakes, at)
		}
	}
	slices.SortFunc(wakes, time.Time.Compare)
	s.rec.Wakes = slices.CompactFunc(wakes, time.Time.Equal)
}

// nextWake is the cluster's first wake after after and not after now.
func (rec *kubeClusterRec) nextWake(after, now time.Time) (time.Time, bool) {
	for _, at := range rec.Wakes {
		if at.After(after) && !at.After(now) {
			return at, true
		}
	}
	return time.Time{}, false
}
