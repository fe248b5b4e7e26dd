package training

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
)

// getObject returns the job's object, nil when there is none.
func getObject(ctx context.Context, kc *cloud.KubeClients, kind Kind, ns, name string) (*unstructured.Unstructured, error) {
	obj, err := kc.Dynamic.Resource(kind.resource()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, errs.Wrap(errs.Upstream, err, "read %s %s/%s: %v", kind.objectKind(), ns, name, err)
	}
	return obj, nil
}

// createObject makes the job's object.
func createObject(ctx context.Context, kc *cloud.KubeClients, kind Kind, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	made, err := kc.Dynamic.Resource(kind.resource()).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, errs.Wrap(errs.Precondition, err, "the cluster does not serve %s (%v): its operator is not installed; turn its feature on", kind.objectKind(), err)
	case err != nil:
		return nil, errs.Wrap(errs.Upstream, err, "create %s %s/%s: %v", kind.objectKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	return made, nil
}

// observed is what the cluster says of a job now.
type observed struct {
	status        Status
	operatorState string
	message       string
	budget        Budget
	restarts      []Restart
	pods          []Pod
	startedAt     *time.Time
	finishedAt    *time.Time
}

// observe reads the job's object, pods and events. A job whose object is
// gone (deleted outside InstantStart, or by its TTL) keeps what it last
// showed, DELETED unless it had ended.
func observe(ctx context.Context, kc *cloud.KubeClients, j *Job) (*observed, error) {
	obj, err := getObject(ctx, kc, j.Kind, j.Namespace, j.Name)
	if err != nil {
		return nil, err
	}
	if obj == nil || (j.UID != "" && string(obj.GetUID()) != j.UID) {
		o := &observed{status: j.Status, operatorState: j.OperatorState, message: j.StatusMessage, budget: j.Budget, restarts: j.Restarts, pods: []Pod{}, startedAt: j.StartedAt, finishedAt: j.FinishedAt}
		if !j.Status.Terminal() {
			o.status, o.message = Deleted, fmt.Sprintf("the %s was deleted outside InstantStart", j.Kind.objectKind())
		}
		return o, nil
	}
	var o *observed
	if j.Kind == RayJob {
		o = observeRayJob(obj)
	} else {
		o = observePyTorchJob(obj)
	}
	if o.pods, err = jobPods(ctx, kc, j, obj); err != nil {
		return nil, err
	}
	evs, err := jobRestarts(ctx, kc, j, obj)
	if err != nil {
		return nil, err
	}
	o.restarts = readResumes(ctx, kc, j, o.pods, mergeRestarts(j.Restarts, evs))
	if o.status == Pending && len(o.pods) > 0 && o.message == "" {
		o.message = pendingMessage(o.pods)
	}
	return o, nil
}

// observePyTorchJob maps a HyperPodPyTorchJob's status: its newest true
// condition is its state (as the HyperPod CLI shows it).
func observePyTorchJob(obj *unstructured.Unstructured) *observed {
	o := &observed{status: Pending}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var state, reason, message string
	var at time.Time
	for _, raw := range conds {
		cond, _ := raw.(map[string]any)
		if str(cond, "status") != "True" {
			continue
		}
		t, _ := time.Parse(time.RFC3339, str(cond, "lastTransitionTime"))
		if state == "" || !t.Before(at) {
			state, reason, message, at = str(cond, "type"), str(cond, "reason"), str(cond, "message"), t
		}
	}
	o.operatorState = state
	switch state {
	case "":
		o.message = "waiting for the HyperPod training operator to take the job"
	case "Created", "Pending":
		o.status = Pending
	case "Running", "PodsRunning":
		o.status = Running
	case "Restarting", "Faulted":
		o.status = Restarting
		o.message = joinReason(reason, message)
	case "Completed", "Succeeded":
		o.status = Succeeded
	case "Failed":
		o.status = Failed
		o.message = joinReason(reason, message)
	default:
		o.status = Running
	}
	o.startedAt, o.finishedAt = timeAt(obj, "status", "startTime"), timeAt(obj, "status", "completionTime")
	if o.finishedAt == nil && o.status.Terminal() && !at.IsZero() {
		o.finishedAt = &at
	}
	b := Budget{}
	b.RestartsAllowed = intAt(obj, "spec", "runPolicy", "jobMaxRetryCount")
	b.FullJobRestartsAllowed = intAt(obj, "spec", "runPolicy", "restartPolicy", "maxFullJobRestarts")
	b.RestartsBeforeFullJobRestart = intAt(obj, "spec", "runPolicy", "restartPolicy", "numRestartBeforeFullJobRestart")
	b.WindowSeconds = intAt(obj, "spec", "runPolicy", "restartPolicy", "evalPeriodSeconds")
	b.RestartsUsed = intAt(obj, "status", "restartCount")
	b.FullJobRestartsUsed = intAt(obj, "status", "restartStatus", "fullJobRestartCount")
	b.WindowRestartsUsed = intAt(obj, "status", "restartStatus", "restartCount")
	if start := intAt(obj, "status", "restartStatus", "currentEvalPeriod"); start > 0 && b.WindowSeconds > 0 {
		end := time.Unix(int64(start+b.WindowSeconds), 0).UTC()
		b.WindowEndsAt = &end
	}
	// One more fault fails the job when it would pass the retry count, or
	// when it would be a full job restart past the window's allowance.
	nextIsFull := b.WindowRestartsUsed >= b.RestartsBeforeFullJobRestart
	b.Exhausted = b.RestartsUsed >= b.RestartsAllowed || (nextIsFull && b.FullJobRestartsUsed >= b.FullJobRestartsAllowed)
	o.budget = b
	return o
}

// observeRayJob maps a RayJob's status: its deployment status, then the
// Ray job's own.
func observeRayJob(obj *unstructured.Unstructured) *observed {
	o := &observed{status: Pending}
	deploy := strAt(obj, "status", "jobDeploymentStatus")
	jobStatus := strAt(obj, "status", "jobStatus")
	o.operatorState = strings.Trim(deploy+"/"+jobStatus, "/")
	message := strAt(obj, "status", "message")
	switch deploy {
	case "":
		o.message = "waiting for the KubeRay operator to take the job"
	case "Initializing", "New", "Suspended", "Waiting":
		o.status = Pending
	case "Running":
		o.status = Running
	case "Retrying":
		o.status, o.message = Restarting, message
	case "Complete":
		o.status = Succeeded
		if jobStatus != "" && jobStatus != "SUCCEEDED" {
			o.status, o.message = Failed, cmpJoin("the Ray job ended "+jobStatus, message)
		}
	case "Failed", "ValidationFailed":
		o.status, o.message = Failed, message
	default:
		o.status = Running
	}
	o.startedAt, o.finishedAt = timeAt(obj, "status", "startTime"), timeAt(obj, "status", "endTime")
	used := intAt(obj, "status", "failed")
	allowed := intAt(obj, "spec", "backoffLimit")
	o.budget = Budget{RestartsUsed: used, RestartsAllowed: allowed, Exhausted: used >= allowed}
	return o
}

// kubePageSize is how many items a page of a pod or event list asks for:
// a job of thousands of pods is read in a few pages, none of them large.
const kubePageSize = 500

// listAll lists every item of a Kubernetes collection that opts selects,
// kubePageSize a page: list is a typed client's List, items the items of
// one of its pages. op names the listing when it runs past cloud.MaxPages.
func listAll[T any, L interface{ GetContinue() string }](ctx context.Context, op string, opts metav1.ListOptions,
	list func(context.Context, metav1.ListOptions) (L, error), items func(L) []T) ([]T, error) {
	var out []T
	opts.Limit = kubePageSize
	err := cloud.KubePages(op, func(cont string) (string, error) {
		opts.Continue = cont
		page, err := list(ctx, opts)
		if err != nil {
			return "", err
		}
		out = append(out, items(page)...)
		return page.GetContinue(), nil
	})
	return out, err
}

// listPods lists every pod of pods that selector matches, page by page.
func listPods(ctx context.Context, pods corev1client.PodInterface, selector string) ([]corev1.Pod, error) {
	return listAll(ctx, "list pods", metav1.ListOptions{LabelSelector: selector}, pods.List,
		func(l *corev1.PodList) []corev1.Pod { return l.Items })
}

// jobPods lists the job's pods: those labelled with its id and, for a
// RayJob, its submitter's.
func jobPods(ctx context.Context, kc *cloud.KubeClients, j *Job, obj *unstructured.Unstructured) ([]Pod, error) {
	pods := kc.Core.CoreV1().Pods(j.Namespace)
	items, err := listPods(ctx, pods, labels.Set{jobIDLabel: j.ID}.String())
	if err != nil {
		return nil, errs.Wrap(errs.Upstream, err, "list the pods of job %s: %v", j.Name, err)
	}
	if j.Kind == RayJob {
		sub, err := listPods(ctx, pods, labels.Set{"batch.kubernetes.io/job-name": j.Name}.String())
		if err != nil {
			return nil, errs.Wrap(errs.Upstream, err, "list the submitter pods of job %s: %v", j.Name, err)
		}
		for _, p := range sub {
			if !slices.ContainsFunc(items, func(q corev1.Pod) bool { return q.UID == p.UID }) && ownedBy(p.OwnerReferences, "Job", j.Name) {
				items = append(items, p)
			}
		}
	}
	out := make([]Pod, 0, len(items))
	for i := range items {
		p := &items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		out = append(out, podOf(p))
	}
	slices.SortFunc(out, func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func ownedBy(refs []metav1.OwnerReference, kind, name string) bool {
	return slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return r.Kind == kind && r.Name == name })
}

// podOf is what a job shows of a pod.
func podOf(p *corev1.Pod) Pod {
	out := Pod{Name: p.Name, Phase: string(p.Status.Phase), Node: p.Spec.NodeName, Message: p.Status.Message}
	if len(p.Spec.Containers) > 0 {
		out.Container = p.Spec.Containers[0].Name
	}
	for _, c := range p.Status.Conditions {
		switch {
		case c.Type == corev1.PodReady:
			out.Ready = c.Status == corev1.ConditionTrue
		case c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue && out.Message == "":
			out.Message = c.Message
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		out.ContainerRestarts += int(cs.RestartCount)
		if w := cs.State.Waiting; w != nil && out.Message == "" {
			out.Message = joinReason(w.Reason, w.Message)
		}
	}
	if p.Status.StartTime != nil {
		t := p.Status.StartTime.UTC()
		out.StartedAt = &t
	}
	return out
}

// pendingMessage says why a pending job's pods wait.
func pendingMessage(pods []Pod) string {
	waiting := 0
	msg := ""
	for _, p := range pods {
		if p.Phase == string(corev1.PodPending) {
			waiting++
			if msg == "" {
				msg = p.Message
			}
		}
	}
	if waiting == 0 {
		return ""
	}
	if msg == "" {
		return fmt.Sprintf("%d of %d pods are pending", waiting, len(pods))
	}
	return fmt.Sprintf("%d of %d pods are pending: %s", waiting, len(pods), msg)
}

// maxRestartsKept bounds the restarts a record keeps: the newest.
const maxRestartsKept = 200

// jobRestarts reads the restarts the operator reported as events of the
// job's object: a warning per restart, with its reason.
func jobRestarts(ctx context.Context, kc *cloud.KubeClients, j *Job, obj *unstructured.Unstructured) ([]Restart, error) {
	events, err := listAll(ctx, "list events",
		metav1.ListOptions{FieldSelector: "involvedObject.name=" + j.Name + ",involvedObject.kind=" + j.Kind.objectKind()},
		kc.Core.CoreV1().Events(j.Namespace).List, func(l *corev1.EventList) []corev1.Event { return l.Items })
	if err != nil {
		return nil, errs.Wrap(errs.Upstream, err, "list the events of job %s: %v", j.Name, err)
	}
	var out []Restart
	for _, e := range events {
		// The selector is checked here too: not every server honours it.
		if e.InvolvedObject.UID != obj.GetUID() || e.Type != corev1.EventTypeWarning {
			continue
		}
		reason, ok := restartReason(e.Reason, e.Message)
		if !ok {
			continue
		}
		at := e.LastTimestamp.Time
		if at.IsZero() {
			at = e.EventTime.Time
		}
		if at.IsZero() {
			at = e.CreationTimestamp.Time
		}
		out = append(out, Restart{Time: at.UTC(), Reason: reason, Message: e.Message, OperatorReason: e.Reason})
	}
	return out, nil
}

// restartReason classifies an operator's event reason; ok is false for
// events that are not restarts.
func restartReason(operator, message string) (RestartReason, bool) {
	r := strings.ToLower(operator)
	switch {
	case strings.Contains(r, "hang"):
		return Hang, true
	case strings.Contains(r, "slow"):
		return Slow, true
	case strings.Contains(r, "node"):
		return NodeFailure, true
	case strings.Contains(r, "crash"), strings.Contains(r, "processfailed"), strings.Contains(r, "podfailed"), strings.Contains(r, "oom"):
		return ProcessCrash, true
	case strings.Contains(r, "restart"), strings.Contains(r, "retry"), strings.Contains(r, "fault"):
		return OtherReason, true
	}
	return "", false
}

// mergeRestarts adds the restarts seen now to those kept, once each, in
// time order: events expire, the record keeps them.
func mergeRestarts(kept, seen []Restart) []Restart {
	out := slices.Clone(kept)
	for _, r := range seen {
		if !slices.ContainsFunc(out, func(k Restart) bool {
			return k.Time.Equal(r.Time) && k.OperatorReason == r.OperatorReason && k.Message == r.Message
		}) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b Restart) int { return a.Time.Compare(b.Time) })
	if len(out) > maxRestartsKept {
		out = out[len(out)-maxRestartsKept:]
	}
	if out == nil {
		out = []Restart{}
	}
	return out
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func strAt(obj *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(obj.Object, path...)
	return s
}

// intAt reads an integer field, which JSON decoding may have made an
// int64 or a float64.
func intAt(obj *unstructured.Unstructured, path ...string) int {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if !ok {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return int(n)
	case int:
		return n
	case float64:
		return int(n)
	case int32:
		return int(n)
	}
	return 0
}

func timeAt(obj *unstructured.Unstructured, path ...string) *time.Time {
	s := strAt(obj, path...)
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}

func joinReason(reason, message string) string {
	switch {
	case reason == "":
		return message
	case message == "":
		return reason
	}
	return reason + ": " + message
}

func cmpJoin(a, b string) string {
	if b == "" {
		return a
	}
	return a + ": " + b
}
