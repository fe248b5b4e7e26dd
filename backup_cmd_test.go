package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

// runCmd runs the command line args with an empty stdin and returns its
// exit code, stdout and stderr.
func runCmd(t *testing.T, args ...string) (int, []byte, string) {
	t.Helper()
	return runCmdIn(t, nil, args...)
}

// runCmdIn is runCmd with stdin.
func runCmdIn(t *testing.T, stdin []byte, args ...string) (int, []byte, string) {
	t.Helper()
	var stdout bytes.Buffer
	var stderr strings.Builder
	code := run(args, bytes.NewReader(stdin), &stdout, &stderr)
	return code, stdout.Bytes(), stderr.String()
}

// engineState is what a restore must bring back: the event log and the
// simulator's faults.
func engineState(t *testing.T, dir string) (events []string, faults []sim.Fault) {
	t.Helper()
	a, err := app.New(app.Config{DataDir: dir, SimSpeed: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if err := a.Store.History(0, a.Store.LastSequence(), store.Filter{}, func(ev *store.Event) (bool, error) {
		events = append(events, fmt.Sprintf("%d %s %s/%s %s", ev.Seq, ev.Action, ev.Kind, ev.ID, ev.Payload))
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	return events, a.World.Faults()
}

func TestBackupAndRestoreAStoppedDeployment(t *testing.T) {
	clearEnv(t)
	root := t.TempDir()
	src := filepath.Join(root, "data")
	a, err := app.New(app.Config{DataDir: src, SimSpeed: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.World.InjectFault(sim.Fault{Kind: "capacity", Zone: "us-east-1a"}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := a.Store.Update(func(tx *store.Tx) error { return tx.Put("thing", fmt.Sprint(i), map[string]int{"n": i}) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantEvents, wantFaults := engineState(t, src)
	if len(wantEvents) == 0 {
		t.Fatal("the deployment has no events to back up")
	}

	code, backup, stderr := runCmd(t, "backup", "--data-dir", src)
	if code != exitOK || !strings.Contains(stderr, "backed up") {
		t.Fatalf("backup: exit %d, %s", code, stderr)
	}
	dst := filepath.Join(root, "restored")
	if code, _, stderr := runCmdIn(t, backup, "restore", "--data-dir", dst); code != exitOK || !strings.Contains(stderr, "--data-dir "+dst) {
		t.Fatalf("restore: exit %d, %s", code, stderr)
	}
	gotEvents, gotFaults := engineState(t, dst)
	if strings.Join(gotEvents, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("restored events:\n%s\nwant:\n%s", strings.Join(gotEvents, "\n"), strings.Join(wantEvents, "\n"))
	}
	if len(gotFaults) != len(wantFaults) || len(gotFaults) == 0 || gotFaults[0].Zone != "us-east-1a" {
		t.Errorf("the restored world has faults %+v, want %+v", gotFaults, wantFaults)
	}
}

// startServing runs a server on dir until the test ends.
func startServing(t *testing.T, dir string) *server.Server {
	t.Helper()
	srv, err := server.New(server.Config{
		Engine: app.Config{DataDir: dir, SimSpeed: 2000},
		Listen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return srv
}

// createToken makes a token of role through GraphQL as the admin whose
// secret is admin.
func createToken(t *testing.T, srv *server.Server, admin, role string) string {
	t.Helper()
	res, err := gqltest.Post(t.Context(), srv.URL()+"/graphql", http.Header{"Authorization": {"Bearer " + admin}},
		`mutation($in: CreateTokenInput!) { createToken(input: $in) { secret } }`,
		map[string]any{"in": map[string]any{"name": "a " + role, "role": role}})
	var out struct {
		CreateToken struct{ Secret string }
	}
	if err == nil {
		err = res.Decode(&out) // fails on the response's errors too
	}
	if err != nil || out.CreateToken.Secret == "" {
		t.Fatalf("createToken: %+v (%v)", res, err)
	}
	return out.CreateToken.Secret
}

func TestBackupOfARunningServerComesFromTheServer(t *testing.T) {
	clearEnv(t)
	t.Setenv("INSTANTSTART_TOKEN", "")
	root := t.TempDir()
	src := filepath.Join(root, "data")
	srv := startServing(t, src)
	admin, err := os.ReadFile(filepath.Join(src, "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	viewer := createToken(t, srv, strings.TrimSpace(string(admin)), "VIEWER")

	t.Setenv("INSTANTSTART_TOKEN", viewer)
	code, out, stderr := runCmd(t, "backup", "--data-dir", src)
	if code != exitError || !strings.Contains(stderr, "403") || !strings.Contains(stderr, "INSTANTSTART_TOKEN") || !strings.Contains(stderr, "admin token") {
		t.Errorf("backup with a viewer token: exit %d, %s", code, stderr)
	}
	if len(out) != 0 {
		t.Errorf("a refused backup wrote %d bytes", len(out))
	}

	// With the variable empty, the first admin token's file is used.
	t.Setenv("INSTANTSTART_TOKEN", "")
	seq := srv.Store().LastSequence()
	code, backup, stderr := runCmd(t, "backup", "--data-dir", src)
	if code != exitOK || !strings.Contains(stderr, srv.URL()) {
		t.Fatalf("backup of a running server: exit %d, %s", code, stderr)
	}
	dst := filepath.Join(root, "restored")
	if code, _, stderr := runCmdIn(t, backup, "restore", "--data-dir", dst); code != exitOK {
		t.Fatalf("restore: exit %d, %s", code, stderr)
	}
	a, err := app.New(app.Config{DataDir: dst, SimSpeed: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if a.Store.LastSequence() < seq {
		t.Errorf("the restored store ends at event %d; the server was at %d", a.Store.LastSequence(), seq)
	}
	if _, err := a.Auth.Authenticate(viewer); err != nil {
		t.Errorf("the viewer token made before the backup: %v", err)
	}
}

func TestBackupOfADirectoryHeldWithoutAServerURL(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, out, stderr := runCmd(t, "backup", "--data-dir", dir)
	if code != exitError || !strings.Contains(stderr, "in use") || !strings.Contains(stderr, "--url") || len(out) != 0 {
		t.Errorf("backup of a held directory: exit %d, %d bytes, %s", code, len(out), stderr)
	}
}

func TestRestoreRefusals(t *testing.T) {
	clearEnv(t)
	root := t.TempDir()
	src := filepath.Join(root, "data")
	s, err := store.Open(src, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx *store.Tx) error { return tx.Put("thing", "a", map[string]int{"n": 1}) }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, backup, stderr := runCmd(t, "backup", "--data-dir", src)
	if code != exitOK {
		t.Fatalf("backup: exit %d, %s", code, stderr)
	}
	tests := []struct {
		name  string
		input []byte
		dir   string
		code  int
		want  string
	}{
		{"into the store's own directory", backup, src, exitError, "already holds a store"},
		{"a file that is not a backup", []byte("hello\n"), filepath.Join(root, "a"), exitError, "not an instantstart backup"},
		{"a truncated backup", backup[:len(backup)*2/3], filepath.Join(root, "b"), exitError, "truncated"},
		{"an extra argument", backup, filepath.Join(root, "c") + " extra", exitUsage, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmdIn(t, tt.input, append([]string{"restore", "--data-dir"}, strings.Fields(tt.dir)...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, %q; want %d saying %q", code, stderr, tt.code, tt.want)
			}
			if d := strings.Fields(tt.dir)[0]; d != src {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					t.Errorf("a refused restore left %s: %v", d, err)
				}
			}
		})
	}
}
