package training

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// SubmitInput is a training job to submit: only decisions.
type SubmitInput struct {
	ClusterID     string
	Name          string
	Recipe        recipe.Name
	Model         string
	DatasetPath   string
	Script        string
	InstanceGroup string
	Nodes         int
	// GPUsPerNode is 0 for all of the instance type's.
	GPUsPerNode int
	Settings    []Setting
	// Recovery holds what was given; zero fields take the defaults.
	Recovery   RecoveryInput
	Experiment string
	// Checkpointing is S3 when empty.
	Checkpointing Checkpointing
	// Ray is, for RAY, the program's arguments, runtime environment and
	// worker groups.
	Ray *recipe.RayProgram
}

// RecoveryInput is the recovery budget asked for; nil fields take the
// defaults.
type RecoveryInput struct {
	MaxRestarts                  *int
	WindowSeconds                *int
	MaxFullJobRestarts           *int
	RestartsBeforeFullJobRestart *int
	DetectHangs                  *bool
}

// submitInput is what a SubmitTrainingJob operation stores: the job's
// record id and the object to make, built once when it was submitted.
type submitInput struct {
	JobID     string          `json:"jobId"`
	ClusterID string          `json:"clusterId"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Kind      Kind            `json:"kind"`
	Object    json.RawMessage `json:"object"`
}

// Bounds of a request.
const (
	maxExperimentLength = 200
	maxSettings         = 32
)

// Submit checks a training job and makes its object. It checks, before
// anything is made: the cluster ACTIVE and its shared bucket ready, the
// name free, the operator's feature on, the group there with the nodes
// and GPUs asked (or autoscaled), and the model, dataset and script in
// the bucket.
func (s *Service) Submit(ctx context.Context, caller string, in SubmitInput, idempotencyKey string) (*ops.Operation, error) {
	if len(in.Settings) > maxSettings {
		return nil, errs.Field("input.settings", "%d settings is more than a recipe has; send at most %d", len(in.Settings), maxSettings)
	}
	if len(in.Experiment) > maxExperimentLength {
		return nil, errs.Field("input.experiment", "the experiment's name is longer than %d characters", maxExperimentLength)
	}
	if i := strings.IndexFunc(in.Experiment, unicode.IsControl); i >= 0 {
		return nil, errs.Field("input.experiment", "the experiment's name has a control character at byte %d; use printable characters", i)
	}
	req := ops.Request{Kind: KindSubmit, Target: ops.Ref{Kind: targetKind}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: in}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	settings := map[string]string{}
	for _, st := range in.Settings {
		if _, dup := settings[st.Key]; dup {
			return nil, errs.Field("input.settings", "setting %q is given twice; give each key once", errs.Clip(st.Key))
		}
		settings[st.Key] = st.Value
	}
	r := recipe.Request{Name: in.Name, Namespace: "default", Recipe: in.Recipe, Model: in.Model, DatasetPath: in.DatasetPath, Script: in.Script,
		Settings: settings, InstanceGroup: in.InstanceGroup, Nodes: in.Nodes, GPUsPerNode: in.GPUsPerNode, Recovery: recovery(in.Recovery), Ray: in.Ray}
	// The checks that need nothing but the request come first.
	if err := recipe.CheckRequest(r); err != nil {
		return nil, err
	}
	mode := cmp.Or(in.Checkpointing, CheckpointS3)
	if err := checkCheckpointing(mode, in.Recipe); err != nil {
		return nil, err
	}
	c, p, err := s.clusters.Reach(in.ClusterID, true)
	if err != nil {
		return nil, errs.NotFoundOn(err, "input.clusterId")
	}
	if err := c.RequireActive("input.clusterId", "jobs can be submitted"); err != nil {
		return nil, err
	}
	b, err := s.buckets.SharedBucket(c.ID)
	if err != nil {
		return nil, err
	}
	if err := c.RequireBucket(b, "input.clusterId", "jobs read their model and dataset from it and write outputs and checkpoints to it"); err != nil {
		return nil, err
	}
	if prior, err := s.named(c.ID, in.Name); err != nil {
		return nil, err
	} else if prior != nil {
		return nil, errs.New(errs.Conflict, "cluster %s has a job named %s already (job %s, %s); choose another name, or delete that job first", c.Name, in.Name, prior.ID, prior.Status).WithField("input.name")
	}
	info := recipe.Find(in.Recipe)
	ray := info.Kind == string(RayJob)
	operator := hyperpod.TrainingOperator
	if ray {
		operator = hyperpod.KubeRay
	}
	if on, err := s.features.On(ctx, c.ID, operator); err != nil {
		return nil, err
	} else if !on && ray {
		return nil, errs.New(errs.Precondition, "the %s recipe runs as a RayJob, and cluster %s has no KubeRay operator: turn the KUBERAY feature on (updateClusterFeatures with input.kubeRay true), then submit again", in.Recipe, c.Name).WithField("input.recipe")
	} else if !on {
		return nil, errs.New(errs.Precondition, "the %s recipe runs as a HyperPodPyTorchJob, and cluster %s has no HyperPod training operator: turn the TRAINING_OPERATOR feature on (updateClusterFeatures with input.trainingOperator true), then submit again", in.Recipe, c.Name).WithField("input.recipe")
	}
	g, err := s.group(c.ID, in.InstanceGroup)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errs.New(errs.Precondition, "cluster %s has no instance group %s; list its instance groups and choose one with GPUs or Trainium", c.Name, errs.Clip(in.InstanceGroup)).WithField("input.instanceGroup")
	}
	autoscaled := false
	if in.Nodes > g.Count {
		if autoscaled, err = s.features.Autoscaled(ctx, c.ID, g.Name); err != nil {
			return nil, err
		}
	}
	if in.Nodes > g.Count && !autoscaled {
		return nil, errs.New(errs.Precondition, "instance group %s holds %d nodes and managed Karpenter does not scale it; ask for at most %d nodes, scale the group to %d (updateInstanceGroup), or let Karpenter scale it (the KARPENTER_AUTOSCALING feature)", g.Name, g.Count, g.Count, in.Nodes).WithField("input.nodes")
	}
	shape, err := instanceShape(ctx, p, g.InstanceTypes[0])
	if err != nil {
		return nil, err
	}
	r.InstanceType, r.Shape, r.ClaimName, r.Bucket, r.Region = g.InstanceTypes[0], shape, b.ClaimName, b.Name, c.Region
	r.Namespace = b.Namespace
	if r.Tiered, err = s.tieredFor(ctx, c, g, mode, r.Namespace); err != nil {
		return nil, err
	}
	if err := s.lookupRayWorkers(ctx, p, c, &r); err != nil {
		return nil, err
	}
	if err := recipe.Check(r); err != nil {
		return nil, err
	}
	if err := s.checkBucketPaths(ctx, p, b.Name, r); err != nil {
		return nil, err
	}
	mlflow, err := s.features.MLflow(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if mlflow != nil {
		r.MLflow = &recipe.MLflow{TrackingServerArn: mlflow.TrackingServerArn, Experiment: cmp.Or(in.Experiment, c.Name), RunName: in.Name, ServiceAccount: mlflow.ServiceAccount}
	}
	id := s.ids.NewID()
	r.JobID = id
	built, err := recipe.Build(r)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(built.Object.Object)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "encode the job's object: %v", err)
	}
	kind := Kind(built.Kind)
	req.Target = ops.Ref{Kind: targetKind, ID: id, Name: in.Name}
	req.Input = submitInput{JobID: id, ClusterID: c.ID, Name: in.Name, Namespace: r.Namespace, Kind: kind, Object: raw}
	req.Prepare = func(tx *store.Tx, op *ops.Operation) error {
		if _, err := tx.GetIndex(nameIndex, c.ID+"/"+in.Name); err == nil {
			return errs.New(errs.Conflict, "cluster %s has a job named %s already; choose another name", c.Name, in.Name).WithField("input.name")
		}
		j := newRecord(id, c.ID, r, built, kind, op.ID, tx)
		j.Checkpointing = mode
		if r.Recipe == recipe.Ray {
			j.Nodes, j.Ray = r.RayNodes(), rayRecord(r, built)
		}
		if r.MLflow != nil {
			j.MLflow = &MLflowTarget{TrackingServerArn: r.MLflow.TrackingServerArn, Experiment: r.MLflow.Experiment, RunName: r.MLflow.RunName}
		}
		if err := tx.Put(RecordKind, id, j); err != nil {
			return err
		}
		if err := tx.PutIndex(nameIndex, c.ID+"/"+in.Name, id); err != nil {
			return err
		}
		return tx.PutIndex(clusterIndex, c.ID+"/"+id, "")
	}
	return s.runner.Submit(req)
}

// newRecord is a submitted job's first record.
func newRecord(id, clusterID string, r recipe.Request, built *recipe.Job, kind Kind, opID string, tx *store.Tx) *Job {
	settings := make([]Setting, 0, len(built.Settings))
	for _, k := range slices.Sorted(maps.Keys(built.Settings)) {
		settings = append(settings, Setting{Key: k, Value: built.Settings[k]})
	}
	rc := r.Recovery
	return &Job{ID: id, ClusterID: clusterID, Name: r.Name, Namespace: r.Namespace, Kind: kind, Recipe: r.Recipe, Status: Pending,
		StatusMessage: "submitted: the object is being made",
		Model:         r.Model, DatasetPath: r.DatasetPath, Script: r.Script, InstanceGroup: r.InstanceGroup, InstanceType: r.InstanceType,
		Nodes: r.Nodes, GPUsPerNode: built.GPUsPerNode, EFAPerNode: built.EFAPerNode, ProcessesPerNode: built.ProcessesPerNode,
		Settings: settings, Image: built.Image, OutputPath: built.OutputPath, CheckpointPath: built.CheckpointPath,
		Pods: []Pod{}, Restarts: []Restart{},
		Budget: Budget{RestartsAllowed: rc.MaxRestarts, FullJobRestartsAllowed: rc.MaxFullJobRestarts,
			RestartsBeforeFullJobRestart: rc.RestartsBeforeFullJobRestart, WindowSeconds: rc.WindowSeconds},
		CreatedAt: tx.Now(), UpdatedAt: tx.Now(), LastOperationID: opID}
}

// recovery fills the defaults of what was asked.
func recovery(in RecoveryInput) recipe.Recovery {
	r := recipe.DefaultRecovery()
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&r.MaxRestarts, in.MaxRestarts)
	set(&r.WindowSeconds, in.WindowSeconds)
	set(&r.MaxFullJobRestarts, in.MaxFullJobRestarts)
	set(&r.RestartsBeforeFullJobRestart, in.RestartsBeforeFullJobRestart)
	if in.DetectHangs != nil {
		r.DetectHangs = *in.DetectHangs
	}
	return r
}

// instanceShape reads what one instance of the group's type has.
func instanceShape(ctx context.Context, p *cloud.Provider, instanceType string) (recipe.Shape, error) {
	sh, err := capacity.InstanceShape(ctx, p, instanceType, "input.instanceGroup")
	return sh, err
}

// checkBucketPaths refuses a model, dataset or script that is not in the
// shared bucket.
func (s *Service) checkBucketPaths(ctx context.Context, p *cloud.Provider, bucket string, r recipe.Request) error {
	if r.Model != "" {
		found, err := cloud.HasObjects(ctx, p, bucket, "models/"+r.Model+"/")
		if err != nil {
			return err
		}
		if !found {
			return errs.New(errs.Precondition, "the shared bucket %s has no model %s (models/%s/ is empty); download it first (downloadModel), or choose one of the cluster's models", bucket, r.Model, r.Model).WithField("input.model")
		}
	}
	if found, err := cloud.HasObjects(ctx, p, bucket, r.DatasetPath); err != nil {
		return err
	} else if !found {
		return errs.New(errs.Precondition, "the shared bucket %s has nothing at %s; put the dataset there first (for example with aws s3 cp), or give the path of one that is there", bucket, r.DatasetPath).WithField("input.datasetPath")
	}
	if r.Script != "" {
		if found, err := cloud.HasObjects(ctx, p, bucket, r.Script); err != nil {
			return err
		} else if !found {
			return errs.New(errs.Precondition, "the shared bucket %s has no script %s; put it there first, or give the path of one that is there", bucket, r.Script).WithField("input.script")
		}
	}
	return nil
}

// submitSteps builds SubmitTrainingJob's phase from its stored input.
func (s *Service) submitSteps(op *ops.Operation) ([]ops.Step, error) {
	var in submitInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	c, p, err := s.clusters.Reach(in.ClusterID, false)
	if err != nil {
		return nil, err
	}
	return []ops.Step{s.objectStep(p, c, in)}, nil
}

// phaseObject makes the job's object.
const phaseObject = "object"

// objectOutput names what the object phase made.
type objectOutput struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	UID  string `json:"uid"`
}

func (s *Service) objectStep(p *cloud.Provider, c *hyperpod.Cluster, in submitInput) ops.Step {
	title := fmt.Sprintf("%s %s/%s", in.Kind.objectKind(), in.Namespace, in.Name)
	observe := func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
		kc, err := p.KubeOf(ctx, c.EKS.Name)
		if err != nil {
			return ops.Observation{}, err
		}
		obj, err := getObject(ctx, kc, in.Kind, in.Namespace, in.Name)
		switch {
		case err != nil:
			return ops.Observation{}, err
		case obj == nil:
			return ops.Observation{State: ops.Absent}, nil
		case obj.GetLabels()[jobIDLabel] != in.JobID:
			return ops.Observation{State: ops.Broken, Err: errs.New(errs.Conflict, "%s exists and is not this job's (label %s=%q); delete it or submit under another name", title, jobIDLabel, obj.GetLabels()[jobIDLabel])}, nil
		}
		return ops.Observation{State: ops.Done, Output: objectOutput{Kind: in.Kind.objectKind(), Name: in.Name, UID: string(obj.GetUID())}}, nil
	}
	return ops.Step{Name: phaseObject, Title: "Make " + title, Observe: observe,
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			kc, err := p.KubeOf(ctx, c.EKS.Name)
			if err != nil {
				return nil, err
			}
			var obj unstructured.Unstructured
			if err := json.Unmarshal(in.Object, &obj.Object); err != nil {
				return nil, errs.Wrap(errs.Internal, err, "read the stored object of %s: %v", title, err)
			}
			made, err := createObject(ctx, kc, in.Kind, &obj)
			if err != nil {
				return nil, err
			}
			return objectOutput{Kind: in.Kind.objectKind(), Name: in.Name, UID: string(made.GetUID())}, nil
		}}
}

// reflectSubmit updates the job's record from its submit operation.
func (s *Service) reflectSubmit(tx *store.Tx, op *ops.Operation) error {
	var in submitInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return err
	}
	var j Job
	if err := tx.Get(RecordKind, in.JobID, &j); err != nil {
		return fmt.Errorf("load job %s: %w", in.JobID, err)
	}
	if j.Status.Terminal() {
		return nil
	}
	if out, err := ops.OutputOf[objectOutput](op, phaseObject); err == nil && out.UID != "" {
		j.UID = out.UID
	}
	j.LastOperationID = op.ID
	switch op.Status {
	case ops.Succeeded:
		if j.StatusMessage == "submitted: the object is being made" {
			j.StatusMessage = "the object is made; waiting for the operator to start it"
		}
	case ops.Failed:
		j.Status = Failed
		if op.Error != nil {
			j.StatusMessage = "the object could not be made: " + op.Error.Message
		}
	case ops.Cancelled:
		j.Status, j.StatusMessage = Failed, "the submission was cancelled before the object was made"
	}
	j.UpdatedAt = tx.Now()
	return tx.Put(RecordKind, j.ID, &j)
}
