package ops

import (
	"context"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// ReadRetry bounds how a read made while checking a request (before any
// operation exists to retry it) is tried again when it fails with a
// retryable error: throttling or a server fault. The request waits for it,
// so the bound is a few tries within a couple of seconds.
type ReadRetry struct {
	Backoff Backoff
	// Attempts is the most tries, the first included; below 1 means 1.
	Attempts int
}

// DefaultReadRetry suits real AWS: four tries, waiting about 0.25, 0.5
// and 1 s between them.
var DefaultReadRetry = ReadRetry{Backoff: Backoff{Initial: 250 * time.Millisecond, Max: 2 * time.Second, Jitter: 0.2}, Attempts: 4}

// Scaled returns r with its waits divided by factor (for the simulator's
// speed); the number of attempts stays.
func (r ReadRetry) Scaled(factor float64) ReadRetry {
	r.Backoff = r.Backoff.Scaled(factor)
	return r
}

// Do runs read until it succeeds, fails with an error that is not
// retryable (errs.IsRetryable), has been tried Attempts times, or ctx
// ends, and returns read's last error unchanged: the caller turns it into
// the UPSTREAM error its request fails with.
func (r ReadRetry) Do(ctx context.Context, read func(context.Context) error) error {
	attempts := max(r.Attempts, 1)
	for n := 0; ; n++ {
		err := read(ctx)
		if err == nil || n+1 >= attempts || !errs.IsRetryable(err) || ctx.Err() != nil {
			return err
		}
		if !sleep(ctx, r.Backoff.wait(n)) {
			return err
		}
	}
}
