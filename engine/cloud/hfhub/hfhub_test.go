package hfhub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/instantstart/instantstart/engine/cloud"
)

// TestModelReadsFilesAndRefusals reads a model's files as the hub answers
// them, sends the token as a bearer, and turns the hub's refusals into
// HubErrors with their status and message.
func TestModelReadsFilesAndRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/models/acme/tiny/revision/main":
			if r.URL.Query().Get("blobs") != "true" {
				http.Error(w, "sizes not asked", http.StatusBadRequest)
				return
			}
			_, _ = w.Write([]byte(`{"id":"acme/tiny","sha":"0123456789abcdef0123456789abcdef01234567","gated":false,"siblings":[{"rfilename":"config.json","size":728},{"rfilename":"model.safetensors","size":988097824}]}`))
		case "/api/models/acme/gated/revision/main":
			if r.Header.Get("Authorization") != "Bearer hf_good" {
				w.Header().Set("X-Error-Message", "Access to model acme/gated is restricted.")
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte(`{"id":"acme/gated","sha":"1111111111111111111111111111111111111111","gated":"manual","siblings":[]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"Revision Not Found for url"}`))
		}
	}))
	defer srv.Close()
	c := &Client{Endpoint: srv.URL}
	ctx := context.Background()

	m, err := c.Model(ctx, "acme/tiny", "main", "")
	if err != nil || m.Commit != "0123456789abcdef0123456789abcdef01234567" || m.Gated || len(m.Files) != 2 || m.Files[1].Size != 988097824 {
		t.Fatalf("acme/tiny: %+v, %v", m, err)
	}
	if m, err := c.Model(ctx, "acme/gated", "main", "hf_good"); err != nil || !m.Gated {
		t.Fatalf("gated with a token: %+v, %v", m, err)
	}
	for _, tc := range []struct {
		id, rev, token string
		status         int
		message        string
	}{
		{"acme/gated", "main", "", 401, "Access to model acme/gated is restricted."},
		{"acme/tiny", "v9", "", 404, "Revision Not Found for url"},
	} {
		_, err := c.Model(ctx, tc.id, tc.rev, tc.token)
		var he *cloud.HubError
		if !errors.As(err, &he) || he.Status != tc.status || he.Message != tc.message {
			t.Errorf("%s@%s: %v, want %d %q", tc.id, tc.rev, err, tc.status, tc.message)
		}
	}
}
