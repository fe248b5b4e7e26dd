package inference

import (
	"context"
	"slices"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/podlogs"
)

// Logs streams endpoint id's log lines, every replica's interleaved with
// its pod's name or one pod's: every viewer of a model server shares one
// upstream stream through the hub the jobs use too. The channel closes
// after the chunk that carries End, or when ctx ends.
func (s *Service) Logs(ctx context.Context, id string, req podlogs.Request) (<-chan podlogs.Chunk, error) {
	resume, err := req.Check()
	if err != nil {
		return nil, err
	}
	e, err := s.Get(id)
	if err != nil {
		return nil, errs.As(err).WithField("endpointId")
	}
	if req.Pod != "" && !slices.ContainsFunc(e.Pods, func(p Pod) bool { return p.Name == req.Pod }) && !resume.Has(req.Pod) {
		return nil, errs.New(errs.NotFound, "endpoint %s has no pod %s now; its pods are %s", e.Name, errs.Clip(req.Pod), podNames(e.Pods)).WithField("pod")
	}
	if s.opts.Logs == nil {
		return nil, errs.New(errs.Unavailable, "this server reads no pod logs")
	}
	fresh := true
	w := podlogs.Workload{Cluster: e.ClusterID, Namespace: e.Namespace, Pods: func() ([]podlogs.Pod, bool) {
		// The endpoint as read above, then as the refresher last read it:
		// a new replica joins the stream.
		if !fresh {
			if now, err := s.Get(id); err == nil {
				e = now
			}
		}
		fresh = false
		out := make([]podlogs.Pod, len(e.Pods))
		for i, p := range e.Pods {
			out[i] = podlogs.Pod{Name: p.Name}
		}
		return out, e.Status.Terminal()
	}}
	return s.opts.Logs.Stream(ctx, w, req, resume), nil
}

// ReadLogs reads endpoint id's log lines as they are now, without
// following, keeping those that contain contains (case-insensitive) when
// it is set.
func (s *Service) ReadLogs(ctx context.Context, id string, req podlogs.Request, contains string) (*podlogs.Chunk, error) {
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
