package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	coderws "github.com/coder/websocket"

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
	ui, err := uiHandler()
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
	ready := newReadiness(s.store, s.providerCheck())
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready.check(r.Context()); err != nil {
			writeText(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		writeText(w, http.StatusOK, "ready")
	})
	if s.cfg.MetricsAuth {
		mux.Handle("GET /metrics", s.requireCredential(auth.Viewer, s.metrics.handler()))
	} else {
		mux.Handle("GET /metrics", s.metrics.handler())
	}
	if s.world != nil {
		sim := http.NewServeMux()
		simRoutes(sim, s.world, s.log)
		mux.Handle("/sim/", s.requireCredential(auth.Admin, sim))
	} else {
		mux.Handle("/sim/", http.NotFoundHandler()) // not the UI's fallback page
	}
	return s.track(s.metrics.instrument(s.logRequests(mux))), nil
}

// graphql is the GraphQL executor over HTTP (POST, GET, OPTIONS) and
// WebSocket (graphql-transport-ws and the legacy graphql-ws).
func (s *Server) graphql() http.Handler {
	readLimit := int64(maxBodyBytes)
	srv := handler.New(s.schema)
	srv.AddTransport(transport.Websocket{
		// A browser's upgrade is accepted only from the server's own origin
		// or an allowed one, whatever credential it carries; clients that
		// send no Origin are not browsers.
		Implementation: transport.CoderWebsocketImplementation{AcceptOptions: coderws.AcceptOptions{OriginPatterns: s.originPatterns()}},
		InitFunc: func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			ctx, err := s.wsInit(ctx, payload)
			return ctx, nil, err
		},
		CloseFunc:             func(ctx context.Context, _ int) { closeConnection(ctx) },
		KeepAlivePingInterval: keepAlive, // graphql-ws "ka"
		PingPongInterval:      keepAlive, // graphql-transport-ws ping, expecting pong
		InitTimeout:           wsInitTimeout,
		PayloadReadLimit:      &readLimit,
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	s.configure(srv)
	return srv
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
// error mapping, and the one role check and audit (resolvers.Guard).
func (s *Server) configure(e gqlExecutor) {
	e.SetQueryCache(lru.New[*ast.QueryDocument](queryCacheSize))
	e.Use(extension.Introspection{})
	e.Use(extension.FixedComplexityLimit(maxComplexity))
	e.SetErrorPresenter(resolvers.ErrorPresenter(s.log))
	e.SetRecoverFunc(resolvers.RecoverFunc(s.log))
	e.AroundOperations(s.limits.aroundOperations)
	e.AroundFields(resolvers.ExpandErrorLists)
	e.AroundFields(resolvers.Guard(s.auth, s.log))
}

// mcpHandler serves the MCP tools derived from the schema, run through an
// executor configured like the GraphQL endpoint's.
func (s *Server) mcpHandler() (http.Handler, error) {
	tools, err := mcp.Tools(s.schema.Schema())
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

// originPatterns are the hosts of the allowed origins, as the WebSocket
// library matches them against a browser's Origin.
func (s *Server) originPatterns() []string {
	var hosts []string
	for _, o := range s.cfg.AllowedOrigins {
		if u, err := url.Parse(o); err == nil {
			hosts = append(hosts, u.Host)
		}
	}
	return hosts
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

// limitBody refuses request bodies over maxBodyBytes: at once with 413 and
// the LIMIT code when the declared length is too large, else by cutting the
// read short.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBodyBytes {
			writeGraphQLError(w, errs.New(errs.Limit, "the request body is %d bytes; the most allowed is %d", r.ContentLength, maxBodyBytes))
			return
		}
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
