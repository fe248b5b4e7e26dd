// Package training runs training jobs on a cluster: a HyperPodPyTorchJob
// through the HyperPod training operator (the PYTORCH, LLAMA_FACTORY and
// MS_SWIFT recipes) or a RayJob through KubeRay (VERL and RAY). The user decides
// the recipe, model, dataset, instance group, node count and the recipe's
// key settings; package recipe derives the rest. Submitting is a staged
// operation that checks first (the operator's feature, the model and
// dataset in the shared bucket, what the group can give) and then makes
// the object. From then on the object is the truth: the refresher reads
// its status, pods and events into the job's record (status, recovery
// budget, restarts with their reasons), and every change is an event that
// jobUpdated delivers. Logs are streamed from the pods through a shared
// hub (package podlogs); metrics are read from the job's MLflow run.
package training

import (
	"context"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/podlogs"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// Status is where a job is, as the schema names it.
type Status string

// The job states.
const (
	Pending    Status = "PENDING"
	Running    Status = "RUNNING"
	Restarting Status = "RESTARTING"
	Succeeded  Status = "SUCCEEDED"
	Failed     Status = "FAILED"
	Deleted    Status = "DELETED"
)

// Terminal reports whether nothing will change the job any more.
func (s Status) Terminal() bool { return s == Succeeded || s == Failed || s == Deleted }

// Kind is the object a job is.
type Kind string

// The job kinds.
const (
	HyperPodPyTorchJob Kind = "HYPERPOD_PYTORCH_JOB"
	RayJob             Kind = "RAY_JOB"
)

// RestartReason says why a job restarted.
type RestartReason string

// The restart reasons.
const (
	ProcessCrash RestartReason = "PROCESS_CRASH"
	NodeFailure  RestartReason = "NODE_FAILURE"
	Hang         RestartReason = "HANG"
	Slow         RestartReason = "SLOW"
	OtherReason  RestartReason = "OTHER"
)

// The objects' resources.
var (
	hyperPodPyTorchJobs = schema.GroupVersionResource{Group: "sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodpytorchjobs"}
	rayJobs             = schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayjobs"}
)

func (k Kind) resource() schema.GroupVersionResource {
	if k == RayJob {
		return rayJobs
	}
	return hyperPodPyTorchJobs
}

// objectKind is the Kubernetes kind of a job's object.
func (k Kind) objectKind() string {
	if k == RayJob {
		return "RayJob"
	}
	return "HyperPodPyTorchJob"
}

// Setting is one recipe setting of a job.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Pod is one pod of a job, as last read.
type Pod struct {
	Name              string     `json:"name"`
	Phase             string     `json:"phase"`
	Ready             bool       `json:"ready"`
	Node              string     `json:"node,omitempty"`
	InstanceID        string     `json:"instanceId,omitempty"`
	Message           string     `json:"message,omitempty"`
	ContainerRestarts int        `json:"containerRestarts"`
	StartedAt         *time.Time `json:"startedAt,omitempty"`
	// Container is the container whose log is the pod's log.
	Container string `json:"container,omitempty"`
}

// Budget is a job's recovery budget, as its object says.
type Budget struct {
	RestartsUsed                 int        `json:"restartsUsed"`
	RestartsAllowed              int        `json:"restartsAllowed"`
	FullJobRestartsUsed          int        `json:"fullJobRestartsUsed"`
	FullJobRestartsAllowed       int        `json:"fullJobRestartsAllowed"`
	WindowRestartsUsed           int        `json:"windowRestartsUsed"`
	RestartsBeforeFullJobRestart int        `json:"restartsBeforeFullJobRestart"`
	WindowSeconds                int        `json:"windowSeconds"`
	WindowEndsAt                 *time.Time `json:"windowEndsAt,omitempty"`
	Exhausted                    bool       `json:"exhausted"`
}

// Restart is one restart of a job.
type Restart struct {
	Time           time.Time     `json:"time"`
	Reason         RestartReason `json:"reason"`
	Message        string        `json:"message"`
	OperatorReason string        `json:"operatorReason"`
	// ResumedFrom is the checkpoint training resumed from after the
	// restart, once the job's log said; nil until then.
	ResumedFrom *Resume `json:"resumedFrom,omitempty"`
}

// MLflowTarget is where a job reports its metrics.
type MLflowTarget struct {
	TrackingServerArn string `json:"trackingServerArn"`
	Experiment        string `json:"experiment"`
	RunName           string `json:"runName"`
}

// Job is the record of a training job.
type Job struct {
	ID               string      `json:"id"`
	ClusterID        string      `json:"clusterId"`
	Name             string      `json:"name"`
	Namespace        string      `json:"namespace"`
	Kind             Kind        `json:"kind"`
	Recipe           recipe.Name `json:"recipe"`
	Status           Status      `json:"status"`
	OperatorState    string      `json:"operatorState,omitempty"`
	StatusMessage    string      `json:"statusMessage,omitempty"`
	Model            string      `json:"model,omitempty"`
	DatasetPath      string      `json:"datasetPath"`
	Script           string      `json:"script,omitempty"`
	InstanceGroup    string      `json:"instanceGroup"`
	InstanceType     string      `json:"instanceType"`
	Nodes            int         `json:"nodes"`
	GPUsPerNode      int         `json:"gpusPerNode"`
	EFAPerNode       int         `json:"efaPerNode"`
	ProcessesPerNode int         `json:"processesPerNode"`
	Settings         []Setting   `json:"settings"`
	Image            string      `json:"image"`
	OutputPath       string      `json:"outputPath"`
	CheckpointPath   string      `json:"checkpointPath"`
	// Checkpointing is "" for jobs submitted before it was chosen: S3.
	Checkpointing Checkpointing `json:"checkpointing,omitempty"`
	Pods          []Pod         `json:"pods"`
	Budget        Budget        `json:"budget"`
	Restarts      []Restart     `json:"restarts"`
	MLflow        *MLflowTarget `json:"mlflow,omitempty"`
	// Ray is, for RAY, its program.
	Ray *RayRecord `json:"ray,omitempty"`
	// UID is the object's uid, once made: a job deleted and made again
	// outside InstantStart under the same name is not this one.
	UID             string     `json:"uid,omitempty"`
	CreatedAt       time.Time  `json:"createdAt"`
	StartedAt       *time.Time `json:"startedAt,omitempty"`
	FinishedAt      *time.Time `json:"finishedAt,omitempty"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	LastOperationID string     `json:"lastOperationId,omitempty"`
}

// Clusters is the part of the cluster area training uses.
type Clusters interface {
	// Get returns the cluster id, or a NOT_FOUND error.
	Get(id string) (*hyperpod.Cluster, error)
	// Reach returns the cluster id and the ports of its region, whose
	// reads are retried with retryReads.
	Reach(id string, retryReads bool) (*hyperpod.Cluster, *cloud.Provider, error)
}

// Buckets is the part of the storage area training uses.
type Buckets interface {
	// SharedBucket returns the cluster's shared bucket when it is ready
	// for pods, nil otherwise.
	SharedBucket(clusterID string) (*hyperpod.Bucket, error)
}

// Groups is the part of the compute area training uses.
type Groups interface {
	// Groups returns the cluster's instance groups, the deleted ones too
	// when withDeleted.
	Groups(clusterID string, withDeleted bool) ([]*hyperpod.InstanceGroup, error)
}

// Features is the part of the features area training uses.
type Features interface {
	// On tells whether a feature of the cluster is ENABLED:
	// TRAINING_OPERATOR or KUBERAY, which run the jobs.
	On(ctx context.Context, clusterID string, feature hyperpod.Feature) (bool, error)
	// Autoscaled tells whether managed Karpenter may grow the cluster's
	// instance group for pending pods.
	Autoscaled(ctx context.Context, clusterID, group string) (bool, error)
	// MLflow returns the cluster's tracking server when its MLFLOW feature
	// is on, nil otherwise.
	MLflow(ctx context.Context, clusterID string) (*hyperpod.MLflowServer, error)
	// TieredCheckpointing returns the identity and memory share of the
	// cluster's TIERED_CHECKPOINTING feature when it is on, nil otherwise.
	TieredCheckpointing(ctx context.Context, clusterID string) (*hyperpod.TieredCheckpointingSetup, error)
}

// Options tune the service.
type Options struct {
	// Logs is the hub of pods' logs the jobs share with the endpoints
	// (required to read logs).
	Logs   *podlogs.Hub
	Logger *slog.Logger
}

// Service submits, follows and deletes training jobs.
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
	hub      *podlogs.Hub
}

// Operation kinds, record kinds and indexes.
const (
	KindSubmit  = "SubmitTrainingJob"
	KindDelete  = "DeleteJob"
	RecordKind  = "job"
	targetKind  = "JOB"
	statusQuery = "job"
	// nameIndex holds each cluster's jobs by name: <cluster id>/<name> ->
	// the job's id.
	nameIndex = "job-by-name"
	// clusterIndex lists each cluster's jobs: <cluster id>/<job id>.
	clusterIndex = "job-by-cluster"
)

// Labels of what a job makes.
const (
	managedByLabel = "app.kubernetes.io/managed-by"
	jobIDLabel     = "instantstart.io/job-id"
)

// New returns the service and registers its operation kinds with runner
// (before runner.Start).
func New(st *store.Store, runner *ops.Runner, clusters Clusters, buckets Buckets, groups Groups, features Features, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, runner: runner, clusters: clusters, buckets: buckets, groups: groups, features: features, opts: opts, log: opts.Logger}
	s.hub = opts.Logs
	runner.Register(ops.Definition{Kind: KindSubmit, StatusQuery: statusQuery, Steps: s.submitSteps, Reflect: s.reflectSubmit})
	runner.Register(ops.Definition{Kind: KindDelete, StatusQuery: statusQuery, Steps: s.deleteSteps, Reflect: s.reflectDelete})
	return s
}

// Get returns job id.
func (s *Service) Get(id string) (*Job, error) {
	return store.Lookup[Job](s.store, RecordKind, id, "id", store.Missing{Noun: "job", List: "list the cluster's jobs"})
}

// named returns the cluster's job called name, nil when there is none.
func (s *Service) named(clusterID, name string) (*Job, error) {
	return store.Indexed[Job](s.store, nameIndex, clusterID+"/"+name, RecordKind)
}

// group returns the cluster's live instance group called name, nil when
// there is none.
func (s *Service) group(clusterID, name string) (*hyperpod.InstanceGroup, error) {
	groups, err := s.groups.Groups(clusterID, false)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if g.Name == name && len(g.InstanceTypes) > 0 {
			return g, nil
		}
	}
	return nil, nil
}
