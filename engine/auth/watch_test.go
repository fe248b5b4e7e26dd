package auth

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// fakeTimers is an AfterFunc driven by the test's clock: callbacks run,
// synchronously, when Advance moves the clock past their time.
type fakeTimers struct {
	clock   *clock
	mu      sync.Mutex
	next    int
	pending map[int]fakeTimer
}

type fakeTimer struct {
	at time.Time
	f  func()
}

func (ft *fakeTimers) AfterFunc(d time.Duration, f func()) func() bool {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	id := ft.next
	ft.next++
	ft.pending[id] = fakeTimer{ft.clock.Now().Add(d), f}
	return func() bool {
		ft.mu.Lock()
		defer ft.mu.Unlock()
		_, ok := ft.pending[id]
		delete(ft.pending, id)
		return ok
	}
}

// Advance moves the clock by d and runs the callbacks that came due, in
// time order.
func (ft *fakeTimers) Advance(d time.Duration) {
	ft.clock.Advance(d)
	ft.fire(ft.clock.Now())
}

// fire runs the callbacks due at or before t, whatever the clock says.
func (ft *fakeTimers) fire(t time.Time) {
	ft.mu.Lock()
	var due []fakeTimer
	for id, p := range ft.pending {
		if !p.at.After(t) {
			due = append(due, p)
			delete(ft.pending, id)
		}
	}
	ft.mu.Unlock()
	slices.SortFunc(due, func(a, b fakeTimer) int { return a.at.Compare(b.at) })
	for _, p := range due {
		p.f()
	}
}

func (ft *fakeTimers) Len() int {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return len(ft.pending)
}

// newWatchFixture is newFixture with a service whose timers follow the
// fixture's clock.
func newWatchFixture(t testing.TB) (*fixture, *fakeTimers) {
	t.Helper()
	f := newFixture(t)
	timers := &fakeTimers{clock: f.clock, pending: map[int]fakeTimer{}}
	f.svc = New(f.st, Options{Clock: f.clock.Now, AfterFunc: timers.AfterFunc, Logger: f.svc.log})
	return f, timers
}

// watched is a watch as the tests look at it: whether it ended and why,
// read from the service's own record of it at the moment of asking.
type watched struct {
	id     *Identity
	reason func() error
	stop   func()
}

func (w watched) ended() bool { return w.reason() != nil }

func (f *fixture) watch(id *Identity) watched {
	w := f.svc.watch(id, nil)
	reason := func() error {
		f.svc.ends.mu.RLock()
		defer f.svc.ends.mu.RUnlock()
		return w.err
	}
	return watched{id, reason, func() { f.svc.stopWatch(w) }}
}

func (f *fixture) login(t testing.TB, secret string) (string, *Identity) {
	t.Helper()
	cookie, id, _, err := f.svc.Login(secret)
	if err != nil {
		t.Fatal(err)
	}
	return cookie, id
}

func (f *fixture) authenticate(t testing.TB, secret string) *Identity {
	t.Helper()
	id, err := f.svc.Authenticate(secret)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// wantLive fails unless w's credential is still in force, for OnEnd and
// Check alike.
func (f *fixture) wantLive(t testing.TB, name string, w watched) {
	t.Helper()
	if w.ended() || w.reason() != nil {
		t.Fatalf("%s: watch ended (%v), want it live", name, w.reason())
	}
	if err := f.svc.Check(w.id); err != nil {
		t.Fatalf("%s: Check refused a live credential: %v", name, err)
	}
}

// wantEnded fails unless w ended with an UNAUTHENTICATED reason that says
// says, and Check gives the same error.
func (f *fixture) wantEnded(t testing.TB, name string, w watched, says string) {
	t.Helper()
	if !w.ended() {
		t.Fatalf("%s: watch still open, want it ended", name)
	}
	err := w.reason()
	wantCode(t, err, errs.Unauthenticated)
	if !strings.Contains(err.Error(), says) {
		t.Fatalf("%s: reason %q does not say %q", name, err, says)
	}
	if cerr := f.svc.Check(w.id); cerr == nil || cerr.Error() != err.Error() {
		t.Fatalf("%s: Check says %v, the watch says %v", name, cerr, err)
	}
}

// wantReleased fails unless no watch is indexed and no timer is pending.
func (f *fixture) wantReleased(t testing.TB, timers *fakeTimers) {
	t.Helper()
	e := &f.svc.ends
	e.mu.RLock()
	defer e.mu.RUnlock()
	if len(e.byToken) != 0 || len(e.bySession) != 0 || timers.Len() != 0 {
		t.Fatalf("watches still held: %d tokens, %d sessions, %d timers", len(e.byToken), len(e.bySession), timers.Len())
	}
}

func TestRevokeEndsTheTokensWatchesOnly(t *testing.T) {
	f, timers := newWatchFixture(t)
	secretA, tokA := f.create(t, "a", Operator, nil)
	secretB, _ := f.create(t, "b", Viewer, nil)
	_, cookieA := f.login(t, secretA)
	_, cookieB := f.login(t, secretB)
	bearerA, bearerB := f.watch(f.authenticate(t, secretA)), f.watch(f.authenticate(t, secretB))
	sessionA, sessionB := f.watch(cookieA), f.watch(cookieB)
	for name, w := range map[string]watched{"bearer a": bearerA, "cookie a": sessionA, "bearer b": bearerB, "cookie b": sessionB} {
		f.wantLive(t, name, w)
	}

	if _, err := f.svc.Revoke(tokA.ID); err != nil {
		t.Fatal(err)
	}
	f.wantEnded(t, "bearer a", bearerA, `token "a" was revoked at`)
	f.wantEnded(t, "cookie a", sessionA, `this session has ended: token "a" was revoked at`)
	f.wantLive(t, "bearer b", bearerB)
	f.wantLive(t, "cookie b", sessionB)

	// The revoked token's secret is refused the same way.
	_, err := f.svc.Authenticate(secretA)
	if err == nil || err.Error() != bearerA.reason().Error() {
		t.Fatalf("authenticate says %v, watch says %v", err, bearerA.reason())
	}

	bearerA.stop() // after the end: does nothing
	bearerB.stop()
	sessionB.stop()
	f.wantReleased(t, timers)
}

func TestLogoutEndsThatSessionsWatchesOnly(t *testing.T) {
	f, timers := newWatchFixture(t)
	secret, _ := f.create(t, "browser", Operator, nil)
	cookie1, id1 := f.login(t, secret)
	_, id2 := f.login(t, secret)
	first, second, bearer := f.watch(id1), f.watch(id2), f.watch(f.authenticate(t, secret))

	if err := f.svc.Logout(cookie1); err != nil {
		t.Fatal(err)
	}
	f.wantEnded(t, "signed-out session", first, "your session has ended")
	f.wantLive(t, "other session", second)
	f.wantLive(t, "bearer", bearer)
	_, err := f.svc.Session(cookie1)
	if err == nil || err.Error() != first.reason().Error() {
		t.Fatalf("session says %v, watch says %v", err, first.reason())
	}

	second.stop()
	bearer.stop()
	f.wantReleased(t, timers)
}

func TestSessionsPushedOutEndTheirWatches(t *testing.T) {
	f, timers := newWatchFixture(t)
	secret, _ := f.create(t, "spammer", Viewer, nil)
	_, oldest := f.login(t, secret)
	first := f.watch(oldest)
	var newest *Identity
	for range maxSessionsPerToken {
		_, newest = f.login(t, secret)
	}
	last := f.watch(newest)
	f.wantEnded(t, "pushed-out session", first, "your session has ended")
	f.wantLive(t, "newest session", last)
	last.stop()
	f.wantReleased(t, timers)
}

func TestExpiryEndsWatches(t *testing.T) {
	cases := []struct {
		name    string
		expires time.Duration // token expiry from now; 0 = none
		cookie  bool
		lasts   time.Duration
		says    string
	}{
		{"token", time.Hour, false, time.Hour, `token "user" expired at`},
		{"session at its TTL", 0, true, 12 * time.Hour, "your session expired at"},
		{"session when its token expires first", time.Hour, true, time.Hour, "your session expired at"},
		{"session of a token that expires later", 24 * time.Hour, true, 12 * time.Hour, "your session expired at"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, timers := newWatchFixture(t)
			var exp *time.Time
			if c.expires > 0 {
				exp = ptr(f.clock.Now().Add(c.expires))
			}
			secret, _ := f.create(t, "user", Viewer, exp)
			var id *Identity
			cookie := ""
			if c.cookie {
				cookie, id = f.login(t, secret)
			} else {
				id = f.authenticate(t, secret)
			}
			if end := id.EndsAt(); !end.Equal(f.clock.Now().Add(c.lasts)) {
				t.Fatalf("identity ends at %v, want %v from now", end, c.lasts)
			}
			w := f.watch(id)
			timers.Advance(c.lasts - time.Second)
			f.wantLive(t, "a second before", w)
			timers.Advance(time.Second)
			f.wantEnded(t, "at expiry", w, c.says)

			// Authenticating again is refused the same way.
			var err error
			if c.cookie {
				_, err = f.svc.Session(cookie)
			} else {
				_, err = f.svc.Authenticate(secret)
			}
			if err == nil || err.Error() != w.reason().Error() {
				t.Fatalf("authentication says %v, watch says %v", err, w.reason())
			}
			f.wantReleased(t, timers)
		})
	}
}

func TestTimerAheadOfTheClockWaitsForTheRest(t *testing.T) {
	f, timers := newWatchFixture(t)
	secret, _ := f.create(t, "user", Viewer, ptr(f.clock.Now().Add(time.Hour)))
	w := f.watch(f.authenticate(t, secret))
	timers.fire(f.clock.Now().Add(time.Hour)) // the timer fires, the clock still says an hour to go
	f.wantLive(t, "early timer", w)
	if timers.Len() != 1 {
		t.Fatalf("%d timers pending, want the watch to wait again", timers.Len())
	}
	timers.Advance(time.Hour)
	f.wantEnded(t, "at expiry", w, "expired at")
	f.wantReleased(t, timers)
}

func TestWatchOfAnEndedCredentialEndsAtOnce(t *testing.T) {
	f, timers := newWatchFixture(t)
	f.create(t, "keeper", Admin, nil)
	secret, tok := f.create(t, "user", Viewer, ptr(f.clock.Now().Add(time.Hour)))
	_, session := f.login(t, secret)
	bearer := f.authenticate(t, secret)

	timers.Advance(time.Hour)
	f.wantEnded(t, "expired bearer", f.watch(bearer), "expired at")
	f.wantEnded(t, "expired session", f.watch(session), "your session expired at")

	if _, err := f.svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	f.wantEnded(t, "revoked bearer", f.watch(bearer), "was revoked at")

	w := f.watch(nil)
	if !w.ended() || errs.CodeOf(w.reason()) != errs.Unauthenticated {
		t.Fatalf("watch of no identity: ended %v, reason %v", w.ended(), w.reason())
	}
	f.wantReleased(t, timers)
}

func TestStopReleasesWatches(t *testing.T) {
	f, timers := newWatchFixture(t)
	secret, _ := f.create(t, "busy", Operator, ptr(f.clock.Now().Add(24*time.Hour)))
	var ws []watched
	for i := range 100 {
		id := f.authenticate(t, secret)
		if i%2 == 1 {
			_, id = f.login(t, secret)
		}
		ws = append(ws, f.watch(id))
	}
	if timers.Len() != len(ws) {
		t.Fatalf("%d timers for %d watches", timers.Len(), len(ws))
	}
	for _, w := range ws {
		w.stop()
		w.stop()
		if w.ended() || w.reason() != nil {
			t.Fatalf("stop ended the watch: %v", w.reason())
		}
	}
	f.wantReleased(t, timers)
}

func TestNewKnowsTokensRevokedBefore(t *testing.T) {
	f, _ := newWatchFixture(t)
	secret, tok := f.create(t, "gone", Viewer, nil)
	id := f.authenticate(t, secret)
	if _, err := f.svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	again := New(f.st, Options{Clock: f.clock.Now, Logger: f.svc.log})
	err := again.Check(id)
	wantCode(t, err, errs.Unauthenticated)
	if !strings.Contains(err.Error(), "was revoked at") {
		t.Fatalf("check says %q, want that the token was revoked", err)
	}
}

func TestEndedSessionsAreSweptOnceExpired(t *testing.T) {
	f, _ := newWatchFixture(t)
	e := &f.svc.ends
	for i := range minSweep - 1 {
		e.sessionsEnded([]session{{ID: fmt.Sprint("old", i), ExpiresAt: f.clock.Now().Add(time.Hour)}}, f.clock.Now())
	}
	f.clock.Advance(time.Hour)
	e.sessionsEnded([]session{{ID: "new", ExpiresAt: f.clock.Now().Add(time.Hour)}}, f.clock.Now())
	if len(e.ended) != 1 {
		t.Fatalf("%d ended sessions kept, want only the unexpired one", len(e.ended))
	}
	if err := f.svc.Check(&Identity{TokenID: "t", SessionID: "old1", SessionExpiresAt: f.clock.Now()}); err == nil {
		t.Fatal("a swept session passes Check")
	}
}

func TestWatchRacesWithRevoke(t *testing.T) {
	f, timers := newWatchFixture(t)
	secret, tok := f.create(t, "racer", Operator, nil)
	id := f.authenticate(t, secret)
	const n = 50
	ws := make([]watched, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[i] = f.watch(id)
			f.svc.Check(id)
		}()
	}
	if _, err := f.svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, w := range ws {
		f.wantEnded(t, fmt.Sprint("watch ", i), w, "was revoked at")
	}
	f.wantReleased(t, timers)
}

// BenchmarkWatch opens and releases watches with 10,000 others open, as a
// server with 10,000 WebSocket connections does.
func BenchmarkWatch(b *testing.B) {
	f := newFixture(b)
	secret, _ := f.create(b, "many", Viewer, ptr(f.clock.Now().Add(time.Hour)))
	id := f.authenticate(b, secret)
	for range 10_000 {
		defer f.svc.OnEnd(id, func(error) {})()
	}
	b.ResetTimer()
	for range b.N {
		f.svc.OnEnd(id, func(error) {})()
	}
}

// BenchmarkCheck is the per-field cost of checking a credential.
func BenchmarkCheck(b *testing.B) {
	f := newFixture(b)
	secret, _ := f.create(b, "hot", Viewer, nil)
	_, id := f.login(b, secret)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := f.svc.Check(id); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// OnEnd calls its function once, with the reason, when the credential ends;
// a stopped watch is never called.
func TestOnEndCallsOnceWithTheReason(t *testing.T) {
	f, _ := newWatchFixture(t)
	secret, tok := f.create(t, "deployer", Operator, nil)
	id := f.authenticate(t, secret)
	reasons := make(chan error, 2)
	defer f.svc.OnEnd(id, func(err error) { reasons <- err })()
	stopped := f.svc.OnEnd(id, func(err error) { t.Errorf("a stopped watch was called with %v", err) })
	stopped()
	if _, err := f.svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-reasons:
		if errs.CodeOf(err) != errs.Unauthenticated || !strings.Contains(err.Error(), `token "deployer" was revoked at`) {
			t.Fatalf("OnEnd reason = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnEnd was not called after the token was revoked")
	}
	if _, err := f.svc.Revoke(tok.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-reasons:
		t.Fatalf("OnEnd called a second time with %v", err)
	default:
	}
}
