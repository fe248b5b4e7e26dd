// Package server serves InstantStart on one listener: GraphQL (HTTP and
// WebSocket), MCP, the web UI, health, readiness, metrics, backups and,
// for the simulator, its /sim/ endpoints. The engine it serves is built by
// engine/app, the composition root.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph"
	"github.com/instantstart/instantstart/resolvers"
	"github.com/instantstart/instantstart/resolvers/server/wsapi"
)

// Config says how to build and serve InstantStart.
type Config struct {
	// Engine says which engine to build: data directory, provider,
	// region, simulator speed and faults, the first admin token. Its
	// Logger, when nil, is Logger; its Observer is the server's metrics.
	Engine app.Config
	// Listen is the host:port to serve on; port 0 picks a free one (see Addr).
	Listen string
	// Version is what the version query answers.
	Version string
	// ShutdownTimeout bounds Run's shutdown; 0 means 30 s.
	ShutdownTimeout time.Duration
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger

	// AllowedOrigins are browser origins besides the server's own that may
	// open WebSockets and send cookie-authenticated requests
	// (e.g. https://instantstart.example.com).
	AllowedOrigins []string
	// TLSCert and TLSKey serve HTTPS when both are set.
	TLSCert, TLSKey string
	// MetricsAuth makes /metrics need a viewer token; by default it is open
	// like the health checks.
	MetricsAuth bool
	// Limits bound what one client may send or hold; zero fields take
	// DefaultLimits.
	Limits Limits
}

// Server is a built InstantStart, listening and ready for Run.
type Server struct {
	cfg     Config
	log     *slog.Logger
	app     *app.App
	limits  *limiter
	schema  graphql.ExecutableSchema
	metrics *metrics
	ws      *wsapi.Server

	listener     net.Listener
	http         *http.Server
	stopRequests context.CancelFunc // ends every request's context
	handlers     sync.WaitGroup     // handlers still running, WebSockets included
}

// New builds the engine cfg.Engine describes (see app.New), which resumes
// unfinished operations, and binds the listener. Every Server must be Run
// once: Run with a done context only shuts it down.
func New(cfg Config) (*Server, error) {
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("TLS needs both --tls-cert and --tls-key")
	}
	for i, o := range cfg.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("allowed origin %q is not an origin: use scheme://host[:port], e.g. https://instantstart.example.com", o)
		}
		cfg.AllowedOrigins[i] = u.Scheme + "://" + u.Host
	}
	s := &Server{cfg: cfg, log: cfg.Logger, limits: newLimiter(cfg.Limits)}
	if err := s.build(); err != nil {
		s.closeBuilt()
		return nil, err
	}
	return s, nil
}

// build makes the engine, then the GraphQL schema, the routes and the
// listener.
func (s *Server) build() error {
	// The gauge reads the store only when scraped, after the engine is built.
	s.metrics = newMetrics(func() int { return s.app.Store.Subscribers() })
	engine := s.cfg.Engine
	if engine.Logger == nil {
		engine.Logger = s.log
	}
	engine.Observer = s.metrics
	a, err := app.New(engine)
	if err != nil {
		return err
	}
	s.app = a

	s.schema = graph.NewExecutableSchema(graph.Config{Resolvers: s.resolver()})
	routes, err := s.routes()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Listen, err)
	}
	s.listener = ln
	baseCtx, stop := context.WithCancel(context.Background())
	s.stopRequests = stop
	s.http = &http.Server{
		Handler:           routes,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	// WebSockets are hijacked and long polls may wait minutes: Shutdown
	// would not end the first and would wait for the second.
	s.http.RegisterOnShutdown(stop)
	return nil
}

// closeBuilt releases what a failed build opened.
func (s *Server) closeBuilt() {
	if s.listener != nil {
		s.listener.Close()
	}
	if s.ws != nil {
		s.ws.Close()
	}
	if s.app != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		defer cancel()
		if err := s.app.Close(ctx); err != nil {
			s.log.Error("close the engine", "err", err)
		}
	}
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.listener.Addr().String() }

// URL is the base URL of the server, e.g. http://127.0.0.1:3099.
func (s *Server) URL() string {
	if s.tls() {
		return "https://" + s.Addr()
	}
	return "http://" + s.Addr()
}

// Store is the server's record store (for tests and tools in the same
// process).
func (s *Server) Store() *store.Store { return s.app.Store }

// WebSocketWrites returns how many writes the server made to WebSocket
// connections and how many messages they held.
func (s *Server) WebSocketWrites() (writes, messages uint64) { return s.ws.Written() }

// Sim is the simulated AWS account, or nil when the provider is AWS.
func (s *Server) Sim() *sim.World { return s.app.World }

// Run serves until ctx ends or the listener fails, then shuts down: it stops
// taking HTTP requests and ends subscriptions, lets running phases reach a
// stored point, and closes the store.
func (s *Server) Run(ctx context.Context) error {
	// The URL is published before the first request is served (the
	// listener is bound already), so a client that was answered finds it.
	if err := s.publishURL(); err != nil {
		s.log.Warn("could not write the server's URL into the data directory: instantstart backup will not find this server", "file", URLFile, "err", err)
	}
	served := make(chan error, 1)
	go func() {
		if s.tls() {
			served <- s.http.ServeTLS(s.listener, s.cfg.TLSCert, s.cfg.TLSKey)
			return
		}
		served <- s.http.Serve(s.listener)
	}()
	refreshCtx, stopRefresh := context.WithCancel(context.Background())
	refreshed := make(chan struct{})
	go func() {
		defer close(refreshed)
		s.app.Refresh(refreshCtx)
	}()
	s.log.Info("InstantStart is serving",
		"graphql", s.URL()+"/graphql", "websocket", "ws://"+s.Addr()+"/graphql",
		"metrics", s.URL()+"/metrics", "health", s.URL()+"/healthz",
		"provider", s.app.Config.Provider, "region", s.app.Regions.DefaultRegion(), "dataDir", s.app.Config.DataDir,
		"simSpeed", s.simSpeed(), "version", s.cfg.Version)
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
		err = fmt.Errorf("serve HTTP: %w", err)
	}
	s.unpublishURL()
	stopRefresh()
	<-refreshed
	return errors.Join(err, s.shutdown())
}

func (s *Server) simSpeed() any {
	if s.app.World == nil {
		return "n/a"
	}
	return s.app.Config.SimSpeed
}

func (s *Server) shutdown() error {
	s.log.Info("shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	var errs []error
	if err := s.http.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stop HTTP: %w", err))
		s.http.Close()
	}
	s.stopRequests()
	s.ws.Close()
	if err := s.waitHandlers(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := s.app.Close(ctx); err != nil {
		errs = append(errs, err)
	}
	s.log.Info("stopped")
	return errors.Join(errs...)
}

// waitHandlers waits for handlers that Shutdown does not track (WebSockets)
// to return, so none touches the store after it closes.
func (s *Server) waitHandlers(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("connections still open: %w", ctx.Err())
	}
}

// resolver is the root of the GraphQL resolvers.
func (s *Server) resolver() *resolvers.Resolver {
	a := s.app
	return &resolvers.Resolver{Version: s.cfg.Version, Store: a.Store, Ops: a.Runner, Clusters: a.Clusters, Compute: a.Compute, Features: a.Features, Storage: a.Storage, Models: a.Models, Training: a.Training, Inference: a.Inference, Auth: a.Auth,
		Preflight: a.Preflight, Log: s.log}
}
