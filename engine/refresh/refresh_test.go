package refresh_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/refresh"
)

// A step's error is logged and the loop goes on; it ends when ctx does.
func TestLoopGoesOnPastErrorsAndEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		refresh.Loop(ctx, time.Millisecond, 4*time.Millisecond, slog.New(slog.DiscardHandler), "test", func(context.Context) (bool, error) {
			calls++
			switch calls {
			case 1:
				return false, errors.New("throttled")
			case 2:
				return true, nil
			default:
				cancel()
				return false, nil
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Loop did not return once its context ended")
	}
	if calls != 3 {
		t.Fatalf("step ran %d times; want 3 (an error does not stop the loop, a cancelled context does)", calls)
	}
}
