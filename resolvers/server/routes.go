package server

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	coderws "github.com/coder/websocket"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/instantstart/instantstart/graph"
	"github.com/instantstart/instantstart/resolvers"
)

// Limits of what a client may send.
const (
	maxBodyBytes    = 1 << 20 // a request body on /graphql and /sim/, and a WebSocket message
	maxComplexity   = 500
	queryCacheSize  = 1000
	keepAlive       = 15 * time.Second
	wsInitTimeout   = 10 * time.Second
	readinessTTL    = 30 * time.Second
	readinessBudget = 5 * time.Second
)

// routes is every path of the one listener.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/graphql", limitBody(identify(s.graphql())))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	ready := newReadiness(s.store, s.providerCheck())
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready.check(r.Context()); err != nil {
			writeText(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		writeText(w, http.StatusOK, "ready")
	})
	mux.Handle("GET /metrics", s.metrics.handler())
	if s.world != nil {
		// Open to every caller for now: /sim/ becomes admin-only with the auth work.
		simRoutes(mux, s.world, s.log)
	}
	return s.track(s.metrics.instrument(s.logRequests(mux)))
}

// graphql is the GraphQL executor over HTTP (POST, GET, OPTIONS) and
// WebSocket (graphql-transport-ws and the legacy graphql-ws).
func (s *Server) graphql() http.Handler {
	readLimit := int64(maxBodyBytes)
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: s.resolver()}))
	srv.AddTransport(transport.Websocket{
		// With no OriginPatterns a browser's upgrade is accepted only from
		// the same origin; clients that send no Origin are not browsers.
		Implementation:        transport.CoderWebsocketImplementation{AcceptOptions: coderws.AcceptOptions{}},
		KeepAlivePingInterval: keepAlive, // graphql-ws "ka"
		PingPongInterval:      keepAlive, // graphql-transport-ws ping, expecting pong
		InitTimeout:           wsInitTimeout,
		PayloadReadLimit:      &readLimit,
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](queryCacheSize))
	srv.Use(extension.Introspection{})
	srv.Use(extension.FixedComplexityLimit(maxComplexity))
	srv.SetErrorPresenter(resolvers.ErrorPresenter(s.log))
	srv.SetRecoverFunc(resolvers.RecoverFunc(s.log))
	srv.AroundFields(resolvers.ExpandErrorLists)
	return srv
}

// identify sets the caller of a request. Every caller is anonymous until
// the auth work checks a token here (and in the WebSocket init payload).
func identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(resolvers.WithCaller(r.Context(), resolvers.Anonymous)))
	})
}

// limitBody refuses request bodies over maxBodyBytes.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// track counts running handlers so that shutdown can wait for the
// WebSocket ones, which http.Server.Shutdown does not see.
func (s *Server) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.handlers.Add(1)
		defer s.handlers.Done()
		next.ServeHTTP(w, r)
	})
}

func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		s.log.Debug("http request", "method", r.Method, "path", r.URL.Path, "status", rec.code(), "duration", time.Since(start))
	})
}

// statusRecorder remembers the status a handler wrote. Unwrap lets the
// WebSocket upgrade reach the connection's Hijacker.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusRecorder) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// routeLabel names the route a request matched, without its method, so that
// metrics have one series per route rather than per URL.
func routeLabel(r *http.Request) string {
	if r.Pattern == "" {
		return "unmatched"
	}
	if _, path, ok := strings.Cut(r.Pattern, " "); ok {
		return path
	}
	return r.Pattern
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintln(w, text)
}
