package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// A mistyped --binary is reported as a path that names nothing, not as a
// binary built for another OS.
func TestRunReportsAMissingBinary(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-binary")
	out := filepath.Join(dir, "layout")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--binary", missing, "--out", out}, &stdout, &stderr); code != 1 {
		t.Errorf("run with a missing binary exited %d, want 1", code)
	}
	msg := stderr.String()
	if !strings.Contains(msg, "binary "+missing+" does not exist") {
		t.Errorf("run with a missing binary printed %q, want it to say %s does not exist", msg, missing)
	}
	if strings.Contains(msg, "ELF") || strings.Contains(msg, "GOOS") {
		t.Errorf("run with a missing binary printed %q, which blames the build rather than the path", msg)
	}
	if stdout.Len() > 0 {
		t.Errorf("run with a missing binary printed %q on stdout, want nothing", stdout.String())
	}
}
