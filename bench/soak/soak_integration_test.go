//go:build integration

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSoakSmall runs the soak at 20 operations and 5 kills against the
// release binary (.ci/release builds it; INSTANTSTART_RELEASE_BIN names
// it), with 10% of the calls to every simulated service throttled and 2%
// failing with ServiceUnavailable, and fails on any broken invariant.
func TestSoakSmall(t *testing.T) {
	bin := os.Getenv("INSTANTSTART_RELEASE_BIN")
	if bin == "" {
		t.Fatal("INSTANTSTART_RELEASE_BIN is not set: run .ci/release and export INSTANTSTART_RELEASE_BIN=\"$(.ci/release | tail -n 1)\"")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("INSTANTSTART_RELEASE_BIN=%s: %v; run .ci/release and export INSTANTSTART_RELEASE_BIN=\"$(.ci/release | tail -n 1)\"", bin, err)
	}
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	dir := t.TempDir()
	var log strings.Builder
	rep, err := Run(ctx, Options{Bin: bin, Ops: 20, Kills: 5, Seed: 1, Throttle: 0.1, Unavailable: 0.02, OpTimeout: 5 * time.Minute,
		Dir: dir, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s%s", err, log.String(), serverLog(dir))
	}
	var summary strings.Builder
	rep.Print(&summary)
	if rep.Failed() {
		t.Fatalf("an invariant broke:\n%s\n%s%s", summary.String(), log.String(), serverLog(dir))
	}
	t.Log("\n" + summary.String())
}

// serverLog is the end of the server's log in dir, for a failure's
// message.
func serverLog(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil {
		return ""
	}
	if len(data) > 8000 {
		data = data[len(data)-8000:]
	}
	return "the server's log ends:\n" + string(data)
}
