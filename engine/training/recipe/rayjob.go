package recipe

import (
	"encoding/json"
	"strings"
)

// Ray job timing: how long a finished RayJob (and its logs) stays.
const rayJobTTLSeconds = 3600

// verlEstimators maps the algorithm setting to verl's
// algorithm.adv_estimator (PPO is its GAE estimator, with a critic).
var verlEstimators = map[string]string{"grpo": "grpo", "ppo": "gae", "rloo": "rloo", "reinforce_plus_plus": "reinforce_plus_plus"}

// rayJob is the RayJob of VERL: a head pod that trains too (it has the
// node's GPUs) and a worker group for the other nodes; the submitter runs
// verl's PPO trainer on it and the cluster goes when the job ends.
func (b *build) rayJob() map[string]any {
	cluster := map[string]any{
		"headGroupSpec": map[string]any{
			"rayStartParams": map[string]any{"dashboard-host": "0.0.0.0"},
			"template":       b.podTemplate(b.container("ray-head")),
		},
	}
	if workers := b.r.Nodes - 1; workers > 0 {
		cluster["workerGroupSpecs"] = []any{map[string]any{
			"groupName":      "gpu",
			"replicas":       int64(workers),
			"minReplicas":    int64(workers),
			"maxReplicas":    int64(workers),
			"rayStartParams": map[string]any{},
			"template":       b.podTemplate(b.container("ray-worker")),
		}}
	}
	return map[string]any{
		"apiVersion": "ray.io/v1",
		"kind":       "RayJob",
		"metadata":   b.metadata(),
		"spec": map[string]any{
			"entrypoint":               b.verlEntrypoint(),
			"runtimeEnvYAML":           b.runtimeEnvYAML(),
			"rayClusterSpec":           cluster,
			"submissionMode":           "K8sJobMode",
			"shutdownAfterJobFinishes": true,
			"ttlSecondsAfterFinished":  int64(rayJobTTLSeconds),
			"backoffLimit":             int64(b.r.Recovery.MaxRestarts),
		},
	}
}

// verlEntrypoint runs verl's trainer with Hydra overrides. Batches are
// sized by tokens (use_dynamic_bsz), so no micro batch has to divide the
// GPUs; one optimizer step per rollout batch; checkpoints go to the
// checkpoint folder, from which verl resumes after a retry.
func (b *build) verlEntrypoint() string {
	s := b.settings
	model := b.modelPath(b.r.Model)
	project, run := "instantstart", b.r.Name
	logger := `trainer.logger=["console"]`
	if m := b.r.MLflow; m != nil {
		project, run = m.Experiment, m.RunName
		logger = `trainer.logger=["console","mlflow"]`
	}
	args := []string{"python3", "-m", "verl.trainer.main_ppo",
		"algorithm.adv_estimator=" + verlEstimators[s[keyAlgorithm]],
		"data.train_files=" + b.datasetPath(),
		"data.val_files=" + b.datasetPath(),
		"data.train_batch_size=" + s[keyTrainBatchSize],
		"actor_rollout_ref.model.path=" + model,
		"actor_rollout_ref.actor.optim.lr=" + s[keyLearningRate],
		"actor_rollout_ref.actor.ppo_mini_batch_size=" + s[keyTrainBatchSize],
		"actor_rollout_ref.actor.use_dynamic_bsz=True",
		"actor_rollout_ref.rollout.name=vllm",
		"actor_rollout_ref.rollout.n=" + s[keyRolloutN],
		"actor_rollout_ref.rollout.tensor_model_parallel_size=1",
		"actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True",
		"actor_rollout_ref.ref.log_prob_use_dynamic_bsz=True",
	}
	if s[keyAlgorithm] == "ppo" {
		args = append(args, "critic.model.path="+model, "critic.optim.lr="+s[keyLearningRate], "critic.use_dynamic_bsz=True")
	}
	args = append(args,
		"trainer.nnodes="+itoa(b.r.Nodes),
		"trainer.n_gpus_per_node="+itoa(b.job.GPUsPerNode),
		"trainer.total_training_steps="+s[keyMaxSteps],
		"trainer.save_freq="+s[keySaveSteps],
		"trainer.test_freq=-1",
		"trainer.val_before_train=False",
		"trainer.default_local_dir="+b.checkpointDir(),
		"trainer.project_name="+project,
		"trainer.experiment_name="+run,
		logger,
	)
	return words(args...)
}

// runtimeEnvYAML is the job's Ray runtime environment: the pods'
// environment, for the Ray workers the job starts. Each value is a JSON
// string, which YAML reads as a double-quoted scalar.
func (b *build) runtimeEnvYAML() string {
	var sb strings.Builder
	sb.WriteString("env_vars:\n")
	for _, kv := range b.env() {
		v, _ := json.Marshal(kv[1])
		sb.WriteString("  " + kv[0] + ": " + string(v) + "\n")
	}
	return sb.String()
}
