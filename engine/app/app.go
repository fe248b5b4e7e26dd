// Package app is InstantStart's composition root: from a Config it opens the
// store, makes the first admin token, builds the provider (the embedded
// simulator or real AWS), the operation runner and the engine's services,
// and resumes unfinished operations. The HTTP server in resolvers/server
// serves what it builds; main only reads flags.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/models"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/podlogs"
	"github.com/instantstart/instantstart/engine/preflight"
	"github.com/instantstart/instantstart/engine/refresh"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simwire"
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/training"
)

// The providers Config.Provider names.
const (
	ProviderSim = "sim"
	ProviderAWS = "aws"
)

// Config says which engine to build.
type Config struct {
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
	// HelmChartDir, when set, is a directory of chart archives
	// (<chart>-<version>.tgz, as helm pull writes them) from which every
	// Helm chart is installed instead of from its repository, for hosts
	// that cannot reach the chart repositories. Only with ProviderAWS; see
	// awscloud.Options.ChartDir.
	HelmChartDir string
	// SimFaults are injected into the simulator at start.
	SimFaults []sim.Fault
	// Sim tunes the simulated world (its clock, seed, account or
	// catalog); its Speed, DefaultRegion and Storage are ignored: they come
	// from SimSpeed, Region, DataDir and InMemory.
	Sim sim.Options
	// SimPorts, when set, makes from the simulated world the ports the
	// engine calls, in place of the world's own: tests pass the real
	// provider's SDK clients pointed at the world's wire endpoint.
	SimPorts func(*sim.World) cloud.Regions
	// InMemory keeps the store, and the simulator's world, in memory only:
	// nothing outlives the App but the first admin token's file. For tests.
	InMemory bool
	// SimAWSListen, when set, is a loopback host:port on which Refresh
	// also serves the simulator's AWS services over their wire protocols
	// (see package simwire). Only with ProviderSim.
	SimAWSListen string
	// AdminToken, when set, is the secret of the first admin token (from
	// INSTANTSTART_ADMIN_TOKEN); otherwise one is made and written to
	// <DataDir>/admin-token.
	AdminToken string
	// EventRetention bounds the event log by age and count; zero fields
	// take the store's defaults (7 days, 1,000,000 events).
	EventRetention store.EventRetention
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Observer hears of operation progress (the server's metrics); nil
	// for none.
	Observer ops.Observer
}

// SimWorldFile is the file, inside the data directory, that keeps the
// simulator's world.
const SimWorldFile = "sim-world.json"

// BackupFiles are the files of the data directory that a backup holds
// besides the store: the simulator's world, so that a simulated deployment
// restores whole. The first admin token's file is left out: it is a secret,
// and the store keeps the token itself (hashed).
func BackupFiles() []string { return []string{SimWorldFile} }

// App is the built engine. Its parts are shared by every surface.
type App struct {
	// Config is what the App was built from, with defaults filled in.
	Config Config

	Store     *store.Store
	Auth      *auth.Service
	Regions   cloud.Regions
	World     *sim.World // nil unless the provider is the simulator
	Runner    *ops.Runner
	Clusters  *cluster.Service
	Compute   *compute.Service
	Features  *features.Service
	Storage   *storage.Service
	Models    *models.Service
	Training  *training.Service
	Inference *inference.Service
	Preflight *preflight.Service
	// Logs is the hub of pods' logs that jobs and endpoints share: one
	// upstream stream per pod, whoever views it.
	Logs *podlogs.Hub
	// Scale is how much faster than AWS the provider answers: the
	// simulator's speed, or 1.
	Scale float64
	// SimAWS listens on Config.SimAWSListen; nil without it.
	SimAWS net.Listener
}

// New builds the engine cfg describes and resumes unfinished operations.
// Every App must be Closed.
func New(cfg Config) (*App, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("no data directory: set --data-dir")
	}
	if cfg.Provider == "" {
		cfg.Provider = ProviderSim
	}
	if cfg.Provider != ProviderSim && cfg.Provider != ProviderAWS {
		return nil, fmt.Errorf("unknown provider %q: use %s or %s", cfg.Provider, ProviderSim, ProviderAWS)
	}
	if cfg.SimAWSListen != "" && cfg.Provider != ProviderSim {
		return nil, fmt.Errorf("the simulator's AWS endpoint (--sim-aws-listen) needs --provider %s, not %s", ProviderSim, cfg.Provider)
	}
	if cfg.HelmChartDir != "" && cfg.Provider != ProviderAWS {
		return nil, fmt.Errorf("the offline chart folder (--helm-chart-dir) is for real clusters, so it needs --provider %s, not %s; the simulator reads no chart archives", ProviderAWS, cfg.Provider)
	}
	if cfg.SimSpeed == 0 {
		cfg.SimSpeed = sim.DefaultSpeed
	}
	if cfg.SimSpeed < 0 {
		return nil, fmt.Errorf("sim speed must be positive, got %v", cfg.SimSpeed)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &App{Config: cfg, Scale: 1}
	if err := a.build(); err != nil {
		if a.Store != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if cerr := a.Close(ctx); cerr != nil {
				cfg.Logger.Error("close what was built", "err", cerr)
			}
		}
		return nil, err
	}
	return a, nil
}

// build makes each part in order: the store first, so that its directory
// lock also guards the simulator's world file.
func (a *App) build() error {
	cfg, log := a.Config, a.Config.Logger
	st, err := store.Open(cfg.DataDir, store.Options{SyncWrites: true, InMemory: cfg.InMemory, Logger: log, EventRetention: cfg.EventRetention})
	if err != nil {
		return err
	}
	a.Store = st
	a.Auth = auth.New(st, auth.Options{Logger: log})
	// Bootstrap logs where the first admin token is (never the token).
	if _, err := a.Auth.Bootstrap(cfg.DataDir, cfg.AdminToken); err != nil {
		return fmt.Errorf("create the first admin token: %w", err)
	}

	switch cfg.Provider {
	case ProviderSim:
		if err := a.buildSim(); err != nil {
			return err
		}
		a.Scale = cfg.SimSpeed
	case ProviderAWS:
		regions, err := awscloud.New(context.Background(), awscloud.Options{DefaultRegion: cfg.Region, ChartDir: cfg.HelmChartDir})
		if err != nil {
			return err
		}
		a.Regions = regions
	}

	// The runner scales every wait of every area for the simulator's speed.
	a.Runner = ops.NewRunner(st, ops.Options{Speed: a.Scale, Logger: log, Observer: cfg.Observer})
	// Each area gets what it needs of another as an interface it declares,
	// filled here with the other area's service. The features read the
	// shared bucket through storage's store reader, not its service: the
	// storage service is built on the features.
	a.Clusters = cluster.New(st, a.Runner, a.Regions, cluster.Options{Logger: log})
	if a.Compute, err = compute.New(st, a.Runner, a.Regions, a.Clusters, compute.Options{Logger: log}); err != nil {
		return fmt.Errorf("open the instance groups and nodes: %w", err)
	}
	a.Clusters.RecordWith(a.Compute)
	a.Features = features.New(st, a.Runner, a.Clusters, features.Options{Logger: log, Buckets: storage.SharedBuckets{Store: st}})
	a.Storage = storage.New(st, a.Runner, a.Clusters, a.Features, storage.Options{Logger: log})
	a.Models = models.New(st, a.Runner, a.Clusters, a.Storage, models.Options{Logger: log})
	a.Logs = podlogs.NewHub(openPodLog(a.Clusters), podlogs.Options{Logger: log})
	a.Training = training.New(st, a.Runner, a.Clusters, a.Storage, a.Compute, a.Features, training.Options{Logger: log, Logs: a.Logs})
	a.Inference = inference.New(st, a.Runner, a.Clusters, a.Storage, a.Compute, a.Features, inference.Options{Logger: log, Logs: a.Logs, Now: cfg.Sim.Clock})
	// Deleting a cluster with cascade ends its endpoints, then its jobs,
	// its downloads and its storage, and removes what the features made
	// outside the EKS cluster once it is gone.
	a.Clusters.DeleteFirst([]cluster.Leftover{a.Features}, a.Inference, a.Training, a.Models, a.Storage)
	a.Preflight = preflight.New(a.Regions, preflight.Options{ReadRetry: a.Runner.ReadRetry()})
	if err := a.Runner.Start(); err != nil {
		return fmt.Errorf("resume operations: %w", err)
	}
	return nil
}

func (a *App) buildSim() error {
	cfg, log := a.Config, a.Config.Logger
	opts := cfg.Sim
	opts.Speed, opts.DefaultRegion, opts.Storage = cfg.SimSpeed, cfg.Region, nil
	if !cfg.InMemory {
		opts.Storage = sim.FileStorage{Path: filepath.Join(cfg.DataDir, SimWorldFile)}
	}
	world, err := sim.New(opts)
	if err != nil {
		return err
	}
	active := map[string]bool{}
	for _, f := range world.Faults() {
		active[f.ID] = true
	}
	for _, f := range cfg.SimFaults {
		if f.ID != "" && active[f.ID] {
			log.Info("simulator fault already active", "fault", f.ID)
			continue
		}
		stored, err := world.InjectFault(f)
		if err != nil {
			return fmt.Errorf("inject simulator fault: %w", err)
		}
		log.Info("simulator fault injected", "fault", stored.ID, "kind", stored.Kind)
	}
	a.World, a.Regions = world, world
	if cfg.SimPorts != nil {
		a.Regions = cfg.SimPorts(world)
	}
	if cfg.SimAWSListen != "" {
		l, err := simwire.Listen(cfg.SimAWSListen)
		if err != nil {
			return err
		}
		a.SimAWS = l
		// Presigned S3 URLs (uploads from the browser) point there.
		world.SetWireEndpoint("http://" + l.Addr().String())
		log.Info("simulator's AWS endpoint listening", "endpoint", "http://"+l.Addr().String())
	}
	return nil
}

// Refresh keeps the stored clusters and instance groups in line with the
// cloud until ctx ends: often while something is changing, seldom while all
// is settled.
//
// With a SimAWS listener it also serves the simulator's AWS services there
// until ctx ends, since the refreshers' lifetime is the server's.
func (a *App) Refresh(ctx context.Context) {
	wire := make(chan struct{})
	go func() {
		defer close(wire)
		if a.SimAWS == nil {
			return
		}
		h := &simwire.Handler{Providers: a.World.Provider, DefaultRegion: a.World.DefaultRegion(),
			ECR: func(region string) (any, error) { return a.World.ECR(region) }}
		if err := simwire.Serve(ctx, a.SimAWS, h); err != nil {
			a.Config.Logger.Error("simulator's AWS endpoint stopped", "err", err)
		}
	}()
	log := a.Config.Logger
	loops := []struct {
		name       string
		fast, slow time.Duration
		step       func(context.Context) (bool, error)
	}{
		{"refresh clusters", 15 * time.Second, 5 * time.Minute, func(ctx context.Context) (bool, error) {
			changed, err := a.Clusters.Refresh(ctx)
			return changed > 0, err
		}},
		{"refresh jobs", 10 * time.Second, 2 * time.Minute, a.Training.Refresh},
		{"refresh endpoints", 10 * time.Second, 2 * time.Minute, a.Inference.Refresh},
		{"refresh compute", 20 * time.Second, 5 * time.Minute, a.Compute.Refresh},
	}
	var wg sync.WaitGroup
	for _, l := range loops {
		wg.Go(func() { refresh.Loop(ctx, a.Scaled(l.fast), a.Scaled(l.slow), log, l.name, l.step) })
	}
	wg.Wait()
	<-wire
}

// Scaled divides a real-world interval by the simulator's speed.
func (a *App) Scaled(d time.Duration) time.Duration {
	if a.World == nil {
		return d
	}
	return max(time.Duration(float64(d)/a.Scale), 10*time.Millisecond)
}

// Close lets running phases reach a stored point, within ctx, and closes
// the store.
func (a *App) Close(ctx context.Context) error {
	var errs []error
	if a.Runner != nil {
		if err := a.Runner.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop operations: %w", err))
		}
	}
	if a.Logs != nil {
		a.Logs.Close()
	}
	if a.SimAWS != nil {
		_ = a.SimAWS.Close() // already closed when Refresh ran
	}
	if err := a.Store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	return errors.Join(errs...)
}
