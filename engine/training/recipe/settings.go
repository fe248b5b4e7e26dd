package recipe

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
)

// SettingInfo is a setting a recipe takes.
type SettingInfo struct {
	Key         string
	Description string
	Default     string
	// Type is INT, FLOAT or STRING.
	Type string
	// Allowed is the values it may take; empty for any of its type.
	Allowed []string
	// Min and Max bound an INT or FLOAT.
	Min, Max float64

	// pattern bounds a free STRING, since it goes into a command line.
	pattern *regexp.Regexp
}

// The setting types.
const (
	typeInt    = "INT"
	typeFloat  = "FLOAT"
	typeString = "STRING"
)

// Setting keys the builders read.
const (
	keyMaxSteps        = "max_steps"
	keySaveSteps       = "save_steps"
	keyLearningRate    = "learning_rate"
	keyStage           = "stage"
	keyFinetuningType  = "finetuning_type"
	keyTemplate        = "template"
	keyCutoffLen       = "cutoff_len"
	keyBatchSize       = "per_device_train_batch_size"
	keyLoraRank        = "lora_rank"
	keyRewardModel     = "reward_model"
	keyTrainType       = "train_type"
	keyMaxLength       = "max_length"
	keyAlgorithm       = "algorithm"
	keyRolloutN        = "rollout_n"
	keyTrainBatchSize  = "train_batch_size"
	maxSettingKeyBytes = 64
	maxSettingBytes    = 1024
	maxSettings        = 32
)

var (
	namePattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	optionalModel = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,127})?$`)
)

func intSetting(key, desc, def string, lo, hi float64) SettingInfo {
	return SettingInfo{Key: key, Description: desc, Default: def, Type: typeInt, Allowed: []string{}, Min: lo, Max: hi}
}

func enumSetting(key, desc, def string, allowed ...string) SettingInfo {
	return SettingInfo{Key: key, Description: desc, Default: def, Type: typeString, Allowed: allowed}
}

func commonSettings(learningRate string) []SettingInfo {
	return []SettingInfo{
		intSetting(keyMaxSteps, "Training steps in all (MAX_STEPS in the pods).", "1000", 1, 1_000_000),
		intSetting(keySaveSteps, "Steps between checkpoints (CHECKPOINT_STEPS in the pods).", "100", 1, 1_000_000),
		{Key: keyLearningRate, Description: "The optimizer's learning rate.", Default: learningRate, Type: typeFloat, Allowed: []string{}, Min: 1e-9, Max: 1},
	}
}

var llamaFactorySettings = []SettingInfo{
	enumSetting(keyStage, "The training stage: sft (supervised fine-tuning), pt (pre-training), rm (reward model), ppo, dpo or kto.", "sft", "sft", "pt", "rm", "ppo", "dpo", "kto"),
	enumSetting(keyFinetuningType, "Which weights train: lora adapters, freeze (the last layers) or full.", "lora", "lora", "freeze", "full"),
	{Key: keyTemplate, Description: "The chat template of the model's family (LLaMA-Factory's template names: llama3, qwen, mistral...).", Default: "default", Type: typeString, Allowed: []string{},
		pattern: regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)},
	intSetting(keyCutoffLen, "Tokens per example; longer ones are cut.", "2048", 16, 131072),
	intSetting(keyBatchSize, "Examples per GPU per step.", "1", 1, 1024),
	intSetting(keyLoraRank, "The rank of the LoRA adapters (finetuning_type lora).", "8", 1, 1024),
	{Key: keyRewardModel, Description: "For stage ppo: the reward model, a full model of the bucket (a folder of models/) trained with stage rm.", Default: "", Type: typeString, Allowed: []string{}, pattern: optionalModel},
}

var msSwiftSettings = []SettingInfo{
	enumSetting(keyTrainType, "Which weights train: lora, full, longlora or adalora.", "lora", "lora", "full", "longlora", "adalora"),
	intSetting(keyBatchSize, "Examples per GPU per step.", "1", 1, 1024),
	intSetting(keyLoraRank, "The rank of the LoRA adapters (train_type lora or longlora).", "8", 1, 1024),
	intSetting(keyMaxLength, "Tokens per example; longer ones are cut.", "2048", 16, 131072),
}

var verlSettings = []SettingInfo{
	enumSetting(keyAlgorithm, "The advantage estimator: grpo, ppo (with a critic), rloo or reinforce_plus_plus.", "grpo", "grpo", "ppo", "rloo", "reinforce_plus_plus"),
	intSetting(keyRolloutN, "Responses sampled per prompt (at least 2 for grpo and rloo, which compare them).", "5", 1, 64),
	intSetting(keyTrainBatchSize, "Prompts per training step.", "256", 1, 65536),
}

// checkSetting says what is wrong with value for s, or "".
func checkSetting(s SettingInfo, value string) string {
	if len(s.Allowed) > 0 {
		if !slices.Contains(s.Allowed, value) {
			return fmt.Sprintf("setting %s is %q; it takes one of %s", s.Key, errs.Clip(value), strings.Join(s.Allowed, ", "))
		}
		return ""
	}
	switch s.Type {
	case typeInt:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Sprintf("setting %s is %q; it takes a whole number from %s to %s", s.Key, errs.Clip(value), num(s.Min), num(s.Max))
		}
		if float64(n) < s.Min || float64(n) > s.Max {
			return fmt.Sprintf("setting %s is %d; it takes a whole number from %s to %s", s.Key, n, num(s.Min), num(s.Max))
		}
	case typeFloat:
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("setting %s is %q; it takes a number from %s to %s", s.Key, errs.Clip(value), num(s.Min), num(s.Max))
		}
		if f < s.Min || f > s.Max {
			return fmt.Sprintf("setting %s is %s; it takes a number from %s to %s", s.Key, value, num(s.Min), num(s.Max))
		}
	case typeString:
		if s.pattern != nil && !s.pattern.MatchString(value) {
			return fmt.Sprintf("setting %s is %q; it takes letters, digits, '.', '_' and '-' (up to 64 or 128 characters), starting with a letter or digit", s.Key, errs.Clip(value))
		}
	}
	return ""
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// withDefaults returns the settings given, plus the defaults of those
// not given.
func withDefaults(info Info, given map[string]string) map[string]string {
	out := make(map[string]string, len(info.Settings))
	for _, s := range info.Settings {
		out[s.Key] = s.Default
		if v, ok := given[s.Key]; ok {
			out[s.Key] = v
		}
	}
	return out
}

func keysOf(info Info) []string {
	keys := make([]string, len(info.Settings))
	for i, s := range info.Settings {
		keys[i] = s.Key
	}
	return keys
}
