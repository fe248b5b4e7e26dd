// Package server wires InstantStart together and serves it: it opens the
// store, builds the provider (the simulator or real AWS), the operation
// runner and the engine's services, and serves GraphQL (HTTP and
// WebSocket), health, readiness, metrics and, for the simulator, its /sim/
// endpoints on one listener.
package server

import (
	"context"

	"errors"
	"fmt"
	"github.com/99designs/gqlgen/graphql"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/preflight"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph"
	"github.com/instantstart/instantstart/resolvers"
	"github.com/instantstart/instantstart/resolvers/server/wsapi"
)

// The providers Config.Provider names.
const (
	ProviderSim = "sim"
	ProviderAWS = "aws"
)

// Config says how to build and serve InstantStart.
type Config struct {
	// Listen is the host:port to serve on; port 0 picks a free one (see Addr).
	Listen string
	// DataDir holds the store and, for the simulator, its saved world.
	DataDir string
	// Provider is ProviderSim (the default) or ProviderAWS.
	Provider string
	// SimSpeed divides the simulator's latencies and the runner's waits;
	// 0 means sim.DefaultSpeed.
	SimSpeed float64
	// Region is the default region; empty means the provider's default
	// (AWS_REGION or the shared config for AWS).
	Region string
	// SimFaults are injected into the simulator at start.
	SimFaults []sim.Fault
	// Version is what the version query answers.
	Version string
	// ShutdownTimeout bounds Run's shutdown; 0 means 30 s.
	ShutdownTimeout time.Duration
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger

	// AdminToken, when set, is the secret of the first admin token (from
	// INSTANTSTART_ADMIN_TOKEN); otherwise one is made and written to
	// <DataDir>/admin-token.
	AdminToken string
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
	// EventRetention bounds the event log by age and count; zero fields
	// take the store's defaults (7 days, 1,000,000 events).
	EventRetention store.EventRetention
}

// Server is a built InstantStart, listening and ready for Run.
type Server struct {
	cfg      Config
	log      *slog.Logger
	store    *store.Store
	world    *sim.World // nil unless the provider is the simulator
	regions  cloud.Regions
	runner   *ops.Runner
	clusters *cluster.Service
	compute  *compute.Service
	features *features.Service
	auth     *auth.Service
	limits   *limiter
	schema   graphql.ExecutableSchema
	metrics  *metrics
	ws       *wsapi.Server
	scale    float64 // how much faster than AWS the provider answers: the simulator's speed, or 1

	listener     net.Listener
	http         *http.Server
	stopRequests context.CancelFunc // ends every request's context
	handlers     sync.WaitGroup     // handlers still running, WebSockets included
}

// New opens the store in cfg.DataDir, builds the provider, the runner and
// the services, resumes unfinished operations, and binds the listener.
// Every Server must be Run once: Run with a done context only shuts it down.
func New(cfg Config) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("no data directory: set --data-dir")
	}
	if cfg.Provider == "" {
		cfg.Provider = ProviderSim
	}
	if cfg.Provider != ProviderSim && cfg.Provider != ProviderAWS {
		return nil, fmt.Errorf("unknown provider %q: use %s or %s", cfg.Provider, ProviderSim, ProviderAWS)
	}
	if cfg.SimSpeed == 0 {
		cfg.SimSpeed = sim.DefaultSpeed
	}
	if cfg.SimSpeed < 0 {
		return nil, fmt.Errorf("sim speed must be positive, got %v", cfg.SimSpeed)
	}
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

// build makes each part in order: the store first, so that its directory
// lock also guards the simulator's world file.
func (s *Server) build() error {
	st, err := store.Open(s.cfg.DataDir, store.Options{SyncWrites: true, Logger: s.log, EventRetention: s.cfg.EventRetention})
	if err != nil {
		return err
	}
	s.store = st
	s.auth = auth.New(st, auth.Options{Logger: s.log})
	// Bootstrap logs where the first admin token is (never the token).
	if _, err := s.auth.Bootstrap(s.cfg.DataDir, s.cfg.AdminToken); err != nil {
		return fmt.Errorf("create the first admin token: %w", err)
	}

	s.scale = 1
	backoff, phaseTimeout := ops.DefaultBackoff, 2*time.Hour
	switch s.cfg.Provider {
	case ProviderSim:
		if err := s.buildSim(); err != nil {
			return err
		}
		s.scale = s.cfg.SimSpeed
		backoff = backoff.Scaled(s.scale)
		phaseTimeout = max(time.Duration(float64(phaseTimeout)/s.scale), 2*time.Second)
	case ProviderAWS:
		regions, err := awscloud.New(context.Background(), awscloud.Options{DefaultRegion: s.cfg.Region})
		if err != nil {
			return err
		}
		s.regions = regions
	}

	s.metrics = newMetrics(s.store.Subscribers)
	s.runner = ops.NewRunner(s.store, ops.Options{
		Backoff: backoff, PhaseTimeout: phaseTimeout, Logger: s.log, Observer: s.metrics,
	})
	s.clusters = cluster.New(s.store, s.runner, s.regions, cluster.Options{Scale: s.scale, Logger: s.log})
	s.compute = compute.New(s.store, s.runner, s.regions, cluster.ComputeView{Service: s.clusters}, compute.Options{Scale: s.scale, Logger: s.log})
	s.features = features.New(s.store, s.runner, s.regions, cluster.FeaturesView{Service: s.clusters}, features.Options{Scale: s.scale, Logger: s.log})
	if err := s.runner.Start(); err != nil {
		return fmt.Errorf("resume operations: %w", err)
	}

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

func (s *Server) buildSim() error {
	world, err := sim.New(sim.Options{
		Speed:         s.cfg.SimSpeed,
		Storage:       sim.FileStorage{Path: filepath.Join(s.cfg.DataDir, "sim-world.json")},
		DefaultRegion: s.cfg.Region,
	})
	if err != nil {
		return err
	}
	active := map[string]bool{}
	for _, f := range world.Faults() {
		active[f.ID] = true
	}
	for _, f := range s.cfg.SimFaults {
		if f.ID != "" && active[f.ID] {
			s.log.Info("simulator fault already active", "fault", f.ID)
			continue
		}
		stored, err := world.InjectFault(f)
		if err != nil {
			return fmt.Errorf("inject simulator fault: %w", err)
		}
		s.log.Info("simulator fault injected", "fault", stored.ID, "kind", stored.Kind)
	}
	s.world, s.regions = world, world
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
	if s.runner != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		defer cancel()
		if err := s.runner.Shutdown(ctx); err != nil {
			s.log.Error("stop operations", "err", err)
		}
	}
	if s.store != nil {
		if err := s.store.Close(); err != nil {
			s.log.Error("close store", "err", err)
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
func (s *Server) Store() *store.Store { return s.store }

// WebSocketWrites returns how many writes the server made to WebSocket
// connections and how many messages they held.
func (s *Server) WebSocketWrites() (writes, messages uint64) { return s.ws.Written() }

// Sim is the simulated AWS account, or nil when the provider is AWS.
func (s *Server) Sim() *sim.World { return s.world }

// Run serves until ctx ends or the listener fails, then shuts down: it stops
// taking HTTP requests and ends subscriptions, lets running phases reach a
// stored point, and closes the store.
func (s *Server) Run(ctx context.Context) error {
	served := make(chan error, 1)
	go func() {
		if s.tls() {
			served <- s.http.ServeTLS(s.listener, s.cfg.TLSCert, s.cfg.TLSKey)
			return
		}
		served <- s.http.Serve(s.listener)
	}()
	refreshCtx, stopRefresh := context.WithCancel(context.Background())
	refreshed := make(chan struct{}, 2)
	go func() {
		defer func() { refreshed <- struct{}{} }()
		cluster.Refresher{Service: s.clusters, Fast: s.scaled(15 * time.Second), Slow: s.scaled(5 * time.Minute)}.Run(refreshCtx)
	}()
	go func() {
		defer func() { refreshed <- struct{}{} }()
		compute.Refresher{Service: s.compute, Fast: s.scaled(20 * time.Second), Slow: s.scaled(5 * time.Minute)}.Run(refreshCtx)
	}()
	s.log.Info("InstantStart is serving",
		"graphql", s.URL()+"/graphql", "websocket", "ws://"+s.Addr()+"/graphql",
		"metrics", s.URL()+"/metrics", "health", s.URL()+"/healthz",
		"provider", s.cfg.Provider, "region", s.regions.DefaultRegion(), "dataDir", s.cfg.DataDir,
		"simSpeed", s.simSpeed(), "version", s.cfg.Version)
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
		err = fmt.Errorf("serve HTTP: %w", err)
	}
	stopRefresh()
	<-refreshed
	<-refreshed
	return errors.Join(err, s.shutdown())
}

// scaled divides a real-world interval by the simulator's speed.
func (s *Server) scaled(d time.Duration) time.Duration {
	if s.world == nil {
		return d
	}
	return max(time.Duration(float64(d)/s.scale), 10*time.Millisecond)
}

func (s *Server) simSpeed() any {
	if s.world == nil {
		return "n/a"
	}
	return s.cfg.SimSpeed
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
	if err := s.runner.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := s.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
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
	return &resolvers.Resolver{Version: s.cfg.Version, Store: s.store, Ops: s.runner, Clusters: s.clusters, Compute: s.compute, Features: s.features, Auth: s.auth,
		Preflight: preflight.New(s.regions, preflight.Options{Scale: s.scale}), Log: s.log}
}
