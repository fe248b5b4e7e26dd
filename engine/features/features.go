// Package features turns a cluster's managed capabilities on and off: node
// auto-recovery, deep health checks, managed Karpenter, the HyperPod
// training and inference operators, managed tiered checkpointing,
// observability, KubeRay, KEDA and the Mountpoint for S3 CSI driver. Each
// feature is a chain of links (an IAM policy, a role, a pod identity
// association, an EKS add-on, a Helm release, a Kubernetes object, a
// cluster setting) that enabling makes in order, prerequisites first, and disabling
// removes in reverse. The state of a feature is always read from the links
// themselves, so a toggle that already matches is a no-op, and the table
// shows what exists, not what was last asked for.
package features

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Status is a feature's state.
type Status string

// The feature states.
const (
	Enabled   Status = "ENABLED"
	Disabled  Status = "DISABLED"
	Enabling  Status = "ENABLING"
	Disabling Status = "DISABLING"
	// Partial: some of the feature's resources exist and some do not (a
	// toggle failed half way, or something was removed outside
	// InstantStart). Enabling or disabling again finishes the job.
	Partial Status = "PARTIAL"
	Failed  Status = "FAILED"
)

// Resource is something a feature made, named so that aws or kubectl can
// inspect it.
type Resource struct {
	Kind string `json:"kind"` // IAM_POLICY, IAM_ROLE, POD_IDENTITY_ASSOCIATION, EKS_ADDON, HELM_RELEASE, KUBERNETES_OBJECT, CLUSTER_SETTING, MLFLOW_TRACKING_SERVER
	Ref  string `json:"ref"`  // an ARN, or a Kubernetes reference such as serviceaccount/default/name
	// Shared marks a prerequisite other features use too: disabling the
	// feature leaves it.
	Shared bool   `json:"shared,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Settings are a feature's options: tiered checkpointing's bucket and
// identity, and the groups Karpenter scales.
type Settings struct {
	// InstanceGroups are the groups managed Karpenter may scale, or the
	// groups that run deep health checks.
	InstanceGroups []string `json:"instanceGroups,omitempty"`
	// Bucket is tiered checkpointing's bucket, or the inference operator's
	// TLS certificate bucket.
	Bucket           string `json:"bucket,omitempty"`
	MemoryPercentage int    `json:"memoryPercentage,omitempty"`
	Namespace        string `json:"namespace,omitempty"`
	ServiceAccount   string `json:"serviceAccount,omitempty"`
	// Checks are the deep health checks new nodes run.
	Checks []string `json:"checks,omitempty"`
	// Buckets are the buckets the Mountpoint for S3 CSI driver may mount.
	Buckets []string `json:"buckets,omitempty"`
	// WorkspaceArn is the Amazon Managed Service for Prometheus workspace
	// observability writes to.
	WorkspaceArn string `json:"workspaceArn,omitempty"`
	// TrackingServerName, TrackingServerSize and ArtifactStoreURI are the
	// MLflow tracking server the MLFLOW feature makes. TrackingServerArn is
	// instead an existing server it uses and never deletes (in the feature
	// table it names the server either way).
	TrackingServerName string `json:"trackingServerName,omitempty"`
	TrackingServerSize string `json:"trackingServerSize,omitempty"`
	ArtifactStoreURI   string `json:"artifactStoreUri,omitempty"`
	TrackingServerArn  string `json:"trackingServerArn,omitempty"`
}

// orElse fills the fields s leaves empty from earlier.
func (s Settings) orElse(earlier Settings) Settings {
	if len(s.InstanceGroups) == 0 {
		s.InstanceGroups = earlier.InstanceGroups
	}
	s.Bucket = cmpOr(s.Bucket, earlier.Bucket)
	s.Namespace = cmpOr(s.Namespace, earlier.Namespace)
	s.ServiceAccount = cmpOr(s.ServiceAccount, earlier.ServiceAccount)
	if s.MemoryPercentage == 0 {
		s.MemoryPercentage = earlier.MemoryPercentage
	}
	if len(s.Checks) == 0 {
		s.Checks = earlier.Checks
	}
	if len(s.Buckets) == 0 {
		s.Buckets = earlier.Buckets
	}
	s.WorkspaceArn = cmpOr(s.WorkspaceArn, earlier.WorkspaceArn)
	// An MLflow server is made or imported, never both: a request for one
	// kind takes nothing of the other from before.
	made := s.TrackingServerName != "" || s.TrackingServerSize != "" || s.ArtifactStoreURI != ""
	switch {
	case s.TrackingServerArn != "":
	case made && earlier.TrackingServerArn == "":
		s.TrackingServerName = cmpOr(s.TrackingServerName, earlier.TrackingServerName)
		s.TrackingServerSize = cmpOr(s.TrackingServerSize, earlier.TrackingServerSize)
		s.ArtifactStoreURI = cmpOr(s.ArtifactStoreURI, earlier.ArtifactStoreURI)
	case !made:
		s.TrackingServerName, s.TrackingServerSize = earlier.TrackingServerName, earlier.TrackingServerSize
		s.ArtifactStoreURI, s.TrackingServerArn = earlier.ArtifactStoreURI, earlier.TrackingServerArn
	}
	return s
}

// Feature is one row of a cluster's feature table.
type Feature struct {
	Name        hyperpod.Feature
	Title       string
	Description string
	Status      Status
	Message     string
	// DependsOn lists the features and prerequisites it needs first.
	DependsOn []string
	Resources []Resource
	Settings  *Settings
	// LastOperationID is the newest toggle of the feature, if any.
	LastOperationID string
}

// Clusters is the part of the cluster area the features use.
type Clusters interface {
	// Get returns the cluster id, or a NOT_FOUND error.
	Get(id string) (*hyperpod.Cluster, error)
	// Reach returns the cluster id and the ports of its region, whose
	// reads are retried with retryReads.
	Reach(id string, retryReads bool) (*hyperpod.Cluster, *cloud.Provider, error)
}

// Buckets is the part of the storage area the features use.
type Buckets interface {
	// SharedBucket returns the cluster's shared bucket when pods can mount
	// it, nil otherwise.
	SharedBucket(clusterID string) (*hyperpod.Bucket, error)
}

// Options tune the service.
type Options struct {
	Logger *slog.Logger
	// Buckets tells the cluster's shared bucket, which MLFLOW keeps its
	// artifacts in and whose namespace its jobs run in; nil knows none,
	// and MLFLOW then cannot be turned on.
	Buckets Buckets
}

// Service reads and toggles features.
type Service struct {
	store    *store.Store
	runner   *ops.Runner
	clusters Clusters
	opts     Options
	log      *slog.Logger
}

// Kind is the operation kind of a toggle, and the status query that
// confirms it.
const (
	Kind        = "UpdateClusterFeatures"
	statusQuery = "clusterFeatures"
	// recordKind stores the newest toggle of each feature of a cluster.
	recordKind = "feature"
)

// New returns the service and registers its operation kind with runner
// (before runner.Start, so resumed operations find their kind).
func New(st *store.Store, runner *ops.Runner, clusters Clusters, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, runner: runner, clusters: clusters, opts: opts, log: opts.Logger}
	runner.Register(ops.Definition{Kind: Kind, StatusQuery: statusQuery, Steps: s.steps})
	return s
}

// record is the stored newest toggle of one feature of a cluster.
type record struct {
	ClusterID   string           `json:"clusterId"`
	Name        hyperpod.Feature `json:"name"`
	Enable      bool             `json:"enable"`
	Settings    *Settings        `json:"settings,omitempty"`
	OperationID string           `json:"operationId"`
	UpdatedAt   time.Time        `json:"updatedAt"`
}

func recordKey(clusterID string, name hyperpod.Feature) string { return clusterID + "/" + string(name) }

// env is what a feature's links work with.
type env struct {
	p        *cloud.Provider
	c        *hyperpod.Cluster
	settings Settings
	// look, when set, holds one DescribeCluster for a whole look at the
	// features (a table read, a request checked), so that their links do
	// not describe the cluster once each. Phases poll without it.
	look *snapshot
	// buckets, when checking a request, tells the shared bucket.
	buckets Buckets
}

// snapshot is the HyperPod cluster as one look at the features saw it.
type snapshot struct {
	hp *sagemaker.DescribeClusterOutput
}

// describe returns the HyperPod cluster: the look's copy when there is one.
func (e *env) describe(ctx context.Context) (*sagemaker.DescribeClusterOutput, error) {
	if e.look != nil && e.look.hp != nil {
		return e.look.hp, nil
	}
	out, err := e.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(e.c.HyperPod.Name)})
	if err != nil {
		return nil, errs.FromUpstream(err, "describe HyperPod cluster "+e.c.HyperPod.Name)
	}
	if e.look != nil {
		e.look.hp = out
	}
	return out, nil
}

// List returns the cluster's feature table, read from AWS and Kubernetes.
func (s *Service) List(ctx context.Context, clusterID string) ([]*Feature, error) {
	c, p, err := s.clusters.Reach(clusterID, true)
	if err != nil {
		return nil, err
	}
	records, err := s.records(clusterID)
	if err != nil {
		return nil, err
	}
	if err := c.RequireActive("clusterId", "its features are read and changed"); err != nil {
		return nil, err
	}
	look := &snapshot{}
	var out []*Feature
	for _, d := range catalog {
		rec := records[d.name]
		e := &env{p: p, c: c, look: look}
		if rec != nil && rec.Settings != nil {
			e.settings = *rec.Settings
		}
		f := &Feature{Name: d.name, Title: d.title, Description: d.description, DependsOn: d.dependsOn}
		if rec != nil {
			f.LastOperationID = rec.OperationID
		}
		st, err := d.observe(ctx, e)
		if err != nil {
			return nil, err
		}
		f.Status, f.Message, f.Resources = st.status, st.message, st.resources
		if d.settings != nil && f.Status != Disabled {
			if f.Settings, err = d.settings(ctx, e); err != nil {
				return nil, err
			}
		}
		if rec != nil {
			s.overlay(f, rec)
		}
		out = append(out, f)
	}
	return out, nil
}

// overlay shows a running or failed toggle over the observed state.
func (s *Service) overlay(f *Feature, rec *record) {
	op, err := s.runner.Get(rec.OperationID)
	if err != nil {
		return
	}
	switch {
	case !op.Status.Terminal():
		f.Status = map[bool]Status{true: Enabling, false: Disabling}[rec.Enable]
		f.Message = "operation " + op.ID + " is " + strings.ToLower(string(op.Status))
	case op.Status == ops.Failed && ((rec.Enable && f.Status != Enabled) || (!rec.Enable && f.Status != Disabled)):
		f.Status = Failed
		for _, ph := range op.Phases {
			if ph.Error != nil && strings.HasPrefix(ph.Name, phasePrefix(f.Name)) {
				f.Message = ph.Error.Message
			}
		}
	}
}

func (s *Service) records(clusterID string) (map[hyperpod.Feature]*record, error) {
	out := map[hyperpod.Feature]*record{}
	err := s.store.View(func(tx *store.Tx) error {
		return tx.List(recordKind, clusterID+"/", func(_ string, raw []byte) (bool, error) {
			var r record
			if err := json.Unmarshal(raw, &r); err != nil {
				return false, err
			}
			out[r.Name] = &r
			return true, nil
		})
	})
	return out, err
}

// Toggle is one feature to turn on or off.
type Toggle struct {
	Name     hyperpod.Feature `json:"name"`
	Enable   bool             `json:"enable"`
	Settings *Settings        `json:"settings,omitempty"`
}

// input is what an UpdateClusterFeatures operation stores.
type input struct {
	ClusterID string   `json:"clusterId"`
	Toggles   []Toggle `json:"toggles"` // only those that change something
}

// Update turns the features in toggles on or off. Toggles that already
// match the actual state change nothing; when none differs the operation
// succeeds at once as a no-op.
func (s *Service) Update(ctx context.Context, caller, clusterID string, toggles []Toggle, idempotencyKey string) (*ops.Operation, error) {
	c, err := s.clusters.Get(clusterID)
	if err != nil {
		return nil, err
	}
	target := ops.Ref{Kind: "CLUSTER", ID: c.ID, Name: c.Name}
	sent := input{ClusterID: c.ID, Toggles: toggles}
	if op, err := s.runner.Replay(ops.Request{Kind: Kind, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: sent}); op != nil || err != nil {
		return op, err
	}
	if len(toggles) == 0 {
		return nil, errs.Field("input", "send at least one feature to turn on or off")
	}
	if err := c.RequireActive("clusterId", "features can change"); err != nil {
		return nil, err
	}
	_, p, err := s.clusters.Reach(clusterID, true)
	if err != nil {
		return nil, err
	}
	records, err := s.records(c.ID)
	if err != nil {
		return nil, err
	}
	look := &snapshot{}
	var changes []Toggle
	var bad errs.List
	for i, t := range toggles {
		d := find(t.Name)
		if d == nil {
			bad = append(bad, errs.Field(fmt.Sprintf("input[%d]", i), "unknown feature %q", t.Name))
			continue
		}
		if slices.ContainsFunc(toggles[:i], func(o Toggle) bool { return o.Name == t.Name }) {
			bad = append(bad, errs.Field(fmt.Sprintf("input[%d]", i), "feature %s is sent twice", t.Name))
			continue
		}
		e := &env{p: p, c: c, look: look, buckets: s.opts.Buckets}
		if t.Settings != nil {
			e.settings = *t.Settings
		}
		if rec := records[t.Name]; rec != nil && rec.Settings != nil {
			e.settings = e.settings.orElse(*rec.Settings) // what was set before, where this request leaves a field out
		}
		if err := d.prepare(ctx, e); err != nil {
			return nil, err
		}
		if d.check != nil && t.Enable {
			if err := d.check(ctx, e); err != nil {
				if list, ok := err.(errs.List); ok {
					bad = append(bad, list...)
				} else {
					bad = append(bad, errs.As(err))
				}
				continue
			}
		}
		st, err := d.observe(ctx, e)
		if err != nil {
			return nil, err
		}
		if (t.Enable && st.status == Enabled && st.settingsMatch) || (!t.Enable && st.status == Disabled) {
			continue // already so
		}
		if !t.Enable {
			if err := checkDependents(ctx, &env{p: p, c: c, look: look}, d, toggles, records); err != nil {
				bad = append(bad, err)
				continue
			}
		}
		t.Settings = &e.settings
		changes = append(changes, t)
	}
	if len(bad) > 0 {
		return nil, bad
	}
	in := input{ClusterID: c.ID, Toggles: changes}
	return s.runner.Submit(ops.Request{
		Kind: Kind, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey, Input: in, Fingerprint: sent, Noop: len(changes) == 0,
		Prepare: func(tx *store.Tx, op *ops.Operation) error {
			for _, t := range changes {
				if err := tx.Put(recordKind, recordKey(c.ID, t.Name), &record{ClusterID: c.ID, Name: t.Name, Enable: t.Enable, Settings: t.Settings, OperationID: op.ID, UpdatedAt: tx.Now()}); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// checkDependents refuses to turn d off while a feature that requires it
// is on (or being turned on), unless the same request turns that one off.
func checkDependents(ctx context.Context, base *env, d *definition, toggles []Toggle, records map[hyperpod.Feature]*record) *errs.Error {
	for _, other := range catalog {
		if !slices.Contains(other.requires, d.name) {
			continue
		}
		i := slices.IndexFunc(toggles, func(t Toggle) bool { return t.Name == other.name })
		if i >= 0 && !toggles[i].Enable {
			continue // turned off in the same request
		}
		on := i >= 0
		if !on {
			e := *base
			if rec := records[other.name]; rec != nil && rec.Settings != nil {
				e.settings = *rec.Settings
			}
			st, err := other.observe(ctx, &e)
			if err != nil {
				return errs.As(err)
			}
			on = st.status != Disabled
		}
		if on {
			return errs.New(errs.Precondition, "%s needs %s; turn %s off first (or in the same request)", other.title, d.title, other.title).WithField(d.field)
		}
	}
	return nil
}

// steps builds the phases: per toggle, its links in order (reversed to
// disable), each after the one before; toggles run side by side.
func (s *Service) steps(op *ops.Operation) ([]ops.Step, error) {
	var in input
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	c, p, err := s.clusters.Reach(in.ClusterID, false)
	if err != nil {
		return nil, err
	}
	var steps []ops.Step
	last := map[hyperpod.Feature]string{} // a toggle's last phase
	// Turning off what another feature of the request requires waits for
	// that feature to be off: order the toggles so that dependents come
	// first when disabling.
	toggles := slices.Clone(in.Toggles)
	slices.SortStableFunc(toggles, func(a, b Toggle) int {
		if find(a.Name) == nil || find(b.Name) == nil {
			return 0
		}
		switch {
		case !a.Enable && !b.Enable && slices.Contains(find(a.Name).requires, b.Name):
			return -1
		case !a.Enable && !b.Enable && slices.Contains(find(b.Name).requires, a.Name):
			return 1
		}
		return 0
	})
	for _, t := range toggles {
		d := find(t.Name)
		if d == nil {
			return nil, errs.New(errs.Internal, "feature %q is unknown to this version of InstantStart", t.Name)
		}
		e := &env{p: p, c: c}
		if t.Settings != nil {
			e.settings = *t.Settings
		}
		chain := d.links(e)
		if !t.Enable {
			chain = slices.Clone(chain)
			slices.Reverse(chain)
			chain = slices.DeleteFunc(chain, func(l link) bool { return l.shared })
		}
		prev := ""
		if !t.Enable {
			for _, other := range toggles {
				if !other.Enable && slices.Contains(find(other.Name).requires, t.Name) && last[other.Name] != "" {
					prev = last[other.Name]
				}
			}
		}
		for _, l := range chain {
			name := phasePrefix(t.Name) + l.key
			verb := map[bool]string{true: "", false: "Remove "}[t.Enable]
			st := ops.Step{Name: name, Title: verb + l.title, Timeout: l.timeout}
			if prev != "" {
				st.DependsOn = []string{prev}
			}
			if t.Enable {
				st.Observe, st.Apply = l.observeMade, l.make
			} else {
				st.Observe, st.Apply = l.observeRemoved, l.remove
			}
			steps = append(steps, st)
			prev = name
		}
		last[t.Name] = prev
	}
	return steps, nil
}

// phasePrefix is the start of the phase names of a feature's links.
func phasePrefix(n hyperpod.Feature) string {
	return strings.ReplaceAll(strings.ToLower(string(n)), "_", "-") + "/"
}
