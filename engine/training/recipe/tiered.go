package recipe

import "strconv"

// Tiered is managed tiered checkpointing for a job: the pods run as the
// feature's service account, install the SageMaker HyperPod checkpointing
// library and save each checkpoint to the node's memory (the memory
// daemon's in-memory tier, replicated to a peer node) often, and to S3
// less often. After a restart the library loads the newest checkpoint of
// either tier, the in-memory one when it survived.
type Tiered struct {
	// ServiceAccount is the feature's service account (in the job's
	// namespace), whose role may write the S3 tier.
	ServiceAccount string
	// Bucket holds the S3 tier, under checkpoints/<job>/.
	Bucket string
	// MemoryPercentage is the share of each instance's memory the memory
	// daemon holds for the in-memory tier; 0 when the cluster leaves it to
	// the service, which is read as defaultMemoryPercentage.
	MemoryPercentage int
}

const (
	// checkpointingVersion is amzn-sagemaker-checkpointing, the library
	// the job's training code saves and loads with (SageMakerTieredStorageWriter
	// and SageMakerTieredStorageReader under torch.distributed.checkpoint).
	checkpointingVersion = "1.1.3"
	// defaultMemoryPercentage is the least share the SageMaker guide lets
	// the in-memory tier have, taken when the cluster does not say.
	defaultMemoryPercentage = 20
	// memoryStepsPerS3Step: an in-memory save takes seconds and an S3
	// save minutes, so the in-memory tier is written ten times as often
	// as the S3 tier (CHECKPOINT_STEPS).
	memoryStepsPerS3Step = 10
)

// The pods' environment under tiered checkpointing.
const (
	// EnvCheckpointing is TIERED for a job that uses the library; S3 jobs
	// do not set it.
	EnvCheckpointing = "CHECKPOINTING"
	// EnvMemorySteps is the steps between two in-memory checkpoints.
	EnvMemorySteps = "CHECKPOINT_MEMORY_STEPS"
	// envJobName is the library's namespace (SageMakerCheckpointConfig's
	// namespace), read from TRAINING_JOB_NAME as its examples do.
	envJobName = "TRAINING_JOB_NAME"
	// envS3Tier is the S3 tier's base path (s3_tier_base_path).
	envS3Tier = "CHECKPOINT_S3_TIER_PATH"
	// envMemoryPercentage is the in-memory tier's share of the node's
	// memory, which the pod's memory limit leaves to the daemon.
	envMemoryPercentage = "CHECKPOINT_MEMORY_PERCENTAGE"
)

// MemorySteps is the steps between two in-memory checkpoints, for an S3
// checkpoint every saveSteps.
func MemorySteps(saveSteps int) int { return max(1, saveSteps/memoryStepsPerS3Step) }

// s3TierPath is the S3 tier of the job's checkpoints.
func (b *build) s3TierPath() string {
	return "s3://" + b.r.Tiered.Bucket + "/checkpoints/" + b.r.Name + "/"
}

// memoryPercentage is the in-memory tier's share of an instance's memory.
func (t *Tiered) memoryPercentage() int {
	if t.MemoryPercentage > 0 {
		return t.MemoryPercentage
	}
	return defaultMemoryPercentage
}

// tieredEnv is what the library and the training code read.
func (b *build) tieredEnv() [][2]string {
	save, _ := strconv.Atoi(b.settings[keySaveSteps])
	return [][2]string{
		{EnvCheckpointing, "TIERED"},
		{EnvMemorySteps, itoa(MemorySteps(save))},
		{envJobName, b.r.Name},
		{envS3Tier, b.s3TierPath()},
		{envMemoryPercentage, itoa(b.r.Tiered.memoryPercentage())},
	}
}

// podMemoryGiB is the memory a training pod may use: the instance's, less
// the share the memory daemon holds for the in-memory tier, so that the
// pod never takes the memory the checkpoints live in.
func (b *build) podMemoryGiB() int {
	return b.r.Shape.MemoryGiB * (100 - b.r.Tiered.memoryPercentage()) / 100
}
