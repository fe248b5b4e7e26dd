package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// The HyperPod training operator's reconciler: what it keeps of a job, the
// attempts it starts and ends, the restarts it spends and the status it
// writes. When an attempt's steps fall due is worked out in
// kube_training_timing.go, what rank 0 reports to MLflow in
// kube_training_mlflow.go, what the ranks log in kube_training_program.go.
//
// A settle plays the operator after the Job controller (kube_jobs.go) and
// before the scheduler binds pods. It acts while the cluster's
// amazon-sagemaker-hyperpod-training-operator add-on is ACTIVE; the
// garbage collector deletes the pods of a job that is gone whether or not
// it runs.
//
//   - A HyperPodPyTorchJob gets one pod per replica of its first replica
//     set, named <job>-<replica set>-<rank>, made from the set's template
//     (its labels, the job as controller owner). The scheduler binds and
//     starts them; Karpenter grows groups for those that fit no node.
//   - Once every pod runs, an attempt starts: the ranks' processes (the
//     "training" program of kube_training_program.go) initialise NCCL,
//     load the model and train from the last checkpoint, logging a step
//     line every few steps. The attempt ends when the last step is done:
//     the job is Completed, its pods Succeeded.
//   - A fault ends an attempt: a process crash (the crash fault), ranks
//     timing out in a collective (nccl), a hang that the job's progress
//     rule of runPolicy.logMonitoringConfiguration detects once
//     expectedRecurringFrequencyInSeconds have passed with no step line
//     (hang; expectedStartCutOffInSeconds before the first step), a
//     throughput rule (one with a metricThreshold) that has seen
//     metricEvaluationDataPoints step lines under its threshold (slow), or a pod
//     lost with its node (the node fault). Each spends budget as the
//     operator's restart policy says: restartCount against
//     jobMaxRetryCount; within an evaluation period of evalPeriodSeconds,
//     numRestartBeforeFullJobRestart restarts in place (the pods stay,
//     the processes start again) before a full job restart (the pods are
//     made again), at most maxFullJobRestarts of those. An attempt that
//     would pass the budget fails the job with its reason. Each restart
//     is a Warning event of the job (HangDetected, SlowDetected,
//     ProcessCrash, NodeFailure) and the Restarting condition, until the next attempt
//     runs.
//   - The job's status carries the conditions (Created, then the newest
//     of Running, Restarting, Completed, Failed true), restartCount,
//     restartStatus (currentEvalPeriod, restartCount, fullJobRestartCount),
//     startTime, completionTime and jobPods.
//   - Rank 0 reports loss, learning_rate and tokens_per_sec to the MLflow
//     run named by MLFLOW_RUN_NAME of experiment MLFLOW_EXPERIMENT_NAME on
//     the tracking server MLFLOW_TRACKING_URI, at each logged step.
//
// Every duration is real time divided by the world's speed. Left out:
// elastic scaling, spares, Kueue, repeat offenders, and restarts of single
// ranks. A slow job (the slow fault) reports a fallen throughput while its
// steps keep their pace.

// kubeHyperPodJobsKey is the resource key of HyperPodPyTorchJobs.
const kubeHyperPodJobsKey = "sagemaker.amazonaws.com/v1/hyperpodpytorchjobs"

// kubeTrainingOperatorAddon is the EKS add-on that runs the operator.
const kubeTrainingOperatorAddon = "amazon-sagemaker-hyperpod-training-operator"

// Training job states: the condition types of a HyperPodPyTorchJob.
const (
	trainCreated    = "Created"
	trainRunning    = "Running"
	trainRestarting = "Restarting"
	trainCompleted  = "Completed"
	trainFailed     = "Failed"
)

// kubeTrainRec is what the operator keeps of one job, by the job's uid.
type kubeTrainRec struct {
	Kind, Namespace, Name string
	Plan                  kubeTrainPlan
	// Pods are the job's pods by rank; an empty UID is a pod to make.
	Pods     []kubeTrainPod
	Attempts []kubeTrainAttempt `json:",omitempty"`
	State    string
	// Conds holds when each state was last entered, and why.
	Conds map[string]kubeTrainCond
	// Restarts counts every restart; WindowRestarts those of the
	// evaluation period that began at WindowStart since the last full
	// job restart; FullRestarts the full job restarts.
	Restarts, WindowRestarts, FullRestarts int       `json:",omitempty"`
	WindowStart                            time.Time `json:",omitzero"`
	// NextAt is when the next attempt may start, after a restart.
	NextAt     time.Time `json:",omitzero"`
	StartedAt  time.Time `json:",omitzero"`
	FinishedAt time.Time `json:",omitzero"`
	// Sent is the last step whose metrics went to MLflow.
	Sent int64 `json:",omitempty"`
	// Events counts the events made, to name them.
	Events int `json:",omitempty"`
	// Wake is the next moment the job needs the operator.
	Wake time.Time `json:",omitzero"`
	// Ray is what KubeRay keeps of a RayJob (kube_raycluster.go).
	Ray *kubeRayRec `json:",omitempty"`
}

type kubeTrainPod struct {
	Name, UID string
	// Since is when its containers started, zero until they run.
	Since time.Time `json:",omitzero"`
}

type kubeTrainCond struct {
	Reason, Message string `json:",omitempty"`
	At              time.Time
}

// kubeTrainPlan is what the job asks, read from its spec once.
type kubeTrainPlan struct {
	Nodes, ProcsPerNode, EFAPerNode int
	MaxSteps, SaveSteps             int64
	// Tiered says the job uses managed tiered checkpointing, with an
	// in-memory checkpoint every MemorySteps (kube_training_tiers.go).
	Tiered                   bool  `json:",omitempty"`
	MemorySteps              int64 `json:",omitempty"`
	CheckpointDir, OutputDir string
	LearningRate             float64
	// TokensPerSec is the job's throughput when healthy.
	TokensPerSec float64
	// Tracking, Experiment and Run are the MLflow run, empty for none.
	Tracking, Experiment, Run string `json:",omitempty"`
	// HangRule names the progress rule, HangAfter and FirstStepCutoff its
	// times; zero HangAfter when the job has none.
	HangRule                   string        `json:",omitempty"`
	HangPattern                string        `json:",omitempty"`
	HangAfter, FirstStepCutoff time.Duration `json:",omitempty"`
	// SlowRule names the throughput rule, SlowThreshold the figure a
	// step line must fall under and SlowPoints how many such lines fire
	// it; zero SlowPoints when the job has none.
	SlowRule                string  `json:",omitempty"`
	SlowThreshold           float64 `json:",omitempty"`
	SlowPoints              int     `json:",omitempty"`
	MaxRetries, EvalSeconds int
	MaxFull, BeforeFull     int
}

// kubeTrainAttempt is one start of the job's processes.
type kubeTrainAttempt struct {
	Start time.Time
	// From is the checkpoint's step it resumed from, Tier where that
	// checkpoint was ("memory", "S3", or "" for none).
	From int64  `json:",omitempty"`
	Tier string `json:",omitempty"`
	// Fault is what struck it ("" none, or hang, crash, nccl, node), at
	// FaultAt on Rank, with Message.
	Fault   string    `json:",omitempty"`
	FaultAt time.Time `json:",omitzero"`
	Rank    int       `json:",omitempty"`
	Message string    `json:",omitempty"`
	// EndAt is when it ended, Outcome how: restart, full-restart,
	// succeeded, failed.
	EndAt   time.Time `json:",omitzero"`
	Outcome string    `json:",omitempty"`
}

// running tells whether the attempt has not ended.
func (a *kubeTrainAttempt) running() bool { return a.EndAt.IsZero() }

// current is the attempt that runs, nil between attempts.
func (rec *kubeTrainRec) current() *kubeTrainAttempt {
	if n := len(rec.Attempts); n > 0 && rec.Attempts[n-1].running() {
		return &rec.Attempts[n-1]
	}
	return nil
}

// terminal tells whether the job has ended.
func (rec *kubeTrainRec) terminal() bool {
	return rec.State == trainCompleted || rec.State == trainFailed
}

// enter makes state the job's, as of at.
func (rec *kubeTrainRec) enter(state, reason, message string, at time.Time) {
	rec.State = state
	if rec.Conds == nil {
		rec.Conds = map[string]kubeTrainCond{}
	}
	rec.Conds[state] = kubeTrainCond{Reason: reason, Message: message, At: at}
}

// trainingOperatorOn tells whether the cluster runs the training operator.
func (s *kubeSession) trainingOperatorOn() bool {
	ad := s.eks.Addons[kubeTrainingOperatorAddon]
	return ad != nil && ad.status(s.t.now) == ekstypes.AddonStatusActive
}

// playTraining plays the garbage collector for the pods of training jobs
// that are gone, then the training operators (see the top of this file,
// and kube_rayjob.go).
func (sc *kubeScheduler) playTraining() error {
	s := sc.s
	present := map[string]bool{}
	var jobs []*unstructured.Unstructured
	for _, key := range []string{kubeHyperPodJobsKey, kubeRayJobsKey} {
		objs, err := s.list(key, "")
		if err != nil {
			return err
		}
		for _, obj := range objs {
			present[string(obj.GetUID())] = true
		}
		jobs = append(jobs, objs...)
	}
	if err := sc.collectRayGarbage(present); err != nil {
		return err
	}
	owned := map[string][]*kubeSchedPod{}
	for _, p := range slices.Clone(sc.pods) {
		owner := s.rec.trainingOwner(&p.pod)
		switch {
		case owner == "":
		case !present[owner]:
			sc.drop(p)
		default:
			owned[owner] = append(owned[owner], p)
		}
	}
	for uid := range s.rec.Training {
		if !present[uid] {
			delete(s.rec.Training, uid)
		}
	}
	for _, obj := range jobs {
		var err error
		switch obj.GetKind() {
		case "RayJob":
			if s.kubeRayOn() {
				err = sc.syncRayJob(obj, owned[string(obj.GetUID())])
			}
		default:
			if s.trainingOperatorOn() {
				err = sc.syncHyperPodJob(obj, owned[string(obj.GetUID())])
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// kubeTrainingOwner is the uid of the training job that controls pod, ""
// for none.
func kubeTrainingOwner(pod *corev1.Pod) string {
	for _, o := range pod.OwnerReferences {
		if (o.Kind == "HyperPodPyTorchJob" || o.Kind == "RayJob") && o.Controller != nil && *o.Controller {
			return string(o.UID)
		}
	}
	return ""
}

// syncHyperPodJob plays the operator for one HyperPodPyTorchJob.
func (sc *kubeScheduler) syncHyperPodJob(obj *unstructured.Unstructured, owned []*kubeSchedPod) error {
	s := sc.s
	uid := string(obj.GetUID())
	rec := s.rec.Training[uid]
	plan, tmpl, set, err := hyperPodPlan(obj)
	if rec == nil {
		rec = &kubeTrainRec{Kind: "HyperPodPyTorchJob", Namespace: obj.GetNamespace(), Name: obj.GetName(), Plan: plan}
		if s.rec.Training == nil {
			s.rec.Training = map[string]*kubeTrainRec{}
		}
		s.rec.Training[uid] = rec
		rec.enter(trainCreated, "JobCreated", "the job's pods are being made", s.t.now)
		if err != nil {
			rec.enter(trainFailed, "InvalidSpec", err.Error(), s.t.now)
			rec.FinishedAt = s.t.now
		}
		for r := range plan.Nodes {
			rec.Pods = append(rec.Pods, kubeTrainPod{Name: fmt.Sprintf("%s-%s-%d", obj.GetName(), set, r)})
		}
	}
	if !rec.terminal() {
		sc.runTraining(obj, rec, owned, func(rank int) (*kubeSchedPod, error) {
			return sc.makeTrainingPod(obj, tmpl, rec.Pods[rank].Name, rank)
		})
	}
	sc.writeTrainingStatus(obj, rec)
	return nil
}

// runTraining follows a job's pods and attempts up to the settle's moment
// (see the top of this file): make is how the job's operator makes the pod
// of a rank.
func (sc *kubeScheduler) runTraining(obj *unstructured.Unstructured, rec *kubeTrainRec, owned []*kubeSchedPod, makePod func(rank int) (*kubeSchedPod, error)) {
	s := sc.s
	now := s.t.now
	byUID := map[string]*kubeSchedPod{}
	for _, p := range owned {
		byUID[string(p.pod.UID)] = p
	}
	// Pods lost with their node (or deleted by a client).
	for r := range rec.Pods {
		tp := &rec.Pods[r]
		if tp.UID == "" {
			continue
		}
		p := byUID[tp.UID]
		// The operator takes a pod off a node the health-monitoring agent
		// marked unhealthy, as if the node were gone.
		if n := sc.nodeOf(p); n != nil && strings.HasPrefix(n.labels[hpHealthLabel], HealthUnschedulable) && p.active() {
			sc.drop(p)
			p.pod.DeletionTimestamp = &metav1.Time{Time: now}
		}
		if p != nil && p.active() {
			if tp.Since.IsZero() && p.pod.Status.Phase == corev1.PodRunning {
				tp.Since = kubeContainerStart(&p.pod, now)
			}
			continue
		}
		if cur := rec.current(); cur != nil && (cur.Fault == "" || cur.Fault == FaultSlow) {
			node := "its node"
			if p != nil && p.pod.Spec.NodeName != "" {
				node = "node " + p.pod.Spec.NodeName
			}
			cur.Fault, cur.FaultAt, cur.Rank = "node", now, r
			cur.Message = fmt.Sprintf("pod %s lost %s (the node failed its health checks and was taken out)", tp.Name, node)
		}
		*tp = kubeTrainPod{Name: tp.Name}
	}
	// Faults strike a running attempt at this moment.
	if cur := rec.current(); cur != nil && cur.Fault == "" && !now.Before(cur.Start) && now.Before(rec.doneAt(s.t.w, cur)) {
		sc.strikeTrainingFault(rec, cur)
	}
	// Attempts end and start, as many as fell due since the last settle.
	for range 64 {
		changed := false
		if cur := rec.current(); cur != nil {
			if at, ok := rec.attemptEnd(s.t.w, cur); ok && !at.After(now) {
				sc.endAttempt(obj, rec, cur, at)
				changed = true
			}
		}
		if rec.terminal() {
			break
		}
		for r := range rec.Pods {
			if rec.Pods[r].UID != "" {
				continue
			}
			p, err := makePod(r)
			if err != nil {
				continue
			}
			rec.Pods[r] = kubeTrainPod{Name: p.pod.Name, UID: string(p.pod.UID)}
			byUID[string(p.pod.UID)] = p
		}
		if rec.current() == nil {
			start, ready := rec.NextAt, true
			for _, tp := range rec.Pods {
				if tp.Since.IsZero() {
					ready = false
				} else if tp.Since.After(start) {
					start = tp.Since
				}
			}
			if ready && !start.After(now) {
				from, tier := int64(0), ""
				if n := len(rec.Attempts); n > 0 {
					from, tier = rec.resume(s.t.w, &rec.Attempts[n-1])
				}
				rec.Attempts = append(rec.Attempts, kubeTrainAttempt{Start: start, From: from, Tier: tier})
				if rec.StartedAt.IsZero() {
					rec.StartedAt = start
				}
				rec.enter(trainRunning, "PodsRunning", fmt.Sprintf("all %d pods run; training from step %d", len(rec.Pods), from), start)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	sc.sendTrainingMetrics(rec)
	rec.Wake = rec.nextWake(s.t.w, now)
}

// strikeTrainingFault fires the first hang, crash, nccl or slow fault that
// selects the job, on the running attempt cur.
func (sc *kubeScheduler) strikeTrainingFault(rec *kubeTrainRec, cur *kubeTrainAttempt) {
	t := sc.s.t
	for i, f := range t.st.Faults {
		if !trainingFault(f.Kind) || f.Job != rec.Name || !f.inRegion(t.region) {
			continue
		}
		rank := 0
		if f.Pod != "" {
			rank = slices.IndexFunc(rec.Pods, func(p kubeTrainPod) bool { return p.Name == f.Pod })
			if rank < 0 {
				continue
			}
		}
		cur.Fault, cur.FaultAt, cur.Rank, cur.Message = f.Kind, t.now, rank, f.Message
		t.st.fire(i)
		return
	}
}

// faultWords says what struck an attempt, for its event and the job's
// condition.
func (rec *kubeTrainRec) faultWords(w *World, a *kubeTrainAttempt) (reason, message string) {
	pod := rec.Pods[a.Rank].Name
	world := rec.Plan.Nodes * rec.Plan.ProcsPerNode
	switch a.Fault {
	case FaultSlow:
		return "SlowDetected", fmt.Sprintf("log monitoring rule %s fired: tokens_per_sec under %.0f on %d step lines in a row on pod %s; the job slowed at step %d",
			rec.Plan.SlowRule, rec.Plan.SlowThreshold, rec.Plan.SlowPoints, pod, rec.reached(w, a, a.FaultAt))
	case "hang":
		return "HangDetected", fmt.Sprintf("log monitoring rule %s fired: no line matching %s on pod %s for %ds; the job hangs at step %d",
			rec.HangRuleName(), rec.Plan.HangPattern, pod, int(rec.Plan.HangAfter/time.Second), rec.reached(w, a, a.FaultAt))
	case "crash":
		return "ProcessCrash", fmt.Sprintf("a worker of pod %s (rank %d) exited with code 1: %s", pod, a.Rank*rec.Plan.ProcsPerNode, crashMessage(a))
	case "nccl":
		return "ProcessCrash", fmt.Sprintf("the %d ranks timed out in an NCCL collective (watchdog timeout %ds); pod %s reported NET/OFI errors first", world, int(trainNCCLTimeout/time.Second), pod)
	}
	return "NodeFailure", a.Message
}

// HangRuleName is the progress rule's name.
func (rec *kubeTrainRec) HangRuleName() string {
	if rec.Plan.HangRule == "" {
		return "progress"
	}
	return rec.Plan.HangRule
}

func crashMessage(a *kubeTrainAttempt) string {
	if a.Message != "" {
		return a.Message
	}
	return "RuntimeError: CUDA error: an illegal memory access was encountered"
}

// endAttempt ends attempt a at at: the job Completes, restarts within its
// budget, or Fails.
func (sc *kubeScheduler) endAttempt(obj *unstructured.Unstructured, rec *kubeTrainRec, a *kubeTrainAttempt, at time.Time) {
	w := sc.s.t.w
	a.EndAt = at
	if _, detected := rec.slowDetectedAt(w, a); a.Fault == "" || (a.Fault == FaultSlow && !detected) {
		// A slowness no rule sees ends as the job would have (it stays
		// the attempt's fault: its log reports the fallen throughput).
		a.Outcome = "succeeded"
		rec.FinishedAt = at
		rec.enter(trainCompleted, "JobCompleted", fmt.Sprintf("training finished its %d steps", rec.Plan.MaxSteps), at)
		sc.finishTrainingPods(rec, at, 0, "Completed", "")
		sc.endMLflowRun(rec, "FINISHED", at)
		return
	}
	reason, message := rec.faultWords(w, a)
	p := rec.Plan
	if rec.WindowStart.IsZero() || !at.Before(rec.WindowStart.Add(w.scale(time.Duration(p.EvalSeconds)*time.Second))) {
		rec.WindowStart, rec.WindowRestarts = at, 0
	}
	full := rec.WindowRestarts >= p.BeforeFull
	var spent string
	switch {
	case rec.Restarts >= p.MaxRetries:
		spent = fmt.Sprintf("its %d restarts (jobMaxRetryCount) are spent", p.MaxRetries)
	case full && rec.FullRestarts >= p.MaxFull:
		spent = fmt.Sprintf("%d restarts in place within the evaluation period of %ds call for a full job restart, and its %d full job restarts (maxFullJobRestarts) are spent",
			rec.WindowRestarts, p.EvalSeconds, p.MaxFull)
	}
	if spent != "" {
		a.Outcome = "failed"
		rec.FinishedAt = at
		msg := fmt.Sprintf("%s: %s; %s", reason, message, spent)
		rec.enter(trainFailed, "RestartBudgetExhausted", msg, at)
		sc.trainingEvent(obj, rec, "JobFailed", msg, at)
		sc.finishTrainingPods(rec, at, 1, "Error", message)
		sc.endMLflowRun(rec, "FAILED", at)
		return
	}
	rec.Restarts++
	how := "restarting the processes in place"
	if full {
		a.Outcome = "full-restart"
		rec.FullRestarts++
		rec.WindowRestarts = 0
		how = "restarting the whole job with new pods"
		for r := range rec.Pods {
			if p := sc.podByUID(rec.Pods[r].UID); p != nil {
				sc.drop(p)
			}
			rec.Pods[r] = kubeTrainPod{Name: rec.Pods[r].Name}
		}
	} else {
		a.Outcome = "restart"
		rec.WindowRestarts++
	}
	rec.NextAt = at.Add(w.scale(trainRestartDelay))
	msg := fmt.Sprintf("%s; %s (restart %d of %d)", message, how, rec.Restarts, p.MaxRetries)
	rec.enter(trainRestarting, reason, msg, at)
	sc.trainingEvent(obj, rec, reason, msg, at)
}

// nodeOf is the node pod p is bound to, nil for none.
func (sc *kubeScheduler) nodeOf(p *kubeSchedPod) *kubeSchedNode {
	if p == nil || p.pod.Spec.NodeName == "" {
		return nil
	}
	return sc.node[p.pod.Spec.NodeName]
}

// podByUID finds a pod of the settle's view.
func (sc *kubeScheduler) podByUID(uid string) *kubeSchedPod {
	if uid == "" {
		return nil
	}
	for _, p := range sc.pods {
		if string(p.pod.UID) == uid {
			return p
		}
	}
	return nil
}

// finishTrainingPods ends the job's running pods at at, as their
// processes exit with code.
func (sc *kubeScheduler) finishTrainingPods(rec *kubeTrainRec, at time.Time, code int32, reason, message string) {
	s := sc.s
	for _, tp := range rec.Pods {
		p := sc.podByUID(tp.UID)
		if p == nil || !p.active() {
			continue
		}
		uid := tp.UID
		if p.pod.Status.Phase != corev1.PodRunning {
			sc.drop(p) // never started: nothing ran
			continue
		}
		run := &kubeRun{Program: kubeTrainingProgram, Start: tp.Since, End: at, ExitCode: code, Reason: reason, Message: message}
		sc.terminate(p, run)
		delete(s.rec.Runs, uid)
	}
}

// trainingEvent records a Warning event of the job, as the operator
// reports restarts and failures.
func (sc *kubeScheduler) trainingEvent(obj *unstructured.Unstructured, rec *kubeTrainRec, reason, message string, at time.Time) {
	s := sc.s
	rec.Events++
	stamp := metav1.NewTime(at).Format(time.RFC3339)
	ev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata": map[string]any{"name": fmt.Sprintf("%s.%x%04d", obj.GetName(), at.UnixNano(), rec.Events), "namespace": obj.GetNamespace()},
		"involvedObject": map[string]any{
			"apiVersion": obj.GetAPIVersion(), "kind": obj.GetKind(), "name": obj.GetName(),
			"namespace": obj.GetNamespace(), "uid": string(obj.GetUID()),
		},
		"reason": reason, "message": message, "type": corev1.EventTypeWarning,
		"firstTimestamp": stamp, "lastTimestamp": stamp, "count": int64(1),
		"source":             map[string]any{"component": kubeOperatorComponent(rec.Kind)},
		"reportingComponent": kubeOperatorComponent(rec.Kind),
	}}
	s.put(kubeEventsKey, nil, s.stamp(ev, s.t.now))
}

func kubeOperatorComponent(kind string) string {
	if kind == "RayJob" {
		return "ray-job-controller"
	}
	return "hyperpod-training-operator"
}

// writeTrainingStatus writes the HyperPodPyTorchJob's status from rec.
func (sc *kubeScheduler) writeTrainingStatus(obj *unstructured.Unstructured, rec *kubeTrainRec) {
	var conds []any
	for _, typ := range []string{trainCreated, trainRunning, trainRestarting, trainCompleted, trainFailed} {
		c, ok := rec.Conds[typ]
		if !ok {
			continue
		}
		status := "False"
		if typ == rec.State || typ == trainCreated {
			status = "True"
		}
		cond := map[string]any{"type": typ, "status": status, "lastTransitionTime": c.At.UTC().Format(time.RFC3339)}
		if c.Reason != "" {
			cond["reason"] = c.Reason
		}
		if c.Message != "" {
			cond["message"] = c.Message
		}
		conds = append(conds, cond)
	}
	st := map[string]any{"conditions": conds, "restartCount": int64(rec.Restarts)}
	restart := map[string]any{"restartCount": int64(rec.WindowRestarts), "fullJobRestartCount": int64(rec.FullRestarts)}
	if !rec.WindowStart.IsZero() {
		restart["currentEvalPeriod"] = rec.WindowStart.Unix()
	}
	st["restartStatus"] = restart
	if !rec.StartedAt.IsZero() {
		st["startTime"] = rec.StartedAt.UTC().Format(time.RFC3339)
	}
	if !rec.FinishedAt.IsZero() {
		st["completionTime"] = rec.FinishedAt.UTC().Format(time.RFC3339)
	}
	if n := len(rec.Attempts); n > 0 && rec.Attempts[n-1].Fault != "" && rec.Attempts[n-1].Outcome != "succeeded" {
		a := rec.Attempts[n-1]
		st["latestFaultyPodInstanceList"] = map[string]any{
			"restartType":    map[bool]string{true: "FullJob", false: "InPlace"}[a.Outcome == "full-restart"],
			"faultyPodList":  []any{rec.Pods[a.Rank].Name},
			"faultyRankList": []any{strconv.Itoa(a.Rank * rec.Plan.ProcsPerNode)},
		}
	}
	var pods []any
	for _, tp := range rec.Pods {
		if tp.UID != "" {
			pods = append(pods, map[string]any{"apiVersion": "v1", "kind": "Pod", "name": tp.Name, "namespace": rec.Namespace, "uid": tp.UID})
		}
	}
	if pods != nil {
		st["jobPods"] = pods
	}
	next := obj.DeepCopy()
	next.Object["status"] = st
	if kubeSameJSON(obj.Object["status"], st) {
		return
	}
	sc.s.put(kubeTrainingResource(obj), obj, next)
}

// kubeTrainingResource is the resource key of a training job's kind.
func kubeTrainingResource(obj *unstructured.Unstructured) string {
	if obj.GetKind() == "RayJob" {
		return kubeRayJobsKey
	}
	return kubeHyperPodJobsKey
}

// makeTrainingPod makes the pod of rank from a job's pod template.
func (sc *kubeScheduler) makeTrainingPod(obj *unstructured.Unstructured, tmpl *corev1.PodTemplateSpec, name string, rank int) (*kubeSchedPod, error) {
	t := tmpl.DeepCopy()
	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	labels["sagemaker.amazonaws.com/job-name"] = obj.GetName()
	labels["sagemaker.amazonaws.com/replica-index"] = strconv.Itoa(rank)
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: obj.GetNamespace(), Labels: labels, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Name: obj.GetName(), UID: types.UID(obj.GetUID()),
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: t.Spec,
	}
	if sc.s.rec.Objects[kubePodsKey][kubeObjectKey(pod.Namespace, name)] != nil {
		return nil, fmt.Errorf("pod %s/%s exists", pod.Namespace, name)
	}
	return sc.createPod(pod)
}

// hyperPodPlan reads what a HyperPodPyTorchJob asks: its plan, its first
// replica set's pod template and that set's name.
func hyperPodPlan(obj *unstructured.Unstructured) (kubeTrainPlan, *corev1.PodTemplateSpec, string, error) {
	var spec struct {
		NprocPerNode string `json:"nprocPerNode"`
		ReplicaSpecs []struct {
			Name     string                 `json:"name"`
			Replicas *int                   `json:"replicas"`
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"replicaSpecs"`
		RunPolicy struct {
			JobMaxRetryCount *int `json:"jobMaxRetryCount"`
			RestartPolicy    struct {
				EvalPeriodSeconds              int  `json:"evalPeriodSeconds"`
				MaxFullJobRestarts             *int `json:"maxFullJobRestarts"`
				NumRestartBeforeFullJobRestart *int `json:"numRestartBeforeFullJobRestart"`
			} `json:"restartPolicy"`
			LogMonitoringConfiguration []struct {
				Name                                string  `json:"name"`
				LogPattern                          string  `json:"logPattern"`
				ExpectedStartCutOffInSeconds        int     `json:"expectedStartCutOffInSeconds"`
				ExpectedRecurringFrequencyInSeconds int     `json:"expectedRecurringFrequencyInSeconds"`
				Operator                            string  `json:"operator"`
				MetricThreshold                     float64 `json:"metricThreshold"`
				MetricEvaluationDataPoints          int     `json:"metricEvaluationDataPoints"`
			} `json:"logMonitoringConfiguration"`
		} `json:"runPolicy"`
	}
	if err := kubeDecodeField(obj.Object["spec"], &spec); err != nil {
		return kubeTrainPlan{}, nil, "", fmt.Errorf("the job's spec cannot be read: %v", err)
	}
	if len(spec.ReplicaSpecs) == 0 || len(spec.ReplicaSpecs[0].Template.Spec.Containers) == 0 {
		return kubeTrainPlan{}, nil, "", fmt.Errorf("the job has no replicaSpecs with a container")
	}
	rs := spec.ReplicaSpecs[0]
	plan := kubeTrainPlan{Nodes: 1}
	if rs.Replicas != nil {
		plan.Nodes = max(*rs.Replicas, 0)
	}
	c := &rs.Template.Spec.Containers[0]
	plan.fromContainer(c)
	if n, err := strconv.Atoi(spec.NprocPerNode); err == nil && n > 0 {
		plan.ProcsPerNode = n
	}
	rp := spec.RunPolicy
	plan.MaxRetries, plan.MaxFull, plan.BeforeFull = 0, 0, 0
	if rp.JobMaxRetryCount != nil {
		plan.MaxRetries = *rp.JobMaxRetryCount
	}
	plan.EvalSeconds = rp.RestartPolicy.EvalPeriodSeconds
	if v := rp.RestartPolicy.MaxFullJobRestarts; v != nil {
		plan.MaxFull = *v
	}
	if v := rp.RestartPolicy.NumRestartBeforeFullJobRestart; v != nil {
		plan.BeforeFull = *v
	}
	for _, rule := range rp.LogMonitoringConfiguration {
		// The training program logs tokens_per_sec=<x>: a rule that reads
		// it and fires under a threshold is the throughput rule.
		if rule.MetricThreshold > 0 && strings.Contains(rule.LogPattern, "tokens_per_sec") && (rule.Operator == "lt" || rule.Operator == "lteq") && plan.SlowPoints == 0 {
			plan.SlowRule, plan.SlowThreshold, plan.SlowPoints = rule.Name, rule.MetricThreshold, max(rule.MetricEvaluationDataPoints, 1)
		}
	}
	for _, rule := range rp.LogMonitoringConfiguration {
		if rule.ExpectedRecurringFrequencyInSeconds > 0 && strings.Contains(rule.LogPattern, "step") {
			plan.HangRule, plan.HangPattern = rule.Name, rule.LogPattern
			plan.HangAfter = time.Duration(rule.ExpectedRecurringFrequencyInSeconds) * time.Second
			plan.FirstStepCutoff = time.Duration(rule.ExpectedStartCutOffInSeconds) * time.Second
			if plan.FirstStepCutoff == 0 {
				plan.FirstStepCutoff = plan.HangAfter
			}
			break
		}
	}
	return plan, &rs.Template, rs.Name, nil
}

// fromContainer reads the plan's steps, paths, MLflow run and resources
// from the training container's environment and limits.
func (plan *kubeTrainPlan) fromContainer(c *corev1.Container) {
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	num := func(name string, def int64) int64 {
		if n, err := strconv.ParseInt(env[name], 10, 64); err == nil && n > 0 {
			return n
		}
		return def
	}
	plan.MaxSteps = num("MAX_STEPS", 1000)
	plan.SaveSteps = num("CHECKPOINT_STEPS", 0)
	plan.CheckpointDir, plan.OutputDir = env["CHECKPOINT_DIR"], env["OUTPUT_DIR"]
	if env["CHECKPOINTING"] == "TIERED" {
		plan.Tiered, plan.MemorySteps = true, num("CHECKPOINT_MEMORY_STEPS", max(plan.SaveSteps/10, 1))
	}
	plan.LearningRate = 1e-4
	if v, err := strconv.ParseFloat(env["LEARNING_RATE"], 64); err == nil && v > 0 {
		plan.LearningRate = v
	}
	plan.Tracking, plan.Experiment, plan.Run = env["MLFLOW_TRACKING_URI"], env["MLFLOW_EXPERIMENT_NAME"], env["MLFLOW_RUN_NAME"]
	gpus := c.Resources.Limits[kubeResourceGPU]
	if gpus.IsZero() {
		gpus = c.Resources.Limits[kubeResourceNeuron]
	}
	plan.ProcsPerNode = max(int(gpus.Value()), 1)
	efa := c.Resources.Limits[kubeResourceEFA]
	plan.EFAPerNode = int(efa.Value())
	// A small model on a few GPUs: about 2,400 tokens per second each.
	plan.TokensPerSec = float64(plan.Nodes*plan.ProcsPerNode) * 2400
}
