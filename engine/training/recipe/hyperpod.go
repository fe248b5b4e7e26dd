package recipe

import (
	"encoding/json"
	"strings"
)

// Log monitoring rules (runPolicy.logMonitoringConfiguration). The
// recipes' training loops log step=<n> and tokens_per_sec=<x> lines.
const (
	progressPattern   = `step=(\d+)`
	throughputPattern = `tokens_per_sec=(\d+(?:\.\d+)?)`
	// firstStepSeconds is how long a job may take to log its first step
	// (loading the model, compiling); stepGapSeconds how long between two.
	firstStepSeconds = 1800
	stepGapSeconds   = 600
	// floorTokensPerGPU is a throughput only a stalled job falls under.
	floorTokensPerGPU = 50
	slowDataPoints    = 5
)

// agentPort is where the HyperPod elastic agent (hyperpodrun) listens
// for the operator.
const agentPort = 8080

// hyperPodJob is the HyperPodPyTorchJob of PYTORCH, LLAMA_FACTORY and
// MS_SWIFT: one replica set of Nodes pods, each running hyperpodrun.
func (b *build) hyperPodJob() map[string]any {
	c := b.container("pytorch")
	c["command"] = []any{"/bin/bash", "-c", b.launchScript()}
	c["ports"] = []any{map[string]any{"name": "agent", "containerPort": int64(agentPort)}}
	// No restartPolicy: HyperPod's own templates leave it to the operator,
	// which restarts processes in place and replaces pods itself.
	return map[string]any{
		"apiVersion": "sagemaker.amazonaws.com/v1",
		"kind":       "HyperPodPyTorchJob",
		"metadata":   b.metadata(),
		"spec": map[string]any{
			"nprocPerNode": itoa(b.job.ProcessesPerNode),
			"replicaSpecs": []any{map[string]any{
				"name":     "pods",
				"replicas": int64(b.r.Nodes),
				"template": b.podTemplate(c),
			}},
			"runPolicy": b.runPolicy(),
		},
	}
}

func (b *build) runPolicy() map[string]any {
	rc := b.r.Recovery
	p := map[string]any{
		// Pods stay after the job ends, for their logs.
		"cleanPodPolicy":          "None",
		"jobMaxRetryCount":        int64(rc.MaxRestarts),
		"ttlSecondsAfterFinished": int64(0),
		"restartPolicy": map[string]any{
			"evalPeriodSeconds":              int64(rc.WindowSeconds),
			"maxFullJobRestarts":             int64(rc.MaxFullJobRestarts),
			"numRestartBeforeFullJobRestart": int64(rc.RestartsBeforeFullJobRestart),
		},
	}
	if rc.DetectHangs {
		p["logMonitoringConfiguration"] = []any{
			map[string]any{
				"name":                                "progress",
				"logPattern":                          progressPattern,
				"expectedStartCutOffInSeconds":        int64(firstStepSeconds),
				"expectedRecurringFrequencyInSeconds": int64(stepGapSeconds),
			},
			map[string]any{
				"name":                       "throughput",
				"logPattern":                 throughputPattern,
				"operator":                   "lt",
				"metricThreshold":            int64(floorTokensPerGPU * b.r.Nodes * b.job.GPUsPerNode),
				"metricEvaluationDataPoints": int64(slowDataPoints),
			},
		}
	}
	return p
}

// launchScript installs the elastic agent (and the recipe's framework
// where the image lacks it) and runs the recipe under hyperpodrun, which
// replaces torchrun so the operator can restart processes in place.
func (b *build) launchScript() string {
	pkgs := []string{"hyperpod-elastic-agent==" + elasticAgentVersion}
	if b.r.Recipe == MSSwift {
		pkgs = append(pkgs, "ms-swift=="+msSwiftVersion)
	}
	if b.r.MLflow != nil {
		pkgs = append(pkgs, "sagemaker-mlflow=="+sagemakerMLflowVersion)
	}
	if b.r.Tiered != nil {
		pkgs = append(pkgs, "amzn-sagemaker-checkpointing=="+checkpointingVersion)
	}
	lines := []string{
		"set -eu",
		words(append([]string{"pip", "install", "--no-cache-dir", "--quiet"}, pkgs...)...),
		words("mkdir", "-p", b.checkpointDir(), b.outputDir()),
	}
	launcher := []string{"hyperpodrun", "--nnodes=" + itoa(b.r.Nodes), "--nproc-per-node=" + itoa(b.job.ProcessesPerNode),
		"--server-host=0.0.0.0", "--server-port=" + itoa(agentPort), "--tee=3", "--log_dir=/tmp/hyperpod"}
	var run string
	switch b.r.Recipe {
	case PyTorch:
		run = "exec " + words(append(launcher, bucketMount+"/"+b.r.Script)...)
	case LlamaFactory:
		lines = append(lines,
			"mkdir -p /tmp/instantstart",
			"printf '%s\\n' "+quote(b.llamaFactoryDatasetInfo())+" > /tmp/instantstart/dataset_info.json",
			`launcher=$(python3 -c 'import llamafactory.launcher as m; print(m.__file__)')`)
		run = "exec " + words(launcher...) + ` "$launcher" ` + words(b.llamaFactoryArgs()...)
	case MSSwift:
		lines = append(lines,
			`entry=$(python3 -c 'import swift.cli.sft as m; print(m.__file__)')`,
			// ms-swift resumes only when told where from.
			"resume=$(ls -d "+quote(b.checkpointDir())+"/checkpoint-* 2>/dev/null | sort -V | tail -n 1 || true)")
		run = "exec " + words(launcher...) + ` "$entry" ` + words(b.msSwiftArgs()...) + ` ${resume:+--resume_from_checkpoint "$resume"}`
	}
	return strings.Join(append(lines, run), "\n") + "\n"
}

// reportTo is the Hugging Face Trainer's report_to.
func (b *build) reportTo() string {
	if b.r.MLflow != nil {
		return "mlflow"
	}
	return "none"
}

// llamaFactoryDatasetInfo registers the dataset as "train" in a
// dataset_info.json of its own, since LLaMA-Factory reads datasets by name.
func (b *build) llamaFactoryDatasetInfo() string {
	entry := map[string]any{"file_name": b.datasetPath()}
	if st := b.settings[keyStage]; st == "rm" || st == "dpo" {
		entry["ranking"] = true
	}
	raw, _ := json.Marshal(map[string]any{"train": entry})
	return string(raw)
}

// llamaFactoryArgs are the arguments of llamafactory-cli train, given on
// the command line. Checkpoints go to the checkpoint folder, where
// LLaMA-Factory looks for one to resume from after a restart.
func (b *build) llamaFactoryArgs() []string {
	s := b.settings
	args := []string{
		"--stage", s[keyStage],
		"--do_train", "true",
		"--model_name_or_path", b.modelPath(b.r.Model),
		"--dataset", "train",
		"--dataset_dir", "/tmp/instantstart",
		"--template", s[keyTemplate],
		"--finetuning_type", s[keyFinetuningType],
	}
	if s[keyFinetuningType] == "lora" {
		args = append(args, "--lora_rank", s[keyLoraRank])
	}
	if s[keyStage] == "ppo" {
		args = append(args, "--reward_model", b.modelPath(s[keyRewardModel]), "--reward_model_type", "full")
	}
	return append(args,
		"--cutoff_len", s[keyCutoffLen],
		"--per_device_train_batch_size", s[keyBatchSize],
		"--learning_rate", s[keyLearningRate],
		"--max_steps", s[keyMaxSteps],
		"--save_steps", s[keySaveSteps],
		"--logging_steps", "10",
		"--bf16", "true",
		"--output_dir", b.checkpointDir(),
		"--logging_dir", b.outputDir()+"/logs",
		"--report_to", b.reportTo(),
	)
}

// msSwiftArgs are the arguments of swift sft.
func (b *build) msSwiftArgs() []string {
	s := b.settings
	args := []string{
		"--model", b.modelPath(b.r.Model),
		"--train_type", s[keyTrainType],
	}
	if t := s[keyTrainType]; t == "lora" || t == "longlora" {
		args = append(args, "--lora_rank", s[keyLoraRank])
	}
	return append(args,
		"--dataset", b.datasetPath(),
		"--max_length", s[keyMaxLength],
		"--per_device_train_batch_size", s[keyBatchSize],
		"--learning_rate", s[keyLearningRate],
		"--max_steps", s[keyMaxSteps],
		"--save_steps", s[keySaveSteps],
		"--logging_steps", "10",
		"--torch_dtype", "bfloat16",
		"--output_dir", b.checkpointDir(),
		"--add_version", "false",
		"--logging_dir", b.outputDir()+"/logs",
		"--report_to", b.reportTo(),
	)
}
