package podlogs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/podlogs"
	"github.com/instantstart/instantstart/engine/testwait"
)

var testKey = podlogs.Key{Cluster: "eks-a", Namespace: "train", Pod: "job-0", Container: "pytorch"}

// waitFor is how long a test waits for an outcome before it fails.
const waitFor = 10 * time.Second

func newTestHub(t *testing.T, f *fakeLog, opt podlogs.Options) *podlogs.Hub {
	t.Helper()
	if opt.RetryDelay == 0 {
		opt.RetryDelay = time.Millisecond
	}
	h := podlogs.NewHub(f.open, opt)
	t.Cleanup(h.Close)
	return h
}

func subscribe(t *testing.T, h *podlogs.Hub, so podlogs.SubscribeOptions) *podlogs.Viewer {
	t.Helper()
	v, err := h.Subscribe(t.Context(), testKey, so)
	if err != nil {
		t.Fatalf("Subscribe(%+v): %v", so, err)
	}
	t.Cleanup(v.Close)
	return v
}

// read returns the next n lines of v, failing on an error or after waitFor.
func read(t *testing.T, v *podlogs.Viewer, n int) []podlogs.Line {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitFor)
	defer cancel()
	var got []podlogs.Line
	for len(got) < n {
		lines, err := v.Next(ctx)
		if err != nil {
			t.Fatalf("after %d of %d lines (%q): Next: %v", len(got), n, texts(got), err)
		}
		got = append(got, lines...)
	}
	if len(got) > n {
		t.Fatalf("read %d lines, want %d: %q", len(got), n, texts(got))
	}
	return got
}

// readToEnd returns v's lines up to the error that ends them.
func readToEnd(t *testing.T, v *podlogs.Viewer) ([]podlogs.Line, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitFor)
	defer cancel()
	var got []podlogs.Line
	for {
		lines, err := v.Next(ctx)
		got = append(got, lines...)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatalf("no end after %d lines (%q)", len(got), texts(got))
			}
			return got, err
		}
	}
}

func texts(lines []podlogs.Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// numbered returns "<prefix>from" .. "<prefix>to-1".
func numbered(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func wantTexts(t *testing.T, got []podlogs.Line, want []string) {
	t.Helper()
	if g := texts(got); !slices.Equal(g, want) {
		t.Fatalf("lines = %q\nwant    %q", g, want)
	}
}

func TestViewersShareOneUpstream(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("a", 0, 3)...)
	h := newTestHub(t, f, podlogs.Options{})
	var viewers []*podlogs.Viewer
	for range 10 {
		viewers = append(viewers, subscribe(t, h, podlogs.SubscribeOptions{Follow: true}))
	}
	for _, v := range viewers {
		wantTexts(t, read(t, v, 3), numbered("a", 0, 3))
	}
	f.add(numbered("b", 0, 2)...)
	for _, v := range viewers {
		wantTexts(t, read(t, v, 2), numbered("b", 0, 2))
	}
	if n := f.openCount(); n != 1 {
		t.Fatalf("10 viewers made %d opens, want 1", n)
	}
	o := f.openOptions(0)
	if !o.Follow || !o.Timestamps || o.Container != testKey.Container {
		t.Fatalf("the upstream was opened with %+v, want Follow, Timestamps and container %q", o, testKey.Container)
	}
}

func TestResumeFromCursor(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("l", 0, 5)...)
	h := newTestHub(t, f, podlogs.Options{Linger: time.Minute})
	v := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	got := read(t, v, 5)
	v.Close()

	// The cursor goes through its string form, as a client keeps it.
	c, err := podlogs.ParseCursor(got[2].Cursor.String())
	if err != nil {
		t.Fatal(err)
	}
	w := subscribe(t, h, podlogs.SubscribeOptions{Since: &c, Follow: true})
	wantTexts(t, read(t, w, 2), []string{"l3", "l4"})
	f.add("l5")
	wantTexts(t, read(t, w, 1), []string{"l5"})
	if n := f.openCount(); n != 1 {
		t.Fatalf("a resume within the linger made %d opens, want 1", n)
	}
}

func TestResumeAcrossReconnect(t *testing.T) {
	f := newFakeLog()
	f.add("a0", "a1")
	// Lines that share a timestamp on both sides of the break: only the
	// line count tells them apart when the reopen repeats their second.
	f.addSameTime("s0", "s1")
	h := newTestHub(t, f, podlogs.Options{})
	v := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	first := read(t, v, 4)
	wantTexts(t, first, []string{"a0", "a1", "s0", "s1"})

	f.breakStreams()
	testwait.Eventually(t, "reopened", func() bool { return f.openCount() >= 2 })
	f.addSameTime("s2")
	f.add("b0", "b1")
	wantTexts(t, read(t, v, 3), []string{"s2", "b0", "b1"})

	reopen := f.openOptions(1)
	if reopen.SinceTime == nil || !reopen.SinceTime.Time.Equal(first[3].Cursor.Time.Truncate(time.Second)) {
		t.Fatalf("reopened with SinceTime %v, want the second of the last line, %v", reopen.SinceTime, first[3].Cursor.Time.Truncate(time.Second))
	}

	// A viewer resuming from a line before the break continues from it.
	c := first[2].Cursor
	w := subscribe(t, h, podlogs.SubscribeOptions{Since: &c, Follow: true})
	wantTexts(t, read(t, w, 4), []string{"s1", "s2", "b0", "b1"})
}

func TestCursorOlderThanTheBuffer(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("l", 0, 100)...)
	h := newTestHub(t, f, podlogs.Options{BufferLines: 10})
	live := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	wantTexts(t, read(t, live, 10), numbered("l", 90, 100))

	c := f.cursor(20)
	v := subscribe(t, h, podlogs.SubscribeOptions{Since: &c, Follow: true})
	wantTexts(t, read(t, v, 79), numbered("l", 21, 100))
	f.add(numbered("l", 100, 105)...)
	wantTexts(t, read(t, v, 5), numbered("l", 100, 105))
	if n := f.openCount(); n != 2 {
		t.Fatalf("%d opens, want 2: the shared upstream and one private catch-up", n)
	}
	if o := f.openOptions(1); o.Follow || o.SinceTime == nil {
		t.Fatalf("the catch-up was opened with %+v, want a SinceTime read that does not follow", o)
	}
}

func TestCatchUpHandsOverWhileTheLogGrows(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("l", 0, 1500)...)
	h := newTestHub(t, f, podlogs.Options{BufferLines: 100})
	live := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	read(t, live, 100)

	c := f.cursor(5)
	v := subscribe(t, h, podlogs.SubscribeOptions{Since: &c, Follow: true})
	lines, err := v.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(lines)
	// Lines arrive while v is in its catch-up: the ring moves on, and v
	// must meet it without a gap or a repeat.
	f.add(numbered("l", 1500, 1550)...)
	read(t, live, 50)
	got = append(got, read(t, v, 1550-6-len(got))...)
	wantTexts(t, got, numbered("l", 6, 1550))
}

func TestTail(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("l", 0, 50)...)
	h := newTestHub(t, f, podlogs.Options{})
	v := subscribe(t, h, podlogs.SubscribeOptions{Tail: 5, Follow: true})
	wantTexts(t, read(t, v, 5), numbered("l", 45, 50))

	w := subscribe(t, h, podlogs.SubscribeOptions{Tail: 3, Follow: true})
	wantTexts(t, read(t, w, 3), numbered("l", 47, 50))
	f.add("l50")
	wantTexts(t, read(t, v, 1), []string{"l50"})
	wantTexts(t, read(t, w, 1), []string{"l50"})

	once := subscribe(t, h, podlogs.SubscribeOptions{Tail: 2})
	got, err := readToEnd(t, once)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("a tail without follow ended with %v, want io.EOF", err)
	}
	wantTexts(t, got, []string{"l49", "l50"})
	if n := f.openCount(); n != 1 {
		t.Fatalf("%d opens, want 1: every tail here is in the buffer", n)
	}

	// A tail longer than the buffer holds is read privately.
	long := subscribe(t, h, podlogs.SubscribeOptions{Tail: 8, Follow: true})
	wantTexts(t, read(t, long, 8), numbered("l", 43, 51))
	f.add("l51")
	wantTexts(t, read(t, long, 1), []string{"l51"})
}

func TestSlowViewerIsCutOffAndResumes(t *testing.T) {
	f := newFakeLog()
	h := newTestHub(t, f, podlogs.Options{BufferLines: 100, ViewerLag: 50, Linger: time.Minute})
	fast := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	slow := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	f.add(numbered("l", 0, 10)...)
	read(t, fast, 10)
	wantTexts(t, read(t, slow, 10), numbered("l", 0, 10))

	// slow stops reading; fast keeps up with every line.
	for i := 10; i < 300; i += 10 {
		f.add(numbered("l", i, i+10)...)
		wantTexts(t, read(t, fast, 10), numbered("l", i, i+10))
	}

	_, err := slow.Next(t.Context())
	var se *podlogs.SlowError
	if !errors.As(err, &se) {
		t.Fatalf("the slow viewer's Next = %v, want a *SlowError", err)
	}
	if want := f.cursor(9); se.Resume.Compare(want) != 0 {
		t.Fatalf("Resume = %v, want the cursor of the last line read, %v", se.Resume, want)
	}
	if _, err := slow.Next(t.Context()); !errors.As(err, &se) {
		t.Fatalf("a cut-off viewer's next Next = %v, want the *SlowError again", err)
	}

	again := subscribe(t, h, podlogs.SubscribeOptions{Since: &se.Resume, Follow: true})
	wantTexts(t, read(t, again, 290), numbered("l", 10, 300))
	f.add("l300")
	wantTexts(t, read(t, again, 1), []string{"l300"})
	wantTexts(t, read(t, fast, 1), []string{"l300"})
}

func TestByteBoundCutsOff(t *testing.T) {
	f := newFakeLog()
	h := newTestHub(t, f, podlogs.Options{BufferBytes: 64 << 10})
	fast := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	slow := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	big := string(make([]byte, 4<<10))
	for range 40 {
		f.add(big)
		read(t, fast, 1)
	}
	_, err := slow.Next(t.Context())
	var se *podlogs.SlowError
	if !errors.As(err, &se) {
		t.Fatalf("Next after 160 KiB through a 64 KiB buffer = %v, want a *SlowError", err)
	}
	if want := (podlogs.Cursor{Time: f.cursor(0).Time, N: -1}); se.Resume.Compare(want) != 0 {
		t.Fatalf("Resume = %v, want the place before the first line, %v", se.Resume, want)
	}
}

func TestEndOfLog(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("l", 0, 3)...)
	h := newTestHub(t, f, podlogs.Options{})
	v := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	read(t, v, 3)
	f.add("last")
	f.end()
	got, err := readToEnd(t, v)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("the viewer of an ended container got %v, want io.EOF", err)
	}
	wantTexts(t, got, []string{"last"})
	if n := f.openCount(); n < 2 {
		t.Fatalf("%d opens: the end was not confirmed by a reopen", n)
	}
	if _, err := v.Next(t.Context()); !errors.Is(err, io.EOF) {
		t.Fatalf("Next after the end = %v, want io.EOF again", err)
	}
}

func TestReadWithoutFollow(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("l", 0, 4)...)
	h := newTestHub(t, f, podlogs.Options{})
	v := subscribe(t, h, podlogs.SubscribeOptions{})
	got, err := readToEnd(t, v)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("got %v, want io.EOF", err)
	}
	wantTexts(t, got, numbered("l", 0, 4))
	if o := f.openOptions(0); o.Follow {
		t.Fatalf("a read without follow opened %+v, want no Follow", o)
	}
	testwait.Eventually(t, "closed", func() bool { return f.liveCount() == 0 })
}

func TestLinger(t *testing.T) {
	f := newFakeLog()
	f.add("l0")
	h := newTestHub(t, f, podlogs.Options{Linger: time.Minute})
	v := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	read(t, v, 1)
	v.Close()
	w := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	wantTexts(t, read(t, w, 1), []string{"l0"})
	if n := f.openCount(); n != 1 {
		t.Fatalf("reconnecting within the linger made %d opens, want 1", n)
	}

	g := newFakeLog()
	g.add("l0")
	short := newTestHub(t, g, podlogs.Options{Linger: time.Millisecond})
	v = podlogsSubscribe(t, short)
	read(t, v, 1)
	v.Close()
	testwait.Eventually(t, "closed after the linger", func() bool { return g.liveCount() == 0 })
	w = podlogsSubscribe(t, short)
	read(t, w, 1)
	if n := g.openCount(); n != 2 {
		t.Fatalf("a viewer after the linger made %d opens in all, want 2", n)
	}
}

func podlogsSubscribe(t *testing.T, h *podlogs.Hub) *podlogs.Viewer {
	return subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
}

func TestOpenErrorReachesTheViewer(t *testing.T) {
	f := newFakeLog()
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, testKey.Pod)
	f.fail(notFound)
	h := newTestHub(t, f, podlogs.Options{})
	_, err := h.Subscribe(t.Context(), testKey, podlogs.SubscribeOptions{Follow: true})
	if !apierrors.IsNotFound(err) || !errors.Is(err, notFound) {
		t.Fatalf("Subscribe = %v, want the opener's NotFound", err)
	}
	// A failed open is not kept: the next viewer tries again.
	f.fail(nil)
	f.add("l0")
	v := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	wantTexts(t, read(t, v, 1), []string{"l0"})
}

func TestReopensThatFailReachTheViewer(t *testing.T) {
	f := newFakeLog()
	f.add("l0")
	h := newTestHub(t, f, podlogs.Options{})
	v := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	read(t, v, 1)
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, testKey.Pod)
	f.fail(gone)
	f.breakStreams()
	_, err := readToEnd(t, v)
	if !apierrors.IsNotFound(err) {
		t.Fatalf("Next = %v, want the reopens' NotFound", err)
	}
}

func TestHubCloseEndsViewers(t *testing.T) {
	f := newFakeLog()
	h := podlogs.NewHub(f.open, podlogs.Options{})
	v, err := h.Subscribe(t.Context(), testKey, podlogs.SubscribeOptions{Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	done := make(chan error, 1)
	go func() {
		_, err := v.Next(context.Background())
		done <- err
	}()
	h.Close()
	select {
	case err := <-done:
		if !errors.Is(err, podlogs.ErrClosed) {
			t.Fatalf("Next after Hub.Close = %v, want ErrClosed", err)
		}
	case <-time.After(waitFor):
		t.Fatal("Next still waits after Hub.Close")
	}
	if n := f.liveCount(); n != 0 {
		t.Fatalf("%d streams still open after Hub.Close", n)
	}
	if _, err := h.Subscribe(t.Context(), testKey, podlogs.SubscribeOptions{Follow: true}); !errors.Is(err, podlogs.ErrClosed) {
		t.Fatalf("Subscribe after Close = %v, want ErrClosed", err)
	}
}

func TestViewerCloseWakesNext(t *testing.T) {
	f := newFakeLog()
	h := newTestHub(t, f, podlogs.Options{})
	v := subscribe(t, h, podlogs.SubscribeOptions{Follow: true})
	done := make(chan error, 1)
	go func() {
		_, err := v.Next(context.Background())
		done <- err
	}()
	v.Close()
	select {
	case err := <-done:
		if !errors.Is(err, podlogs.ErrClosed) {
			t.Fatalf("Next after Close = %v, want ErrClosed", err)
		}
	case <-time.After(waitFor):
		t.Fatal("Next still waits after Close")
	}
}

func TestSubscribeRefusesTailWithCursor(t *testing.T) {
	h := newTestHub(t, newFakeLog(), podlogs.Options{})
	c := podlogs.Cursor{Time: time.Now()}
	if _, err := h.Subscribe(t.Context(), testKey, podlogs.SubscribeOptions{Since: &c, Tail: 3}); err == nil {
		t.Fatal("Subscribe took both a tail and a cursor")
	}
}

// A viewer from the log's end gets only the lines written after it
// subscribed, whether it opens the upstream or joins it; without follow
// it gets none.
func TestFromEndGetsOnlyNewLines(t *testing.T) {
	f := newFakeLog()
	f.add(numbered("old", 0, 3)...)
	h := newTestHub(t, f, podlogs.Options{})
	first := subscribe(t, h, podlogs.SubscribeOptions{Follow: true, FromEnd: true})
	if o := f.openOptions(0); o.TailLines == nil || *o.TailLines != 0 {
		t.Fatalf("the upstream was opened with %+v; want TailLines 0 for a first viewer from the end", o)
	}
	f.add("new0")
	wantTexts(t, read(t, first, 1), []string{"new0"})
	joined := subscribe(t, h, podlogs.SubscribeOptions{Follow: true, FromEnd: true})
	f.add("new1")
	wantTexts(t, read(t, joined, 1), []string{"new1"})
	wantTexts(t, read(t, first, 1), []string{"new1"})

	once := subscribe(t, h, podlogs.SubscribeOptions{FromEnd: true})
	if got, err := readToEnd(t, once); len(got) != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("a one-off read from the end got %q, %v; want no line and io.EOF", texts(got), err)
	}
	alone := podlogs.NewHub(f.open, podlogs.Options{RetryDelay: time.Millisecond})
	t.Cleanup(alone.Close)
	v, err := alone.Subscribe(t.Context(), testKey, podlogs.SubscribeOptions{FromEnd: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	if got, err := readToEnd(t, v); len(got) != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("a one-off read from the end with no upstream got %q, %v; want no line and io.EOF", texts(got), err)
	}
	if _, err := h.Subscribe(t.Context(), testKey, podlogs.SubscribeOptions{FromEnd: true, Tail: 5}); err == nil {
		t.Fatal("FromEnd with a tail was taken")
	}
}
