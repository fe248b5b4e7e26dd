package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
	"github.com/instantstart/instantstart/resolvers/server/gqltest"
)

// newToken creates a token as the admin and returns its id and secret.
func newToken(t *testing.T, srv *server.Server, name, role string, expiresAt *time.Time) (id, secret string) {
	t.Helper()
	vars := map[string]any{"in": map[string]any{"name": name, "role": role}}
	if expiresAt != nil {
		vars["in"].(map[string]any)["expiresAt"] = expiresAt.Format(time.RFC3339Nano)
	}
	res := query(t, srv, `mutation($in: CreateTokenInput!) { createToken(input: $in) { secret token { id role active } } }`, vars)
	var out struct {
		CreateToken struct {
			Secret string
			Token  struct {
				ID, Role string
				Active   bool
			}
		}
	}
	if err := res.Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.CreateToken.Token.Role != role || !out.CreateToken.Token.Active || out.CreateToken.Secret == "" {
		t.Fatalf("created token %+v", out.CreateToken)
	}
	return out.CreateToken.Token.ID, out.CreateToken.Secret
}

func code(res *gqltest.Response) string {
	if len(res.Errors) == 0 {
		return ""
	}
	return res.Errors[0].Code()
}

func TestEveryCredentialIsCheckedOnEveryPath(t *testing.T) {
	srv := startServer(t, server.Config{})
	_, viewer := newToken(t, srv, "viewer", "VIEWER", nil)
	revokedID, revoked := newToken(t, srv, "gone", "OPERATOR", nil)
	if err := query(t, srv, `mutation($id: ID!) { revokeToken(id: $id) { id } }`, map[string]any{"id": revokedID}).Err(); err != nil {
		t.Fatal(err)
	}
	soon := time.Now().Add(300 * time.Millisecond)
	_, expiring := newToken(t, srv, "brief", "OPERATOR", &soon)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(soon) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	wrong := "isk_" + strings.Repeat("B", 43)

	for _, tc := range []struct {
		name   string
		header http.Header
		status int
		code   string
	}{
		{"no token", nil, http.StatusUnauthorized, "UNAUTHENTICATED"},
		{"not a bearer header", http.Header{"Authorization": {"Basic YWRtaW46YWRtaW4="}}, http.StatusUnauthorized, "UNAUTHENTICATED"},
		{"wrong token", bearer(wrong), http.StatusUnauthorized, "UNAUTHENTICATED"},
		{"revoked token", bearer(revoked), http.StatusUnauthorized, "UNAUTHENTICATED"},
		{"expired token", bearer(expiring), http.StatusUnauthorized, "UNAUTHENTICATED"},
		{"viewer", bearer(viewer), http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := doWith(t, tc.header, http.MethodPost, srv.URL()+"/graphql", `{"query":"{ version }"}`)
			if status != tc.status || (tc.code != "" && !strings.Contains(body, `"code":"`+tc.code+`"`)) {
				t.Fatalf("/graphql: %d %s, want %d %s", status, body, tc.status, tc.code)
			}
			if tc.code != "" {
				if status, _ := doWith(t, tc.header, http.MethodGet, srv.URL()+"/sim/calls", ""); status != tc.status {
					t.Fatalf("/sim/calls: %d, want %d", status, tc.status)
				}
				_, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{Header: tc.header})
				if err == nil {
					t.Fatal("WebSocket connected")
				}
			}
		})
	}
	// Simulator control is admin-only; health and metrics are open.
	if status, _ := doWith(t, bearer(viewer), http.MethodGet, srv.URL()+"/sim/calls", ""); status != http.StatusForbidden {
		t.Fatalf("viewer on /sim/calls: %d", status)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if status, _ := doWith(t, nil, http.MethodGet, srv.URL()+path, ""); status != http.StatusOK {
			t.Fatalf("%s without a token: %d", path, status)
		}
	}
}

func TestRolesAreEnforcedOverHTTPAndWebSocket(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	_, viewer := newToken(t, srv, "viewer", "VIEWER", nil)
	_, operator := newToken(t, srv, "operator", "OPERATOR", nil)
	create := `mutation { createCluster(input: {name: "roles", zones: ["us-west-2a", "us-west-2b"]}) { id target { id } } }`
	del := `mutation($id: ID!) { deleteCluster(id: $id) { id } }`

	if got := code(queryAs(t, srv, viewer, create, nil)); got != "FORBIDDEN" {
		t.Fatalf("viewer createCluster: %q", got)
	}
	if got := code(queryAs(t, srv, viewer, `{ tokens { id } }`, nil)); got != "FORBIDDEN" {
		t.Fatalf("viewer tokens: %q", got)
	}
	if err := queryAs(t, srv, viewer, `{ me { name role via } clusters { totalCount } }`, nil).Err(); err != nil {
		t.Fatalf("viewer reads: %v", err)
	}
	res := queryAs(t, srv, operator, create, nil)
	var created struct {
		CreateCluster struct {
			ID     string
			Target struct{ ID string }
		}
	}
	if err := res.Decode(&created); err != nil {
		t.Fatalf("operator createCluster: %v", err)
	}
	waitOperation(t, srv, created.CreateCluster.ID)
	vars := map[string]any{"id": created.CreateCluster.Target.ID}
	if got := code(queryAs(t, srv, operator, del, vars)); got != "FORBIDDEN" {
		t.Fatalf("operator deleteCluster: %q", got)
	}

	// The same rules over WebSocket, signed in by connection_init.
	viewerWS, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{InitPayload: map[string]any{"authorization": "Bearer " + viewer}})
	if err != nil {
		t.Fatal(err)
	}
	defer viewerWS.Close()
	if res, err := viewerWS.Query(testContext(t), del, vars); err != nil || code(res) != "FORBIDDEN" {
		t.Fatalf("viewer deleteCluster over WebSocket: %v %+v", err, res)
	}
	adminWS := dial(t, srv)
	res, err = adminWS.Query(testContext(t), del, vars)
	if err != nil || res.Err() != nil {
		t.Fatalf("admin deleteCluster over WebSocket: %v %v", err, res.Err())
	}
	var me struct {
		Me struct{ Name, Role, Via string }
	}
	if err := queryAs(t, srv, operator, `{ me { name role via } }`, nil).Decode(&me); err != nil || me.Me.Name != "operator" || me.Me.Role != "OPERATOR" || me.Me.Via != "bearer" {
		t.Fatalf("me: %+v %v", me, err)
	}
}

// login signs in with a token and returns the session cookie.
func login(t *testing.T, srv *server.Server, secret string) *http.Cookie {
	t.Helper()
	req, _ := http.NewRequestWithContext(testContext(t), http.MethodPost, srv.URL()+"/auth/login", strings.NewReader(`{"token":"`+secret+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", srv.URL())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("login: %s", res.Status)
	}
	for _, c := range res.Cookies() {
		if c.Name == "instantstart_session" {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure {
				t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, not Secure over plain HTTP", c)
			}
			return c
		}
	}
	t.Fatal("login set no session cookie")
	return nil
}

func withCookie(c *http.Cookie, origin string) http.Header {
	h := http.Header{"Cookie": {c.Name + "=" + c.Value}}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return h
}

func TestBrowserSessionsRefuseCrossSiteRequests(t *testing.T) {
	srv := startServer(t, server.Config{})
	cookie := login(t, srv, adminSecret)
	body := `{"query":"mutation { createToken(input: {name: \"csrf\", role: VIEWER}) { token { id } } }"}`

	status, resp := doWith(t, withCookie(cookie, srv.URL()), http.MethodPost, srv.URL()+"/graphql", body)
	if status != http.StatusOK || strings.Contains(resp, "errors") {
		t.Fatalf("same-origin cookie mutation: %d %s", status, resp)
	}
	status, resp = doWith(t, withCookie(cookie, "http://evil.example"), http.MethodPost, srv.URL()+"/graphql", strings.Replace(body, "csrf", "csrf2", 1))
	if status != http.StatusForbidden || !strings.Contains(resp, "FORBIDDEN") {
		t.Fatalf("cross-site cookie mutation: %d %s", status, resp)
	}
	// A WebSocket from a foreign origin is refused even with a valid cookie.
	if _, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{Header: withCookie(cookie, "http://evil.example")}); err == nil {
		t.Fatal("cross-site WebSocket connected")
	}
	// From the server's own origin the cookie signs the WebSocket in.
	c, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{Header: withCookie(cookie, srv.URL())})
	if err != nil {
		t.Fatalf("same-origin WebSocket with the cookie: %v", err)
	}
	var me struct{ Me struct{ Via string } }
	if res, err := c.Query(testContext(t), `{ me { via } }`, nil); err != nil || res.Decode(&me) != nil || me.Me.Via != "cookie" {
		t.Fatalf("me over the cookie WebSocket: %+v %v", me, err)
	}
	c.Close()

	// Signing out ends the session.
	req, _ := http.NewRequestWithContext(testContext(t), http.MethodPost, srv.URL()+"/auth/logout", nil)
	req.Header = withCookie(cookie, srv.URL())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if status, _ := doWith(t, withCookie(cookie, srv.URL()), http.MethodPost, srv.URL()+"/graphql", `{"query":"{ version }"}`); status != http.StatusUnauthorized {
		t.Fatalf("after logout: %d", status)
	}
	if status, _ := doWith(t, http.Header{"Content-Type": {"application/json"}}, http.MethodPost, srv.URL()+"/auth/login", `{"token":"isk_nope"}`); status != http.StatusUnauthorized {
		t.Fatalf("login with a bad token: %d", status)
	}
}

func TestLimitsRefuseWithTheirCodeAndLeaveTheServerWell(t *testing.T) {
	srv := startServer(t, server.Config{Limits: server.Limits{MaxDepth: 5, MaxSubscriptionsPerConnection: 2, MaxConnectionsPerToken: 3, IntrospectionPerMinute: 2}})
	deep := `{ operations { edges { node { target { kind } phases { error { code } } } } } }`
	if got := code(query(t, srv, deep, nil)); got != "LIMIT" {
		t.Fatalf("deep query: %q", got)
	}
	for i := 0; i < 2; i++ {
		if err := query(t, srv, `{ __schema { queryType { name } } }`, nil).Err(); err != nil {
			t.Fatalf("introspection %d: %v", i, err)
		}
	}
	if got := code(query(t, srv, `{ __schema { queryType { name } } }`, nil)); got != "LIMIT" {
		t.Fatalf("third introspection in a minute: %q", got)
	}

	c := dial(t, srv)
	for i := 0; i < 2; i++ {
		if _, err := c.Subscribe(testContext(t), eventsQuery, nil); err != nil {
			t.Fatal(err)
		}
		// The server handles subscribe messages concurrently: wait until
		// this one is live so the next counts after it.
		for deadline := time.Now().Add(10 * time.Second); srv.Store().Subscribers() < i+1; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("subscription %d never went live", i)
			}
		}
	}
	ch, err := c.Subscribe(testContext(t), eventsQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := next(t, ch); code(&res) != "LIMIT" {
		t.Fatalf("third subscription on a connection: %+v", res)
	}
	dial(t, srv)
	dial(t, srv)
	if _, err := gqltest.Dial(testContext(t), wsURL(srv), gqltest.Options{InitPayload: adminInit}); err == nil {
		t.Fatal("a fourth connection of one token was accepted")
	}
	// The server is unharmed.
	if err := query(t, srv, `{ version }`, nil).Err(); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestMutationsAreAuditedOnceAndSecretsNeverLeak(t *testing.T) {
	logs := &syncBuffer{}
	cfg := server.Config{Engine: app.Config{DataDir: t.TempDir(), SimSpeed: 2000, AdminToken: adminSecret}, Listen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	_, secret := newToken(t, srv, "ci-bot", "OPERATOR", nil)
	_, viewer := newToken(t, srv, "watcher", "VIEWER", nil)
	queryAs(t, srv, viewer, `mutation { createToken(input: {name: "sneaky", role: ADMIN}) { secret } }`, nil) // refused: audited too

	var audit struct {
		AuditLog struct {
			TotalCount int
			Edges      []struct {
				Node struct {
					TokenName, Role, Mutation, Outcome string
					Arguments                          any
				}
			}
		}
	}
	if err := query(t, srv, `{ auditLog(first: 50) { totalCount edges { node { tokenName role mutation outcome arguments } } } }`, nil).Decode(&audit); err != nil {
		t.Fatal(err)
	}
	if audit.AuditLog.TotalCount != 3 {
		t.Fatalf("audit records: %d, want one per mutation (3)", audit.AuditLog.TotalCount)
	}
	newest := audit.AuditLog.Edges[0].Node
	if newest.TokenName != "watcher" || newest.Mutation != "createToken" || newest.Outcome != "FORBIDDEN" {
		t.Fatalf("newest audit record %+v", newest)
	}
	if first := audit.AuditLog.Edges[2].Node; first.TokenName != "admin" || first.Role != "ADMIN" || first.Outcome != "OK" {
		t.Fatalf("first audit record %+v", first)
	}

	// The secret shown once appears nowhere else: not in the audit log, the
	// tokens list, the event log, or the server log.
	for name, text := range map[string]string{
		"audit log":  string(must(json.Marshal(audit))),
		"tokens":     string(query(t, srv, `{ tokens { id name role createdBy lastUsedAt } }`, nil).Data),
		"server log": logs.String(),
		"event log":  eventLog(t, srv),
	} {
		if strings.Contains(text, secret) || strings.Contains(text, viewer) || strings.Contains(text, adminSecret) {
			t.Fatalf("a token secret appears in the %s", name)
		}
	}
}

func eventLog(t *testing.T, srv *server.Server) string {
	t.Helper()
	var b strings.Builder
	if err := srv.Store().History(0, srv.Store().LastSequence(), store.Filter{}, func(ev *store.Event) (bool, error) {
		b.Write(ev.Payload)
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
