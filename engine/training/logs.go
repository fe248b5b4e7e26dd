package training

import (
	"context"
	"slices"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/podlogs"
)

// A job's log is its pods' logs merged by the shared hub (package
// podlogs): these are that stream's shapes.
type (
	// LogsRequest says which of a job's log lines to send.
	LogsRequest = podlogs.Request
	// LogEnd says why a log stream ended.
	LogEnd = podlogs.End
	// LogLine is one line of a job's log.
	LogLine = podlogs.PodLine
	// LogChunk is lines in order and the cursor after them.
	LogChunk = podlogs.Chunk
)

// MaxLogTail bounds a log request's tail.
const MaxLogTail = podlogs.MaxTail

// Logs streams job id's log lines: every viewer of a pod shares one
// upstream stream through the shared hub. The channel closes after the
// chunk that carries End, or when ctx ends.
func (s *Service) Logs(ctx context.Context, id string, req LogsRequest) (<-chan LogChunk, error) {
	resume, err := req.Check()
	if err != nil {
		return nil, err
	}
	j, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if req.Pod != "" && !slices.ContainsFunc(j.Pods, func(p Pod) bool { return p.Name == req.Pod }) && !resume.Has(req.Pod) {
		return nil, errs.New(errs.NotFound, "job %s has no pod %s now; its pods are %s", j.Name, errs.Clip(req.Pod), podNames(j.Pods)).WithField("pod")
	}
	fresh := true
	w := podlogs.Workload{Cluster: j.ClusterID, Namespace: j.Namespace, Pods: func() ([]podlogs.Pod, bool) {
		// The job as read above, then as the refresher last read it.
		if !fresh {
			if now, err := s.Get(id); err == nil {
				j = now
			}
		}
		fresh = false
		out := make([]podlogs.Pod, len(j.Pods))
		for i, p := range j.Pods {
			out[i] = podlogs.Pod{Name: p.Name, Container: p.Container}
		}
		return out, j.Status.Terminal()
	}}
	return s.hub.Stream(ctx, w, req, resume), nil
}

func podNames(pods []Pod) string {
	if len(pods) == 0 {
		return "none yet"
	}
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// ReadLogs reads job id's log lines as they are now, without following,
// keeping those that contain contains (case-insensitive) when it is set.
func (s *Service) ReadLogs(ctx context.Context, id string, req LogsRequest, contains string) (*LogChunk, error) {
	if err := podlogs.CheckContains(contains); err != nil {
		return nil, err
	}
	req.Follow = false
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in, err := s.Logs(ctx, id, req)
	if err != nil {
		return nil, err
	}
	return podlogs.Collect(ctx, in, contains)
}
