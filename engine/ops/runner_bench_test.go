package ops

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/store"
)

// BenchmarkPhaseTransitions measures stored phase transitions per second
// through the whole runner: each operation has 10 phases in a chain, and each
// phase is stored RUNNING, RUNNING (applying), WAITING and SUCCEEDED on a
// store that fsyncs every commit.
func BenchmarkPhaseTransitions(b *testing.B) {
	st, err := store.Open(b.TempDir(), store.Options{SyncWrites: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const phases = 10
	r := NewRunner(st, Options{Backoff: Backoff{Initial: time.Microsecond, Max: time.Microsecond}})
	w := newWorld()
	r.Register(Definition{Kind: "Build", Steps: func(op *Operation) ([]Step, error) {
		var steps []Step
		for i := range phases {
			s := w.step(op.Target.ID + "/" + strconv.Itoa(i))
			s.Name = "p" + strconv.Itoa(i)
			if i > 0 {
				s.DependsOn = []string{"p" + strconv.Itoa(i-1)}
			}
			steps = append(steps, s)
		}
		return steps, nil
	}})
	defer r.Shutdown(context.Background())
	start := st.LastSequence()
	for i := 0; b.Loop(); i++ {
		op, err := r.Submit(Request{Kind: "Build", Target: Ref{Kind: "THING", ID: strconv.Itoa(i)}})
		if err != nil {
			b.Fatal(err)
		}
		for {
			got, err := r.Wait(context.Background(), op.ID, time.Second)
			if err != nil {
				b.Fatal(err)
			}
			if got.Status.Terminal() {
				break
			}
		}
	}
	b.ReportMetric(float64(st.LastSequence()-start)/b.Elapsed().Seconds(), "transitions/s")
}
