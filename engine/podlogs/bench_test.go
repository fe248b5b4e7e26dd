package podlogs_test

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/podlogs"
)

// genLog opens followed streams that send n generated lines, then wait
// for their context, as a busy container's log would. With a gate, a
// stream sends genChunk lines per value it receives from it.
type genLog struct {
	n     int
	gate  chan struct{}
	opens atomic.Int64
}

// genChunk is how many lines a gated stream sends per value of its gate.
const genChunk = 1000

func (g *genLog) open(ctx context.Context, _ podlogs.Key, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	g.opens.Add(1)
	return &genStream{ctx: ctx, left: g.n, gate: g.gate, t: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}, nil
}

type genStream struct {
	ctx     context.Context
	left    int
	gate    chan struct{}
	t       time.Time
	pending []byte
	buf     []byte
	// released is how many lines the gate has let through that are not
	// yet sent; a chunk may span several reads.
	released int
}

func (s *genStream) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		if s.left == 0 {
			<-s.ctx.Done()
			return 0, s.ctx.Err()
		}
		if s.gate != nil && s.released == 0 {
			select {
			case <-s.gate:
				s.released = genChunk
			case <-s.ctx.Done():
				return 0, s.ctx.Err()
			}
		}
		s.buf = s.buf[:0]
		for s.left > 0 && (s.gate == nil || s.released > 0) && len(s.buf) < 64<<10 {
			s.t = s.t.Add(time.Microsecond)
			s.buf = s.t.AppendFormat(s.buf, time.RFC3339Nano)
			s.buf = append(s.buf, " step=1234 loss=0.4321 lr=0.0003 tokens/s=98765 worker=3\n"...)
			s.left--
			s.released--
		}
		s.pending = s.buf
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *genStream) Close() error { return nil }

// readLines reads n lines from v.
func readLines(b *testing.B, v *podlogs.Viewer, n int) {
	got := 0
	for got < n {
		lines, err := v.Next(context.Background())
		if err != nil {
			b.Errorf("after %d of %d lines: %v", got, n, err)
			return
		}
		got += len(lines)
	}
}

func BenchmarkOneViewer(b *testing.B) {
	g := &genLog{n: b.N}
	h := podlogs.NewHub(g.open, podlogs.Options{BufferLines: 100_000, BufferBytes: 64 << 20})
	defer h.Close()
	b.ReportAllocs()
	b.ResetTimer()
	v, err := h.Subscribe(context.Background(), testKey, podlogs.SubscribeOptions{Follow: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	readLines(b, v, b.N)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// pacer keeps a gated log no further than window lines ahead of the
// slowest of its viewers, as a log that is busy but not beyond what its
// viewers can read: unpaced, a generator on the same cores outruns its
// readers and the hub rightly cuts them off.
type pacer struct {
	gate     chan struct{}
	progress []atomic.Int64
	read     chan struct{}
}

const window = 50 * genChunk

func newPacer(viewers int) *pacer {
	return &pacer{
		gate:     make(chan struct{}, window/genChunk),
		progress: make([]atomic.Int64, viewers),
		read:     make(chan struct{}, 1),
	}
}

// run releases the log's n lines in chunks until they are all out or done
// closes.
func (p *pacer) run(n int, done <-chan struct{}) {
	for released := 0; released < n; {
		slowest := int64(n)
		for i := range p.progress {
			slowest = min(slowest, p.progress[i].Load())
		}
		for released < n && int64(released)-slowest < window {
			p.gate <- struct{}{}
			released += genChunk
		}
		select {
		case <-p.read:
		case <-done:
			return
		}
	}
}

// follow reads n lines as viewer i of p.
func (p *pacer) follow(b *testing.B, i int, v *podlogs.Viewer, n int) {
	for got := 0; got < n; {
		lines, err := v.Next(context.Background())
		if err != nil {
			b.Errorf("after %d of %d lines: %v", got, n, err)
			return
		}
		got += len(lines)
		p.progress[i].Store(int64(got))
		select {
		case p.read <- struct{}{}:
		default:
		}
	}
}

const viewers = 100

// BenchmarkManyViewers is 100 viewers of one pod: one upstream stream,
// one parse of each line, one buffer they all read from.
func BenchmarkManyViewers(b *testing.B) {
	p := newPacer(viewers)
	g := &genLog{n: b.N, gate: p.gate}
	h := podlogs.NewHub(g.open, podlogs.Options{BufferLines: 100_000, BufferBytes: 64 << 20, Linger: time.Minute})
	defer h.Close()
	// The viewers join before the lines flow, so each reads them all.
	vs := make([]*podlogs.Viewer, viewers)
	for i := range vs {
		v, err := h.Subscribe(context.Background(), testKey, podlogs.SubscribeOptions{Follow: true})
		if err != nil {
			b.Fatal(err)
		}
		defer v.Close()
		vs[i] = v
	}
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	go p.run(b.N, done)
	var wg sync.WaitGroup
	for i, v := range vs {
		wg.Go(func() { p.follow(b, i, v, b.N) })
	}
	wg.Wait()
	close(done)
	b.ReportMetric(float64(g.opens.Load()), "opens")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s/viewer")
}

// BenchmarkManyViewersOwnStreams is what BenchmarkManyViewers replaces:
// each of the viewers opens a log stream of its own, as a `kubectl logs
// -f` per viewer (or a server that proxies one per subscriber) would, so
// the API server sends, and the control plane parses, every line once per
// viewer. The same lines, parser, pacing and viewer code, with one hub
// per viewer.
func BenchmarkManyViewersOwnStreams(b *testing.B) {
	ps := make([]*pacer, viewers)
	gs := make([]*genLog, viewers)
	vs := make([]*podlogs.Viewer, viewers)
	for i := range vs {
		ps[i] = newPacer(1)
		gs[i] = &genLog{n: b.N, gate: ps[i].gate}
		h := podlogs.NewHub(gs[i].open, podlogs.Options{BufferLines: 100_000, BufferBytes: 64 << 20})
		defer h.Close()
		v, err := h.Subscribe(context.Background(), testKey, podlogs.SubscribeOptions{Follow: true})
		if err != nil {
			b.Fatal(err)
		}
		defer v.Close()
		vs[i] = v
	}
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for i, v := range vs {
		go ps[i].run(b.N, done)
		wg.Go(func() { ps[i].follow(b, 0, v, b.N) })
	}
	wg.Wait()
	close(done)
	opens := int64(0)
	for _, g := range gs {
		opens += g.opens.Load()
	}
	b.ReportMetric(float64(opens), "opens")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s/viewer")
}
