package ops

import (
	"math/rand/v2"
	"time"
)

// Backoff is a capped exponential backoff with jitter.
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
	// Jitter is the fraction (0..1) by which each wait is randomly shortened
	// or lengthened, so many pollers do not call AWS in lockstep.
	Jitter float64
}

// DefaultBackoff suits real AWS: first poll after 2 s, at most every 30 s.
var DefaultBackoff = Backoff{Initial: 2 * time.Second, Max: 30 * time.Second, Jitter: 0.2}

// Scaled returns b with its waits divided by factor (for the simulator's
// speed). The runner applies it for Options.Speed; areas declare real-world
// backoffs and do not call it.
func (b Backoff) Scaled(factor float64) Backoff {
	if factor <= 0 {
		return b
	}
	b.Initial = time.Duration(float64(b.Initial) / factor)
	b.Max = time.Duration(float64(b.Max) / factor)
	if b.Initial < time.Millisecond {
		b.Initial = time.Millisecond
	}
	if b.Max < b.Initial {
		b.Max = b.Initial
	}
	return b
}

// wait returns the wait before poll number n (0-based).
func (b Backoff) wait(n int) time.Duration {
	d := b.Initial
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	if d > b.Max {
		d = b.Max
	}
	if b.Jitter > 0 {
		d = time.Duration(float64(d) * (1 + b.Jitter*(2*rand.Float64()-1)))
	}
	if d <= 0 {
		d = time.Millisecond
	}
	return d
}
