package podlogs

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// A workload's log (a training job's, an endpoint's) is the logs of its
// pods merged into one stream: a viewer of the hub per pod, each line with
// its pod's name, and one cursor that holds every pod's place.

// Request says which of a workload's log lines a Stream sends.
type Request struct {
	// Pod is one pod's name; empty means every pod of the workload.
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

// End says why a workload's log stream ended.
type End string

// The ends of a log stream.
const (
	Ended      End = "ENDED"
	SlowViewer End = "SLOW_VIEWER"
	Done       End = "DONE"
)

// PodLine is one line of a workload's log.
type PodLine struct {
	Pod  string
	Time time.Time
	Text string
}

// Chunk is lines in order and the cursor after them; End is set on the
// last chunk of a stream.
type Chunk struct {
	Lines  []PodLine
	Cursor string
	End    End
}

// Pod is one pod of a workload whose log a stream follows.
type Pod struct {
	Name string
	// Container is the container whose log is the pod's; empty means the
	// pod's only or first one.
	Container string
}

// Workload is what a stream follows: the pods of one job or endpoint.
type Workload struct {
	// Cluster, as Key.Cluster, and the pods' namespace.
	Cluster, Namespace string
	// Pods returns the workload's pods now and whether it is over (no pod
	// will write again). The stream calls it when it starts and, while it
	// follows, every PodsPoll to let new pods join; never concurrently.
	Pods func() (pods []Pod, over bool)
}

// Bounds of a workload's log stream.
const (
	// MaxTail bounds Request.Tail.
	MaxTail = 10000
	// MaxPods bounds the pods one stream follows.
	MaxPods = 64
	// maxCursor bounds a cursor's length.
	maxCursor = 8192
	// PodsPoll is how often a following stream looks for new pods.
	PodsPoll = 2 * time.Second
	// MaxContains bounds the text Collect looks for.
	MaxContains = 200
	// maxCollect bounds the lines one Collect returns.
	maxCollect = 10000
)

// Resume is each pod's place in a cursor a stream sent.
type Resume map[string]*Cursor

// Has tells whether the cursor holds pod's place.
func (r Resume) Has(pod string) bool { return r[pod] != nil }

// Check refuses a request out of bounds (naming tail or since) and returns
// the places its cursor holds.
func (r Request) Check() (Resume, error) {
	if r.Tail < 0 || r.Tail > MaxTail {
		return nil, errs.Field("tail", "tail must be between 0 and %d lines, got %d", MaxTail, r.Tail)
	}
	return parseStreamCursor(r.Since)
}

// Stream sends w's log lines as req asks, resuming each pod at resume (from
// req.Check): every viewer of a pod shares the hub's one upstream stream.
// The channel closes after the chunk that carries End, or when ctx ends.
func (h *Hub) Stream(ctx context.Context, w Workload, req Request, resume Resume) <-chan Chunk {
	if resume == nil {
		resume = Resume{}
	}
	st := &podsStream{h: h, w: w, req: req, cursors: resume, out: make(chan Chunk, 4), viewers: map[string]bool{}}
	ctx, cancel := context.WithCancel(ctx)
	st.cancel = cancel
	go st.run(ctx)
	return st.out
}

// podsStream is one subscriber's stream of a workload's logs: a viewer of
// the hub per pod, merged into one channel.
type podsStream struct {
	h      *Hub
	w      Workload
	req    Request
	out    chan Chunk
	cancel context.CancelFunc

	mu      sync.Mutex
	cursors Resume          // the last line sent, by pod
	viewers map[string]bool // the pods followed
	ended   bool
}

func (st *podsStream) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer func() {
		st.cancel()
		wg.Wait()
		close(st.out)
	}()
	results := make(chan error, MaxPods)
	start := func(pod Pod) {
		st.mu.Lock()
		if _, ok := st.viewers[pod.Name]; ok || len(st.viewers) >= MaxPods {
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
	over := false
	pods := func() []Pod {
		all, done := st.w.Pods()
		over = done
		var out []Pod
		for _, p := range all {
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
	tick := time.NewTicker(PodsPoll)
	defer tick.Stop()
	for {
		if running == 0 && (!st.req.Follow || over) {
			end := Done
			if st.req.Follow {
				end = Ended
			}
			st.send(ctx, nil, end)
			return
		}
		select {
		case <-ctx.Done():
			return
		case err := <-results:
			running--
			var slow *SlowError
			switch {
			case errors.As(err, &slow):
				st.send(ctx, nil, SlowViewer)
				return
			case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled):
				st.h.opt.Logger.Warn("pod logs", "cluster", st.w.Cluster, "namespace", st.w.Namespace, "err", err)
			}
		case <-tick.C:
			if !st.req.Follow {
				continue
			}
			// New pods (a RayJob's retry, a pod made again on another
			// node, an endpoint's new replica) join the stream.
			before := len(st.viewers)
			for _, p := range pods() {
				start(p)
			}
			running += len(st.viewers) - before
		}
	}
}

// follow sends one pod's lines until its log ends.
func (st *podsStream) follow(ctx context.Context, pod Pod) error {
	so := SubscribeOptions{Follow: st.req.Follow}
	st.mu.Lock()
	if c := st.cursors[pod.Name]; c != nil {
		so.Since = c
	} else if st.req.Since == "" {
		so.Tail, so.FromEnd = st.req.Tail, st.req.FromEnd
	}
	st.mu.Unlock()
	key := Key{Cluster: st.w.Cluster, Namespace: st.w.Namespace, Pod: pod.Name, Container: pod.Container}
	v, err := st.h.Subscribe(ctx, key, so)
	if err != nil {
		return err
	}
	defer v.Close()
	for {
		lines, err := v.Next(ctx)
		if len(lines) > 0 {
			out := make([]PodLine, len(lines))
			for i, l := range lines {
				out[i] = PodLine{Pod: pod.Name, Time: l.Cursor.Time, Text: l.Text}
			}
			last := lines[len(lines)-1].Cursor
			if !st.send(ctx, func() { st.cursors[pod.Name] = &last }, "", out...) {
				return ctx.Err()
			}
		}
		if err != nil {
			var slow *SlowError
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
func (st *podsStream) send(ctx context.Context, mark func(), end End, lines ...PodLine) bool {
	st.mu.Lock()
	if st.ended {
		st.mu.Unlock()
		return false
	}
	if mark != nil {
		mark()
	}
	chunk := Chunk{Lines: lines, Cursor: formatStreamCursor(st.cursors), End: end}
	if end != "" {
		st.ended = true
	}
	st.mu.Unlock()
	if chunk.Lines == nil {
		chunk.Lines = []PodLine{}
	}
	select {
	case st.out <- chunk:
		return true
	case <-ctx.Done():
		return false
	}
}

// Collect reads a stream that does not follow to its end, keeping the
// lines that contain contains (case-insensitive) when it is set: the
// newest 10,000 at most, in time order.
func Collect(ctx context.Context, in <-chan Chunk, contains string) (*Chunk, error) {
	needle := strings.ToLower(contains)
	out := &Chunk{Lines: []PodLine{}}
	for c := range in {
		for _, l := range c.Lines {
			if needle == "" || strings.Contains(strings.ToLower(l.Text), needle) {
				out.Lines = append(out.Lines, l)
			}
		}
		if len(out.Lines) > maxCollect {
			out.Lines = out.Lines[len(out.Lines)-maxCollect:]
		}
		out.Cursor, out.End = c.Cursor, c.End
	}
	if err := ctx.Err(); err != nil && out.End == "" {
		return nil, err
	}
	slices.SortStableFunc(out.Lines, func(a, b PodLine) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// CheckContains refuses a text to look for that is too long, naming
// contains.
func CheckContains(contains string) error {
	if len(contains) > MaxContains {
		return errs.Field("contains", "the text to look for is longer than %d characters", MaxContains)
	}
	return nil
}

// A stream's cursor holds each pod's last line: "pod=cursor" pairs joined
// by ';', base64url-encoded.
func formatStreamCursor(cursors Resume) string {
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

func parseStreamCursor(s string) (Resume, error) {
	out := Resume{}
	if s == "" {
		return out, nil
	}
	bad := func(why string) error {
		return errs.Field("since", "the cursor is not one this log stream sent (%s); pass the cursor of a chunk received, or leave since out", why)
	}
	if len(s) > maxCursor {
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
		if !ok || pod == "" || len(out) >= MaxPods {
			return nil, bad("malformed")
		}
		cur, err := ParseCursor(c)
		if err != nil {
			return nil, bad(err.Error())
		}
		out[pod] = &cur
	}
	return out, nil
}
