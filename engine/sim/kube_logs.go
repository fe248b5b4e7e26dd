package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The pods/log subresource of the simulated API servers, as the kubelet
// serves it: a training pod's log is computed from its operator's record
// (kube_training_program.go) up to the world's clock, so every reader of
// a pod reads the same lines at the same moments; a model server's is
// computed from its load (kube_serving_logs.go). Other pods log nothing.
// Options: Container (the pod's only container, or one it has), Follow
// (the stream ends once the container has ended and its last line is
// sent, or when ctx ends), SinceTime (lines stamped at or after it),
// TailLines (the newest lines at the open), LimitBytes and Timestamps
// (RFC 3339 with nanoseconds and a space before each line). A pod whose
// containers have not started is refused with the kubelet's
// BadRequest, "container ... is waiting to start".

// kubeLogPoll is how often a followed stream looks for new lines, in real
// time (the world's clock runs on meanwhile).
const kubeLogPoll = 50 * time.Millisecond

// kubeLogs serves PodLogs for one simulated API server.
type kubeLogs struct{ srv *kubeServer }

var _ cloud.PodLogs = kubeLogs{}

// kubeLogView is what a look at a pod's log finds.
type kubeLogView struct {
	lines []kubeLogLine
	// ended tells that the container has ended: no line comes after.
	ended bool
}

// Stream opens the log of a pod's container.
func (l kubeLogs) Stream(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	if opts == nil {
		opts = &corev1.PodLogOptions{}
	}
	first, err := l.look(namespace, pod, opts.Container, true)
	if err != nil {
		return nil, err
	}
	// Each stream opened is counted, as "get pods/log": tests see how many
	// upstream streams the viewers of a log made.
	w := l.srv.w
	w.mu.Lock()
	w.st.count(svcKubernetes, "get pods/log")
	w.mu.Unlock()
	lines := first.lines
	if opts.SinceTime != nil {
		since := opts.SinceTime.Time
		lines = slices.DeleteFunc(slices.Clone(lines), func(ln kubeLogLine) bool { return ln.At.Before(since) })
	}
	if opts.TailLines != nil && *opts.TailLines >= 0 && int64(len(lines)) > *opts.TailLines {
		lines = lines[int64(len(lines))-*opts.TailLines:]
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriter(pw)
		err := l.pump(ctx, bw, namespace, pod, opts, first, lines)
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	return pr, nil
}

// pump writes lines, then, when following, the lines that come after the
// first look's, until the container ends.
func (l kubeLogs) pump(ctx context.Context, bw *bufio.Writer, namespace, pod string, opts *corev1.PodLogOptions, seen kubeLogView, lines []kubeLogLine) error {
	limit := int64(-1)
	if opts.LimitBytes != nil {
		limit = *opts.LimitBytes
	}
	written := int64(0)
	write := func(ln kubeLogLine) (bool, error) {
		text := ln.Text + "\n"
		if opts.Timestamps {
			text = ln.At.UTC().Format(time.RFC3339Nano) + " " + text
		}
		if limit >= 0 && written+int64(len(text)) > limit {
			text = text[:limit-written]
		}
		n, err := bw.WriteString(text)
		written += int64(n)
		return limit >= 0 && written >= limit, err
	}
	for _, ln := range lines {
		if full, err := write(ln); full || err != nil {
			return err
		}
	}
	sent := len(seen.lines)
	ended := seen.ended
	for opts.Follow && !ended {
		if err := bw.Flush(); err != nil {
			return err
		}
		t := time.NewTimer(kubeLogPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		v, err := l.look(namespace, pod, opts.Container, false)
		if err != nil {
			return nil // the pod is gone: its log ends
		}
		for _, ln := range v.lines[min(sent, len(v.lines)):] {
			if full, err := write(ln); full || err != nil {
				return err
			}
		}
		sent, ended = max(sent, len(v.lines)), v.ended
	}
	return nil
}

// look reads a pod's log as it is now. It settles the cluster first when
// its training operator has something due, so that no line is shown that
// the operator's next move would have changed; refuse tells whether a pod
// whose containers have not started is an error.
func (l kubeLogs) look(namespace, pod, container string, refuse bool) (kubeLogView, error) {
	w := l.srv.w
	var v kubeLogView
	var due bool
	read := func(t *txn) error {
		var err error
		v, due, err = l.srv.logView(t, namespace, pod, container, refuse)
		return err
	}
	err := w.kubeRead(l.srv, read)
	if err == nil && due {
		err = l.srv.call("", func(s *kubeSession) error { return read(s.t) })
	}
	return v, err
}

// kubeRead runs fn on the world as of now, under its lock, without saving:
// fn must not change anything.
func (w *World) kubeRead(srv *kubeServer, fn func(t *txn) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := &txn{w: w, st: w.st, region: srv.region, rs: w.st.regionState(srv.region), now: w.clock()}
	if !t.kubeAlive(srv.region, srv.name, srv.eksID) {
		return srv.unreachable(t)
	}
	return fn(t)
}

// logView computes a pod's log; due tells that the pod's operator has
// something due, so the view may change once the cluster settles.
func (srv *kubeServer) logView(t *txn, namespace, name, container string, refuse bool) (kubeLogView, bool, error) {
	rec := t.st.Kube.Clusters[kubeClusterKey(srv.region, srv.name)]
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	if rec == nil {
		return kubeLogView{}, false, notFound
	}
	raw := rec.Objects[kubePodsKey][kubeObjectKey(namespace, name)]
	if raw == nil {
		return kubeLogView{}, false, notFound
	}
	var pod corev1.Pod
	if err := json.Unmarshal(raw, &pod); err != nil {
		return kubeLogView{}, false, apierrors.NewInternalError(fmt.Errorf("decode pod %s/%s: %w", namespace, name, err))
	}
	if container != "" && !slices.ContainsFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == container }) {
		var names []string
		for _, c := range pod.Spec.Containers {
			names = append(names, c.Name)
		}
		return kubeLogView{}, false, apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s; its containers are %v", container, name, names))
	}
	if container == "" && len(pod.Spec.Containers) > 1 {
		var names []string
		for _, c := range pod.Spec.Containers {
			names = append(names, c.Name)
		}
		return kubeLogView{}, false, apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", name, names))
	}
	switch pod.Status.Phase {
	case corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed:
	default:
		if refuse {
			c := container
			if c == "" && len(pod.Spec.Containers) > 0 {
				c = pod.Spec.Containers[0].Name
			}
			return kubeLogView{}, false, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: ContainerCreating", c, name))
		}
		return kubeLogView{}, false, nil
	}
	ended := pod.Status.Phase != corev1.PodRunning || pod.DeletionTimestamp != nil
	if kind := kubeServingKind(&pod); kind != "" {
		return (&kubeSession{t: t, rec: rec}).serverLog(&pod, kind, ended), false, nil
	}
	if view, due, ok := rec.raySubmitterLog(t, &pod, ended); ok {
		return view, due, nil
	}
	owner := rec.trainingOwner(&pod)
	tr := rec.Training[owner]
	if owner == "" || tr == nil {
		return kubeLogView{ended: ended}, false, nil
	}
	rank := slices.IndexFunc(tr.Pods, func(p kubeTrainPod) bool { return p.UID == string(pod.UID) })
	since := kubeContainerStart(&pod, t.now)
	if rank < 0 {
		// A pod the operator has replaced: what it logged went with it.
		return kubeLogView{ended: true}, false, nil
	}
	if !tr.Pods[rank].Since.IsZero() {
		since = tr.Pods[rank].Since
	}
	until := t.now
	due := !tr.Wake.IsZero() && !tr.Wake.After(t.now)
	for _, f := range t.st.Faults {
		if trainingFault(f.Kind) && f.Job == tr.Name && tr.current() != nil {
			due = true
		}
	}
	if ended {
		until = trainForever
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.State.Terminated != nil {
				until = cs.State.Terminated.FinishedAt.Time.Add(time.Second)
			}
		}
	}
	lines := tr.trainLines(t.w, rank, since, until)
	slices.SortStableFunc(lines, func(a, b kubeLogLine) int { return a.At.Compare(b.At) })
	return kubeLogView{lines: lines, ended: ended}, due, nil
}
