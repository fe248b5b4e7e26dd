package auth

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// session is a browser's login, bound to the token that logged in. It is
// stored under the hash of its cookie value, never the value itself.
type session struct {
	ID        string    `json:"id"`
	TokenID   string    `json:"tokenId"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// maxSessionsPerToken bounds the sessions one token keeps; logging in past
// it ends the oldest.
const maxSessionsPerToken = 64

// Login exchanges an API token's secret for a session cookie value. The
// session ends after the session TTL, when the token expires (whichever is
// first), when the token is revoked, at Logout, or when later logins of the
// same token push it out (see maxSessionsPerToken).
func (s *Service) Login(tokenSecret string) (string, *Identity, time.Time, error) {
	t, err := s.authenticate(tokenSecret)
	if err != nil {
		return "", nil, time.Time{}, err
	}
	cookie, err := newSecret(sessionPrefix)
	if err != nil {
		return "", nil, time.Time{}, err
	}
	now := s.now()
	sess := session{ID: s.ids.NewID(), TokenID: t.ID, CreatedAt: now, ExpiresAt: now.Add(s.ttl)}
	if t.ExpiresAt != nil && t.ExpiresAt.Before(sess.ExpiresAt) {
		sess.ExpiresAt = *t.ExpiresAt
	}
	hash := hashSecret(cookie)
	var pruned []session
	err = s.st.Update(func(tx *store.Tx) error {
		// The token may have been revoked since authenticate read it.
		cur, err := getToken(tx, t.ID)
		if err != nil {
			return err
		}
		if err := refuseInactive(cur, now); err != nil {
			return err
		}
		if pruned, err = pruneSessions(tx, t.ID, now); err != nil {
			return err
		}
		if err := putJSON(tx, indexSession, hash, sess); err != nil {
			return err
		}
		return tx.PutIndex(indexTokenSessions, t.ID+"/"+hash, "")
	})
	if err != nil {
		return "", nil, time.Time{}, err
	}
	s.ends.sessionsEnded(pruned, now)
	return cookie, identityOf(t, &sess), sess.ExpiresAt, nil
}

// Session returns the identity of a session cookie value.
func (s *Service) Session(cookieValue string) (*Identity, error) {
	if _, err := ParseCookieValue(cookieValue); err != nil {
		return nil, err
	}
	hash := hashSecret(cookieValue)
	now := s.now()
	var sess session
	var t *Token
	err := s.st.View(func(tx *store.Tx) error {
		if err := getJSON(tx, indexSession, hash, &sess); err != nil {
			return err
		}
		var err error
		t, err = getToken(tx, sess.TokenID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) || errs.CodeOf(err) == errs.NotFound {
		return nil, sessionUnknownError()
	}
	if err != nil {
		return nil, err
	}
	if !now.Before(sess.ExpiresAt) {
		if err := s.Logout(cookieValue); err != nil {
			s.log.Warn("could not remove an expired session", "session_id", sess.ID, "error", err.Error())
		}
		return nil, sessionExpiredError(sess.ExpiresAt)
	}
	if err := refuseInactive(t, now); err != nil {
		return nil, sessionTokenEndedError(err)
	}
	s.touch(t, now)
	return identityOf(t, &sess), nil
}

func sessionUnknownError() error {
	return errs.New(errs.Unauthenticated, "your session has ended or is unknown to this server: log in again with your token")
}

func sessionExpiredError(at time.Time) error {
	return errs.New(errs.Unauthenticated, "your session expired at %s: log in again with your token", at.Format(time.RFC3339))
}

// sessionTokenEndedError refuses a session whose token was revoked or
// expired; tokenErr says which.
func sessionTokenEndedError(tokenErr error) error {
	return errs.New(errs.Unauthenticated, "this session has ended: %s", tokenErr.Error())
}

// Logout ends the session of a cookie value, and every watch of its
// identity. Ending an unknown, ended or malformed session is not an error.
func (s *Service) Logout(cookieValue string) error {
	if !isIssued(cookieValue, sessionPrefix) {
		return nil
	}
	hash := hashSecret(cookieValue)
	var ended []session
	err := s.st.Update(func(tx *store.Tx) error {
		ended = nil
		var sess session
		err := getJSON(tx, indexSession, hash, &sess)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ended = append(ended, sess)
		return deleteSession(tx, sess.TokenID, hash)
	})
	if err != nil {
		return err
	}
	s.ends.sessionsEnded(ended, s.now())
	return nil
}

func deleteSession(tx *store.Tx, tokenID, hash string) error {
	if err := tx.DeleteIndex(indexSession, hash); err != nil {
		return err
	}
	return tx.DeleteIndex(indexTokenSessions, tokenID+"/"+hash)
}

// tokenSessions returns the hashes of a token's sessions.
func tokenSessions(tx *store.Tx, tokenID string) ([]string, error) {
	var hashes []string
	err := tx.ScanIndex(indexTokenSessions, tokenID+"/", func(key, _ string) (bool, error) {
		hashes = append(hashes, strings.TrimPrefix(key, tokenID+"/"))
		return true, nil
	})
	return hashes, err
}

// endSessions ends every session of a token and returns them, so that the
// caller can end their watches once the transaction commits.
func endSessions(tx *store.Tx, tokenID string) ([]session, error) {
	hashes, err := tokenSessions(tx, tokenID)
	if err != nil {
		return nil, err
	}
	var ended []session
	for _, h := range hashes {
		var sess session
		switch err := getJSON(tx, indexSession, h, &sess); {
		case err == nil:
			ended = append(ended, sess)
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
		if err := deleteSession(tx, tokenID, h); err != nil {
			return nil, err
		}
	}
	return ended, nil
}

// pruneSessions ends a token's expired sessions and, past
// maxSessionsPerToken, its oldest ones, leaving room for one more. It
// returns the sessions it ended, so that the caller can end their watches
// once the transaction commits.
func pruneSessions(tx *store.Tx, tokenID string, now time.Time) ([]session, error) {
	hashes, err := tokenSessions(tx, tokenID)
	if err != nil {
		return nil, err
	}
	type live struct {
		sess session
		hash string
	}
	var alive []live
	var ended []session
	for _, h := range hashes {
		var sess session
		err := getJSON(tx, indexSession, h, &sess)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if err == nil && now.Before(sess.ExpiresAt) {
			alive = append(alive, live{sess, h})
			continue
		}
		if err == nil {
			ended = append(ended, sess)
		}
		if err := deleteSession(tx, tokenID, h); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(alive, func(a, b live) int { return strings.Compare(a.sess.ID, b.sess.ID) })
	for len(alive) >= maxSessionsPerToken {
		if err := deleteSession(tx, tokenID, alive[0].hash); err != nil {
			return nil, err
		}
		ended = append(ended, alive[0].sess)
		alive = alive[1:]
	}
	return ended, nil
}
