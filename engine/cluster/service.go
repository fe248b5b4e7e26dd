package cluster

import (
	"log/slog"
	"slices"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Options tune the cluster operations.
type Options struct {
	// ReadRetry bounds the retries of the reads that check a request; zero
	// means the runner's (ops.Runner.ReadRetry).
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
	// dependents and leftovers are the other areas' parts of a
	// DeleteCluster (see DeleteFirst).
	dependents []Dependent
	leftovers  []Leftover
	// recorder ends createCluster and importCluster (see RecordWith).
	recorder Recorder
}

// New returns the service and registers its operation kinds with runner.
// Register before runner.Start so that resumed operations find their kind.
func New(st *store.Store, runner *ops.Runner, regions cloud.Regions, opts Options) *Service {
	if opts.ReadRetry.Attempts == 0 {
		opts.ReadRetry = runner.ReadRetry()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, runner: runner, regions: regions, opts: opts, log: opts.Logger}
	s.register()
	return s
}

// Get returns the cluster id.
func (s *Service) Get(id string) (*hyperpod.Cluster, error) {
	return store.Lookup[hyperpod.Cluster](s.store, RecordKind, id, "", store.Missing{Noun: "cluster", List: "list clusters"})
}

// Reach returns the cluster id and the ports of its region. With
// retryReads, a throttled read is tried again (Options.ReadRetry) before
// it fails: for the reads that check a request.
func (s *Service) Reach(id string, retryReads bool) (*hyperpod.Cluster, *cloud.Provider, error) {
	c, err := s.Get(id)
	if err != nil {
		return nil, nil, err
	}
	p, err := s.regions.Provider(c.Region)
	if err != nil {
		return nil, nil, errs.New(errs.Internal, "the cluster's region %s cannot be reached: %v", c.Region, err)
	}
	if retryReads {
		p = cloud.RetryReads(p, s.opts.ReadRetry.Do)
	}
	return c, p, nil
}

// Active lists the ACTIVE clusters, whose instance groups, nodes and
// workloads the refreshers keep current.
func (s *Service) Active() ([]*hyperpod.Cluster, error) {
	page, err := s.List(ListFilter{Statuses: []hyperpod.ClusterStatus{hyperpod.ClusterActive}}, 1<<20, "")
	if err != nil {
		return nil, err
	}
	return page.Items, nil
}

// List returns clusters matching f in creation order, after the cluster id
// after, at most first of them, with how many match in all.
func (s *Service) List(f ListFilter, first int, after string) (*Page, error) {
	p, err := s.ListPage(f, store.PageRequest{First: first, After: after, Count: true})
	if err != nil {
		return nil, err
	}
	return &Page{Items: p.Items, TotalCount: p.Total, HasNext: p.HasNext}, nil
}

// ListPage returns one page of the clusters matching f in creation order
// (their ULIDs' order), reading from the cursor on.
func (s *Service) ListPage(f ListFilter, req store.PageRequest) (*store.Page[hyperpod.Cluster], error) {
	var match func(*hyperpod.Cluster) bool
	if !f.IncludeDeleted || len(f.Statuses) > 0 {
		match = func(c *hyperpod.Cluster) bool {
			return (f.IncludeDeleted || c.Status != hyperpod.ClusterDeleted) && (len(f.Statuses) == 0 || slices.Contains(f.Statuses, c.Status))
		}
	}
	var page *store.Page[hyperpod.Cluster]
	err := s.store.View(func(tx *store.Tx) (err error) {
		page, err = store.ReadPage(tx, store.Scan{Kind: RecordKind}, req, match)
		return err
	})
	return page, err
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
	s.runner.Register(ops.Definition{Kind: KindRepairDependencies, StatusQuery: statusQuery, Steps: s.repairSteps, Reflect: reflectOperation})
	s.runner.Register(ops.Definition{Kind: KindGrantAccess, StatusQuery: statusQuery, Steps: s.grantSteps})
	s.runner.Register(ops.Definition{Kind: KindRevokeAccess, StatusQuery: statusQuery, Steps: s.revokeSteps})
	s.runner.Register(ops.Definition{Kind: KindScaleSystemNodes, StatusQuery: statusQuery, Steps: s.systemNodesSteps, Reflect: reflectOperation})
	s.runner.Register(ops.Definition{Kind: KindDeleteSystemNodes, StatusQuery: statusQuery, Steps: s.systemNodesSteps, Reflect: reflectOperation})
}
