// Package storage gives a cluster its data: the shared S3 bucket every
// training job and endpoint reads datasets and models from, mounted in pods
// at /s3 through the Mountpoint for S3 CSI driver (a static PersistentVolume
// and its claim in the workload namespace). The bucket's layout is fixed:
// datasets/, models/<name>/, checkpoints/<job>/, outputs/<job>/.
//
// Adding storage is a staged operation: the bucket (made, or an existing
// one of the account in the cluster's region checked), the S3 CSI driver
// turned on for that bucket in the same operation (its IAM policy names
// that bucket only), then the volume and its claim, bound. Removing it
// removes the claim and the volume and, only when asked, the bucket's
// objects and the bucket.
package storage

import (
	"log/slog"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Kind is what backs a storage.
type Kind string

// The kinds of storage.
const (
	// KindS3 is the cluster's shared bucket.
	KindS3 Kind = "S3"
	// KindFSxLustre is an FSx for Lustre file system in the cluster's
	// compute subnet, mounted at /fsx/<name>.
	KindFSxLustre Kind = "FSX_LUSTRE"
)

// Status is where a storage is in its life.
type Status string

// The statuses of a storage.
const (
	Creating  Status = "CREATING"
	Available Status = "AVAILABLE"
	Failed    Status = "FAILED"
	Deleting  Status = "DELETING"
	Deleted   Status = "DELETED"
)

// The bucket's layout, and where pods see it.
const (
	MountPath        = "/s3"
	DatasetsPrefix   = "datasets/"
	ModelsPrefix     = "models/"
	CheckpointPrefix = "checkpoints/"
	OutputsPrefix    = "outputs/"
	// WorkloadNamespace is where the claim lives, and so where the jobs and
	// endpoints that mount it run.
	WorkloadNamespace = "default"
)

// Storage is one storage of a cluster.
type Storage struct {
	ID            string `json:"id"`
	ClusterID     string `json:"clusterId"`
	Kind          Kind   `json:"kind"`
	Status        Status `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	// Namespace, VolumeName and ClaimName are the Kubernetes objects pods
	// mount it through.
	Namespace  string      `json:"namespace"`
	VolumeName string      `json:"volumeName"`
	ClaimName  string      `json:"claimName"`
	MountPath  string      `json:"mountPath"`
	S3         *Bucket     `json:"s3,omitempty"`
	FSx        *FileSystem `json:"fsx,omitempty"`
	// LastOperationID is the newest operation on it.
	LastOperationID string     `json:"lastOperationId,omitempty"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	DeletedAt       *time.Time `json:"deletedAt,omitempty"`
}

// Bucket is a storage's bucket.
type Bucket struct {
	Bucket string `json:"bucket"`
	Region string `json:"region"`
	// Created says InstantStart made the bucket (else it was the
	// account's already).
	Created bool `json:"created"`
}

// Arn is the bucket's ARN.
func (b *Bucket) Arn() string { return "arn:aws:s3:::" + b.Bucket }

// Name is what a storage is called in its operations' target.
func (st *Storage) Name() string {
	if st.FSx != nil {
		return st.FSx.Name
	}
	if st.S3 != nil {
		return st.S3.Bucket
	}
	return st.ID
}

// Clusters is the part of the cluster area storage uses.
type Clusters interface {
	// Get returns the cluster id, or a NOT_FOUND error.
	Get(id string) (*hyperpod.Cluster, error)
	// Reach returns the cluster id and the ports of its region, whose
	// reads are retried with retryReads.
	Reach(id string, retryReads bool) (*hyperpod.Cluster, *cloud.Provider, error)
}

// Mounts is the part of the features area storage uses: the S3 CSI driver
// and the buckets its IAM policy allows.
type Mounts interface {
	// MountSteps returns the phases that turn the driver on with its policy
	// allowing buckets, the first after after.
	MountSteps(clusterID string, buckets []string, after string) ([]ops.Step, error)
	// MountedBuckets returns the buckets the driver was last allowed.
	MountedBuckets(clusterID string) ([]string, error)
	// RecordMount stores, in the transaction that stores operation opID,
	// that it turns the driver on for buckets.
	RecordMount(tx *store.Tx, clusterID string, buckets []string, opID string) error
	// FSxDriverSteps returns the phases that turn the FSx CSI driver on,
	// the first after after; at least one.
	FSxDriverSteps(clusterID string, after string) ([]ops.Step, error)
	// RecordFSxDriver stores, in the transaction that stores operation
	// opID, that it turns the FSx CSI driver on.
	RecordFSxDriver(tx *store.Tx, clusterID string, opID string) error
}

// Options tune the service.
type Options struct {
	Logger *slog.Logger
}

// Service adds, lists and removes storage.
type Service struct {
	store    *store.Store
	runner   *ops.Runner
	clusters Clusters
	mounts   Mounts
	opts     Options
	ids      store.IDs
	log      *slog.Logger
}

// Operation kinds, and the kind of the records.
const (
	KindAdd    = "AddStorage"
	KindRemove = "RemoveStorage"
	RecordKind = "storage"
	// targetKind is the kind of the operations' target.
	targetKind  = "STORAGE"
	statusQuery = "storage"
	// clusterIndex lists a cluster's storages: <cluster id>/<storage id>.
	clusterIndex = "storage-by-cluster"
	// bucketIndex holds the storage of each shared bucket: <cluster id>.
	bucketIndex = "storage-shared-bucket"
)

// New returns the service and registers its operation kinds with runner
// (before runner.Start, so resumed operations find their kind).
func New(st *store.Store, runner *ops.Runner, clusters Clusters, mounts Mounts, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, runner: runner, clusters: clusters, mounts: mounts, opts: opts, log: opts.Logger}
	runner.Register(ops.Definition{Kind: KindAdd, StatusQuery: statusQuery, Steps: s.addSteps, Reflect: reflectStorage})
	runner.Register(ops.Definition{Kind: KindRemove, StatusQuery: statusQuery, Steps: s.removeSteps, Reflect: reflectStorage})
	return s
}

// Get returns storage id.
func (s *Service) Get(id string) (*Storage, error) {
	return store.Lookup[Storage](s.store, RecordKind, id, "id", store.Missing{Noun: "storage", List: "list the cluster's storages"})
}

// Page returns one page of the storages of a cluster that are not deleted,
// in creation order, reading from the cursor on.
func (s *Service) Page(clusterID string, req store.PageRequest) (*store.Page[Storage], error) {
	live := func(st *Storage) bool { return st.Status != Deleted }
	var page *store.Page[Storage]
	err := s.store.View(func(tx *store.Tx) (err error) {
		page, err = store.ReadPage(tx, store.Scan{Kind: RecordKind, Index: clusterIndex, Prefix: clusterID + "/"}, req, live)
		return err
	})
	return page, err
}
