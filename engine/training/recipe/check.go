package recipe

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
)

// Bounds of a request.
const (
	maxNodes      = 256
	maxPathLength = 512
	datasetsDir   = "datasets/"
)

var jobNamePattern = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// CheckRequest refuses, with what to change, what is wrong in the request
// alone: the name, recipe, nodes, model, script, dataset path, settings
// and recovery budget. Every problem is reported (an errs.List of
// VALIDATION errors, each naming its input field).
func CheckRequest(r Request) error {
	var bad errs.List
	add := func(field, format string, args ...any) { bad = append(bad, errs.Field(field, format, args...)) }
	if !jobNamePattern.MatchString(r.Name) {
		add("input.name", "the name %q is not 1-40 lower-case letters, digits and '-' starting with a letter and not ending with '-'; choose one like llama-sft-1", errs.Clip(r.Name))
	}
	info := Find(r.Recipe)
	if info.Kind == "" {
		add("input.recipe", "there is no recipe %q; choose one of PYTORCH, LLAMA_FACTORY, MS_SWIFT, VERL, RAY", errs.Clip(string(r.Recipe)))
		return bad
	}
	if r.Nodes < 1 || r.Nodes > maxNodes {
		add("input.nodes", "%d nodes is outside 1-%d; ask for 1 to %d", r.Nodes, maxNodes, maxNodes)
	}
	if r.GPUsPerNode < 0 {
		add("input.gpusPerNode", "%d GPUs per node is negative; leave it out for all of the instance type's", r.GPUsPerNode)
	}
	switch {
	case info.NeedsModel && r.Model == "":
		add("input.model", "the %s recipe trains a model of the bucket; give model, a folder of models/ (list them with models)", r.Recipe)
	case !info.NeedsModel && r.Model != "":
		add("input.model", "the %s recipe runs your script and takes no model; leave model out, or load the model in the script", r.Recipe)
	case r.Model != "" && !namePattern.MatchString(r.Model):
		add("input.model", "the model %q is not a folder name of models/ (letters, digits, '.', '_', '-'; up to 128); give its name as models lists it", errs.Clip(r.Model))
	}
	switch {
	case info.RunsScript && r.Script == "":
		add("input.script", "the %s recipe runs your script; give script, the key of a .py file of the shared bucket (for example code/train.py)", r.Recipe)
	case !info.RunsScript && r.Script != "":
		add("input.script", "only the PYTORCH and RAY recipes take a script; leave script out for %s, or choose one of those", r.Recipe)
	case r.Script != "":
		if msg := keyProblem(r.Script); msg != "" {
			add("input.script", "the script %s; give the key of a .py file of the shared bucket, like code/train.py", msg)
		} else if !strings.HasSuffix(r.Script, ".py") {
			add("input.script", "the script %q is not a .py file; the %s recipe runs Python scripts", errs.Clip(r.Script), r.Recipe)
		}
	}
	switch msg := keyProblem(r.DatasetPath); {
	case msg != "":
		add("input.datasetPath", "the dataset path %s; give a file or folder under datasets/, like datasets/alpaca/", msg)
	case !strings.HasPrefix(r.DatasetPath, datasetsDir) || len(r.DatasetPath) == len(datasetsDir):
		add("input.datasetPath", "the dataset path %q is not under datasets/; put the dataset in the bucket's datasets/ folder and give its path, like datasets/alpaca/", errs.Clip(r.DatasetPath))
	case r.Recipe == Verl && !strings.HasSuffix(r.DatasetPath, ".parquet"):
		add("input.datasetPath", "verl reads its prompts from a Parquet file; give one, like datasets/gsm8k/train.parquet")
	}
	bad = append(bad, checkSettings(info, r.Settings)...)
	bad = append(bad, checkRecovery(r.Recovery)...)
	bad = append(bad, checkRay(r)...)
	return bad.Err()
}

// keyProblem says how an S3 key given by the user is unsafe, or "".
func keyProblem(key string) string {
	switch {
	case key == "":
		return "is empty"
	case len(key) > maxPathLength:
		return fmt.Sprintf("is longer than %d characters", maxPathLength)
	case strings.HasPrefix(key, "/"):
		return fmt.Sprintf("%q starts with '/' (give it relative to the bucket)", errs.Clip(key))
	case slices.Contains(strings.Split(key, "/"), ".."), slices.Contains(strings.Split(key, "/"), "."):
		return fmt.Sprintf("%q has a '.' or '..' segment", errs.Clip(key))
	case strings.Contains(key, "//"):
		return fmt.Sprintf("%q has an empty segment", errs.Clip(key))
	case strings.ContainsFunc(key, func(c rune) bool { return c < 0x20 || c == 0x7f }):
		return "has a control character"
	}
	return ""
}

func checkSettings(info Info, given map[string]string) errs.List {
	const field = "input.settings"
	var bad errs.List
	if len(given) > maxSettings {
		return errs.List{errs.Field(field, "%d settings is more than the %d allowed; the %s recipe takes %s", len(given), maxSettings, info.Recipe, strings.Join(keysOf(info), ", "))}
	}
	keys := make([]string, 0, len(given))
	for k := range given {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := given[k]
		switch {
		case len(k) > maxSettingKeyBytes:
			bad = append(bad, errs.Field(field, "a setting key is longer than %d bytes; the %s recipe takes %s", maxSettingKeyBytes, info.Recipe, strings.Join(keysOf(info), ", ")))
			continue
		case len(v) > maxSettingBytes:
			bad = append(bad, errs.Field(field, "the value of setting %s is longer than %d bytes", k, maxSettingBytes))
			continue
		}
		i := slices.IndexFunc(info.Settings, func(s SettingInfo) bool { return s.Key == k })
		if i < 0 {
			bad = append(bad, errs.Field(field, "the %s recipe has no setting %q; its settings are %s", info.Recipe, errs.Clip(k), strings.Join(keysOf(info), ", ")))
			continue
		}
		if msg := checkSetting(info.Settings[i], v); msg != "" {
			bad = append(bad, errs.Field(field, "%s", msg))
		}
	}
	if len(bad) > 0 {
		return bad
	}
	s := withDefaults(info, given)
	switch info.Recipe {
	case LlamaFactory:
		if s[keyStage] == "ppo" && s[keyRewardModel] == "" {
			bad = append(bad, errs.Field(field, "stage ppo scores responses with a reward model; set reward_model to a model of the bucket (one trained with stage rm), or choose another stage"))
		}
		if s[keyStage] != "ppo" && s[keyRewardModel] != "" {
			bad = append(bad, errs.Field(field, "reward_model is only for stage ppo; leave it out for stage %s", s[keyStage]))
		}
	case Verl:
		if n, _ := strconv.Atoi(s[keyRolloutN]); n < 2 && (s[keyAlgorithm] == "grpo" || s[keyAlgorithm] == "rloo") {
			bad = append(bad, errs.Field(field, "%s compares the responses to each prompt, so rollout_n must be at least 2 (it is %d); raise it, or choose ppo or reinforce_plus_plus", s[keyAlgorithm], n))
		}
	}
	return bad
}

func checkRecovery(rc Recovery) errs.List {
	var bad errs.List
	bound := func(field string, v, lo, hi int) {
		if v < lo || v > hi {
			bad = append(bad, errs.Field("input.recovery."+field, "%s is %d; give %d to %d", field, v, lo, hi))
		}
	}
	bound("maxRestarts", rc.MaxRestarts, 0, 100)
	bound("windowSeconds", rc.WindowSeconds, 60, 604800)
	bound("maxFullJobRestarts", rc.MaxFullJobRestarts, 0, 20)
	bound("restartsBeforeFullJobRestart", rc.RestartsBeforeFullJobRestart, 0, 20)
	return bad
}

// Check refuses what CheckRequest refuses and what the instance type
// cannot give: a type with no accelerators, more GPUs per node than it
// has, a CUDA-only recipe on Trainium, and (for VERL) a batch the GPUs
// cannot split.
func Check(r Request) error {
	// CheckRequest's error is an errs.List, or nil.
	bad, _ := CheckRequest(r).(errs.List)
	info := Find(r.Recipe)
	sh := r.Shape
	switch {
	case r.InstanceType == "" || r.ClaimName == "" || r.Bucket == "" || r.Region == "" || r.Namespace == "":
		bad = append(bad, errs.New(errs.Internal, "the job's instance type, namespace, bucket, claim and region must be looked up before it is checked"))
	case sh.Accelerators == 0:
		bad = append(bad, errs.New(errs.Precondition, "instance group %s is of type %s, which has no GPUs or Trainium chips; choose a group of an accelerated type (ml.g5, ml.p4d, ml.p5, ml.trn1...)", r.InstanceGroup, r.InstanceType).WithField("input.instanceGroup"))
	case sh.Neuron && info.CUDAOnly:
		bad = append(bad, errs.New(errs.Precondition, "the %s recipe runs on NVIDIA GPUs only, and instance group %s is Trainium (%s); choose a GPU group, or the PYTORCH recipe with a Neuron script", r.Recipe, r.InstanceGroup, r.InstanceType).WithField("input.instanceGroup"))
	case r.GPUsPerNode > sh.Accelerators:
		bad = append(bad, errs.Field("input.gpusPerNode", "%s has %d %s per node, fewer than the %d asked; ask for at most %d, or leave gpusPerNode out for all", r.InstanceType, sh.Accelerators, acceleratorWord(sh), r.GPUsPerNode, sh.Accelerators))
	case info.Recipe == Ray:
		bad = append(bad, checkRayShapes(r)...)
	case info.Recipe == Verl && info.Kind != "":
		s := withDefaults(info, r.Settings)
		batch, _ := strconv.Atoi(s[keyTrainBatchSize])
		n, _ := strconv.Atoi(s[keyRolloutN])
		gpus := r.Nodes * gpusPerNode(r)
		if gpus > 0 && (batch*n)%gpus != 0 {
			bad = append(bad, errs.Field("input.settings", "verl splits train_batch_size x rollout_n responses (%d x %d = %d) over the job's %d GPUs, and %d does not divide them; make train_batch_size a multiple of %d", batch, n, batch*n, gpus, gpus, gpus/gcd(gpus, n)))
		}
	}
	return bad.Err()
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func acceleratorWord(sh Shape) string {
	if sh.Neuron {
		return "Neuron devices"
	}
	return "GPUs"
}

// gpusPerNode is the accelerators each pod takes.
func gpusPerNode(r Request) int {
	if r.GPUsPerNode > 0 {
		return r.GPUsPerNode
	}
	return r.Shape.Accelerators
}
