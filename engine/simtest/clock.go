package simtest

import (
	"sync"
	"time"
)

// PausableClock is a clock for sim.Options.Clock. It runs with the wall
// clock until paused; paused, the simulated world stands still until the
// test steps it or resumes it, so a test can look at a state that would
// otherwise last a few milliseconds, or see every transition in turn.
// Resumed, it runs on from where it was. The zero value runs.
type PausableClock struct {
	mu     sync.Mutex
	paused bool
	at     time.Time
	skew   time.Duration
}

// Now is the clock's time.
func (c *PausableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		return c.at
	}
	return time.Now().Add(c.skew)
}

// Pause stops the clock; pausing a paused clock leaves it where it is.
func (c *PausableClock) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		return
	}
	c.paused, c.at = true, time.Now().Add(c.skew)
}

// Resume lets the clock run again from where it stopped.
func (c *PausableClock) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.paused {
		return
	}
	c.paused, c.skew = false, c.at.Sub(time.Now())
}

// Step moves a paused clock by d.
func (c *PausableClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}
