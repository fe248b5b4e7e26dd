package recipe

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/instantstart/instantstart/engine/errs"
)

// RayProgram is what the RAY recipe runs besides its script: the
// script's arguments, the Ray runtime environment (pip packages and
// environment variables) and the worker groups. The head is one node of
// the request's instance group.
type RayProgram struct {
	Args []string
	// Pip is requirement specifiers, torch==2.5.1.
	Pip []string
	Env []EnvVar
	// Workers are the worker groups, one per instance group.
	Workers []RayWorkers
}

// EnvVar is one variable of a runtime environment.
type EnvVar struct {
	Name  string
	Value string
}

// RayWorkers is a worker group of a RAY job: Replicas nodes of an
// instance group.
type RayWorkers struct {
	InstanceGroup string
	Replicas      int
	// GPUsPerNode is 0 for all of the instance type's.
	GPUsPerNode int

	// InstanceType and Shape are the group's, looked up by the caller.
	InstanceType string
	Shape        Shape
}

// Bounds of a Ray program.
const (
	maxRayArgs        = 64
	maxRayArgBytes    = 1024
	maxRayPip         = 64
	maxRayEnv         = 64
	maxRayEnvValue    = 4096
	maxRayWorkerGroup = 8
)

var (
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	// pipPattern is a requirement specifier without spaces, URLs or
	// options: a name, extras, version constraints and markers' words.
	pipPattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?([<>=!~]=?[A-Za-z0-9.*+!_-]+(,[<>=!~]=?[A-Za-z0-9.*+!_-]+)*)?$`)
	groupPattern = regexp.MustCompile(`^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?$`)
)

var raySettings = []SettingInfo{
	intSetting(keyMaxSteps, "Training steps in all, for your program to read (MAX_STEPS in its environment).", "1000", 1, 1_000_000),
	intSetting(keySaveSteps, "Steps between checkpoints, for your program to read (CHECKPOINT_STEPS in its environment).", "100", 1, 1_000_000),
}

// rayReserved are the runtime environment's variables the recipe sets.
var rayReserved = []string{"MAX_STEPS", "CHECKPOINT_STEPS", "CHECKPOINT_DIR", "OUTPUT_DIR", "DATASET_PATH",
	"FI_PROVIDER", "FI_EFA_USE_DEVICE_RDMA", "FI_EFA_FORK_SAFE", "NCCL_SOCKET_IFNAME", "NCCL_DEBUG",
	"MLFLOW_TRACKING_URI", "MLFLOW_EXPERIMENT_NAME", "MLFLOW_RUN_NAME"}

// checkRay refuses what is wrong in a request's Ray program alone.
func checkRay(r Request) errs.List {
	var bad errs.List
	add := func(field, format string, args ...any) { bad = append(bad, errs.Field(field, format, args...)) }
	if r.Recipe != Ray {
		if r.Ray != nil {
			add("input.ray", "only the RAY recipe takes ray; leave it out for %s, or choose RAY", r.Recipe)
		}
		return bad
	}
	if r.Nodes != 1 {
		add("input.nodes", "the RAY recipe's head is one node of instanceGroup, and nodes is %d; give nodes 1 and put the other nodes in ray.workerGroups", r.Nodes)
	}
	p := r.Ray
	if p == nil {
		return bad
	}
	if len(p.Args) > maxRayArgs {
		add("input.ray.args", "%d arguments is more than the %d allowed; pass fewer, or read a config file of the bucket", len(p.Args), maxRayArgs)
	} else {
		for i, a := range p.Args {
			switch {
			case len(a) > maxRayArgBytes:
				add("input.ray.args", "argument %d is longer than %d bytes; pass a shorter one, or a file of the bucket", i+1, maxRayArgBytes)
			case strings.ContainsFunc(a, unicode.IsControl):
				add("input.ray.args", "argument %d has a control character; use printable characters", i+1)
			}
		}
	}
	if len(p.Pip) > maxRayPip {
		add("input.ray.pip", "%d pip packages is more than the %d allowed; install fewer, or use an image that has them", len(p.Pip), maxRayPip)
	} else {
		for _, pkg := range p.Pip {
			if len(pkg) > 200 || !pipPattern.MatchString(pkg) {
				add("input.ray.pip", "pip package %q is not a requirement like torch==2.5.1 or transformers>=4.44 (a name, optional [extras] and version constraints, no spaces or URLs, up to 200 characters)", errs.Clip(pkg))
			}
		}
	}
	if len(p.Env) > maxRayEnv {
		add("input.ray.env", "%d environment variables is more than the %d allowed; set fewer", len(p.Env), maxRayEnv)
	} else {
		seen := map[string]bool{}
		for _, e := range p.Env {
			switch {
			case !envNamePattern.MatchString(e.Name):
				add("input.ray.env", "environment variable name %q is not letters, digits and '_' starting with a letter or '_' (up to 128); rename it", errs.Clip(e.Name))
			case slices.Contains(rayReserved, e.Name):
				add("input.ray.env", "%s is set by the recipe (it sets %s); choose another name", e.Name, strings.Join(rayReserved, ", "))
			case seen[e.Name]:
				add("input.ray.env", "environment variable %s is given twice; give each name once", e.Name)
			case len(e.Value) > maxRayEnvValue:
				add("input.ray.env", "the value of %s is longer than %d bytes; put it in a file of the bucket and pass its path", e.Name, maxRayEnvValue)
			case strings.ContainsFunc(e.Value, unicode.IsControl):
				add("input.ray.env", "the value of %s has a control character; use printable characters", e.Name)
			}
			seen[e.Name] = true
		}
	}
	if len(p.Workers) > maxRayWorkerGroup {
		add("input.ray.workerGroups", "%d worker groups is more than the %d allowed; give one per instance group", len(p.Workers), maxRayWorkerGroup)
		return bad
	}
	total := 1
	seen := map[string]bool{}
	for i, w := range p.Workers {
		field := fmt.Sprintf("input.ray.workerGroups[%d]", i)
		switch {
		case !groupPattern.MatchString(w.InstanceGroup):
			add(field+".instanceGroup", "%q is not an instance group's name; give one the cluster's instance groups list", errs.Clip(w.InstanceGroup))
		case seen[w.InstanceGroup]:
			add(field+".instanceGroup", "instance group %s has two worker groups; give each instance group once, with all its replicas", w.InstanceGroup)
		}
		seen[w.InstanceGroup] = true
		if w.Replicas < 1 || w.Replicas > maxNodes {
			add(field+".replicas", "%d replicas is outside 1-%d; ask for 1 to %d", w.Replicas, maxNodes, maxNodes)
		}
		if w.GPUsPerNode < 0 {
			add(field+".gpusPerNode", "%d GPUs per node is negative; leave it out for all of the instance type's", w.GPUsPerNode)
		}
		total += max(w.Replicas, 0)
	}
	if total > maxNodes && len(bad) == 0 {
		add("input.ray.workerGroups", "the head and the workers are %d nodes, more than %d; ask for fewer replicas", total, maxNodes)
	}
	return bad
}

// checkRayShapes refuses worker groups whose instance type cannot give
// what they ask.
func checkRayShapes(r Request) errs.List {
	if r.Ray == nil {
		return nil
	}
	var bad errs.List
	for i, w := range r.Ray.Workers {
		field := fmt.Sprintf("input.ray.workerGroups[%d]", i)
		switch sh := w.Shape; {
		case w.InstanceType == "":
			bad = append(bad, errs.New(errs.Internal, "the instance type of worker group %s must be looked up before it is checked", w.InstanceGroup))
		case sh.Neuron != r.Shape.Neuron:
			bad = append(bad, errs.New(errs.Precondition, "the head's group %s is %s and worker group %s is %s; Ray's workers must have the head's kind of accelerator, so choose groups of one kind", r.InstanceGroup, acceleratorWord(r.Shape), w.InstanceGroup, acceleratorWord(sh)).WithField(field+".instanceGroup"))
		case w.GPUsPerNode > sh.Accelerators:
			bad = append(bad, errs.Field(field+".gpusPerNode", "%s has %d %s per node, fewer than the %d asked; ask for at most %d, or leave gpusPerNode out for all", w.InstanceType, sh.Accelerators, acceleratorWord(sh), w.GPUsPerNode, sh.Accelerators))
		}
	}
	return bad
}

// rayProgramJob is the RayJob of RAY: the head on the request's group
// (it runs the driver and takes a share of the work, as VERL's does), a
// worker group per instance group, and the user's script as the
// entrypoint, with its runtime environment.
func (b *build) rayProgramJob() map[string]any {
	cluster := map[string]any{
		"headGroupSpec": map[string]any{
			"rayStartParams": map[string]any{"dashboard-host": "0.0.0.0"},
			"template":       b.podTemplate(b.container("ray-head")),
		},
	}
	var groups []any
	for _, w := range b.r.Ray.workers() {
		wb := *b
		wb.r.InstanceGroup, wb.r.InstanceType, wb.r.Shape = w.InstanceGroup, w.InstanceType, w.Shape
		gpus := w.GPUsPerNode
		if gpus == 0 {
			gpus = w.Shape.Accelerators
		}
		job := *b.job
		job.GPUsPerNode = gpus
		wb.job = &job
		groups = append(groups, map[string]any{
			"groupName":      w.InstanceGroup,
			"replicas":       int64(w.Replicas),
			"minReplicas":    int64(w.Replicas),
			"maxReplicas":    int64(w.Replicas),
			"rayStartParams": map[string]any{},
			"template":       wb.podTemplate(wb.container("ray-worker")),
		})
	}
	if groups != nil {
		cluster["workerGroupSpecs"] = groups
	}
	args := append([]string{"python", bucketMount + "/" + b.r.Script}, b.r.Ray.args()...)
	return map[string]any{
		"apiVersion": "ray.io/v1",
		"kind":       "RayJob",
		"metadata":   b.metadata(),
		"spec": map[string]any{
			"entrypoint":               words(args...),
			"runtimeEnvYAML":           b.rayRuntimeEnvYAML(),
			"rayClusterSpec":           cluster,
			"submissionMode":           "K8sJobMode",
			"shutdownAfterJobFinishes": true,
			"ttlSecondsAfterFinished":  int64(rayJobTTLSeconds),
			"backoffLimit":             int64(b.r.Recovery.MaxRestarts),
		},
	}
}

func (p *RayProgram) workers() []RayWorkers {
	if p == nil {
		return nil
	}
	return p.Workers
}

func (p *RayProgram) args() []string {
	if p == nil {
		return nil
	}
	return p.Args
}

// rayRuntimeEnvYAML is the RAY job's runtime environment: the pip
// packages, then the pods' environment, the dataset's path and the
// user's variables. Every string is JSON's, which YAML reads as a
// double-quoted scalar.
func (b *build) rayRuntimeEnvYAML() string {
	q := func(s string) string {
		var v strings.Builder
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s) // a string always encodes
		return strings.TrimSuffix(v.String(), "\n")
	}
	var sb strings.Builder
	if p := b.r.Ray; p != nil && len(p.Pip) > 0 {
		sb.WriteString("pip:\n")
		for _, pkg := range p.Pip {
			sb.WriteString("  - " + q(pkg) + "\n")
		}
	}
	sb.WriteString("env_vars:\n")
	for _, kv := range b.env() {
		sb.WriteString("  " + kv[0] + ": " + q(kv[1]) + "\n")
	}
	sb.WriteString("  DATASET_PATH: " + q(b.datasetPath()) + "\n")
	if p := b.r.Ray; p != nil {
		for _, e := range p.Env {
			sb.WriteString("  " + e.Name + ": " + q(e.Value) + "\n")
		}
	}
	return sb.String()
}

// RayNodes is how many nodes a RAY job takes: the head and every worker.
func (r Request) RayNodes() int {
	n := 1
	for _, w := range r.Ray.workers() {
		n += w.Replicas
	}
	return n
}
