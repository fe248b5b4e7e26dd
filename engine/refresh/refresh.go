// Package refresh runs the loops that keep records in line with the cloud:
// often while something is changing, seldom while all is settled.
package refresh

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Loop calls step until ctx ends: fast after a step that reports something
// changing, and otherwise at an interval that doubles up to slow. A step's
// error is logged under name and does not stop the loop.
func Loop(ctx context.Context, fast, slow time.Duration, log *slog.Logger, name string, step func(context.Context) (busy bool, err error)) {
	wait := fast
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		busy, err := step(ctx)
		if err != nil && !errors.Is(err, context.Canceled) {
			log.Warn(name, "err", err)
		}
		if busy {
			wait = fast
		} else {
			wait = min(wait*2, slow)
		}
	}
}
