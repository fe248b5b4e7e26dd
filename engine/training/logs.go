package training

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/podlogs"
)

// LogsRequest says which of a job's log lines to send.
type LogsRequest struct {
	// Pod is one pod's name; empty means every pod of the job.
	Pod string
	// Tail is how many of each pod's newest lines to start with; ignored
	// with Since.
	Tail int
	// Since is the cursor of a chunk already received.
	Since string
	// FromEnd starts every pod at its log's end (a tail of 0): only lines
	// written from now on, so none without Follow. Ignored with Since.
	FromEnd bool
	Follow  bool
}

// LogEnd says why a log stream ended.
type LogEnd string

// The ends of a log stream.
const (
	LogEnded      LogEnd = "ENDED"
	LogSlowViewer LogEnd = "SLOW_VIEWER"
	LogDone       LogEnd = "DONE"
)

// LogLine is one line of a job's log.
type LogLine struct {
	Pod  string
	Time time.Time
	Text string
}

// LogChunk is lines in order and the cursor after them; End is set on the
// last chunk of a stream.
type LogChunk struct {
	Lines  []LogLine
	Cursor string
	End    LogEnd
}

// Bounds of a log request.
const (
	MaxLogTail = 10000
	// maxLogPods bounds the pods one stream follows.
	maxLogPods = 64
	// maxLogCursor bounds a cursor's length.
	maxLogCursor = 8192
	// podsPoll is how often a stream of every pod looks for new pods.
	podsPoll = 2 * time.Second
)

// Logs streams job id's log lines: every viewer of a pod shares one
// upstream stream through the service's hub. The channel closes after the
// chunk that carries End, or when ctx ends.
func (s *Service) Logs(ctx context.Context, id string, req LogsRequest) (<-chan LogChunk, error) {
	if req.Tail < 0 || req.Tail > MaxLogTail {
		return nil, errs.Field("tail", "tail must be between 0 and %d lines, got %d", MaxLogTail, req.Tail)
	}
	cursors, err := parseLogCursor(req.Since)
	if err != nil {
		return nil, err
	}
	j, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if req.Pod != "" && !slices.ContainsFunc(j.Pods, func(p Pod) bool { return p.Name == req.Pod }) && cursors[req.Pod] == nil {
		return nil, errs.New(errs.NotFound, "job %s has no pod %s now; its pods are %s", j.Name, errs.Clip(req.Pod), podNames(j.Pods)).WithField("pod")
	}
	st := &logStream{s: s, job: j, req: req, cursors: cursors, out: make(chan LogChunk, 4), viewers: map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	st.cancel = cancel
	go st.run(ctx)
	return st.out, nil
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

// logStream is one subscriber's stream of a job's logs: a viewer of the
// hub per pod, merged into one channel.
type logStream struct {
	s      *Service
	job    *Job
	req    LogsRequest
	out    chan LogChunk
	cancel context.CancelFunc

	mu      sync.Mutex
	cursors map[string]*podlogs.Cursor // the last line sent, by pod
	viewers map[string]bool            // the pods followed
	ended   bool
}

func (st *logStream) run(ctx context.Context) {
	defer st.cancel()
	var wg sync.WaitGroup
	defer func() {
		st.cancel()
		wg.Wait()
		close(st.out)
	}()
	results := make(chan error, maxLogPods)
	start := func(pod Pod) {
		st.mu.Lock()
		if _, ok := st.viewers[pod.Name]; ok || len(st.viewers) >= maxLogPods {
			st.mu.Unlock()
			return
		}
		st.viewers[pod.Name] = false
		st.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- st.follow(ctx, pod)
		}()
	}
	pods := func() []Pod {
		var out []Pod
		for _, p := range st.job.Pods {
			if st.req.Pod == "" || p.Name == st.req.Pod {
				out = append(out, p)
			}
		}
		if st.req.Pod != "" && len(out) == 0 {
			out = append(out, Pod{Name: st.req.Pod})
		}
		return out
	}
	for _, p := range pods() {
		start(p)
	}
	running := len(st.viewers)
	tick := time.NewTicker(podsPoll)
	defer tick.Stop()
	for {
		if running == 0 && (!st.req.Follow || st.job.Status.Terminal()) {
			end := LogDone
			if st.req.Follow {
				end = LogEnded
			}
			st.send(ctx, nil, end)
			return
		}
		select {
		case <-ctx.Done():
			return
		case err := <-results:
			running--
			var slow *podlogs.SlowError
			switch {
			case errors.As(err, &slow):
				st.send(ctx, nil, LogSlowViewer)
				return
			case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled):
				st.s.log.Warn("job logs", "job", st.job.ID, "err", err)
			}
		case <-tick.C:
			if !st.req.Follow {
				continue
			}
			// New pods (a RayJob's retry, a pod made again on another
			// node) join the stream.
			if j, err := st.s.Get(st.job.ID); err == nil {
				st.job = j
			}
			before := len(st.viewers)
			for _, p := range pods() {
				start(p)
			}
			running += len(st.viewers) - before
		}
	}
}

// follow sends one pod's lines until its log ends.
func (st *logStream) follow(ctx context.Context, pod Pod) error {
	so := podlogs.SubscribeOptions{Follow: st.req.Follow}
	st.mu.Lock()
	if c := st.cursors[pod.Name]; c != nil {
		so.Since = c
	} else if st.req.Since == "" {
		so.Tail, so.FromEnd = st.req.Tail, st.req.FromEnd
	}
	st.mu.Unlock()
	key := podlogs.Key{Cluster: st.job.ClusterID, Namespace: st.job.Namespace, Pod: pod.Name, Container: pod.Container}
	v, err := st.s.hub.Subscribe(ctx, key, so)
	if err != nil {
		return err
	}
	defer v.Close()
	for {
		lines, err := v.Next(ctx)
		if len(lines) > 0 {
			out := make([]LogLine, len(lines))
			for i, l := range lines {
				out[i] = LogLine{Pod: pod.Name, Time: l.Cursor.Time, Text: l.Text}
			}
			last := lines[len(lines)-1].Cursor
			if !st.send(ctx, func() { st.cursors[pod.Name] = &last }, "", out...) {
				return ctx.Err()
			}
		}
		if err != nil {
			var slow *podlogs.SlowError
			if errors.As(err, &slow) {
				st.mu.Lock()
				st.cursors[pod.Name] = &slow.Resume
				st.mu.Unlock()
			}
			return err
		}
	}
}

// send delivers a chunk, with the cursor after it (mark, when set, moves
// the pod's cursor first). It tells false once the stream is over.
func (st *logStream) send(ctx context.Context, mark func(), end LogEnd, lines ...LogLine) bool {
	st.mu.Lock()
	if st.ended {
		st.mu.Unlock()
		return false
	}
	if mark != nil {
		mark()
	}
	chunk := LogChunk{Lines: lines, Cursor: formatLogCursor(st.cursors), End: end}
	if end != "" {
		st.ended = true
	}
	st.mu.Unlock()
	if chunk.Lines == nil {
		chunk.Lines = []LogLine{}
	}
	select {
	case st.out <- chunk:
		return true
	case <-ctx.Done():
		return false
	}
}

// A log cursor holds each pod's last line: "pod=cursor" pairs joined by
// ';', base64url-encoded.
func formatLogCursor(cursors map[string]*podlogs.Cursor) string {
	pods := make([]string, 0, len(cursors))
	for p := range cursors {
		pods = append(pods, p)
	}
	slices.Sort(pods)
	var b strings.Builder
	for i, p := range pods {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(p + "=" + cursors[p].String())
	}
	return base64.RawURLEncoding.EncodeToString([]byte(b.String()))
}

func parseLogCursor(s string) (map[string]*podlogs.Cursor, error) {
	out := map[string]*podlogs.Cursor{}
	if s == "" {
		return out, nil
	}
	bad := func(why string) error {
		return errs.Field("since", "the cursor is not one jobLogs sent (%s); pass the cursor of a chunk received, or leave since out", why)
	}
	if len(s) > maxLogCursor {
		return nil, bad("too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad("not base64url")
	}
	if len(raw) == 0 {
		return out, nil
	}
	for pair := range strings.SplitSeq(string(raw), ";") {
		pod, c, ok := strings.Cut(pair, "=")
		if !ok || pod == "" || len(out) >= maxLogPods {
			return nil, bad("malformed")
		}
		cur, err := podlogs.ParseCursor(c)
		if err != nil {
			return nil, bad(err.Error())
		}
		out[pod] = &cur
	}
	return out, nil
}

// openLog opens a pod's log for the hub; k.Cluster is the cluster's id.
func (s *Service) openLog(ctx context.Context, k podlogs.Key, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	c, p, err := s.clusters.Reach(k.Cluster, false)
	if err != nil {
		return nil, err
	}
	kc, err := p.KubeOf(ctx, c.EKS.Name)
	if err != nil {
		return nil, err
	}
	if kc.Logs == nil {
		return nil, errs.New(errs.Unavailable, "the Kubernetes API of %s serves no logs here", c.Name)
	}
	o := *opts
	o.Container = k.Container
	r, err := kc.Logs.Stream(ctx, k.Namespace, k.Pod, &o)
	if err != nil {
		return nil, errs.Wrap(errs.Upstream, err, "read the log of pod %s/%s: %v", k.Namespace, k.Pod, err)
	}
	return r, nil
}

// maxReadLines bounds the lines one ReadLogs returns.
const maxReadLines = 10000

// ReadLogs reads job id's log lines as they are now, without following,
// keeping those that contain contains (case-insensitive) when it is set.
func (s *Service) ReadLogs(ctx context.Context, id string, req LogsRequest, contains string) (*LogChunk, error) {
	if len(contains) > 200 {
		return nil, errs.Field("contains", "the text to look for is longer than 200 characters")
	}
	req.Follow = false
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in, err := s.Logs(ctx, id, req)
	if err != nil {
		return nil, err
	}
	needle := strings.ToLower(contains)
	out := &LogChunk{Lines: []LogLine{}}
	for c := range in {
		for _, l := range c.Lines {
			if needle == "" || strings.Contains(strings.ToLower(l.Text), needle) {
				out.Lines = append(out.Lines, l)
			}
		}
		if len(out.Lines) > maxReadLines {
			out.Lines = out.Lines[len(out.Lines)-maxReadLines:]
		}
		out.Cursor, out.End = c.Cursor, c.End
	}
	if err := ctx.Err(); err != nil && out.End == "" {
		return nil, err
	}
	slices.SortStableFunc(out.Lines, func(a, b LogLine) int { return a.Time.Compare(b.Time) })
	return out, nil
}
