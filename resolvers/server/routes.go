package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/mcp"
	"github.com/instantstart/instantstart/resolvers"
	"github.com/instantstart/instantstart/resolvers/server/wsapi"
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
func (s *Server) routes() (http.Handler, error) {
	mcpHandler, err := s.mcpHandler()
	if err != nil {
		return nil, err
	}
	uploadOrigin := ""
	if s.app.SimAWS != nil {
		uploadOrigin = "http://" + s.app.SimAWS.Addr().String()
	}
	ui, err := uiHandler(uploadOrigin)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", ui)
	mux.Handle("/graphql", deadlines(limitBody(s.requireCredential(auth.Viewer, s.graphql()))))
	mux.Handle("/mcp", limitBody(s.requireCredential(auth.Viewer, mcpHandler)))
	mux.Handle("POST /auth/login", limitBody(http.HandlerFunc(s.login)))
	mux.Handle("POST /auth/logout", http.HandlerFunc(s.logout))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	ready := newReadiness(s.app.Store, s.providerCheck())
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready.check(r.Context()); err != nil {
			writeText(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		writeText(w, http.StatusOK, "ready")
	})
	mux.Handle("GET /admin/backup", s.requireCredential(auth.Admin, http.HandlerFunc(s.backup)))
	if s.cfg.MetricsAuth {
		mux.Handle("GET /metrics", s.requireCredential(auth.Viewer, s.metrics.handler()))
	} else {
		mux.Handle("GET /metrics", s.metrics.handler())
	}
	if s.app.World != nil {
		sim := http.NewServeMux()
		simRoutes(sim, s.app.World, s.log)
		mux.Handle("/sim/", s.requireCredential(auth.Admin, sim))
	} else {
		mux.Handle("/sim/", http.NotFoundHandler()) // not the UI's fallback page
	}
	return s.track(s.metrics.instrument(s.logRequests(mux))), nil
}

// graphql is the GraphQL executor over HTTP (POST, GET, OPTIONS) and
// WebSocket (graphql-transport-ws and the legacy graphql-ws, served by
// wsapi).
func (s *Server) graphql() http.Handler {
	srv := handler.New(s.schema)
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	s.configure(srv)
	exec := executor.New(s.schema)
	s.configure(exec)
	s.ws = wsapi.New(wsapi.Config{
		Exec:        exec,
		Init:        s.wsInit,
		Watch:       s.watchCredential,
		Refusal:     wsRefusal,
		Share:       wsShare,
		CheckOrigin: s.checkWebSocketOrigin,
		ReadLimit:   maxBodyBytes,
		KeepAlive:   keepAlive,
		InitTimeout: wsInitTimeout,
		Logger:      s.log,
	})
	s.metrics.watchWebSockets(s.ws)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isWebSocket(r) {
			s.ws.ServeHTTP(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	})
}

// gqlExecutor is what handler.Server and executor.Executor share.
type gqlExecutor interface {
	Use(graphql.HandlerExtension)
	AroundOperations(graphql.OperationMiddleware)
	AroundFields(graphql.FieldMiddleware)
	SetErrorPresenter(graphql.ErrorPresenterFunc)
	SetRecoverFunc(graphql.RecoverFunc)
	SetQueryCache(graphql.Cache[*ast.QueryDocument])
}

// configure gives an executor the extensions every surface shares: limits,
// error mapping, and the one role check and audit (resolvers.Guard). The
// document bounds share the executor's query cache, so that a document
// already validated is not measured again.
func (s *Server) configure(e gqlExecutor) {
	cache := lru.New[*ast.QueryDocument](queryCacheSize)
	e.SetQueryCache(cache)
	e.Use(documentBounds{cache: cache, maxDepth: s.limits.cfg.MaxDepth, maxFields: maxComplexity})
	e.Use(extension.Introspection{})
	e.Use(extension.FixedComplexityLimit(maxComplexity))
	e.SetErrorPresenter(resolvers.ErrorPresenter(s.log))
	e.SetRecoverFunc(resolvers.RecoverFunc(s.log))
	e.AroundOperations(s.limits.aroundOperations)
	e.AroundFields(resolvers.ExpandErrorLists)
	e.AroundFields(resolvers.Guard(s.app.Auth, s.log))
}

// mcpHandler serves the MCP tools derived from the schema, run through an
// executor configured like the GraphQL endpoint's.
func (s *Server) mcpHandler() (http.Handler, error) {
	tools, err := mcp.Tools(s.schema.Schema(), resolvers.RequiredRole)
	if err != nil {
		return nil, fmt.Errorf("derive MCP tools from the schema: %w", err)
	}
	exec := executor.New(s.schema)
	s.configure(exec)
	return mcp.Handler(mcp.NewServer(tools, inProcess{exec}, s.cfg.Version)), nil
}

// inProcess runs GraphQL operations for the MCP tools without HTTP.
type inProcess struct{ exec *executor.Executor }

func (x inProcess) Execute(ctx context.Context, query string, vars map[string]any) *graphql.Response {
	ctx = graphql.StartOperationTrace(ctx)
	now := graphql.Now()
	rc, errList := x.exec.CreateOperationContext(ctx, &graphql.RawParams{Query: query, Variables: vars, ReadTime: graphql.TraceTiming{Start: now, End: now}})
	if errList != nil {
		return x.exec.DispatchError(graphql.WithOperationContext(ctx, rc), errList)
	}
	h, ctx := x.exec.DispatchOperation(ctx, rc)
	return h(ctx)
}

// checkWebSocketOrigin accepts a browser's upgrade only from the server's
// own origin or an allowed one, whatever credential it carries; clients
// that send no Origin are not browsers.
func (s *Server) checkWebSocketOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, o := range s.cfg.AllowedOrigins {
		if a, err := url.Parse(o); err == nil && strings.EqualFold(a.Host, u.Host) && a.Scheme == u.Scheme {
			return true
		}
	}
	return false
}

// Per-request deadlines of plain HTTP requests: reading the request, and
// writing the answer (a waitOperation may hold a request up to 5 minutes).
const (
	readTimeout  = 30 * time.Second
	writeTimeout = 330 * time.Second
)

// deadlines bounds how long a plain HTTP request may take to arrive and to
// be answered. WebSockets live for as long as their client keeps them.
func deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isWebSocket(r) {
			rc := http.NewResponseController(w)
			now := time.Now()
			_ = rc.SetReadDeadline(now.Add(readTimeout))
			_ = rc.SetWriteDeadline(now.Add(writeTimeout))
		}
		next.ServeHTTP(w, r)
	})
}

// limitBody refuses request bodies over maxBodyBytes with 413 and the LIMIT
// code: at once when the declared length is too large, else once reading
// passes the limit (a chunked body declares none). A body within the limit
// is read whole and handed on, so a handler never sees one cut short.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBodyBytes {
			writeGraphQLError(w, errs.New(errs.Limit, "the request body is %d bytes; the most allowed is %d: send less in one request", r.ContentLength, maxBodyBytes))
			return
		}
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if err != nil {
			writeGraphQLError(w, errs.New(errs.Validation, "the request body could not be read (%v); send the request again", err))
			return
		}
		if len(body) > maxBodyBytes {
			writeGraphQLError(w, errs.New(errs.Limit, "the request body is over %d bytes; the most allowed is %d: send less in one request", maxBodyBytes, maxBodyBytes))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
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
