package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// URLFile is the file, inside the data directory, in which a running server
// writes its base URL, so that a command on the same host (instantstart
// backup) finds the server that holds the directory. A clean shutdown
// removes it.
const URLFile = "server-url"

// BackupContentType is the media type of a backup stream.
const BackupContentType = "application/vnd.instantstart.backup"

// backup streams a backup of the store (GET /admin/backup, admin only): one
// snapshot of it, then the simulator's world. Once bytes are sent, a
// failure aborts the response, so that the client sees a broken stream,
// which its end marker would also reveal, never a clean end. The token is
// held to for as long as the stream lasts: revoked or expired midway, it
// ends the stream as a failure.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) {
	started := time.Now()
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	defer s.watchCredential(ctx, cancel)()
	out := &countingWriter{w: w}
	h := w.Header()
	h.Set("Content-Type", BackupContentType)
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="instantstart-%s.backup"`, started.UTC().Format("20060102T150405Z")))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	hdr, err := s.app.Store.Backup(ctx, out, store.BackupOptions{BinaryVersion: s.cfg.Version, Files: app.BackupFiles()})
	who := "?"
	if id := auth.IdentityOf(r.Context()); id != nil {
		who = id.Name
	}
	cause := context.Cause(ctx)
	switch {
	case err == nil:
	case errors.Is(cause, context.Canceled):
		s.log.Info("backup ended by the client", "by", who, "sent", out.n)
		return
	case out.n > 0:
		if cause != nil {
			err = cause // the credential ended
		}
		s.log.Error("backup failed", "by", who, "sent", out.n, "err", err)
		panic(http.ErrAbortHandler)
	case cause != nil:
		// The credential ended before a byte was sent: refuse it as any
		// request with that credential is refused.
		h.Del("Content-Disposition")
		writeGraphQLError(w, cause)
		return
	default:
		s.log.Error("backup failed", "by", who, "sent", out.n, "err", err)
		h.Del("Content-Disposition")
		writeGraphQLError(w, errs.New(errs.Internal, "the backup failed before it began (%v); try again", err))
		return
	}
	s.log.Info("backup streamed", "by", who, "bytes", out.n, "schemaVersion", hdr.SchemaVersion, "duration", time.Since(started))
}

type countingWriter struct {
	w http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// publishURL writes the server's base URL into the data directory
// (URLFile), replacing the file at once so that a reader never sees half a
// URL. An unspecified listen address is written as loopback.
func (s *Server) publishURL() error {
	host, port, err := net.SplitHostPort(s.Addr())
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	scheme, _, _ := strings.Cut(s.URL(), "://")
	dir := s.app.Config.DataDir
	tmp, err := os.CreateTemp(dir, "."+URLFile+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = fmt.Fprintf(tmp, "%s://%s\n", scheme, net.JoinHostPort(host, port))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, URLFile))
}

// unpublishURL removes URLFile when the server stops serving.
func (s *Server) unpublishURL() {
	if err := os.Remove(filepath.Join(s.app.Config.DataDir, URLFile)); err != nil && !os.IsNotExist(err) {
		s.log.Warn("could not remove the server's URL file", "err", err)
	}
}
