package server_test

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/frontend"
	"github.com/instantstart/instantstart/resolvers/server"
)

// assetRefs are the src and href attributes of a page.
var assetRefs = regexp.MustCompile(`(?:src|href)="([^"]*)"`)

func TestPlaygroundIsServedWithSameOriginAssets(t *testing.T) {
	srv := startServer(t, server.Config{})
	for _, path := range []string{"/playground", "/playground/", "/playground.html"} {
		res := getPage(t, srv.URL()+path)
		if res.status != http.StatusOK || !strings.Contains(res.body, `<div id="playground">`) || !strings.Contains(res.body, "Playground") {
			t.Fatalf("GET %s: %d %.300s", path, res.status, res.body)
		}
		if cc := res.header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", path, cc)
		}
		csp := res.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "http") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}

	// Every script, stylesheet and preload is a path on this server, and is
	// served; no CDN, so the page works with no internet access.
	pg := getPage(t, srv.URL()+"/playground")
	refs := assetRefs.FindAllStringSubmatch(pg.body, -1)
	scripts := 0
	for _, m := range refs {
		ref := m[1]
		if strings.HasPrefix(ref, "data:") {
			continue // the empty favicon
		}
		if !strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, "//") {
			t.Errorf("the playground references %q, not a path of its own origin", ref)
			continue
		}
		if strings.HasSuffix(ref, ".js") {
			scripts++
		}
		if res := getPage(t, srv.URL()+ref); res.status != http.StatusOK || strings.Contains(res.body, `<div id="root">`) {
			t.Errorf("GET %s (referenced by the playground): %d", ref, res.status)
		}
	}
	if scripts == 0 {
		t.Fatalf("the playground references no script: %s", pg.body)
	}

	// The app's pages keep index.html.
	for _, path := range []string{"/", "/clusters/abc", "/playground/more"} {
		res := getPage(t, srv.URL()+path)
		if res.status != http.StatusOK || !strings.Contains(res.body, `<div id="root">`) {
			t.Fatalf("GET %s: %d %.200s", path, res.status, res.body)
		}
	}
}

// TestEmbeddedUINamesNoCDN checks the built assets for the CDNs GraphiQL
// and Monaco can load from (their workers, fonts, the esm.sh build): the
// playground must bundle everything it runs.
func TestEmbeddedUINamesNoCDN(t *testing.T) {
	cdns := []string{"cdn.jsdelivr", "jsdelivr.net", "unpkg.com", "esm.sh", "cdnjs.", "fonts.googleapis", "fonts.gstatic"}
	err := fs.WalkDir(frontend.Dist, "dist", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(frontend.Dist, path)
		if err != nil {
			return err
		}
		for _, cdn := range cdns {
			if bytes.Contains(b, []byte(cdn)) {
				t.Errorf("%s names %s", path, cdn)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type pageResponse struct {
	status int
	header http.Header
	body   string
}

// getPage fetches url with no credential, as a browser before sign-in.
func getPage(t *testing.T, url string) pageResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
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
	return pageResponse{status: res.StatusCode, header: res.Header, body: string(b)}
}
