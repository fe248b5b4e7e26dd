package auth

import (
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

func TestLoginSessionLogout(t *testing.T) {
	f := newFixture(t)
	secret, tok := f.create(t, "browser", Operator, nil)
	cookie, id, expires, err := f.svc.Login(secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCookieValue(cookie); err != nil {
		t.Fatalf("cookie value has the wrong shape: %v", err)
	}
	if id.Via != "cookie" || id.SessionID == "" || id.TokenID != tok.ID || id.Role != Operator {
		t.Fatalf("login identity %+v", id)
	}
	if !expires.Equal(f.clock.Now().Add(12 * time.Hour)) {
		t.Fatalf("expires %v, want 12h from now", expires)
	}
	got, err := f.svc.Session(cookie)
	if err != nil {
		t.Fatal(err)
	}
	if *got != *id {
		t.Fatalf("session identity %+v, want %+v", got, id)
	}
	if err := f.svc.Logout(cookie); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Session(cookie)
	wantCode(t, err, errs.Unauthenticated)
	for _, v := range []string{cookie, "", "garbage"} {
		if err := f.svc.Logout(v); err != nil {
			t.Fatalf("logout of %q is not idempotent: %v", v, err)
		}
	}
}

func TestLoginRefusesBadTokens(t *testing.T) {
	f := newFixture(t)
	_, _, _, err := f.svc.Login("isk_" + strings.Repeat("x", 43))
	wantCode(t, err, errs.Unauthenticated)
	cookie, _, _, _ := f.svc.Login("")
	if cookie != "" {
		t.Fatal("login with no token gave a cookie")
	}
}

func TestSessionEnds(t *testing.T) {
	cases := []struct {
		name    string
		expires time.Duration // token expiry from now; 0 = none
		end     func(t *testing.T, f *fixture, tok *Token)
		says    string
	}{
		{"at its TTL", 0, func(_ *testing.T, f *fixture, _ *Token) { f.clock.Advance(12 * time.Hour) }, "expired"},
		{"when its token expires first", time.Hour, func(_ *testing.T, f *fixture, _ *Token) { f.clock.Advance(time.Hour) }, "expired"},
		{"when its token is revoked", 0, func(t *testing.T, f *fixture, tok *Token) {
			if _, err := f.svc.Revoke(tok.ID); err != nil {
				t.Fatal(err)
			}
		}, "ended"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.create(t, "keeper", Admin, nil)
			var exp *time.Time
			if c.expires > 0 {
				exp = ptr(f.clock.Now().Add(c.expires))
			}
			secret, tok := f.create(t, "user", Viewer, exp)
			cookie, _, _, err := f.svc.Login(secret)
			if err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(time.Minute)
			if _, err := f.svc.Session(cookie); err != nil {
				t.Fatalf("fresh session refused: %v", err)
			}
			c.end(t, f, tok)
			_, err = f.svc.Session(cookie)
			wantCode(t, err, errs.Unauthenticated)
			if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "log in") {
				t.Fatalf("message %q does not say %q and to log in", err, c.says)
			}
		})
	}
}

func TestSessionsPerTokenAreBounded(t *testing.T) {
	f := newFixture(t)
	secret, _ := f.create(t, "spammer", Viewer, nil)
	first, _, _, err := f.svc.Login(secret)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for range maxSessionsPerToken {
		if last, _, _, err = f.svc.Login(secret); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.Session(first); errs.CodeOf(err) != errs.Unauthenticated {
		t.Fatalf("oldest session still valid past the bound: %v", err)
	}
	if _, err := f.svc.Session(last); err != nil {
		t.Fatalf("newest session refused: %v", err)
	}
}

func TestSessionTTLOption(t *testing.T) {
	f := newFixture(t)
	svc := New(f.st, Options{Clock: f.clock.Now, SessionTTL: time.Hour, Logger: f.svc.log})
	secret, _ := f.create(t, "short", Viewer, nil)
	cookie, _, expires, err := svc.Login(secret)
	if err != nil || !expires.Equal(f.clock.Now().Add(time.Hour)) {
		t.Fatalf("expires %v, %v", expires, err)
	}
	f.clock.Advance(time.Hour - time.Second)
	if _, err := svc.Session(cookie); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	_, err = svc.Session(cookie)
	wantCode(t, err, errs.Unauthenticated)
}
