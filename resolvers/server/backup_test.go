package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
)

// getBackup GETs /admin/backup with the token secret ("" for none).
func getBackup(t *testing.T, srv *server.Server, secret string) (*http.Response, []byte) {
	t.Helper()
	var header http.Header
	if secret != "" {
		header = bearer(secret)
	}
	return send(t, header, http.MethodGet, srv.URL()+"/admin/backup", "")
}

func TestBackupEndpointStreamsToAdminsOnly(t *testing.T) {
	srv := startServer(t, server.Config{})
	_, viewer := newToken(t, srv, "reader", "VIEWER", nil)
	_, operator := newToken(t, srv, "ops", "OPERATOR", nil)
	for _, tt := range []struct {
		who, secret string
		status      int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"a viewer", viewer, http.StatusForbidden},
		{"an operator", operator, http.StatusForbidden},
		{"a wrong token", "isk_" + strings.Repeat("B", 43), http.StatusUnauthorized},
	} {
		res, body := getBackup(t, srv, tt.secret)
		if res.StatusCode != tt.status || bytes.Contains(body, []byte("instantstart backup")) {
			t.Errorf("%s: %s with %d bytes, want %d and no backup", tt.who, res.Status, len(body), tt.status)
		}
	}

	// The simulated world changes too: it is restored with the store.
	if status, body := do(t, http.MethodPost, srv.URL()+"/sim/faults?spec=capacity:zone=us-east-1a", ""); status != http.StatusCreated {
		t.Fatalf("inject a fault: %d %s", status, body)
	}
	seq := srv.Store().LastSequence()
	res, body := getBackup(t, srv, adminSecret)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != server.BackupContentType {
		t.Fatalf("admin: %s, Content-Type %q: %.200s", res.Status, res.Header.Get("Content-Type"), body)
	}
	h, err := store.CheckBackup(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the streamed backup: %v", err)
	}
	if h.SchemaVersion != store.SchemaVersion || h.BinaryVersion != "dev" {
		t.Errorf("header %+v", h)
	}

	dst := filepath.Join(t.TempDir(), "restored")
	if _, err := store.Restore(bytes.NewReader(body), dst); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.Config{DataDir: dst, SimSpeed: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if got := a.Store.LastSequence(); got < seq {
		t.Errorf("the restored store ends at event %d; the server was at %d before the backup", got, seq)
	}
	faults := a.World.Faults()
	if len(faults) != 1 || faults[0].Zone != "us-east-1a" {
		t.Errorf("the restored world has faults %+v, want the capacity fault in us-east-1a", faults)
	}
	// The tokens came with the store: the restored engine knows the viewer.
	if _, err := a.Auth.Authenticate(viewer); err != nil {
		t.Errorf("the viewer's token in the restored store: %v", err)
	}
}

func TestServerPublishesItsURLWhileItServes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, server.URLFile)
	// Cleanups run last first: this one runs after the server's has shut
	// it down.
	t.Cleanup(func() {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after a clean shutdown: %v", server.URLFile, err)
		}
	})
	srv := startServer(t, server.Config{Engine: app.Config{DataDir: dir}})
	// A request answered means the server serves, and it publishes its
	// URL before it serves.
	if status, body := get(t, srv.URL()+"/healthz"); status != http.StatusOK {
		t.Fatalf("/healthz: %d %s", status, body)
	}
	published, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(published)) != srv.URL() {
		t.Errorf("%s holds %q, want %q", server.URLFile, published, srv.URL())
	}
}

// TestARevokedTokenEndsItsBackupStream: a backup holds to its token for as
// long as it streams. Revoked once the stream has begun (the client reads
// the start, then waits), the stream breaks off instead of ending cleanly.
func TestARevokedTokenEndsItsBackupStream(t *testing.T) {
	srv := startServer(t, server.Config{})
	// Far more than the connection's buffers hold, so that the server is
	// still writing when the token is revoked.
	blob := make([]byte, 64<<10)
	for i := range 768 {
		_, _ = rand.Read(blob)
		err := srv.Store().Update(func(tx *store.Tx) error {
			return tx.Put("backup-filler", fmt.Sprintf("%04d", i), map[string][]byte{"blob": blob})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	id, secret := newToken(t, srv, "backups", "ADMIN", nil)
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, srv.URL()+"/admin/backup", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("backup: %s", res.Status)
	}
	if _, err := io.ReadFull(res.Body, make([]byte, 4096)); err != nil {
		t.Fatalf("read the start of the backup: %v", err)
	}
	if err := query(t, srv, `mutation($id: ID!) { revokeToken(id: $id) { id } }`, map[string]any{"id": id}).Err(); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(res.Body)
	if err == nil {
		t.Fatalf("the stream of a revoked token ended cleanly after %d more bytes; want it broken off", len(rest))
	}
}
