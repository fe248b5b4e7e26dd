package auth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestBootstrapWritesAdminTokenFile(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(t.TempDir(), "data")
	res, err := f.svc.Bootstrap(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "admin-token")
	if !res.Created || res.FromEnv || res.Path != want {
		t.Fatalf("result %+v, want created at %s", res, want)
	}
	info, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", info.Mode().Perm())
	}
	raw, _ := os.ReadFile(want)
	id, err := f.svc.Authenticate(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if id.Role != Admin || id.Name != "admin" {
		t.Fatalf("identity %+v, want the admin token", id)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("data directory holds %d entries, want only admin-token", len(entries))
	}

	again, err := f.svc.Bootstrap(dir, "")
	if err != nil || again.Created {
		t.Fatalf("second bootstrap: %+v, %v", again, err)
	}
	if raw2, _ := os.ReadFile(want); string(raw2) != string(raw) {
		t.Fatal("second bootstrap rewrote the file")
	}
	if list, _ := f.svc.List(); len(list) != 1 {
		t.Fatalf("%d tokens after two bootstraps, want 1", len(list))
	}
}

func TestBootstrapFromEnvWritesNoFile(t *testing.T) {
	cases := []struct {
		name, secret string
	}{
		{"issued shape", mustSecret(t)},
		{"custom", "correct-horse-battery-staple-0123456789"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			dir := t.TempDir()
			res, err := f.svc.Bootstrap(dir, c.secret)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Created || !res.FromEnv || res.Path != "" {
				t.Fatalf("result %+v", res)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("wrote %d files", len(entries))
			}
			id, err := f.svc.Authenticate(c.secret)
			if err != nil || id.Role != Admin {
				t.Fatalf("env secret: %+v, %v", id, err)
			}
			if _, err := ParseBearer("Bearer " + c.secret); err != nil {
				t.Fatalf("the HTTP layer would refuse the env secret: %v", err)
			}
		})
	}
}

func TestBootstrapRefusesUnusableEnvSecret(t *testing.T) {
	for _, secret := range []string{
		"short",
		strings.Repeat("a", 31),
		strings.Repeat("a", 20) + " " + strings.Repeat("b", 20),
		"isk_" + strings.Repeat("A", 40), // an issued token cut short
		strings.Repeat("a", 257),
	} {
		f := newFixture(t)
		_, err := f.svc.Bootstrap(t.TempDir(), secret)
		wantCode(t, err, errs.Validation)
		if !strings.Contains(err.Error(), "INSTANTSTART_ADMIN_TOKEN") || strings.Contains(err.Error(), secret) {
			t.Fatalf("message %q should name the variable and not quote it", err)
		}
		if list, _ := f.svc.List(); len(list) != 0 {
			t.Fatal("a token was created")
		}
	}
}

func TestBootstrapReplacesStaleFileButNotALiveOne(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "admin-token")
	// A token of an earlier, wiped store: not valid here, may be replaced.
	stale := mustSecret(t)
	if err := os.WriteFile(path, []byte(stale+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Bootstrap(dir, ""); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.TrimSpace(string(raw)) == stale {
		t.Fatal("stale file was not replaced")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("replaced file has mode %v", info.Mode().Perm())
	}

	// A live viewer token in the file while no admin is active: refused.
	g := newFixture(t)
	live, _ := g.create(t, "viewer", Viewer, nil)
	if err := os.WriteFile(path, []byte(live+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := g.svc.Bootstrap(dir, "")
	wantCode(t, err, errs.Precondition)
	if raw, _ := os.ReadFile(path); strings.TrimSpace(string(raw)) != live {
		t.Fatal("the live token's file was overwritten")
	}
	if list, _ := g.svc.List(); len(list) != 1 {
		t.Fatalf("%d tokens after a refused bootstrap, want 1", len(list))
	}
}

func TestBootstrapRecoversWhenEveryAdminExpired(t *testing.T) {
	f := newFixture(t)
	f.create(t, "admin", Admin, ptr(f.clock.Now().Add(time.Hour)))
	f.clock.Advance(time.Hour)
	res, err := f.svc.Bootstrap(t.TempDir(), "")
	if err != nil || !res.Created {
		t.Fatalf("bootstrap with only an expired admin: %+v, %v", res, err)
	}
	raw, _ := os.ReadFile(res.Path)
	if id, err := f.svc.Authenticate(strings.TrimSpace(string(raw))); err != nil || id.Role != Admin {
		t.Fatalf("recovered admin: %+v, %v", id, err)
	}
}

func mustSecret(t testing.TB) string {
	t.Helper()
	s, err := newSecret(tokenPrefix)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
