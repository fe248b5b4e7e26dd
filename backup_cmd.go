package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
)

// Bounds of what backup reads besides the stream itself.
const (
	maxSmallFile        = 4 << 10  // the server's URL file, the admin token file
	maxErrorBody        = 64 << 10 // a refusal from the server
	backupHeaderTimeout = 30 * time.Second
)

const backupRedirectAdvice = "redirect it to a file: instantstart backup --data-dir DIR > instantstart.backup"

// backupCmd writes a backup of the store in --data-dir to stdout. When no
// process holds the directory it reads the store itself; when a server
// holds it, it asks that server, found through the URL the server wrote
// into the directory, with an admin token.
func backupCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("instantstart backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", env("INSTANTSTART_DATA_DIR", "./data"), "the data directory of the store (env INSTANTSTART_DATA_DIR)")
	tokenEnv := fs.String("token-env", "INSTANTSTART_TOKEN", "the environment variable that holds an admin token, for a running server; when it is empty, <data-dir>/"+auth.AdminTokenFile+" is used")
	serverURL := fs.String("url", "", "base URL of the server that holds --data-dir; empty means the one it wrote to <data-dir>/"+server.URLFile)
	if code, ok := parseFlags(fs, args, stderr, "; the backup goes to stdout: "+backupRedirectAdvice); !ok {
		return code
	}
	if *dataDir == "" {
		fmt.Fprintln(stderr, "instantstart backup: --data-dir (or INSTANTSTART_DATA_DIR) must name a directory")
		return exitUsage
	}
	if isTerminal(stdout) {
		fmt.Fprintln(stderr, "instantstart backup: stdout is a terminal, and a backup is binary: "+backupRedirectAdvice)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	opts := store.BackupOptions{BinaryVersion: buildVersion(), Files: app.BackupFiles()}
	var (
		h    store.BackupHeader
		from string
		err  error
	)
	if *serverURL == "" {
		from = *dataDir
		h, err = store.BackupDir(ctx, *dataDir, stdout, opts)
		if errors.Is(err, store.ErrInUse) {
			*serverURL, err = publishedURL(*dataDir)
		}
	}
	if *serverURL != "" && err == nil {
		from = *serverURL
		h, err = backupFromServer(ctx, *serverURL, *dataDir, *tokenEnv, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "instantstart backup: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stderr, "instantstart backup: backed up the store of %s (schema version %d) as of %s\n", from, h.SchemaVersion, h.CreatedAt.Format(time.RFC3339))
	return exitOK
}

// publishedURL reads the URL the server holding dataDir wrote there.
func publishedURL(dataDir string) (string, error) {
	path := filepath.Join(dataDir, server.URLFile)
	raw, err := readSmallFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("data directory %s is in use by another process, which has not written its URL to %s: if it is an instantstart server, pass its address with --url; otherwise stop it and back up again", dataDir, path)
	}
	if err != nil {
		return "", err
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s holds %q, not a server URL: pass the server's address with --url", path, raw)
	}
	return raw, nil
}

// backupFromServer streams the backup from the server at base to out,
// checking it whole as it passes: a stream cut short is an error, never a
// quiet success.
func backupFromServer(ctx context.Context, base, dataDir, tokenEnv string, out io.Writer) (store.BackupHeader, error) {
	token, source, err := adminToken(dataDir, tokenEnv)
	if err != nil {
		return store.BackupHeader{}, err
	}
	endpoint := strings.TrimSuffix(base, "/") + "/admin/backup"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return store.BackupHeader{}, fmt.Errorf("--url %q: %w", base, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ResponseHeaderTimeout = backupHeaderTimeout
	defer transport.CloseIdleConnections()
	res, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return store.BackupHeader{}, fmt.Errorf("ask the server at %s for a backup: %w; is it running? (a server killed without a clean shutdown leaves its URL behind: start it again, or stop whatever holds the directory; "+
			"a server with TLS is reached by the name its certificate carries: pass it with --url)", base, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg := refusalMessage(res)
		switch res.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return store.BackupHeader{}, fmt.Errorf("the server at %s refused the token from %s (%s: %s): backups need an admin token", base, source, res.Status, msg)
		}
		return store.BackupHeader{}, fmt.Errorf("the server at %s answered %s: %s", base, res.Status, msg)
	}
	if ct := res.Header.Get("Content-Type"); ct != server.BackupContentType {
		return store.BackupHeader{}, fmt.Errorf("the server at %s answered %q, not a backup (%s): is it an instantstart server of this version?", base, ct, server.BackupContentType)
	}
	h, err := store.CheckBackup(io.TeeReader(res.Body, out))
	if err != nil {
		return h, fmt.Errorf("the backup from %s is not whole, so the output is not a usable backup: %w", base, err)
	}
	return h, nil
}

// adminToken is the token from the environment variable tokenEnv, else the
// first admin token's file in dataDir; source says which, for messages.
func adminToken(dataDir, tokenEnv string) (token, source string, err error) {
	if t := strings.TrimSpace(os.Getenv(tokenEnv)); t != "" {
		return t, "the environment variable " + tokenEnv, nil
	}
	path := filepath.Join(dataDir, auth.AdminTokenFile)
	t, err := readSmallFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("a server holds %s, and backing it up needs an admin token: set the environment variable %s (or the one --token-env names) to one", dataDir, tokenEnv)
	}
	if err != nil {
		return "", "", err
	}
	if t == "" {
		return "", "", fmt.Errorf("%s is empty: set the environment variable %s to an admin token", path, tokenEnv)
	}
	return t, path, nil
}

// readSmallFile reads a file of at most maxSmallFile bytes, trimmed.
func readSmallFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxSmallFile+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(raw) > maxSmallFile {
		return "", fmt.Errorf("%s is over %d bytes, more than it ever holds: check what wrote it", path, maxSmallFile)
	}
	return strings.TrimSpace(string(raw)), nil
}

// refusalMessage is the message of a GraphQL-shaped error answer, else the
// start of the body.
func refusalMessage(res *http.Response) string {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	var body struct {
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if json.Unmarshal(raw, &body) == nil && len(body.Errors) > 0 {
		return body.Errors[0].Message
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// restoreCmd loads a backup from stdin into --data-dir, which must be new
// or empty.
func restoreCmd(args []string, stdin io.Reader, stderr io.Writer) int {
	fs := flag.NewFlagSet("instantstart restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", env("INSTANTSTART_DATA_DIR", "./data"), "the new or empty directory to restore the store into (env INSTANTSTART_DATA_DIR)")
	if code, ok := parseFlags(fs, args, stderr, "; the backup comes from stdin: instantstart restore --data-dir DIR < instantstart.backup"); !ok {
		return code
	}
	if *dataDir == "" {
		fmt.Fprintln(stderr, "instantstart restore: --data-dir (or INSTANTSTART_DATA_DIR) must name a directory")
		return exitUsage
	}
	if isTerminal(stdin) {
		fmt.Fprintln(stderr, "instantstart restore: stdin is a terminal: feed it the backup, instantstart restore --data-dir DIR < instantstart.backup")
		return exitUsage
	}
	h, err := store.Restore(stdin, *dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "instantstart restore: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stderr, "instantstart restore: restored into %s the backup that instantstart %s made at %s (schema version %d)", *dataDir, h.BinaryVersion, h.CreatedAt.Format(time.RFC3339), h.SchemaVersion)
	if h.SchemaVersion < store.SchemaVersion {
		fmt.Fprintf(stderr, "; the server migrates it to schema version %d when it starts", store.SchemaVersion)
	}
	fmt.Fprintf(stderr, ".\nStart the server with --data-dir %s; the tokens of the backed-up server work there (the backup holds no %s file).\n", *dataDir, auth.AdminTokenFile)
	return exitOK
}

// isTerminal reports whether f is an interactive terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
