package auth

import (
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// clock is a settable time source for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	svc   *Service
	st    *store.Store
	clock *clock
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	st, err := store.Open("", store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	svc := New(st, Options{Clock: c.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &fixture{svc: svc, st: st, clock: c}
}

var admin = Identity{TokenID: "test", Name: "tester", Role: Admin, Via: "bearer"}

// create issues a token or fails the test.
func (f *fixture) create(t testing.TB, name string, role Role, expiresAt *time.Time) (string, *Token) {
	t.Helper()
	secret, tok, err := f.svc.Create(admin, name, role, expiresAt)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return secret, tok
}

func wantCode(t testing.TB, err error, code errs.Code) {
	t.Helper()
	if got := errs.CodeOf(err); err == nil || got != code {
		t.Fatalf("got error %v (code %s), want %s", err, got, code)
	}
}

func ptr[T any](v T) *T { return &v }
