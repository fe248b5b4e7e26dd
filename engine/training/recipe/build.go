package recipe

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/errs"
)

// Job is a built job: its object and what was derived for its record.
type Job struct {
	Object *unstructured.Unstructured
	// Kind is KindHyperPodPyTorchJob or KindRayJob.
	Kind  string
	Image string
	// Settings is the recipe's settings, defaults filled in.
	Settings         map[string]string
	ProcessesPerNode int
	GPUsPerNode      int
	EFAPerNode       int
	// OutputPath is s3://<bucket>/outputs/<name>/; CheckpointPath
	// s3://<bucket>/checkpoints/<name>/.
	OutputPath     string
	CheckpointPath string
}

// Labels of what a job makes.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelJobID     = "instantstart.io/job-id"
	LabelRecipe    = "instantstart.io/recipe"
	LabelProgram   = "instantstart.io/program"
	managedBy      = "instantstart"
)

// Where the pods see things.
const (
	bucketMount = "/s3"
	shmMount    = "/dev/shm"
	localMount  = "/local"
	// localNVMe is where the HyperPod AMI mounts the instance store.
	localNVMe = "/opt/dlami/nvme"
)

// build is what every builder reads: the request and what Build derived.
type build struct {
	r        Request
	info     Info
	settings map[string]string
	job      *Job
}

func (b *build) checkpointDir() string { return bucketMount + "/checkpoints/" + b.r.Name }
func (b *build) outputDir() string     { return bucketMount + "/outputs/" + b.r.Name }
func (b *build) datasetPath() string   { return bucketMount + "/" + b.r.DatasetPath }
func (b *build) modelPath(m string) string {
	return bucketMount + "/models/" + m
}

// Build checks r (as Check does) and builds its object.
func Build(r Request) (*Job, error) {
	if err := Check(r); err != nil {
		return nil, err
	}
	info := Find(r.Recipe)
	gpus := gpusPerNode(r)
	procs := gpus
	if r.Shape.Neuron {
		// Two NeuronCores per Trainium device, one process each.
		procs = 2 * gpus
	}
	b := &build{r: r, info: info, settings: withDefaults(info, r.Settings)}
	b.job = &Job{Kind: info.Kind, Image: info.ImageIn(r.Region), Settings: b.settings,
		ProcessesPerNode: procs, GPUsPerNode: gpus, EFAPerNode: r.Shape.EFA,
		OutputPath:     "s3://" + r.Bucket + "/outputs/" + r.Name + "/",
		CheckpointPath: "s3://" + r.Bucket + "/checkpoints/" + r.Name + "/"}
	if r.Tiered != nil {
		b.job.CheckpointPath = b.s3TierPath()
	}
	var obj map[string]any
	switch info.Kind {
	case KindHyperPodPyTorchJob:
		obj = b.hyperPodJob()
	case KindRayJob:
		if r.Recipe == Ray {
			obj = b.rayProgramJob()
		} else {
			obj = b.rayJob()
		}
	default:
		return nil, errs.New(errs.Internal, "recipe %s has no builder", r.Recipe)
	}
	b.job.Object = &unstructured.Unstructured{Object: obj}
	return b.job, nil
}

func (b *build) labels(extra ...string) map[string]any {
	l := map[string]any{LabelManagedBy: managedBy, LabelJobID: b.r.JobID, LabelRecipe: b.r.Recipe.label()}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return l
}

func (b *build) metadata() map[string]any {
	return map[string]any{"name": b.r.Name, "namespace": b.r.Namespace, "labels": b.labels()}
}

// accelerator is the extended resource of the shape's accelerators.
func (b *build) accelerator() string {
	if b.r.Shape.Neuron {
		return "aws.amazon.com/neuron"
	}
	return "nvidia.com/gpu"
}

// env is the pods' environment, in a fixed order.
func (b *build) env() [][2]string {
	s := b.settings
	env := [][2]string{
		{"MAX_STEPS", s[keyMaxSteps]},
		{"CHECKPOINT_STEPS", s[keySaveSteps]},
		{"CHECKPOINT_DIR", b.checkpointDir()},
		{"OUTPUT_DIR", b.outputDir()},
	}
	if b.r.Shape.EFA > 0 {
		env = append(env, [2]string{"FI_PROVIDER", "efa"})
		if rdmaCapable(b.r.InstanceType) {
			env = append(env, [2]string{"FI_EFA_USE_DEVICE_RDMA", "1"})
		}
		env = append(env, [2]string{"FI_EFA_FORK_SAFE", "1"})
	}
	if !b.r.Shape.Neuron {
		env = append(env, [2]string{"NCCL_SOCKET_IFNAME", "^lo,docker"}, [2]string{"NCCL_DEBUG", "WARN"})
	}
	if m := b.r.MLflow; m != nil {
		env = append(env, [2]string{"MLFLOW_TRACKING_URI", m.TrackingServerArn},
			[2]string{"MLFLOW_EXPERIMENT_NAME", m.Experiment}, [2]string{"MLFLOW_RUN_NAME", m.RunName})
	}
	if b.r.Tiered != nil {
		env = append(env, b.tieredEnv()...)
	}
	return env
}

// rdmaCapable reports whether a type's EFA does GPU (or Neuron) direct
// RDMA, which FI_EFA_USE_DEVICE_RDMA asks for; on the others libfabric
// refuses it.
func rdmaCapable(instanceType string) bool {
	family, _, _ := strings.Cut(strings.TrimPrefix(instanceType, "ml."), ".")
	switch family {
	case "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200", "p6e-gb200", "trn1", "trn1n", "trn2", "trn2u":
		return true
	}
	return false
}

// container is a training container: image, environment, the
// accelerators and EFA of a whole node, the volumes.
func (b *build) container(name string) map[string]any {
	env := make([]any, 0, 16)
	for _, kv := range b.env() {
		env = append(env, map[string]any{"name": kv[0], "value": kv[1]})
	}
	res := map[string]any{b.accelerator(): int64(b.job.GPUsPerNode)}
	if b.r.Shape.EFA > 0 {
		res["vpc.amazonaws.com/efa"] = int64(b.r.Shape.EFA)
	}
	if b.r.Tiered != nil && b.r.Shape.MemoryGiB > 0 {
		res["memory"] = itoa(b.podMemoryGiB()) + "Gi"
	}
	limits := make(map[string]any, len(res))
	for k, v := range res {
		limits[k] = v
	}
	return map[string]any{
		"name":            name,
		"image":           b.job.Image,
		"imagePullPolicy": "IfNotPresent",
		"env":             env,
		"resources":       map[string]any{"requests": res, "limits": limits},
		"volumeMounts": []any{
			map[string]any{"name": "s3", "mountPath": bucketMount},
			map[string]any{"name": "shm", "mountPath": shmMount},
			map[string]any{"name": "local", "mountPath": localMount},
		},
	}
}

// podTemplate places containers on the group's nodes, with the bucket's
// claim, shared memory and the local NVMe.
func (b *build) podTemplate(containers ...map[string]any) map[string]any {
	cs := make([]any, len(containers))
	for i, c := range containers {
		cs[i] = c
	}
	spec := map[string]any{
		"containers": cs,
		"affinity": map[string]any{"nodeAffinity": map[string]any{
			"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{
				map[string]any{"matchExpressions": []any{
					map[string]any{"key": "sagemaker.amazonaws.com/instance-group-name", "operator": "In", "values": []any{b.r.InstanceGroup}},
					// HyperPod labels its nodes with the SageMaker type, ml. included.
					map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []any{b.r.InstanceType}},
				}},
			}},
		}},
		"tolerations": []any{
			map[string]any{"key": b.accelerator(), "operator": "Exists", "effect": "NoSchedule"},
		},
		"volumes": []any{
			map[string]any{"name": "s3", "persistentVolumeClaim": map[string]any{"claimName": b.r.ClaimName}},
			map[string]any{"name": "shm", "emptyDir": map[string]any{"medium": "Memory"}},
			map[string]any{"name": "local", "hostPath": map[string]any{"path": localNVMe, "type": "DirectoryOrCreate"}},
		},
	}
	if m := b.r.MLflow; m != nil && m.ServiceAccount != "" {
		spec["serviceAccountName"] = m.ServiceAccount
	}
	if t := b.r.Tiered; t != nil {
		spec["serviceAccountName"] = t.ServiceAccount
	}
	return map[string]any{
		"metadata": map[string]any{"labels": b.labels(LabelProgram, "training")},
		"spec":     spec,
	}
}

// quote makes s one word of a POSIX shell command line.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%^", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// words joins a command line, quoting each word.
func words(ws ...string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}

func itoa(n int) string { return strconv.Itoa(n) }
