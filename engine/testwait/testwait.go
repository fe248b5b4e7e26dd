// Package testwait waits, in tests, for what happens in the background: a
// condition polled until a deadline, never a sleep that hopes the moment
// has come. It imports nothing of the engine, so the tests of every
// package can use it, the store's and the log hub's included.
package testwait

import (
	"testing"
	"time"
)

// Deadline is how long Eventually waits: far longer than anything a test
// waits for takes on the simulator at test speed, even on a loaded
// machine, so that only a real failure reaches it.
const Deadline = 60 * time.Second

// Eventually polls cond, every millisecond at first and backing off to
// every 20, until it holds; when it still does not after Deadline, it
// fails t saying what did not happen.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Deadline)
	wait := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: did not happen within %v", what, Deadline)
		}
		time.Sleep(wait)
		wait = min(2*wait, 20*time.Millisecond)
	}
}
