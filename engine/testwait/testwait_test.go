package testwait_test

import (
	"sync/atomic"
	"testing"

	"github.com/instantstart/instantstart/engine/testwait"
)

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	var calls atomic.Int32
	testwait.Eventually(t, "the third look", func() bool { return calls.Add(1) == 3 })
	if got := calls.Load(); got != 3 {
		t.Fatalf("cond was called %d times, want 3: Eventually must stop at the first look that holds", got)
	}
}
