package inference

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// DeployInput is an endpoint to deploy: only decisions.
type DeployInput struct {
	ClusterID          string
	Name               string
	Path               Path
	Model              string
	Source             Source
	FSxFileSystemID    string
	InstanceType       string
	Replicas           int
	GPUsPerReplica     int
	Engine             Engine
	Image              string
	TensorParallelSize int
	Form               Form
	Pool               string
	KVCache            *KVCacheInput
	Routing            *Routing
	Autoscaling        *Bounds
	TLSBucket          string
	AcceptEula         bool
}

// KVCacheInput is a KV cache as asked; nil fields take the defaults.
type KVCacheInput struct {
	L1, L2    *bool
	L2Backend string
	L2URL     string
}

// Bounds of a request.
const (
	maxReplicas    = 100
	maxImageLength = 512
)

var (
	namePattern     = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)
	modelPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	imagePattern    = regexp.MustCompile(`^[a-z0-9]([a-z0-9._/:@-]*[a-zA-Z0-9_.-])?$`)
	fsxIDPattern    = regexp.MustCompile(`^fs-[0-9a-f]{8,17}$`)
	fsxPathPattern  = regexp.MustCompile(`^/[A-Za-z0-9._/-]{1,255}$`)
	jumpStartID     = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,127}$`)
	redisURLPattern = regexp.MustCompile(`^rediss?://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$`)
	bucketPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
)

// managedWorkerImage marks a managed worker whose image is the default
// one, which depends on the region (lmiImage).
const managedWorkerImage = "default"

// checkInput checks what needs nothing but the request, and fills the
// defaults.
func checkInput(in *DeployInput) error {
	switch {
	case !namePattern.MatchString(in.Name):
		return errs.Field("input.name", "%q is not a valid endpoint name: use 1-40 lower-case letters, digits and '-', starting with a letter and not ending with '-'", errs.Clip(in.Name))
	case in.Replicas < 0 || in.Replicas > maxReplicas:
		return errs.Field("input.replicas", "replicas must be between 0 and %d, got %d", maxReplicas, in.Replicas)
	case in.InstanceType == "" || len(in.InstanceType) > 64 || !strings.HasPrefix(in.InstanceType, "ml."):
		return errs.Field("input.instanceType", "%q is not a HyperPod instance type; give one of the cluster's groups' types, such as ml.g5.12xlarge", errs.Clip(in.InstanceType))
	case len(in.Image) > maxImageLength || (in.Image != "" && !imagePattern.MatchString(in.Image)):
		return errs.Field("input.image", "%q is not a container image reference (registry/repository:tag)", errs.Clip(in.Image))
	}
	if in.Path == SelfManaged {
		return checkSelfManaged(in)
	}
	return checkManaged(in)
}

func checkSelfManaged(in *DeployInput) error {
	for field, set := range map[string]bool{"input.modelSource": in.Source != "" && in.Source != FromBucket, "input.kvCache": in.KVCache != nil,
		"input.intelligentRouting": in.Routing != nil, "input.autoscaling": in.Autoscaling != nil, "input.tlsCertificateBucket": in.TLSBucket != "",
		"input.fsxFileSystemId": in.FSxFileSystemID != ""} {
		if set {
			return errs.Field(field, "%s is for MANAGED endpoints; a self-managed endpoint reads its model from the bucket (scale it with setEndpointAutoscaling)", field)
		}
	}
	in.Source = FromBucket
	switch {
	case in.Engine != VLLM && in.Engine != SGLang:
		return errs.Field("input.engine", "a SELF_MANAGED endpoint needs engine VLLM or SGLANG")
	case in.Image == "":
		return errs.Field("input.image", "a SELF_MANAGED endpoint needs the serving container's image, for example vllm/vllm-openai:v0.10.1 or lmsysorg/sglang:v0.5.3-cu126")
	case in.Form != LoadBalancer && in.Form != ClusterIP && in.Form != ModelPool:
		return errs.Field("input.serviceForm", "a SELF_MANAGED endpoint needs serviceForm LOAD_BALANCER, CLUSTER_IP or MODEL_POOL")
	case !modelPattern.MatchString(in.Model):
		return errs.Field("input.model", "%q is not a model of the bucket: give a name from models (a folder of models/)", errs.Clip(in.Model))
	case in.GPUsPerReplica < 1:
		return errs.Field("input.gpusPerReplica", "give the GPUs each replica uses (1 to the instance type's count); they are never guessed")
	}
	if in.TensorParallelSize == 0 {
		in.TensorParallelSize = in.GPUsPerReplica
	}
	if in.TensorParallelSize < 1 || in.GPUsPerReplica%in.TensorParallelSize != 0 {
		return errs.Field("input.tensorParallelSize", "tensor parallel size %d does not divide the %d GPUs of a replica; use a divisor of %d (%s)",
			in.TensorParallelSize, in.GPUsPerReplica, in.GPUsPerReplica, divisors(in.GPUsPerReplica))
	}
	if in.Form == ModelPool {
		in.Pool = cmp.Or(in.Pool, in.Name)
		if !namePattern.MatchString(in.Pool) {
			return errs.Field("input.pool", "%q is not a valid pool name: 1-40 lower-case letters, digits and '-', starting with a letter", errs.Clip(in.Pool))
		}
	} else if in.Pool != "" {
		return errs.Field("input.pool", "pool is for the MODEL_POOL service form")
	}
	return nil
}

func checkManaged(in *DeployInput) error {
	for field, set := range map[string]bool{"input.engine": in.Engine != "", "input.serviceForm": in.Form != "", "input.pool": in.Pool != "",
		"input.tensorParallelSize": in.TensorParallelSize != 0} {
		if set {
			return errs.Field(field, "%s is for SELF_MANAGED endpoints; the inference operator chooses its own engine and Service", field)
		}
	}
	in.Source = cmp.Or(in.Source, FromBucket)
	switch in.Source {
	case FromBucket:
		if !modelPattern.MatchString(in.Model) {
			return errs.Field("input.model", "%q is not a model of the bucket: give a name from models", errs.Clip(in.Model))
		}
	case FromFSx:
		if !fsxIDPattern.MatchString(in.FSxFileSystemID) {
			return errs.Field("input.fsxFileSystemId", "an FSX model source needs the file system's id (fs-...), one of the cluster's storage")
		}
		if !fsxPathPattern.MatchString(in.Model) || strings.Contains(in.Model, "..") {
			return errs.Field("input.model", "%q is not a path on the file system: give an absolute path such as /models/llama", errs.Clip(in.Model))
		}
	case FromJumpStart:
		if in.Image != "" {
			return errs.Field("input.image", "a JUMPSTART model runs in the image JumpStart gives it; leave image out")
		}
		if !jumpStartID.MatchString(in.Model) {
			return errs.Field("input.model", "%q is not a JumpStart model id (for example meta-textgeneration-llama-3-1-8b-instruct)", errs.Clip(in.Model))
		}
	default:
		return errs.Field("input.modelSource", "modelSource must be BUCKET, FSX or JUMPSTART")
	}
	if in.Source != FromJumpStart && in.AcceptEula {
		return errs.Field("input.acceptEula", "acceptEula is for JUMPSTART models")
	}
	if in.Source != FromFSx && in.FSxFileSystemID != "" {
		return errs.Field("input.fsxFileSystemId", "fsxFileSystemId is for the FSX model source")
	}
	if in.Source != FromJumpStart && in.GPUsPerReplica < 1 {
		return errs.Field("input.gpusPerReplica", "give the GPUs each replica uses (1 to the instance type's count); they are never guessed")
	}
	if in.TLSBucket != "" && !bucketPattern.MatchString(in.TLSBucket) {
		return errs.Field("input.tlsCertificateBucket", "%q is not an S3 bucket name", errs.Clip(in.TLSBucket))
	}
	if b := in.Autoscaling; b != nil {
		if err := checkBounds(*b, "input.autoscaling"); err != nil {
			return err
		}
	}
	if kv := in.KVCache; kv != nil {
		switch kv.L2Backend {
		case "", "TIERED_STORAGE":
			if kv.L2URL != "" {
				return errs.Field("input.kvCache.l2Url", "l2Url is for the REDIS backend")
			}
		case "REDIS":
			if !redisURLPattern.MatchString(kv.L2URL) {
				return errs.Field("input.kvCache.l2Url", "the REDIS backend needs l2Url, redis://host:port")
			}
		default:
			return errs.Field("input.kvCache.l2Backend", "l2Backend must be TIERED_STORAGE or REDIS")
		}
		if kv.L2Backend != "" && (kv.L2 == nil || !*kv.L2) {
			return errs.Field("input.kvCache.l2", "l2Backend is given but l2 is not on; set l2 true")
		}
	}
	if r := in.Routing; r != nil && r.Enabled {
		r.Strategy = cmp.Or(r.Strategy, "PREFIX_AWARE")
	}
	return nil
}

func checkBounds(b Bounds, field string) error {
	if b.Min < 0 || b.Max < 1 || b.Max > maxReplicas || b.Min > b.Max {
		return errs.Field(field, "the bounds must hold 0 <= minReplicas <= maxReplicas <= %d with maxReplicas at least 1; got %d and %d", maxReplicas, b.Min, b.Max)
	}
	return nil
}

// kvCache fills a KV cache's defaults: L1 on, L2 off.
func kvCache(in *KVCacheInput) *KVCache {
	kv := &KVCache{L1: true}
	if in == nil {
		return kv
	}
	if in.L1 != nil {
		kv.L1 = *in.L1
	}
	if in.L2 != nil {
		kv.L2 = *in.L2
	}
	if kv.L2 {
		kv.L2Backend, kv.L2URL = cmp.Or(in.L2Backend, "TIERED_STORAGE"), in.L2URL
	}
	return kv
}

func divisors(n int) string {
	var d []string
	for i := 1; i <= n; i++ {
		if n%i == 0 {
			d = append(d, fmt.Sprint(i))
		}
	}
	return strings.Join(d, ", ")
}

// Deploy checks an endpoint and makes its objects. It checks, before
// anything is made: the cluster ACTIVE and its shared bucket ready, the
// name free, the operator's feature on (managed), a group of the instance
// type, the GPUs the type has, and the model where it is said to be.
func (s *Service) Deploy(ctx context.Context, caller string, in DeployInput, idempotencyKey string) (*ops.Operation, error) {
	fingerprint := in
	if op, err := s.replay(KindDeploy, caller, idempotencyKey, fingerprint); op != nil || err != nil {
		return op, err
	}
	if in.Path != Managed && in.Path != SelfManaged {
		return nil, errs.Field("input.path", "path must be MANAGED or SELF_MANAGED")
	}
	if err := checkInput(&in); err != nil {
		return nil, err
	}
	c, p, err := s.clusters.Reach(in.ClusterID, true)
	if err != nil {
		return nil, errs.NotFoundOn(err, "input.clusterId")
	}
	if err := c.RequireActive("input.clusterId", "endpoints can be deployed"); err != nil {
		return nil, err
	}
	b, err := s.buckets.SharedBucket(c.ID)
	if err != nil {
		return nil, err
	}
	if err := c.RequireBucket(b, "input.clusterId", "endpoints load their models from it"); err != nil {
		return nil, err
	}
	if prior, err := s.named(c.ID, in.Name); err != nil {
		return nil, err
	} else if prior != nil && prior.Status != Deleted {
		return nil, errs.New(errs.Conflict, "cluster %s has an endpoint named %s already (endpoint %s, %s); choose another name, or delete that endpoint first", c.Name, in.Name, prior.ID, prior.Status).WithField("input.name")
	}
	if in.Path == Managed {
		if on, err := s.features.On(ctx, c.ID, hyperpod.InferenceOperator); err != nil {
			return nil, err
		} else if !on {
			return nil, errs.New(errs.Precondition, "a MANAGED endpoint runs through the HyperPod inference operator, and cluster %s does not have it: turn the INFERENCE_OPERATOR feature on (updateClusterFeatures with input.inferenceOperator), or deploy SELF_MANAGED", c.Name).WithField("input.path")
		}
		if in.TLSBucket == "" {
			if in.TLSBucket, err = s.features.TLSBucket(c.ID); err != nil {
				return nil, err
			}
		}
	}
	types, err := s.instanceTypes(c.ID)
	if err != nil {
		return nil, err
	}
	if _, ok := types[in.InstanceType]; !ok {
		have := slices.Sorted(func(yield func(string) bool) {
			for t := range types {
				if !yield(t) {
					return
				}
			}
		})
		return nil, errs.New(errs.Precondition, "cluster %s has no instance group of type %s (it has %s); choose one of those, or add a group of that type (addInstanceGroup)",
			c.Name, in.InstanceType, cmp.Or(strings.Join(have, ", "), "none")).WithField("input.instanceType")
	}
	sh, err := capacity.InstanceShape(ctx, p, in.InstanceType, "input.instanceType")
	if err != nil {
		return nil, err
	}
	if sh.Accelerators == 0 || sh.Neuron {
		return nil, errs.New(errs.Precondition, "instance type %s has no NVIDIA GPUs; vLLM, SGLang and the inference operator's workers need them: choose a GPU type", in.InstanceType).WithField("input.instanceType")
	}
	if in.GPUsPerReplica > sh.Accelerators {
		return nil, errs.New(errs.Validation, "a replica asks for %d GPUs and instance type %s has %d; ask for at most %d, or choose a larger type", in.GPUsPerReplica, in.InstanceType, sh.Accelerators, sh.Accelerators).WithField("input.gpusPerReplica")
	}
	claim := b.ClaimName
	switch in.Source {
	case FromBucket:
		found, err := cloud.HasObjects(ctx, p, b.Name, "models/"+in.Model+"/")
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errs.New(errs.Precondition, "the shared bucket %s has no model %s (models/%s/ is empty); download it first (downloadModel), or choose one of the cluster's models", b.Name, in.Model, in.Model).WithField("input.model")
		}
	case FromFSx:
		if claim, err = s.buckets.FSxClaim(c.ID, in.FSxFileSystemID); err != nil {
			return nil, err
		} else if claim == "" {
			return nil, errs.New(errs.Precondition, "cluster %s has no FSx for Lustre file system %s ready; add it (addStorage with kind FSX_LUSTRE) or choose one of its storage", c.Name, in.FSxFileSystemID).WithField("input.fsxFileSystemId")
		}
	}
	id := s.ids.NewID()
	e := newEndpoint(id, c, b, in)
	var actions []action
	if in.Path == SelfManaged {
		actions, err = selfManagedActions(e, claim, shape{gpus: sh.Accelerators, vcpus: sh.VCPUs, memoryGiB: sh.MemoryGiB})
	} else {
		actions, err = managedActions(e, b, claim, c.Region)
	}
	if err != nil {
		return nil, err
	}
	lbc := false
	if in.Form == LoadBalancer {
		if lbc, err = s.features.On(ctx, c.ID, hyperpod.LoadBalancerController); err != nil {
			return nil, err
		}
		lbc = !lbc
	}
	prepare := func(tx *store.Tx, op *ops.Operation) error {
		if prior, err := tx.GetIndex(nameIndex, c.ID+"/"+in.Name); err == nil {
			var was Endpoint
			if err := tx.Get(RecordKind, prior, &was); err != nil || was.Status != Deleted {
				return errs.New(errs.Conflict, "cluster %s has an endpoint named %s already; choose another name", c.Name, in.Name).WithField("input.name")
			}
		}
		e.CreatedAt, e.UpdatedAt, e.LastOperationID = tx.Now(), tx.Now(), op.ID
		if lbc {
			if err := s.features.RecordLoadBalancerController(tx, c.ID, op.ID); err != nil {
				return err
			}
		}
		if err := tx.Put(RecordKind, id, e); err != nil {
			return err
		}
		if err := tx.PutIndex(nameIndex, c.ID+"/"+in.Name, id); err != nil {
			return err
		}
		return tx.PutIndex(clusterIndex, c.ID+"/"+id, "")
	}
	return s.submit(KindDeploy, caller, idempotencyKey, e, opInput{Actions: actions, LoadBalancerController: lbc, Change: &change{Deployed: true}}, fingerprint, prepare)
}

// newEndpoint is a deployed endpoint's first record.
func newEndpoint(id string, c *hyperpod.Cluster, b *hyperpod.Bucket, in DeployInput) *Endpoint {
	e := &Endpoint{ID: id, ClusterID: c.ID, Name: in.Name, Namespace: b.Namespace, Path: in.Path, Engine: in.Engine, Form: in.Form, Pool: in.Pool,
		Model: in.Model, Source: in.Source, FSxFileSystemID: in.FSxFileSystemID, InstanceType: in.InstanceType, Image: in.Image,
		TensorParallelSize: in.TensorParallelSize, GPUsPerReplica: in.GPUsPerReplica, Replicas: in.Replicas,
		Status: Pending, StatusMessage: "deployed: the objects are being made", Pods: []Pod{}, AcceptEula: in.AcceptEula}
	if in.Path == SelfManaged {
		e.Workload = deploymentName(in.Engine, in.Name)
		e.Object = "Deployment/" + e.Workload
		return e
	}
	e.Image = cmp.Or(in.Image, managedWorkerImage)
	if in.Source == FromJumpStart {
		e.Image = in.Image
	}
	e.KVCache, e.Routing, e.ManagedScaling, e.TLSBucket = kvCache(in.KVCache), in.Routing, in.Autoscaling, in.TLSBucket
	if e.Routing == nil {
		e.Routing = &Routing{}
	}
	e.Workload = in.Name
	if in.Source == FromJumpStart {
		e.Object = "JumpStartModel/" + in.Name
	} else {
		e.Object = "InferenceEndpointConfig/" + in.Name
	}
	return e
}

// selfManagedActions make a self-managed endpoint's Deployment and Service.
func selfManagedActions(e *Endpoint, claim string, sh shape) ([]action, error) {
	dep, err := toUnstructured(selfManagedDeployment(e, claim, sh))
	if err != nil {
		return nil, err
	}
	a, err := newAction(verbEnsure, deployments, "deployment", "Make "+objectTitle("Deployment", e.Namespace, e.Workload), dep)
	if err != nil {
		return nil, err
	}
	out := []action{a}
	if svc := endpointService(e); svc != nil {
		u, err := toUnstructured(svc)
		if err != nil {
			return nil, err
		}
		a, err := newAction(verbEnsure, services, "service", "Make "+objectTitle("Service", e.Namespace, svc.Name)+" ("+string(e.Form)+")", u)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
