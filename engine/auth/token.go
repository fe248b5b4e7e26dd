package auth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// Token is an API credential as clients may see it. It never holds the
// secret or its hash: the secret is shown once, by Create or Bootstrap.
type Token struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Role       Role       `json:"role"`
	CreatedAt  time.Time  `json:"createdAt"`
	CreatedBy  string     `json:"createdBy"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
}

// Active reports whether the token is neither revoked nor expired at now.
func (t *Token) Active(now time.Time) bool {
	return t.RevokedAt == nil && (t.ExpiresAt == nil || now.Before(*t.ExpiresAt))
}

// Identity is who is calling: the token behind the request and how it came.
// It is a snapshot taken when the credential was checked: Service.Check and
// Service.OnEnd say whether the credential has ended since.
type Identity struct {
	TokenID string
	Name    string
	Role    Role
	// Via is "bearer" for an Authorization header, "cookie" for a session.
	Via string
	// SessionID identifies the browser session when Via is "cookie".
	SessionID string
	// ExpiresAt is when the token expires; zero for a token that does not.
	ExpiresAt time.Time
	// SessionExpiresAt is when the browser session expires; zero when Via
	// is not "cookie".
	SessionExpiresAt time.Time
}

// EndsAt returns when the identity's credential expires: the earlier of the
// token's and the session's expiry, or zero when neither expires. Revocation
// and sign-out can end it sooner.
func (id *Identity) EndsAt() time.Time {
	end := id.ExpiresAt
	if s := id.SessionExpiresAt; !s.IsZero() && (end.IsZero() || s.Before(end)) {
		end = s
	}
	return end
}

// identityOf returns the identity of token t, used directly (sess nil) or
// through browser session sess.
func identityOf(t *Token, sess *session) *Identity {
	id := &Identity{TokenID: t.ID, Name: t.Name, Role: t.Role, Via: "bearer"}
	if t.ExpiresAt != nil {
		id.ExpiresAt = *t.ExpiresAt
	}
	if sess != nil {
		id.Via, id.SessionID, id.SessionExpiresAt = "cookie", sess.ID, sess.ExpiresAt
	}
	return id
}

// lastUsedEvery bounds how often authentication writes LastUsedAt, so a busy
// client does not cost a write per request.
const lastUsedEvery = time.Minute

// Create issues a token and returns its secret, which is not kept and cannot
// be shown again.
func (s *Service) Create(by Identity, name string, role Role, expiresAt *time.Time) (string, *Token, error) {
	if err := validateName(name); err != nil {
		return "", nil, err
	}
	if role.rank() == 0 {
		return "", nil, errs.Field("role", "role %q is not one of VIEWER, OPERATOR, ADMIN", role)
	}
	now := s.now()
	if expiresAt != nil && !expiresAt.After(now) {
		return "", nil, errs.Field("expiresAt", "expiresAt %s is not in the future: pass a later time, or none for a token that does not expire", expiresAt.UTC().Format(time.RFC3339))
	}
	secret, err := newSecret(tokenPrefix)
	if err != nil {
		return "", nil, err
	}
	tok := &Token{ID: s.ids.NewID(), Name: name, Role: role, CreatedAt: now, CreatedBy: by.Name}
	if expiresAt != nil {
		e := expiresAt.UTC()
		tok.ExpiresAt = &e
	}
	if err := s.st.Update(func(tx *store.Tx) error { return insertToken(tx, tok, hashSecret(secret), now) }); err != nil {
		return "", nil, err
	}
	s.log.Info("token created", "token_id", tok.ID, "token_name", tok.Name, "role", tok.Role, "created_by", by.Name)
	return secret, tok, nil
}

func validateName(name string) *errs.Error {
	if name == "" || len(name) > 64 {
		return errs.Field("name", "a token name has 1 to 64 characters; %q has %d", name, len(name))
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" ._-", c)) {
			return errs.Field("name", "token name %q may hold only letters, digits, spaces, '.', '_' and '-'", name)
		}
	}
	if isIssued(name, tokenPrefix) || isIssued(name, sessionPrefix) {
		return errs.Field("name", "that token name looks like a secret: name the token after who or what holds it")
	}
	if strings.TrimSpace(name) != name {
		return errs.Field("name", "token name %q must not start or end with a space", name)
	}
	return nil
}

// insertToken stores tok under its secret's hash. Names are unique among
// active tokens, ignoring case, so that the audit log is unambiguous.
func insertToken(tx *store.Tx, tok *Token, hash string, now time.Time) error {
	all, err := allTokens(tx)
	if err != nil {
		return err
	}
	for _, t := range all {
		if t.Active(now) && strings.EqualFold(t.Name, tok.Name) {
			return errs.Field("name", "an active token is already named %q: choose another name, or revoke that token first", t.Name)
		}
	}
	if _, err := tx.GetIndex(indexTokenHash, hash); err == nil {
		return errs.New(errs.Conflict, "that secret already belongs to a token: choose another secret")
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err := putJSON(tx, indexToken, tok.ID, tok); err != nil {
		return err
	}
	return tx.PutIndex(indexTokenHash, hash, tok.ID)
}

func getToken(tx *store.Tx, id string) (*Token, error) {
	var t Token
	if err := getJSON(tx, indexToken, id, &t); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errs.New(errs.NotFound, "token %q does not exist; list tokens to find its id", id)
		}
		return nil, err
	}
	return &t, nil
}

// Get returns the token with id.
func (s *Service) Get(id string) (*Token, error) {
	var t *Token
	err := s.st.View(func(tx *store.Tx) (err error) {
		t, err = getToken(tx, id)
		return err
	})
	return t, err
}

// List returns every token, newest first, revoked and expired ones included.
func (s *Service) List() ([]*Token, error) {
	var out []*Token
	err := s.st.View(func(tx *store.Tx) (err error) {
		out, err = allTokens(tx)
		return err
	})
	slices.Reverse(out) // ids are ULIDs: reversed id order is newest first
	return out, err
}

// Revoke ends a token and its browser sessions, and with them every watch
// of their identities. Revoking a revoked token returns it unchanged. The
// last active admin token cannot be revoked, so that someone can always
// manage tokens.
func (s *Service) Revoke(id string) (*Token, error) {
	var t *Token
	var ended []session
	err := s.st.Update(func(tx *store.Tx) error {
		var err error
		ended = nil
		if t, err = getToken(tx, id); err != nil || t.RevokedAt != nil {
			return err
		}
		now := s.now()
		if t.Role == Admin && t.Active(now) {
			all, err := allTokens(tx)
			if err != nil {
				return err
			}
			others := 0
			for _, o := range all {
				if o.ID != t.ID && o.Role == Admin && o.Active(now) {
					others++
				}
			}
			if others == 0 {
				return errs.New(errs.Precondition, "token %q is the last active admin token: create another admin token first, then revoke this one", t.Name)
			}
		}
		t.RevokedAt = &now
		if err := putJSON(tx, indexToken, t.ID, t); err != nil {
			return err
		}
		ended, err = endSessions(tx, t.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.ends.tokenRevoked(t, ended, s.now())
	s.log.Info("token revoked", "token_id", t.ID, "token_name", t.Name)
	return t, nil
}

// Authenticate returns the identity of an API token's secret.
func (s *Service) Authenticate(secret string) (*Identity, error) {
	t, err := s.authenticate(secret)
	if err != nil {
		return nil, err
	}
	return identityOf(t, nil), nil
}

// authenticate returns the active token of secret and records its use.
func (s *Service) authenticate(secret string) (*Token, error) {
	if problem := tokenShapeProblem(secret); problem != "" {
		return nil, errs.New(errs.Unauthenticated, "%s: send the token whole, or ask an admin for a new one", problem)
	}
	now := s.now()
	var t *Token
	err := s.st.View(func(tx *store.Tx) (err error) {
		t, err = tokenByHash(tx, hashSecret(secret))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.New(errs.Unauthenticated, "this token is not known to this server: check that you copied it whole, or ask an admin for a new one")
	}
	if err != nil {
		return nil, err
	}
	if err := refuseInactive(t, now); err != nil {
		return nil, err
	}
	s.touch(t, now)
	return t, nil
}

func refuseInactive(t *Token, now time.Time) error {
	switch {
	case t.RevokedAt != nil:
		return tokenRevokedError(t.Name, *t.RevokedAt)
	case !t.Active(now):
		return tokenExpiredError(t.Name, *t.ExpiresAt)
	}
	return nil
}

func tokenRevokedError(name string, at time.Time) error {
	return errs.New(errs.Unauthenticated, "token %q was revoked at %s: ask an admin for a new token", name, at.Format(time.RFC3339))
}

func tokenExpiredError(name string, at time.Time) error {
	return errs.New(errs.Unauthenticated, "token %q expired at %s: ask an admin for a new token", name, at.Format(time.RFC3339))
}

// touch records that t was used at now, at most once per lastUsedEvery. A
// failed write is logged, not returned: it must not turn a valid credential
// away.
func (s *Service) touch(t *Token, now time.Time) {
	fresh := func(t *Token) bool { return t.LastUsedAt != nil && now.Sub(*t.LastUsedAt) < lastUsedEvery }
	if fresh(t) {
		return
	}
	err := s.st.Update(func(tx *store.Tx) error {
		cur, err := getToken(tx, t.ID)
		if err != nil || fresh(cur) || cur.RevokedAt != nil {
			return err
		}
		cur.LastUsedAt = &now
		return putJSON(tx, indexToken, cur.ID, cur)
	})
	if err != nil {
		s.log.Warn("could not record token use", "token_id", t.ID, "error", fmt.Sprint(err))
	}
}
