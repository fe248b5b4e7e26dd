package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

// adminSecret is the first admin token of every test server.
var adminSecret = "isk_" + strings.Repeat("A", 43)

// bearer is the Authorization header of a token secret.
func bearer(secret string) http.Header { return http.Header{"Authorization": {"Bearer " + secret}} }

// startServer builds and runs a server on a free loopback port with a fresh
// data directory and a fast simulator; it is shut down when the test ends,
// and the test fails if shutdown does not go cleanly.
func startServer(t testing.TB, cfg server.Config) *server.Server {
	t.Helper()
	if cfg.Engine.DataDir == "" {
		cfg.Engine.DataDir = t.TempDir()
	}
	if cfg.Engine.SimSpeed == 0 {
		cfg.Engine.SimSpeed = 2000
	}
	cfg.Listen = "127.0.0.1:0"
	if cfg.Engine.AdminToken == "" {
		cfg.Engine.AdminToken = adminSecret
	}
	cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return srv
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// get fetches url and returns the status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	return do(t, http.MethodGet, url, "")
}

// do sends a request as the admin.
func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	return doWith(t, bearer(adminSecret), method, url, body)
}

// doWith sends a request with header.
func doWith(t *testing.T, header http.Header, method, url, body string) (int, string) {
	t.Helper()
	res, b := send(t, header, method, url, body)
	return res.StatusCode, string(b)
}

// send sends a request with header and returns the response, its body
// read and closed.
func send(t *testing.T, header http.Header, method, url, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// query posts a GraphQL request as the admin and returns the response.
func query(t *testing.T, srv *server.Server, q string, vars map[string]any) *gqltest.Response {
	t.Helper()
	return queryAs(t, srv, adminSecret, q, vars)
}

// queryAs posts a GraphQL request with a token secret ("" for none).
func queryAs(t *testing.T, srv *server.Server, secret, q string, vars map[string]any) *gqltest.Response {
	t.Helper()
	var h http.Header
	if secret != "" {
		h = bearer(secret)
	}
	res, err := gqltest.Post(testContext(t), srv.URL()+"/graphql", h, q, vars)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestHealthReadinessAndMetrics(t *testing.T) {
	srv := startServer(t, server.Config{})
	if code, body := get(t, srv.URL()+"/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz = %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, srv.URL()+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz = %d %q, want 200", code, body)
	}
	query(t, srv, "{ version }", nil)
	code, body := get(t, srv.URL()+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	for _, want := range []string{
		`instantstart_http_requests_total{code="200",path="/graphql"} 1`,
		`instantstart_http_requests_total{code="200",path="/healthz"} 1`,
		"instantstart_subscribers 0",
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestVersionAndEmptyOperations(t *testing.T) {
	srv := startServer(t, server.Config{Version: "v1.2.3-test"})
	var got struct {
		Version    string
		Operations struct {
			TotalCount int
			Edges      []json.RawMessage
			PageInfo   struct {
				HasNextPage bool
				EndCursor   *string
			}
		}
	}
	res := query(t, srv, "{ version operations { totalCount edges { cursor } pageInfo { hasNextPage endCursor } } }", nil)
	if err := res.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Version != "v1.2.3-test" {
		t.Errorf("version = %q", got.Version)
	}
	ops := got.Operations
	if ops.TotalCount != 0 || ops.Edges == nil || len(ops.Edges) != 0 || ops.PageInfo.HasNextPage || ops.PageInfo.EndCursor != nil {
		t.Errorf("operations = %+v, want an empty connection", ops)
	}
}

func TestBadInputIsValidation(t *testing.T) {
	srv := startServer(t, server.Config{})
	tests := []struct {
		name  string
		query string
		vars  map[string]any
		field string
	}{
		{"first 0", "{ operations(first: 0) { totalCount } }", nil, "first"},
		{"first 201", "{ clusters(first: 201) { totalCount } }", nil, "first"},
		{"timeout over 300", `{ waitOperation(id: "x", timeoutSeconds: 301) { id } }`, nil, "timeoutSeconds"},
		{"variable of the wrong type", "query($n: Int) { operations(first: $n) { totalCount } }", map[string]any{"n": "ten"}, ""},
		{"literal of the wrong type", `{ operations(first: "ten") { totalCount } }`, nil, ""},
		{"unknown field", "{ nope }", nil, ""},
		{"syntax error", "{ version", nil, ""},
		{"unknown enum value", "{ operations(filter: {statuses: [DONE]}) { totalCount } }", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := query(t, srv, tt.query, tt.vars)
			if len(res.Errors) == 0 {
				t.Fatalf("no error; data %s", res.Data)
			}
			e := res.Errors[0]
			if e.Code() != "VALIDATION" {
				t.Errorf("code = %q (%s), want VALIDATION", e.Code(), e.Message)
			}
			if tt.field != "" && e.Extensions["field"] != tt.field {
				t.Errorf("field = %v, want %s", e.Extensions["field"], tt.field)
			}
		})
	}
}

func TestUnknownIDsAreNotFound(t *testing.T) {
	srv := startServer(t, server.Config{})
	for _, q := range []string{
		`{ operation(id: "nope") { id } }`,
		`{ waitOperation(id: "nope", timeoutSeconds: 0) { id } }`,
		`{ cluster(id: "nope") { id } }`,
		`mutation { retryOperation(id: "nope") { id } }`,
		`mutation { cancelOperation(id: "nope") { id } }`,
	} {
		res := query(t, srv, q, nil)
		if len(res.Errors) != 1 || res.Errors[0].Code() != "NOT_FOUND" || res.Errors[0].Extensions["retryable"] != false {
			t.Errorf("%s: errors = %+v, want one NOT_FOUND", q, res.Errors)
		}
	}
}

func TestOversizedBodyIsRefused(t *testing.T) {
	srv := startServer(t, server.Config{})
	big := `{"query": "{ version }", "variables": {"pad": "` + strings.Repeat("x", 2<<20) + `"}}`
	status, body := do(t, http.MethodPost, srv.URL()+"/graphql", big)
	var res gqltest.Response
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("response %.200q: %v", body, err)
	}
	if status != http.StatusRequestEntityTooLarge || len(res.Errors) != 1 || res.Errors[0].Code() != "LIMIT" || !strings.Contains(res.Errors[0].Message, "most allowed") {
		t.Errorf("a 2 MiB body gave %d %+v, want 413 with a LIMIT error", status, res.Errors)
	}
	// A body that does not declare its length is cut short at the limit,
	// and refused the same way.
	req, _ := http.NewRequestWithContext(testContext(t), http.MethodPost, srv.URL()+"/graphql", io.MultiReader(strings.NewReader(big)))
	req.Header = bearer(adminSecret)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out gqltest.Response
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Errors) == 0 {
		t.Errorf("a 2 MiB chunked body was accepted (%s)", resp.Status)
	}
	if resp.StatusCode != http.StatusRequestEntityTooLarge || len(out.Errors) != 1 || out.Errors[0].Code() != "LIMIT" || !strings.Contains(out.Errors[0].Message, "most allowed") {
		t.Errorf("a 2 MiB chunked body gave %s %+v, want 413 with a LIMIT error", resp.Status, out.Errors)
	}
}

func TestSecondServerOnTheSameDataDirFails(t *testing.T) {
	dir := t.TempDir()
	startServer(t, server.Config{Engine: app.Config{DataDir: dir}})
	_, err := server.New(server.Config{Engine: app.Config{DataDir: dir}, Listen: "127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second server on %s: err = %v, want an in-use error", dir, err)
	}
}

// putRecord writes a record straight into the server's store, which appends
// its event as any engine change would.
func putRecord(t testing.TB, srv *server.Server, kind, id string, v any) {
	t.Helper()
	if err := srv.Store().Update(func(tx *store.Tx) error { return tx.Put(kind, id, v) }); err != nil {
		t.Fatal(err)
	}
}

func TestUIIsServedWithItsRoutes(t *testing.T) {
	srv := startServer(t, server.Config{})
	for _, path := range []string{"/", "/clusters/abc", "/operations/xyz"} {
		status, body := doWith(t, nil, http.MethodGet, srv.URL()+path, "")
		if status != http.StatusOK || !strings.Contains(body, `<div id="root">`) {
			t.Fatalf("GET %s: %d %.200s", path, status, body)
		}
	}
	// API paths are not swallowed by the UI's fallback.
	if status, _ := doWith(t, nil, http.MethodGet, srv.URL()+"/graphql?query={version}", ""); status != http.StatusUnauthorized {
		t.Fatalf("GET /graphql without a token: %d", status)
	}
}
