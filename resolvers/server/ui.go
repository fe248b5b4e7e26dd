package server

import (
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/instantstart/instantstart/frontend"
)

// uiHandler serves the web UI embedded in the binary: the built files of
// frontend/dist, and index.html for every other path so the client-side
// routes (/clusters/:id, /operations/:id...) survive a reload. The pages
// hold no data: everything they show comes from /graphql after sign-in.
func uiHandler() (http.Handler, error) {
	dist, err := fs.Sub(frontend.Dist, "dist")
	if err != nil {
		return nil, err
	}
	if _, err := fs.Stat(dist, "index.html"); err != nil {
		return nil, errors.New("the embedded UI has no index.html: build it with npm run build in frontend/")
	}
	files := http.FileServerFS(dist)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the web UI answers GET only", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" || name == "index.html" {
			serveIndex(w, r, dist)
			return
		}
		if _, err := fs.Stat(dist, name); err != nil {
			serveIndex(w, r, dist)
			return
		}
		if strings.HasPrefix(name, "assets/") {
			// Vite names assets by content hash: they never change.
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		files.ServeHTTP(w, r)
	}), nil
}

func serveIndex(w http.ResponseWriter, r *http.Request, dist fs.FS) {
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeFileFS(w, r, dist, "index.html")
}
