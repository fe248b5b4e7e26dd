package podlogs_test

import (
	"context"
	"io"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/podlogs"
)

// fakePods is the logs of a workload's pods, one fakeLog each.
type fakePods struct {
	mu   sync.Mutex
	logs map[string]*fakeLog
	pods []podlogs.Pod
	over bool
}

func newFakePods(names ...string) *fakePods {
	f := &fakePods{logs: map[string]*fakeLog{}}
	for _, n := range names {
		f.addPod(n)
	}
	return f
}

func (f *fakePods) addPod(name string) *fakeLog {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := newFakeLog()
	f.logs[name] = l
	f.pods = append(f.pods, podlogs.Pod{Name: name})
	return l
}

func (f *fakePods) log(name string) *fakeLog {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.logs[name]
}

func (f *fakePods) open(ctx context.Context, k podlogs.Key, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	return f.log(k.Pod).open(ctx, k, opts)
}

func (f *fakePods) workload() podlogs.Workload {
	return podlogs.Workload{Cluster: "c1", Namespace: "default", Pods: func() ([]podlogs.Pod, bool) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return slices.Clone(f.pods), f.over
	}}
}

// collect reads chunks until n lines came (or the stream ended), failing
// after waitFor.
func collect(t *testing.T, in <-chan podlogs.Chunk, n int) ([]podlogs.PodLine, podlogs.Chunk) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitFor)
	defer cancel()
	var got []podlogs.PodLine
	var last podlogs.Chunk
	for len(got) < n {
		select {
		case c, ok := <-in:
			if !ok {
				return got, last
			}
			got, last = append(got, c.Lines...), c
			if c.End != "" {
				return got, last
			}
		case <-ctx.Done():
			t.Fatalf("after %d of %d lines: no more", len(got), n)
		}
	}
	return got, last
}

func podTexts(lines []podlogs.PodLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Pod + ": " + l.Text
	}
	slices.Sort(out)
	return out
}

func TestStreamsOfAWorkloadShareOneUpstreamPerPod(t *testing.T) {
	f := newFakePods("srv-a", "srv-b")
	f.log("srv-a").add("a0", "a1")
	f.log("srv-b").add("b0")
	h := podlogs.NewHub(f.open, podlogs.Options{})
	t.Cleanup(h.Close)
	const viewers = 5
	var streams []<-chan podlogs.Chunk
	for range viewers {
		req := podlogs.Request{Tail: 10, Follow: true}
		resume, err := req.Check()
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, h.Stream(t.Context(), f.workload(), req, resume))
	}
	want := []string{"srv-a: a0", "srv-a: a1", "srv-b: b0"}
	for _, s := range streams {
		if got, _ := collect(t, s, 3); !slices.Equal(podTexts(got), want) {
			t.Fatalf("lines = %q, want %q", podTexts(got), want)
		}
	}
	f.log("srv-b").add("b1")
	for _, s := range streams {
		if got, _ := collect(t, s, 1); !slices.Equal(podTexts(got), []string{"srv-b: b1"}) {
			t.Fatalf("live lines = %q, want srv-b's b1", podTexts(got))
		}
	}
	for _, pod := range []string{"srv-a", "srv-b"} {
		if n := f.log(pod).openCount(); n != 1 {
			t.Fatalf("%d viewers opened %s's log %d times, want once", viewers, pod, n)
		}
	}
}

func TestStreamOfOnePodResumesFromItsCursor(t *testing.T) {
	f := newFakePods("srv-a", "srv-b")
	f.log("srv-a").add("a0", "a1", "a2")
	f.log("srv-b").add("b0")
	h := podlogs.NewHub(f.open, podlogs.Options{})
	t.Cleanup(h.Close)
	req := podlogs.Request{Pod: "srv-a", Tail: 2}
	resume, err := req.Check()
	if err != nil {
		t.Fatal(err)
	}
	got, last := collect(t, h.Stream(t.Context(), f.workload(), req, resume), 100)
	if want := []string{"srv-a: a1", "srv-a: a2"}; !slices.Equal(podTexts(got), want) || last.End != podlogs.Done {
		t.Fatalf("lines = %q end %q, want %q and DONE", podTexts(got), last.End, want)
	}
	f.log("srv-a").add("a3")
	req = podlogs.Request{Pod: "srv-a", Since: last.Cursor}
	resume, err = req.Check()
	if err != nil || !resume.Has("srv-a") || resume.Has("srv-b") {
		t.Fatalf("Check(since) = %v, %v; want srv-a's place only", resume, err)
	}
	got, _ = collect(t, h.Stream(t.Context(), f.workload(), req, resume), 100)
	if want := []string{"srv-a: a3"}; !slices.Equal(podTexts(got), want) {
		t.Fatalf("after the cursor: %q, want %q", podTexts(got), want)
	}
}

func TestStreamFollowsANewPod(t *testing.T) {
	f := newFakePods("srv-a")
	f.log("srv-a").add("a0")
	h := podlogs.NewHub(f.open, podlogs.Options{})
	t.Cleanup(h.Close)
	in := h.Stream(t.Context(), f.workload(), podlogs.Request{Tail: 10, Follow: true}, nil)
	collect(t, in, 1)
	f.addPod("srv-b").add("b0")
	if got, _ := collect(t, in, 1); !slices.Equal(podTexts(got), []string{"srv-b: b0"}) {
		t.Fatalf("lines = %q, want the new pod's b0", podTexts(got))
	}
}

func TestRequestBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		req   podlogs.Request
		field string
	}{
		{"negative tail", podlogs.Request{Tail: -1}, "tail"},
		{"tail over the most", podlogs.Request{Tail: podlogs.MaxTail + 1}, "tail"},
		{"cursor not base64url", podlogs.Request{Since: "!!"}, "since"},
		{"cursor malformed", podlogs.Request{Since: "bm9wZQ"}, "since"},
		{"cursor too long", podlogs.Request{Since: string(make([]byte, 9000))}, "since"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.req.Check()
			if e := errs.As(err); err == nil || e.Code != errs.Validation || e.Field != tc.field {
				t.Fatalf("Check = %v, want VALIDATION naming %s", err, tc.field)
			}
		})
	}
	if _, err := (podlogs.Request{Tail: podlogs.MaxTail}).Check(); err != nil {
		t.Fatalf("the most lines: %v", err)
	}
	if err := podlogs.CheckContains(string(make([]byte, podlogs.MaxContains+1))); errs.As(err).Field != "contains" {
		t.Fatalf("CheckContains(201 bytes) = %v, want VALIDATION naming contains", err)
	}
}
