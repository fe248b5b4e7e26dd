package sim

import (
	"strconv"
	"time"
)

// Managed tiered checkpointing, as a job that uses it (its pods'
// CHECKPOINTING=TIERED) sees it. The job's ranks save a checkpoint to the
// in-memory tier (the cluster's memory daemon, each node's shard copied to
// a peer node) every CHECKPOINT_MEMORY_STEPS, and to S3 every
// CHECKPOINT_STEPS, ten times less often. After a restart the library
// loads the newest checkpoint of either tier:
//
//   - after a crash, an NCCL timeout, a hang or a slowness, the nodes kept
//     their memory: it resumes from the newest in-memory checkpoint;
//   - after the loss of a node, a job of two nodes or more still has that
//     node's shard on its peer and resumes from memory too; a job of one
//     node lost the only copy and resumes from the newest S3 checkpoint.
//
// A job without it resumes from the newest S3 checkpoint. Reading the
// shards from the nodes' memory takes about trainMemoryRestore, where
// reading them from S3 takes trainS3Restore of the start-up: the attempt
// reaches its first step the difference sooner. Rank 0 logs where it
// resumed from ("resumed from memory at step 120"), the line the control
// plane reads into the job's restart timeline.

// Where an attempt resumed from.
const (
	tierMemory = "memory"
	tierS3     = "S3"
)

// Restore times within the start-up (trainStartup includes an S3 read).
const (
	trainS3Restore     = 15 * time.Second
	trainMemoryRestore = 2 * time.Second
)

// startup is from attempt a's start to its first step.
func (a *kubeTrainAttempt) startup() time.Duration {
	if a.Tier == tierMemory {
		return trainStartup - trainS3Restore + trainMemoryRestore
	}
	return trainStartup
}

// resume is the checkpoint the attempt after a starts from, and its tier
// ("" for none: step 0).
func (rec *kubeTrainRec) resume(w *World, a *kubeTrainAttempt) (int64, string) {
	s3 := rec.resumeStep(w, a)
	if rec.Plan.Tiered && rec.Plan.MemorySteps > 0 && (a.Fault != "node" || rec.Plan.Nodes > 1) {
		at := a.FaultAt
		if at.IsZero() || a.Fault == FaultSlow {
			at = a.EndAt
		}
		k := rec.reached(w, a, at)
		if mem := k - k%rec.Plan.MemorySteps; mem > 0 && mem >= s3 {
			return mem, tierMemory
		}
	}
	if rec.Plan.Tiered {
		// The S3 tier's newest, which may be older than the in-memory
		// checkpoint the attempt started from.
		k := rec.reached(w, a, a.EndAt)
		if !a.FaultAt.IsZero() && a.Fault != FaultSlow {
			k = rec.reached(w, a, a.FaultAt)
		}
		if save := rec.Plan.SaveSteps; save > 0 {
			s3 = k - k%save
		} else {
			s3 = 0
		}
	}
	if s3 > 0 {
		return s3, tierS3
	}
	return 0, ""
}

// resumeWords is what rank 0 logs of where attempt a resumed from, "" for
// a first attempt.
func (rec *kubeTrainRec) resumeWords(a *kubeTrainAttempt, first bool) string {
	switch {
	case first:
		return ""
	case a.Tier == "":
		return "no checkpoint to resume from: training from step 0"
	case a.Tier == tierMemory:
		return "resumed from memory at step " + strconv.FormatInt(a.From, 10) + " (in-memory tier)"
	}
	return "resumed from S3 at step " + strconv.FormatInt(a.From, 10) + " (" + rec.Plan.CheckpointDir + ")"
}
