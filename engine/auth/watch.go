package auth

import (
	"sync"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// A credential is checked for as long as a connection lives: Check answers
// per request (or per field) without reading the store, and OnEnd tells a
// long-lived connection the moment its credential ends. Both read
// credentialEnds, which Revoke, Logout and session pruning update once
// their transaction commits; expiry is a comparison with the clock.

// credentialEnds is the in-memory view of the credentials that ended before
// they expired (revoked tokens, ended sessions) and of the watches waiting
// for a credential to end.
type credentialEnds struct {
	mu sync.RWMutex
	// revoked maps a revoked token's id to when it was revoked.
	revoked map[string]time.Time
	// ended maps the id of a session that was signed out, pushed out or
	// ended with its token to when it would have expired. Past that time
	// expiry refuses the session anyway, so sweeps drop the entry.
	ended map[string]time.Time
	// sweepAt is the size of ended at which the next sweep runs.
	sweepAt int
	// byToken and bySession index live watches by the token and the
	// session they watch.
	byToken   map[string]map[*watch]struct{}
	bySession map[string]map[*watch]struct{}
}

// minSweep is the least size of credentialEnds.ended that triggers a sweep.
// Sweeps run when the map doubles, so their cost per entry is constant.
const minSweep = 1024

// watch is one OnEnd of an identity.
type watch struct {
	id Identity
	// The fields below are guarded by credentialEnds.mu.
	err         error       // why the credential ended; nil while it holds
	live        bool        // indexed in byToken (and bySession)
	cancelTimer func() bool // cancels the expiry timer; nil without one
	onEnd       func(error) // called once when the credential ends; nil after stop
}

func (e *credentialEnds) init() {
	e.revoked = map[string]time.Time{}
	e.ended = map[string]time.Time{}
	e.sweepAt = minSweep
	e.byToken = map[string]map[*watch]struct{}{}
	e.bySession = map[string]map[*watch]struct{}{}
}

// loadRevoked fills the revoked set from the store.
func (s *Service) loadRevoked() error {
	var all []*Token
	err := s.st.View(func(tx *store.Tx) (err error) {
		all, err = allTokens(tx)
		return err
	})
	if err != nil {
		return err
	}
	s.ends.mu.Lock()
	defer s.ends.mu.Unlock()
	for _, t := range all {
		if t.RevokedAt != nil {
			s.ends.revoked[t.ID] = *t.RevokedAt
		}
	}
	return nil
}

// Check returns nil while id's credential is in force, else the
// UNAUTHENTICATED error that authenticating it again would return: its
// token was revoked or has expired, or its browser session was signed out,
// ended with its token, pushed out by newer sessions, or has expired. It
// reads no store (a map lookup and the clock), so it may run per request
// or per field.
func (s *Service) Check(id *Identity) error {
	now := s.now()
	s.ends.mu.RLock()
	defer s.ends.mu.RUnlock()
	return s.ends.check(id, now)
}

// check is Check with e.mu held (for reading at least).
func (e *credentialEnds) check(id *Identity, now time.Time) error {
	if id == nil {
		return errs.New(errs.Unauthenticated, "no credential: send Authorization: Bearer <token>, or sign in")
	}
	if at, ok := e.revoked[id.TokenID]; ok {
		return throughSession(id, tokenRevokedError(id.Name, at))
	}
	if id.SessionID != "" {
		if at := id.SessionExpiresAt; !at.IsZero() && !now.Before(at) {
			return sessionExpiredError(at)
		}
		if _, ok := e.ended[id.SessionID]; ok {
			return sessionUnknownError()
		}
	}
	if at := id.ExpiresAt; !at.IsZero() && !now.Before(at) {
		return throughSession(id, tokenExpiredError(id.Name, at))
	}
	return nil
}

// throughSession words a token's refusal as Session does for an identity
// that came through a browser session.
func throughSession(id *Identity, tokenErr error) error {
	if id.SessionID == "" {
		return tokenErr
	}
	return sessionTokenEndedError(tokenErr)
}

// OnEnd follows id's credential for a long-lived connection: fn runs once,
// on its own goroutine, with the error Check would return, when the
// credential ends, whatever the cause: its token is revoked or expires, or
// (for a browser session) the session is signed out, ended with its token,
// pushed out by newer sessions, or expires. An identity whose credential
// has already ended gets fn at once. A connection that closes first calls
// stop (once or more); no call of fn starts after stop returns.
//
// A watch costs two map entries and at most one timer (at the identity's
// expiry); nothing runs and no goroutine waits until the credential ends.
func (s *Service) OnEnd(id *Identity, fn func(reason error)) (stop func()) {
	w := s.watch(id, fn)
	return func() { s.stopWatch(w) }
}

func (s *Service) stopWatch(w *watch) {
	s.ends.mu.Lock()
	defer s.ends.mu.Unlock()
	w.onEnd = nil
	s.ends.release(w)
}

// watch registers a watch of id that calls onEnd (if not nil) when the
// credential ends.
func (s *Service) watch(id *Identity, onEnd func(error)) *watch {
	w := &watch{onEnd: onEnd}
	if id != nil {
		w.id = *id
	}
	now := s.now()
	s.ends.mu.Lock()
	defer s.ends.mu.Unlock()
	if err := s.ends.check(id, now); err != nil {
		w.live = true // so that finish ends it like any other
		s.ends.finish(w, err)
		return w
	}
	s.ends.index(w)
	if end := w.id.EndsAt(); !end.IsZero() {
		w.cancelTimer = s.afterFunc(end.Sub(now), func() { s.expire(w) })
	}
	return w
}

// expire ends w at its identity's expiry.
func (s *Service) expire(w *watch) {
	now := s.now()
	s.ends.mu.Lock()
	defer s.ends.mu.Unlock()
	if !w.live {
		return
	}
	err := s.ends.check(&w.id, now)
	if err == nil {
		// The clock is behind the timer (it was set back, say): wait for
		// the rest of the time.
		w.cancelTimer = s.afterFunc(w.id.EndsAt().Sub(now), func() { s.expire(w) })
		return
	}
	s.ends.finish(w, err)
}

// index registers w under its token and session. e.mu is held.
func (e *credentialEnds) index(w *watch) {
	w.live = true
	add(e.byToken, w.id.TokenID, w)
	if w.id.SessionID != "" {
		add(e.bySession, w.id.SessionID, w)
	}
}

func add(m map[string]map[*watch]struct{}, key string, w *watch) {
	set := m[key]
	if set == nil {
		set = map[*watch]struct{}{}
		m[key] = set
	}
	set[w] = struct{}{}
}

func remove(m map[string]map[*watch]struct{}, key string, w *watch) {
	set := m[key]
	delete(set, w)
	if len(set) == 0 {
		delete(m, key)
	}
}

// release unindexes w and cancels its timer. e.mu is held.
func (e *credentialEnds) release(w *watch) {
	if !w.live {
		return
	}
	w.live = false
	remove(e.byToken, w.id.TokenID, w)
	if w.id.SessionID != "" {
		remove(e.bySession, w.id.SessionID, w)
	}
	if w.cancelTimer != nil {
		w.cancelTimer()
		w.cancelTimer = nil
	}
}

// finish ends w with err. e.mu is held.
func (e *credentialEnds) finish(w *watch, err error) {
	if !w.live {
		return
	}
	e.release(w)
	w.err = err
	if fn := w.onEnd; fn != nil {
		w.onEnd = nil
		go fn(err) // not under e.mu: fn may close a connection
	}
}

// tokenRevoked records that t was revoked, with the sessions that ended
// with it, and ends their watches.
func (e *credentialEnds) tokenRevoked(t *Token, sessions []session, now time.Time) {
	if t.RevokedAt == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.revoked[t.ID] = *t.RevokedAt
	for w := range e.byToken[t.ID] {
		e.finish(w, throughSession(&w.id, tokenRevokedError(w.id.Name, *t.RevokedAt)))
	}
	e.endSessions(sessions, now)
}

// sessionsEnded records that sessions were signed out or pushed out, and
// ends their watches.
func (e *credentialEnds) sessionsEnded(sessions []session, now time.Time) {
	if len(sessions) == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.endSessions(sessions, now)
}

// endSessions is sessionsEnded with e.mu held.
func (e *credentialEnds) endSessions(sessions []session, now time.Time) {
	for _, sess := range sessions {
		e.ended[sess.ID] = sess.ExpiresAt
		for w := range e.bySession[sess.ID] {
			e.finish(w, sessionUnknownError())
		}
	}
	if len(e.ended) < e.sweepAt {
		return
	}
	for id, expiry := range e.ended {
		if !now.Before(expiry) {
			delete(e.ended, id)
		}
	}
	e.sweepAt = max(2*len(e.ended), minSweep)
}
