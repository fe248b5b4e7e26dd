// Package inference serves models on a cluster, by one API over two paths:
// managed endpoints, an InferenceEndpointConfig (or a JumpStartModel) that
// the HyperPod inference operator turns into replicas with tiered KV cache
// and intelligent routing, and self-managed ones, a Deployment of the
// user's vLLM or SGLang container with a Service in one of three forms (an
// internet-facing NLB, a ClusterIP Service, or a pool of warm workers that
// are handed to businesses by a label change). It also puts the SGLang
// router in front of an endpoint, scales one with KEDA, and calls one.
//
// Every change is a staged operation that checks first and then makes or
// changes objects; from then on the objects are the truth, and the
// refresher reads them into the endpoint's record (status, replicas, pods,
// address), which endpointUpdated delivers. An invocation reaches only the
// Services and pods of the endpoints recorded here, through the cluster's
// Kubernetes API: an address never comes from the caller.
package inference

import (
	"context"
	"log/slog"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/podlogs"
	"github.com/instantstart/instantstart/engine/store"
)

// Path says how an endpoint is served.
type Path string

// The paths.
const (
	Managed     Path = "MANAGED"
	SelfManaged Path = "SELF_MANAGED"
)

// Engine is a self-managed endpoint's serving engine.
type Engine string

// The engines.
const (
	VLLM   Engine = "VLLM"
	SGLang Engine = "SGLANG"
)

// Form is how a self-managed endpoint is reached.
type Form string

// The service forms.
const (
	LoadBalancer Form = "LOAD_BALANCER"
	ClusterIP    Form = "CLUSTER_IP"
	ModelPool    Form = "MODEL_POOL"
)

// Source is where a managed endpoint's model comes from.
type Source string

// The model sources.
const (
	FromBucket    Source = "BUCKET"
	FromFSx       Source = "FSX"
	FromJumpStart Source = "JUMPSTART"
)

// Status is where an endpoint is, as the schema names it.
type Status string

// The endpoint states.
const (
	Pending   Status = "PENDING"
	Deploying Status = "DEPLOYING"
	Ready     Status = "READY"
	Degraded  Status = "DEGRADED"
	// ScaledToZero: it is asked for no replica, so nothing serves until it
	// is scaled up (by updateEndpoint or its autoscaling).
	ScaledToZero Status = "SCALED_TO_ZERO"
	Failed       Status = "FAILED"
	Deleting     Status = "DELETING"
	Deleted      Status = "DELETED"
)

// RouterPolicy is the SGLang router's --policy, as the schema names it.
type RouterPolicy string

// The router policies.
const (
	CacheAware RouterPolicy = "CACHE_AWARE"
	RoundRobin RouterPolicy = "ROUND_ROBIN"
	Random     RouterPolicy = "RANDOM"
	PowerOfTwo RouterPolicy = "POWER_OF_TWO"
)

// Trigger is what KEDA scales an endpoint on.
type Trigger string

// The triggers.
const (
	RequestsPerReplica Trigger = "REQUESTS_PER_REPLICA"
	RouterQueue        Trigger = "ROUTER_QUEUE"
)

// Address is where an endpoint is reached.
type Address struct {
	Kind    string `json:"kind"`
	Host    string `json:"host,omitempty"`
	Port    int    `json:"port,omitempty"`
	Service string `json:"service,omitempty"`
}

// Pod is one pod of an endpoint, as last read.
type Pod struct {
	Name              string     `json:"name"`
	UID               string     `json:"uid"`
	Phase             string     `json:"phase"`
	Ready             bool       `json:"ready"`
	Node              string     `json:"node,omitempty"`
	Business          string     `json:"business,omitempty"`
	Message           string     `json:"message,omitempty"`
	ContainerRestarts int        `json:"containerRestarts"`
	StartedAt         *time.Time `json:"startedAt,omitempty"`
}

// KVCache is a managed endpoint's KV cache.
type KVCache struct {
	L1        bool   `json:"l1"`
	L2        bool   `json:"l2"`
	L2Backend string `json:"l2Backend,omitempty"` // TIERED_STORAGE or REDIS
	L2URL     string `json:"l2Url,omitempty"`
}

// Routing is a managed endpoint's intelligent routing.
type Routing struct {
	Enabled  bool   `json:"enabled"`
	Strategy string `json:"strategy,omitempty"` // PREFIX_AWARE, KV_AWARE, SESSION, ROUND_ROBIN
}

// Bounds are autoscaling bounds.
type Bounds struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Router is the SGLang router in front of an endpoint.
type Router struct {
	Name          string       `json:"name"`
	Policy        RouterPolicy `json:"policy"`
	ReadyReplicas int          `json:"readyReplicas"`
}

// Autoscaling is an endpoint's autoscaling.
type Autoscaling struct {
	Bounds
	Trigger Trigger `json:"trigger,omitempty"`
	Target  float64 `json:"target,omitempty"`
	Query   string  `json:"query,omitempty"`
	Ready   bool    `json:"ready"`
	Active  bool    `json:"active"`
}

// Endpoint is the record of an inference endpoint.
type Endpoint struct {
	ID                 string       `json:"id"`
	ClusterID          string       `json:"clusterId"`
	Name               string       `json:"name"`
	Namespace          string       `json:"namespace"`
	Path               Path         `json:"path"`
	Engine             Engine       `json:"engine,omitempty"`
	Form               Form         `json:"form,omitempty"`
	Pool               string       `json:"pool,omitempty"`
	Model              string       `json:"model"`
	Source             Source       `json:"source"`
	FSxFileSystemID    string       `json:"fsxFileSystemId,omitempty"`
	InstanceType       string       `json:"instanceType"`
	Image              string       `json:"image,omitempty"`
	TensorParallelSize int          `json:"tensorParallelSize,omitempty"`
	GPUsPerReplica     int          `json:"gpusPerReplica,omitempty"`
	Replicas           int          `json:"replicas"`
	ReadyReplicas      int          `json:"readyReplicas"`
	Status             Status       `json:"status"`
	StatusMessage      string       `json:"statusMessage,omitempty"`
	OperatorState      string       `json:"operatorState,omitempty"`
	Address            *Address     `json:"address,omitempty"`
	Pods               []Pod        `json:"pods"`
	KVCache            *KVCache     `json:"kvCache,omitempty"`
	Routing            *Routing     `json:"routing,omitempty"`
	ManagedScaling     *Bounds      `json:"managedScaling,omitempty"`
	TLSBucket          string       `json:"tlsBucket,omitempty"`
	AcceptEula         bool         `json:"acceptEula,omitempty"`
	Router             *Router      `json:"router,omitempty"`
	Autoscaling        *Autoscaling `json:"autoscaling,omitempty"`
	// Object is the Kubernetes object that is the endpoint, Kind/name.
	Object string `json:"object"`
	// Workload is the Deployment whose pods serve (the operator's, for a
	// managed endpoint).
	Workload        string    `json:"workload"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
	LastOperationID string    `json:"lastOperationId,omitempty"`
}

// Terminal reports whether nothing will change the endpoint any more.
func (s Status) Terminal() bool { return s == Deleted }

// Clusters is the part of the cluster area inference uses.
type Clusters interface {
	// Get returns the cluster id, or a NOT_FOUND error.
	Get(id string) (*hyperpod.Cluster, error)
	// Reach returns the cluster id and the ports of its region, whose
	// reads are retried with retryReads.
	Reach(id string, retryReads bool) (*hyperpod.Cluster, *cloud.Provider, error)
}

// Buckets is the part of the storage area inference uses.
type Buckets interface {
	// SharedBucket returns the cluster's shared bucket when it is ready
	// for pods, nil otherwise.
	SharedBucket(clusterID string) (*hyperpod.Bucket, error)
	// FSxClaim returns the claim of the cluster's FSx for Lustre file
	// system id, "" when the cluster has no such file system ready.
	FSxClaim(clusterID, id string) (string, error)
}

// Groups is the part of the compute area inference uses.
type Groups interface {
	// Groups returns the cluster's instance groups, the deleted ones too
	// when withDeleted.
	Groups(clusterID string, withDeleted bool) ([]*hyperpod.InstanceGroup, error)
}

// Features is the part of the features area inference uses.
type Features interface {
	// On tells whether a feature of the cluster is ENABLED:
	// INFERENCE_OPERATOR, KEDA, OBSERVABILITY, LOAD_BALANCER_CONTROLLER.
	On(ctx context.Context, clusterID string, feature hyperpod.Feature) (bool, error)
	// TLSBucket is the bucket the INFERENCE_OPERATOR feature keeps TLS
	// certificates in, "" when it is off.
	TLSBucket(clusterID string) (string, error)
	// PrometheusEndpoint is the query endpoint of the OBSERVABILITY
	// feature's workspace, "" when it is off.
	PrometheusEndpoint(clusterID string) (string, error)
	// LoadBalancerControllerSteps returns the phases that turn the AWS
	// Load Balancer Controller on, after after.
	LoadBalancerControllerSteps(clusterID, after string) ([]ops.Step, error)
	// RecordLoadBalancerController stores that operation opID turns it on.
	RecordLoadBalancerController(tx *store.Tx, clusterID, opID string) error
}

// Options tune the service.
type Options struct {
	// Logs is the hub of pods' logs the endpoints share with the jobs
	// (required to read logs).
	Logs   *podlogs.Hub
	Logger *slog.Logger
	// Now is the provider's clock, which the charts' span ends at (default
	// time.Now; the simulator's clock when it is the provider).
	Now func() time.Time
}

// Service deploys, changes, follows, calls and deletes endpoints.
type Service struct {
	store    *store.Store
	runner   *ops.Runner
	clusters Clusters
	buckets  Buckets
	groups   Groups
	features Features
	opts     Options
	ids      store.IDs
	log      *slog.Logger
}

// Operation kinds, record kinds and indexes.
const (
	KindDeploy      = "DeployEndpoint"
	KindUpdate      = "UpdateEndpoint"
	KindDelete      = "DeleteEndpoint"
	KindAssign      = "AssignPoolWorker"
	KindRouter      = "DeployRouter"
	KindAutoscaling = "SetEndpointAutoscaling"
	RecordKind      = "endpoint"
	targetKind      = "ENDPOINT"
	statusQuery     = "endpoint"
	// nameIndex holds each cluster's endpoints by name: <cluster id>/<name>.
	nameIndex = "endpoint-by-name"
	// clusterIndex lists each cluster's endpoints: <cluster id>/<id>.
	clusterIndex = "endpoint-by-cluster"
)

// New returns the service and registers its operation kinds with runner
// (before runner.Start).
func New(st *store.Store, runner *ops.Runner, clusters Clusters, buckets Buckets, groups Groups, features Features, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Service{store: st, runner: runner, clusters: clusters, buckets: buckets, groups: groups, features: features, opts: opts, log: opts.Logger}
	for _, kind := range []string{KindDeploy, KindUpdate, KindDelete, KindAssign, KindRouter, KindAutoscaling} {
		runner.Register(ops.Definition{Kind: kind, StatusQuery: statusQuery, Steps: s.steps, Reflect: s.reflect})
	}
	return s
}

// Get returns endpoint id.
func (s *Service) Get(id string) (*Endpoint, error) {
	return store.Lookup[Endpoint](s.store, RecordKind, id, "id", store.Missing{Noun: "endpoint", List: "list the cluster's endpoints"})
}

// live returns endpoint id, refusing one that is deleted.
func (s *Service) live(id, field string) (*Endpoint, error) {
	e, err := s.Get(id)
	if err != nil {
		return nil, errs.As(err).WithField(field)
	}
	if e.Status == Deleted || e.Status == Deleting {
		return nil, errs.New(errs.Precondition, "endpoint %s is %s; deploy it again to use it", e.Name, e.Status).WithField(field)
	}
	return e, nil
}

// named returns the cluster's endpoint called name, nil when there is none.
func (s *Service) named(clusterID, name string) (*Endpoint, error) {
	return store.Indexed[Endpoint](s.store, nameIndex, clusterID+"/"+name, RecordKind)
}

// instanceTypes returns the instance types of the cluster's live groups,
// with the nodes their groups are asked to hold.
func (s *Service) instanceTypes(clusterID string) (map[string]int, error) {
	groups, err := s.groups.Groups(clusterID, false)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, g := range groups {
		for _, t := range g.InstanceTypes {
			out[t] += g.Count
		}
	}
	return out, nil
}

// kube returns the Kubernetes clients of endpoint e's cluster.
func (s *Service) kube(ctx context.Context, clusterID string) (*cloud.KubeClients, error) {
	c, p, err := s.clusters.Reach(clusterID, false)
	if err != nil {
		return nil, err
	}
	return p.KubeOf(ctx, c.EKS.Name)
}
