// Package compute manages the compute of HyperPod clusters: instance groups
// (add, scale, update, delete) and their nodes (list, health, reboot,
// replace, delete, diagnose). It keeps a record of every group and node,
// refreshed from HyperPod and Kubernetes, so that changes reach subscribers
// as events. It knows clusters only through the Clusters interface.
package compute

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Record kinds and the target kinds operations name.
const (
	GroupKind = "instance_group"
	NodeKind  = "node"

	GroupTarget = "INSTANCE_GROUP"
	NodesTarget = "CLUSTER_NODES"
)

// groupIndex maps <cluster id>/<group name> to the id of the live group.
const groupIndex = "instance-group-name"

// Node health labels and deep health check results, as the schema names
// them.
const (
	HealthSchedulable          = "SCHEDULABLE"
	HealthUnschedulable        = "UNSCHEDULABLE"
	HealthPendingReboot        = "UNSCHEDULABLE_PENDING_REBOOT"
	HealthPendingReplacement   = "UNSCHEDULABLE_PENDING_REPLACEMENT"
	HealthUnknown              = "UNKNOWN"
	DeepCheckPassed            = "PASSED"
	DeepCheckFailed            = "FAILED"
	DeepCheckInProgress        = "IN_PROGRESS"
	DeepCheckNone              = "NONE"
	nodeStatusRunning          = "RUNNING"
	nodeStatusDeepHealthChecks = "DEEP_HEALTH_CHECK_IN_PROGRESS"
)

// Node is the record of a HyperPod instance; its id is the instance id.
type Node struct {
	ID              string     `json:"id"`
	ClusterID       string     `json:"clusterId"`
	GroupID         string     `json:"instanceGroupId"`
	GroupName       string     `json:"instanceGroupName"`
	LogicalID       string     `json:"logicalId,omitempty"`
	InstanceType    string     `json:"instanceType"`
	Status          string     `json:"status"` // NodeStatus in the schema's form, e.g. DEEP_HEALTH_CHECK_IN_PROGRESS
	StatusMessage   string     `json:"statusMessage,omitempty"`
	Health          string     `json:"health"`
	DeepHealthCheck string     `json:"deepHealthCheck"`
	CapacityType    string     `json:"capacityType"`
	Zone            string     `json:"zone"`
	PrivateDNS      string     `json:"privateDnsHostname,omitempty"`
	KubeNodeName    string     `json:"kubernetesNodeName,omitempty"`
	ImageVersion    string     `json:"imageVersion,omitempty"`
	ImageStatus     string     `json:"imageVersionStatus,omitempty"` // ImageVersionStatus in the schema's form; empty is UNKNOWN
	LaunchTime      *time.Time `json:"launchTime,omitempty"`
	UpdatedAt       time.Time  `json:"updatedAt"`
}

// Healthy reports whether the node runs and takes work.
func (n *Node) Healthy() bool {
	return n.Status == nodeStatusRunning && n.Health == HealthSchedulable && n.DeepHealthCheck != DeepCheckFailed
}

// Clusters is the part of the cluster area compute uses.
type Clusters interface {
	// Get returns the cluster id, or a NOT_FOUND error.
	Get(id string) (*hyperpod.Cluster, error)
	// Active lists the clusters whose compute the refresher keeps current.
	Active() ([]*hyperpod.Cluster, error)
	// ComputeSubnet returns the id of the cluster's compute subnet in zone,
	// making it first when create is true (a /20 placed by
	// netplan.ComputeSubnet and routed like the others); "" when there is
	// none and create is false.
	ComputeSubnet(ctx context.Context, clusterID, zone string, create bool) (string, error)
	// DependenciesStep returns the phase that installs the cluster
	// dependencies a new group of instanceTypes needs beyond those every
	// cluster has (the Neuron device plugin for Trainium), or nil when it
	// needs none.
	DependenciesStep(clusterID string, instanceTypes []string) (*ops.Step, error)
}

// Options tune the service.
type Options struct {
	// ReadRetry bounds the retries of the reads that check a request; zero
	// means the runner's (ops.Runner.ReadRetry).
	ReadRetry ops.ReadRetry
	Logger    *slog.Logger
}

// Service manages instance groups and nodes.
type Service struct {
	store    *store.Store
	runner   *ops.Runner
	regions  cloud.Regions
	clusters Clusters
	opts     Options
	ids      store.IDs
	log      *slog.Logger
}

// New returns the service and registers its operation kinds with runner
// (before runner.Start, so resumed operations find their kind). It indexes
// the nodes of a store written before the node-order index existed.
func New(st *store.Store, runner *ops.Runner, regions cloud.Regions, clusters Clusters, opts Options) (*Service, error) {
	if opts.ReadRetry.Attempts == 0 {
		opts.ReadRetry = runner.ReadRetry()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, runner: runner, regions: regions, clusters: clusters, opts: opts, log: opts.Logger}
	if err := s.indexNodes(); err != nil {
		return nil, err
	}
	s.register()
	return s, nil
}

// stepStart decodes op's stored request into in, then reads the cluster
// it names (clusterID, called after the decode) and that cluster's
// provider: what every operation of this area needs to build its phases.
func (s *Service) stepStart(op *ops.Operation, in any, clusterID func() string) (*hyperpod.Cluster, *cloud.Provider, error) {
	if err := json.Unmarshal(op.Input, in); err != nil {
		return nil, nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	c, err := s.clusters.Get(clusterID())
	if err != nil {
		return nil, nil, err
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return nil, nil, err
	}
	return c, p, nil
}

func (s *Service) provider(region string) (*cloud.Provider, error) {
	p, err := s.regions.Provider(region)
	if err != nil {
		return nil, errs.New(errs.Internal, "the cluster's region %s cannot be reached: %v", region, err)
	}
	return p, nil
}

// checkProvider returns the ports of region for the reads that check a
// request or answer a query: a throttled read is tried again
// (Options.ReadRetry) before the request fails with it.
func (s *Service) checkProvider(region string) (*cloud.Provider, error) {
	p, err := s.provider(region)
	if err != nil {
		return nil, err
	}
	return cloud.RetryReads(p, s.opts.ReadRetry.Do), nil
}

// Group returns the instance group id.
func (s *Service) Group(id string) (*hyperpod.InstanceGroup, error) {
	return store.Lookup[hyperpod.InstanceGroup](s.store, GroupKind, id, "", store.Missing{Noun: "instance group", List: "list the cluster's instance groups"})
}

// Groups returns the live groups of a cluster in creation order (deleted
// ones too when withDeleted).
func (s *Service) Groups(clusterID string, withDeleted bool) ([]*hyperpod.InstanceGroup, error) {
	return s.groupsWhere(func(g *hyperpod.InstanceGroup) bool {
		return g.ClusterID == clusterID && (withDeleted || g.Status != hyperpod.GroupDeleted)
	})
}

// GroupsPage returns one page of the live groups of a cluster in creation
// order (their ULIDs' order), reading from the cursor on.
func (s *Service) GroupsPage(clusterID string, req store.PageRequest) (*store.Page[hyperpod.InstanceGroup], error) {
	live := func(g *hyperpod.InstanceGroup) bool {
		return g.ClusterID == clusterID && g.Status != hyperpod.GroupDeleted
	}
	var page *store.Page[hyperpod.InstanceGroup]
	err := s.store.View(func(tx *store.Tx) (err error) {
		page, err = store.ReadPage(tx, store.Scan{Kind: GroupKind}, req, live)
		return err
	})
	return page, err
}

// groupsWhere returns the group records that keep accepts, in creation
// order.
func (s *Service) groupsWhere(keep func(*hyperpod.InstanceGroup) bool) ([]*hyperpod.InstanceGroup, error) {
	var out []*hyperpod.InstanceGroup
	err := s.store.View(func(tx *store.Tx) error {
		return tx.List(GroupKind, "", func(_ string, raw []byte) (bool, error) {
			var g hyperpod.InstanceGroup
			if err := json.Unmarshal(raw, &g); err != nil {
				return false, err
			}
			if keep(&g) {
				out = append(out, &g)
			}
			return true, nil
		})
	})
	return out, err
}

// Node returns the node whose instance id is id.
func (s *Service) Node(id string) (*Node, error) {
	return store.Lookup[Node](s.store, NodeKind, id, "", store.Missing{Noun: "node", List: "it may have been replaced or deleted: list the cluster's nodes"})
}

// Nodes returns the nodes of a cluster (of one group when groupID is set),
// by group name and launch time.
func (s *Service) Nodes(clusterID, groupID string) ([]*Node, error) {
	var out []*Node
	err := s.store.View(func(tx *store.Tx) error {
		return eachNode(tx, clusterID, "", func(n *Node) (bool, error) {
			if groupID == "" || n.GroupID == groupID {
				out = append(out, n)
			}
			return true, nil
		})
	})
	return out, err
}

// checked is a cluster as a request's checks read it: its record, its
// region's ports (reads retried) and its HyperPod cluster as described now.
type checked struct {
	cluster  *hyperpod.Cluster
	p        *cloud.Provider
	hyperPod *sagemaker.DescribeClusterOutput
}

// readActive reads cluster id for a change to its groups or nodes, which
// needs it ACTIVE (field names the id in the request).
func (s *Service) readActive(ctx context.Context, id, field string) (*checked, error) {
	c, err := s.activeCluster(id, field)
	if err != nil {
		return nil, err
	}
	return s.read(ctx, c)
}

// read describes the HyperPod cluster of c for a request's checks.
func (s *Service) read(ctx context.Context, c *hyperpod.Cluster) (*checked, error) {
	p, err := s.checkProvider(c.Region)
	if err != nil {
		return nil, err
	}
	hp, err := describe(ctx, p, c.HyperPod.Name)
	if err != nil {
		return nil, err
	}
	return &checked{cluster: c, p: p, hyperPod: hp}, nil
}

// activeCluster returns the cluster when its groups may change.
func (s *Service) activeCluster(id, field string) (*hyperpod.Cluster, error) {
	c, err := s.clusters.Get(id)
	if err != nil {
		return nil, err
	}
	if err := c.RequireActive(field, "its instance groups and nodes can change"); err != nil {
		return nil, err
	}
	if c.HyperPod.Name == "" {
		return nil, errs.New(errs.Precondition, "cluster %s has no HyperPod cluster (it was imported without one)", c.Name).WithField(field)
	}
	return c, nil
}
