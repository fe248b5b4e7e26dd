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
}

func (s *genStream) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		if s.left == 0 {
			<-s.ctx.Done()
			return 0, s.ctx.Err()
		}
		chunk := s.left
		if s.gate != nil {
			select {
			case <-s.gate:
				chunk = genChunk
			case <-s.ctx.Done():
				return 0, s.ctx.Err()
			}
		}
		s.buf = s.buf[:0]
		for end := s.left - chunk; s.left > max(0, end) && len(s.buf) < 64<<10; s.left-- {
			s.t = s.t.Add(time.Microsecond)
			s.buf = s.t.AppendFormat(s.buf, time.RFC3339Nano)
			s.buf = append(s.buf, " step=1234 loss=0.4321 lr=0.0003 tokens/s=98765 worker=3\n"...)
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

func BenchmarkManyViewers(b *testing.B) {
	const viewers = 100
	// The upstream sends no further than window lines ahead of the slowest
	// viewer, as a log that is busy but not beyond what viewers can read:
	// unpaced, the generator outruns 100 readers and cuts them off.
	const window = 50 * genChunk
	g := &genLog{n: b.N, gate: make(chan struct{}, window/genChunk)}
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
	progress := make([]atomic.Int64, viewers)
	read := make(chan struct{}, 1)
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for released := 0; released < b.N; {
			slowest := int64(b.N)
			for i := range progress {
				slowest = min(slowest, progress[i].Load())
			}
			for released < b.N && int64(released)-slowest < window {
				g.gate <- struct{}{}
				released += genChunk
			}
			select {
			case <-read:
			case <-done:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for i, v := range vs {
		wg.Go(func() {
			for got := 0; got < b.N; {
				lines, err := v.Next(context.Background())
				if err != nil {
					b.Errorf("after %d of %d lines: %v", got, b.N, err)
					return
				}
				got += len(lines)
				progress[i].Store(int64(got))
				select {
				case read <- struct{}{}:
				default:
				}
			}
		})
	}
	wg.Wait()
	close(done)
	b.ReportMetric(float64(g.opens.Load()), "opens")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s/viewer")
}
