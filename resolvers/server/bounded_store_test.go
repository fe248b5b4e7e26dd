package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/resolvers/server"
)

// storeBytes is the size of a backup of the server's store: every record,
// index entry and event it holds.
func storeBytes(t *testing.T, srv *server.Server) int64 {
	t.Helper()
	var n countingWriter
	if _, err := srv.Store().Backup(context.Background(), &n, store.BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	return int64(n)
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// TestTheLargestRequestCostsTheStoreAFewKB sends, as each role, the
// largest body the server takes: an updateClusterSoftware naming as many
// instance groups as fit in it. Whatever the answer (refused for the role,
// or for the list's length), the store grows by a few KB a request, and
// the answer is smaller than the request.
func TestTheLargestRequestCostsTheStoreAFewKB(t *testing.T) {
	srv := startServer(t, server.Config{})
	_, viewer := newToken(t, srv, "viewer", "VIEWER", nil)
	_, operator := newToken(t, srv, "operator", "OPERATOR", nil)

	const maxBody = 1 << 20
	q := `mutation($c: ID!, $g: [String!]) { updateClusterSoftware(clusterId: $c, instanceGroups: $g, rollingUpdate: {maxUnavailablePercent: 10}) { id } }`
	var groups []string
	var body []byte
	for n := 1000; ; n += 1000 {
		more := make([]string, n)
		for i := range more {
			more[i] = fmt.Sprintf("group-%07d", i)
		}
		b, err := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"c": "c1", "g": more}})
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > maxBody {
			break
		}
		groups, body = more, b
	}
	t.Logf("%d instance groups in a body of %d bytes", len(groups), len(body))

	const requests = 5
	const budget = 16 << 10 // bytes a request may add to the store
	for _, who := range []struct{ role, secret, code string }{
		{"VIEWER", viewer, "FORBIDDEN"},
		{"OPERATOR", operator, "VALIDATION"},
		{"ADMIN", adminSecret, "VALIDATION"},
	} {
		before := storeBytes(t, srv)
		for range requests {
			req, err := http.NewRequest(http.MethodPost, srv.URL()+"/graphql", strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = bearer(who.secret)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			answer, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if len(answer) >= len(body)/10 {
				t.Errorf("%s: a %d-byte request got a %d-byte answer; want one far smaller", who.role, len(body), len(answer))
			}
			var out struct {
				Errors []struct {
					Extensions struct{ Code, Field string }
				}
			}
			if err := json.Unmarshal(answer, &out); err != nil || len(out.Errors) == 0 || out.Errors[0].Extensions.Code != who.code {
				t.Fatalf("%s: answer %.300s; want %s", who.role, answer, who.code)
			}
			if who.code == "VALIDATION" && out.Errors[0].Extensions.Field != "instanceGroups" {
				t.Errorf("%s: refused on %q; want instanceGroups, the list that is too long", who.role, out.Errors[0].Extensions.Field)
			}
		}
		if grew := storeBytes(t, srv) - before; grew > requests*budget {
			t.Errorf("%s: %d requests of %d bytes grew the store by %d bytes; want at most %d", who.role, requests, len(body), grew, requests*budget)
		}
	}
}
