package auth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// AdminTokenFile is the name, inside the data directory, of the file that
// Bootstrap writes a generated admin token to.
const AdminTokenFile = "admin-token"

// BootstrapResult says what Bootstrap did. It never holds the secret.
type BootstrapResult struct {
	// Created is true when an admin token was created.
	Created bool
	// Path is the file holding the new secret; empty when it came from the
	// environment or nothing was created.
	Path string
	// FromEnv is true when the secret was the one supplied by the caller.
	FromEnv bool
}

// Bootstrap makes sure someone can administer the server. When the store
// has no active admin token (always the case on first start), it creates
// one named "admin". Its secret is envSecret when that is not empty;
// otherwise a new one is written to <dataDir>/admin-token with mode 0600.
// When an active admin token exists it does nothing.
func (s *Service) Bootstrap(dataDir, envSecret string) (BootstrapResult, error) {
	if envSecret != "" {
		if problem := tokenShapeProblem(envSecret); problem != "" {
			return BootstrapResult{}, errs.New(errs.Validation, "INSTANTSTART_ADMIN_TOKEN cannot be used: %s; set it to a token this server issued, or to at least %d printable characters without spaces (for example the output of \"openssl rand -base64 32\")", problem, minCustomSecret)
		}
	}
	path := filepath.Join(dataDir, AdminTokenFile)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	var res BootstrapResult
	wroteFile := false
	err := s.st.Update(func(tx *store.Tx) error {
		now := s.now()
		all, err := allTokens(tx)
		if err != nil {
			return err
		}
		for _, t := range all {
			if t.Role == Admin && t.Active(now) {
				if envSecret != "" {
					s.log.Info("INSTANTSTART_ADMIN_TOKEN is ignored: the store already has an active admin token")
				}
				return nil
			}
		}
		secret := envSecret
		if secret == "" {
			if secret, err = newSecret(tokenPrefix); err != nil {
				return err
			}
		} else if t, err := tokenByHash(tx, hashSecret(secret)); err == nil {
			return errs.New(errs.Validation, "INSTANTSTART_ADMIN_TOKEN is already the secret of token %q, which is not an active admin token: set it to a new value", t.Name)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		tok := &Token{ID: s.ids.NewID(), Name: freeAdminName(all, now), Role: Admin, CreatedAt: now, CreatedBy: "bootstrap"}
		if err := insertToken(tx, tok, hashSecret(secret), now); err != nil {
			return err
		}
		res = BootstrapResult{Created: true, FromEnv: envSecret != ""}
		if res.FromEnv {
			return nil
		}
		if err := refuseToOverwrite(tx, path, now); err != nil {
			return err
		}
		if err := writeSecretFile(path, secret); err != nil {
			return err
		}
		wroteFile = true
		res.Path = path
		return nil
	})
	if err != nil {
		if wroteFile {
			// The token never committed: the file would hold a dead secret.
			os.Remove(path)
		}
		return BootstrapResult{}, err
	}
	switch {
	case res.FromEnv:
		s.log.Info("created admin token from INSTANTSTART_ADMIN_TOKEN")
	case res.Created:
		s.log.Info("created admin token; its secret is in the file", "path", res.Path)
	}
	return res, nil
}

// freeAdminName is "admin", or "admin-2", "admin-3"... when an active token
// already has that name (a store whose admin tokens all expired).
func freeAdminName(all []*Token, now time.Time) string {
	taken := map[string]bool{}
	for _, t := range all {
		if t.Active(now) {
			taken[strings.ToLower(t.Name)] = true
		}
	}
	name := "admin"
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("admin-%d", n)
	}
	return name
}

// refuseToOverwrite fails when path holds the secret of an active token:
// replacing it would lose the only copy. A file holding anything else (a
// token of an earlier, wiped store, say) may be replaced.
func refuseToOverwrite(tx *store.Tx, path string, now time.Time) error {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s before replacing it: %w", path, err)
	}
	old := strings.TrimSpace(string(raw))
	if tokenShapeProblem(old) != "" {
		return nil
	}
	t, err := tokenByHash(tx, hashSecret(old))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if t.Active(now) {
		return errs.New(errs.Precondition, "%s holds the secret of active token %q: move the file elsewhere, then start again", path, t.Name)
	}
	return nil
}

// writeSecretFile writes secret to path with mode 0600, creating the
// directory if needed. It writes a temporary file and renames it, so a
// reader never sees a partial secret and the mode never widens.
func writeSecretFile(path, secret string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".admin-token-*")
	if err != nil {
		return fmt.Errorf("write admin token file in %s: %w", dir, err)
	}
	tmp := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.WriteString(secret + "\n")
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write admin token file %s: %w", path, err)
	}
	return nil
}
