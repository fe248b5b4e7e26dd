package cluster

import (
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Options tune the cluster operations.
type Options struct {
	// Scale divides the phase timeouts (the simulator's speed; 1 for AWS).
	Scale float64
	// ReadRetry bounds the retries of the reads that check a request; zero
	// means ops.DefaultReadRetry scaled by Scale.
	ReadRetry ops.ReadRetry
	Logger    *slog.Logger
}

// Service creates, imports, reads and deletes clusters.
type Service struct {
	store   *store.Store
	runner  *ops.Runner
	regions cloud.Regions
	opts    Options
	ids     store.IDs
	log     *slog.Logger
}

// New returns the service and registers its operation kinds with runner.
// Register before runner.Start so that resumed operations find their kind.
func New(st *store.Store, runner *ops.Runner, regions cloud.Regions, opts Options) *Service {
	if opts.Scale <= 0 {
		opts.Scale = 1
	}
	if opts.ReadRetry.Attempts == 0 {
		opts.ReadRetry = ops.DefaultReadRetry.Scaled(opts.Scale)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, runner: runner, regions: regions, opts: opts, log: opts.Logger}
	s.register()
	return s
}

// timeout scales a real-world phase timeout by the provider's speed.
func (s *Service) timeout(d time.Duration) time.Duration {
	t := time.Duration(float64(d) / s.opts.Scale)
	if t < 2*time.Second {
		t = 2 * time.Second
	}
	return t
}

// Get returns the cluster id.
func (s *Service) Get(id string) (*Cluster, error) {
	var c Cluster
	err := s.store.View(func(tx *store.Tx) error { return tx.Get(RecordKind, id, &c) })
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.New(errs.NotFound, "cluster %q does not exist; list clusters to find its id", id)
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// List returns clusters matching f in creation order, after the cluster id
// after, at most first of them.
func (s *Service) List(f ListFilter, first int, after string) (*Page, error) {
	var all []*Cluster
	err := s.store.View(func(tx *store.Tx) error {
		return tx.List(RecordKind, "", func(id string, raw []byte) (bool, error) {
			var c Cluster
			if err := json.Unmarshal(raw, &c); err != nil {
				return false, err
			}
			if (f.IncludeDeleted || c.Status != StatusDeleted) && (len(f.Statuses) == 0 || slices.Contains(f.Statuses, c.Status)) {
				all = append(all, &c)
			}
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	start := 0
	if after != "" {
		start = len(all)
		for i, c := range all {
			if c.ID == after {
				start = i + 1
				break
			}
		}
	}
	end := min(start+first, len(all))
	return &Page{Items: all[start:end], TotalCount: len(all), HasNext: end < len(all)}, nil
}

// provider returns the ports of region (the default region when empty).
func (s *Service) provider(region string) (*cloud.Provider, error) {
	if region == "" {
		region = s.regions.DefaultRegion()
	}
	p, err := s.regions.Provider(region)
	if err != nil {
		return nil, errs.Field("input.region", "%v", err)
	}
	return p, nil
}

// checkProvider returns the ports of region for the reads that check a
// request: a throttled read is tried again (Options.ReadRetry) before the
// request fails with it.
func (s *Service) checkProvider(region string) (*cloud.Provider, error) {
	p, err := s.provider(region)
	if err != nil {
		return nil, err
	}
	return cloud.RetryReads(p, s.opts.ReadRetry.Do), nil
}

// register adds the cluster operation kinds to the runner.
func (s *Service) register() {
	s.runner.Register(ops.Definition{Kind: KindCreate, StatusQuery: statusQuery, Steps: s.createSteps, Reflect: reflectOperation})
	s.runner.Register(ops.Definition{Kind: KindImport, StatusQuery: statusQuery, Steps: s.importSteps, Reflect: reflectOperation})
	s.runner.Register(ops.Definition{Kind: KindDelete, StatusQuery: statusQuery, Steps: s.deleteSteps, Reflect: reflectOperation})
}
