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
// first), when the token is revoked, or at Logout.
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
	err = s.st.Update(func(tx *store.Tx) error {
		// The token may have been revoked since authenticate read it.
		cur, err := getToken(tx, t.ID)
		if err != nil {
			return err
		}
		if err := refuseInactive(cur, now); err != nil {
			return err
		}
		if err := pruneSessions(tx, t.ID, now); err != nil {
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
	id := &Identity{TokenID: t.ID, Name: t.Name, Role: t.Role, Via: "cookie", SessionID: sess.ID}
	return cookie, id, sess.ExpiresAt, nil
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
		return nil, errs.New(errs.Unauthenticated, "your session has ended or is unknown to this server: log in again with your token")
	}
	if err != nil {
		return nil, err
	}
	if !now.Before(sess.ExpiresAt) {
		if err := s.Logout(cookieValue); err != nil {
			s.log.Warn("could not remove an expired session", "session_id", sess.ID, "error", err.Error())
		}
		return nil, errs.New(errs.Unauthenticated, "your session expired at %s: log in again with your token", sess.ExpiresAt.Format(time.RFC3339))
	}
	if err := refuseInactive(t, now); err != nil {
		return nil, errs.New(errs.Unauthenticated, "this session has ended: %s", err.Error())
	}
	s.touch(t, now)
	return &Identity{TokenID: t.ID, Name: t.Name, Role: t.Role, Via: "cookie", SessionID: sess.ID}, nil
}

// Logout ends the session of a cookie value. Ending an unknown, ended or
// malformed session is not an error.
func (s *Service) Logout(cookieValue string) error {
	if !isIssued(cookieValue, sessionPrefix) {
		return nil
	}
	hash := hashSecret(cookieValue)
	return s.st.Update(func(tx *store.Tx) error {
		var sess session
		err := getJSON(tx, indexSession, hash, &sess)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return deleteSession(tx, sess.TokenID, hash)
	})
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

// endSessions ends every session of a token.
func endSessions(tx *store.Tx, tokenID string) error {
	hashes, err := tokenSessions(tx, tokenID)
	if err != nil {
		return err
	}
	for _, h := range hashes {
		if err := deleteSession(tx, tokenID, h); err != nil {
			return err
		}
	}
	return nil
}

// pruneSessions ends a token's expired sessions and, past
// maxSessionsPerToken, its oldest ones, leaving room for one more.
func pruneSessions(tx *store.Tx, tokenID string, now time.Time) error {
	hashes, err := tokenSessions(tx, tokenID)
	if err != nil {
		return err
	}
	type live struct {
		id, hash string
	}
	var alive []live
	for _, h := range hashes {
		var sess session
		err := getJSON(tx, indexSession, h, &sess)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err == nil && now.Before(sess.ExpiresAt) {
			alive = append(alive, live{sess.ID, h})
			continue
		}
		if err := deleteSession(tx, tokenID, h); err != nil {
			return err
		}
	}
	slices.SortFunc(alive, func(a, b live) int { return strings.Compare(a.id, b.id) })
	for len(alive) >= maxSessionsPerToken {
		if err := deleteSession(tx, tokenID, alive[0].hash); err != nil {
			return err
		}
		alive = alive[1:]
	}
	return nil
}
