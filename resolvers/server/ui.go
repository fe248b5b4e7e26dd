package server

import (
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/instantstart/instantstart/frontend"
)

// The pages' Content-Security-Policy: their own origin only, for scripts,
// styles, workers, images and connections (HTTP and WebSocket).
const uiCSP = "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"

// The playground's adds fonts embedded in its stylesheet as data: URLs
// (GraphiQL's and Monaco's icon font); nothing is fetched from elsewhere.
const playgroundCSP = uiCSP + "; font-src 'self' data:"

// s3Origins are where the app's uploads go: the signed URLs of S3, in
// every region and for every bucket (S3's names are subdomains of
// amazonaws.com). The signature, not the page, decides what may be sent.
const s3Origins = "https://*.amazonaws.com"

// appCSP is the app's policy: uiCSP, but its connections may also reach S3
// and extra, the origins of a simulated S3 ("" for none).
func appCSP(extra string) string {
	connect := "connect-src 'self' ws: wss: " + s3Origins
	if extra != "" {
		connect += " " + extra
	}
	return strings.Replace(uiCSP, "connect-src 'self' ws: wss:", connect, 1)
}

// uiHandler serves the web UI embedded in the binary: the built files of
// frontend/dist, the GraphiQL playground (playground.html) at /playground,
// and index.html for every other path so the client-side routes
// (/clusters/:id, /operations/:id...) survive a reload. The pages hold no
// data: everything they show comes from /graphql after sign-in.
// uploadOrigin is the origin of the simulator's S3, where signed upload
// URLs point, when it is served ("" otherwise).
func uiHandler(uploadOrigin string) (http.Handler, error) {
	dist, err := fs.Sub(frontend.Dist, "dist")
	if err != nil {
		return nil, err
	}
	for _, page := range []string{"index.html", "playground.html"} {
		if _, err := fs.Stat(dist, page); err != nil {
			return nil, errors.New("the embedded UI has no " + page + ": build it with npm run build in frontend/")
		}
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
		h.Set("Content-Security-Policy", appCSP(uploadOrigin))
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" || name == "index.html" {
			serveIndex(w, r, dist)
			return
		}
		if name == "playground" || name == "playground.html" {
			h.Set("Content-Security-Policy", playgroundCSP)
			servePage(w, r, dist, "playground.html")
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
	servePage(w, r, dist, "index.html")
}

// servePage answers an HTML page, which names the current hashed assets and
// so is checked again on every load.
func servePage(w http.ResponseWriter, r *http.Request, dist fs.FS, name string) {
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeFileFS(w, r, dist, name)
}
