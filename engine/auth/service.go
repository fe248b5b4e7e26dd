// Package auth decides who is calling: API tokens with roles, browser
// sessions bound to a token, the audit log of mutations, and the redaction
// of secrets from what is logged or audited. It is the one auth check that
// GraphQL, the web UI and MCP share.
//
// Everything here is kept in store indexes, which append no events: the
// public event log never carries a token record, a session, an audit record
// or a hash of a secret.
package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/instantstart/instantstart/engine/store"
)

// The store indexes this package keeps. Values are JSON records or ids.
const (
	indexToken         = "auth-token"            // token id -> Token
	indexTokenHash     = "auth-token-hash"       // sha256 of secret -> token id
	indexSession       = "auth-session"          // sha256 of cookie value -> session
	indexTokenSessions = "auth-session-by-token" // token id/sha256 of cookie value -> ""
	indexAudit         = "auth-audit"            // inverted audit id -> AuditRecord
)

// Options tune New. The zero value works.
type Options struct {
	// Clock tells the time; nil means time.Now.
	Clock func() time.Time
	// SessionTTL is how long a browser session lasts; 0 means 12 hours.
	SessionTTL time.Duration
	// Logger receives notices (never secrets); nil means slog.Default().
	Logger *slog.Logger
	// AfterFunc calls f once d has passed, like time.AfterFunc, and returns
	// a function that cancels the call (reporting whether it did). OnEnd uses
	// it to end an identity when its credential expires; nil means
	// time.AfterFunc. Tests pass one driven by the same fake time as Clock.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

// Service issues and checks tokens and sessions and keeps the audit log.
// It is safe for concurrent use. Revocations and sign-outs reach the
// identities and watches of the Service that made them, so a store has one
// Service.
type Service struct {
	st        *store.Store
	clock     func() time.Time
	afterFunc func(time.Duration, func()) func() bool
	ttl       time.Duration
	log       *slog.Logger
	ids       store.IDs
	ends      credentialEnds
}

// New returns a service over st. It reads the revoked tokens of st, so that
// Check refuses them without reading the store.
func New(st *store.Store, opts Options) *Service {
	s := &Service{st: st, clock: opts.Clock, afterFunc: opts.AfterFunc, ttl: opts.SessionTTL, log: opts.Logger}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.afterFunc == nil {
		s.afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if s.ttl <= 0 {
		s.ttl = 12 * time.Hour
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.ends.init()
	if err := s.loadRevoked(); err != nil {
		// Authenticate and Session read the store and still refuse these
		// tokens; only Check of an identity made elsewhere (by another
		// Service over st, say) misses them. Logged, not fatal.
		s.log.Error("could not read revoked tokens", "error", err.Error())
	}
	return s
}

func (s *Service) now() time.Time { return s.clock().UTC() }

func getJSON(tx *store.Tx, index, key string, v any) error {
	raw, err := tx.GetIndex(index, key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("decode %s %s: %w", index, key, err)
	}
	return nil
}

func putJSON(tx *store.Tx, index, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %s: %w", index, key, err)
	}
	return tx.PutIndex(index, key, string(raw))
}

// tokenByHash returns the token whose secret hashes to hash, or
// store.ErrNotFound.
func tokenByHash(tx *store.Tx, hash string) (*Token, error) {
	id, err := tx.GetIndex(indexTokenHash, hash)
	if err != nil {
		return nil, err
	}
	var t Token
	if err := getJSON(tx, indexToken, id, &t); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("token %s is indexed by its hash but missing", id)
		}
		return nil, err
	}
	return &t, nil
}

// allTokens returns every token, revoked and expired ones included, in
// creation order.
func allTokens(tx *store.Tx) ([]*Token, error) {
	var out []*Token
	err := tx.ScanIndex(indexToken, "", func(id, raw string) (bool, error) {
		var t Token
		if err := json.Unmarshal([]byte(raw), &t); err != nil {
			return false, fmt.Errorf("decode token %s: %w", id, err)
		}
		out = append(out, &t)
		return true, nil
	})
	return out, err
}
