// Package models puts models in a cluster's shared bucket, under
// models/<name>/, where training jobs and endpoints read them at
// /s3/models/<name>. A download is a staged operation that runs a
// Kubernetes Job on the cluster: the files go from the hub to the bucket
// inside the cluster, never through the control plane, which only reads
// the model's file list from the hub and follows the bucket's listing for
// progress. The hub token goes to a Kubernetes Secret the Job reads; it is
// never stored in a record, an operation, the event log or the audit log.
//
// The list of a cluster's models is the bucket's models/ folder joined
// with the download records: a folder put there by hand is listed too,
// PRESENT, and a download that failed is listed FAILED however many of
// its files are there, never READY.
package models

import (
	"log/slog"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Source is where a model comes from.
type Source string

// The sources.
const (
	HuggingFace Source = "HUGGING_FACE"
	// Unknown is a folder of models/ that no download made.
	Unknown Source = "UNKNOWN"
)

// Status is where a model is.
type Status string

// The statuses of a model.
const (
	Downloading Status = "DOWNLOADING"
	Ready       Status = "READY"
	Failed      Status = "FAILED"
	Cancelled   Status = "CANCELLED"
	// Present is a folder of models/ that no download made: it is there,
	// whole or not, as whoever put it there left it.
	Present Status = "PRESENT"
	// Deleted is a download record of a cluster deleted with cascade: its
	// files stay in the bucket when the bucket is kept.
	Deleted Status = "DELETED"
)

// Prefix is the bucket's folder of models.
const Prefix = "models/"

// Model is one model of a cluster.
type Model struct {
	// ID is the download record's id; for a folder no download made it is
	// BucketID(clusterID, name).
	ID        string `json:"id"`
	ClusterID string `json:"clusterId"`
	Name      string `json:"name"`
	Source    Source `json:"source"`
	// ModelID, Revision and Commit name what was downloaded: the hub's
	// model, the revision asked and the commit it resolved to.
	ModelID       string `json:"modelId,omitempty"`
	Revision      string `json:"revision,omitempty"`
	Commit        string `json:"commit,omitempty"`
	Status        Status `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	// FilesTotal and BytesTotal are the model's; FilesDone and BytesDone
	// what the bucket holds of them, whole, as last seen.
	FilesTotal int   `json:"filesTotal"`
	FilesDone  int   `json:"filesDone"`
	BytesTotal int64 `json:"bytesTotal"`
	BytesDone  int64 `json:"bytesDone"`
	// Bucket is the shared bucket it is in.
	Bucket string `json:"bucket"`
	// JobName is the newest download Job, in Namespace.
	JobName         string     `json:"jobName,omitempty"`
	Namespace       string     `json:"namespace,omitempty"`
	LastOperationID string     `json:"lastOperationId,omitempty"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	ReadyAt         *time.Time `json:"readyAt,omitempty"`
}

// Path is where pods see the model.
func (m *Model) Path() string { return "/s3/" + Prefix + m.Name }

// Key is the model's folder in the bucket.
func (m *Model) Key() string { return Prefix + m.Name + "/" }

// Clusters is the part of the cluster area models use.
type Clusters interface {
	// Reach returns the cluster id and the ports of its region, whose
	// reads are retried with retryReads.
	Reach(id string, retryReads bool) (*hyperpod.Cluster, *cloud.Provider, error)
}

// Buckets is the part of the storage area models use.
type Buckets interface {
	// SharedBucket returns the cluster's shared bucket when it is ready
	// for pods, nil otherwise.
	SharedBucket(clusterID string) (*hyperpod.Bucket, error)
}

// Options tune the service.
type Options struct {
	Logger *slog.Logger
}

// Service downloads and lists models.
type Service struct {
	store    *store.Store
	runner   *ops.Runner
	clusters Clusters
	buckets  Buckets
	opts     Options
	ids      store.IDs
	log      *slog.Logger
}

// Operation kinds and record kinds.
const (
	KindDownload = "DownloadModel"
	RecordKind   = "model"
	targetKind   = "MODEL"
	statusQuery  = "model"
	// nameIndex holds each cluster's models by name: <cluster id>/<name>
	// -> the record's id.
	nameIndex = "model-by-name"
)

// New returns the service and registers its operation kind with runner
// (before runner.Start).
func New(st *store.Store, runner *ops.Runner, clusters Clusters, buckets Buckets, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, runner: runner, clusters: clusters, buckets: buckets, opts: opts, log: opts.Logger}
	runner.Register(ops.Definition{Kind: KindDownload, StatusQuery: statusQuery, Steps: s.downloadSteps, Reflect: reflectModel, Cancelled: s.cancelled})
	return s
}

// record returns the download record id.
func (s *Service) record(id string) (*Model, error) {
	return store.Lookup[Model](s.store, RecordKind, id, "id", missingModel)
}

// missingModel names a model for the NOT_FOUND of an unknown id.
var missingModel = store.Missing{Noun: "model", List: "list the cluster's models"}

// named returns the record of the cluster's model called name, nil when
// no download made it.
func (s *Service) named(clusterID, name string) (*Model, error) {
	return store.Indexed[Model](s.store, nameIndex, clusterID+"/"+name, RecordKind)
}

// reachBucket returns the cluster, its ports (reads retried with
// retryReads) and its shared bucket, which models live in.
func (s *Service) reachBucket(clusterID string, retryReads bool) (*hyperpod.Cluster, *cloud.Provider, *hyperpod.Bucket, error) {
	c, p, err := s.clusters.Reach(clusterID, retryReads)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := s.buckets.SharedBucket(clusterID)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.RequireBucket(b, "input.clusterId", "models live in it"); err != nil {
		return nil, nil, nil, err
	}
	return c, p, b, nil
}
