package training

import (
	"bufio"
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/training/recipe"
)

// Checkpointing is where a job keeps its checkpoints, as the schema's
// Checkpointing enum names it.
type Checkpointing string

// The checkpointing modes.
const (
	// CheckpointS3 writes checkpoints to the shared bucket only (through
	// its /s3 mount), every CHECKPOINT_STEPS; a restart resumes from the
	// newest of them.
	CheckpointS3 Checkpointing = "S3"
	// CheckpointTiered is managed tiered checkpointing: checkpoints go to
	// the nodes' memory often and to S3 less often, and a restart resumes
	// from the newest in memory.
	CheckpointTiered Checkpointing = "TIERED"
)

// Tier is where a restart's checkpoint was read from.
type Tier string

// The checkpoint tiers.
const (
	TierMemory Tier = "MEMORY"
	TierS3     Tier = "S3"
	// TierNone is a restart before any checkpoint: training started again
	// from step 0.
	TierNone Tier = "NONE"
)

// Resume is the checkpoint a restart resumed from: its tier and step, and
// when training resumed (the line that said so).
type Resume struct {
	Tier Tier      `json:"tier"`
	Step int       `json:"step"`
	At   time.Time `json:"at"`
}

// tieredFor checks what TIERED asks of the job and the cluster and
// returns what the recipe needs of the feature; nil for S3. It runs after
// the operator's check, once the group is known.
func (s *Service) tieredFor(ctx context.Context, c *hyperpod.Cluster, g *hyperpod.InstanceGroup, mode Checkpointing, namespace string) (*recipe.Tiered, error) {
	if mode != CheckpointTiered {
		return nil, nil
	}
	if g.Flexible() || g.TrainingPlanArn != "" || g.CapacityType == hyperpod.TrainingPlan {
		what := "is a flexible group (instance types " + strings.Join(g.InstanceTypes, ", ") + ")"
		if !g.Flexible() {
			what = "runs on training plan " + g.TrainingPlanArn
		}
		return nil, errs.Field("input.checkpointing", "instance group %s %s, which excludes managed tiered checkpointing; submit with checkpointing S3, or choose a group of one instance type on On-Demand or Spot capacity", g.Name, what)
	}
	tc, err := s.features.TieredCheckpointing(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if tc == nil {
		return nil, errs.New(errs.Precondition, "checkpointing TIERED needs the TIERED_CHECKPOINTING feature, and cluster %s does not have it on: turn it on (updateClusterFeatures with input.tieredCheckpointing {bucket: \"<the shared bucket>\", namespace: \"%s\"}), or submit with checkpointing S3", c.Name, namespace).WithField("input.checkpointing")
	}
	if tc.Namespace != namespace {
		return nil, errs.New(errs.Precondition, "tiered checkpointing's service account %s is in namespace %s, and this cluster's jobs run in %s: turn TIERED_CHECKPOINTING off and on again with namespace %s, or submit with checkpointing S3", tc.ServiceAccount, tc.Namespace, namespace, namespace).WithField("input.checkpointing")
	}
	if m, err := s.features.MLflow(ctx, c.ID); err != nil {
		return nil, err
	} else if m != nil {
		return nil, errs.New(errs.Precondition, "a pod runs as one service account: this cluster's jobs report to MLflow as %s, and tiered checkpointing runs them as %s; submit with checkpointing S3, or turn MLFLOW off to use TIERED", m.ServiceAccount, tc.ServiceAccount).WithField("input.checkpointing")
	}
	return &recipe.Tiered{ServiceAccount: tc.ServiceAccount, Bucket: tc.Bucket, MemoryPercentage: tc.MemoryPercentage}, nil
}

// checkCheckpointing refuses a mode that is none, or TIERED for a recipe
// that does not run under torch.distributed (a RayJob keeps its own
// checkpoints).
func checkCheckpointing(mode Checkpointing, r recipe.Name) error {
	switch mode {
	case CheckpointS3:
	case CheckpointTiered:
		if recipe.Find(r).Kind == recipe.KindRayJob {
			return errs.Field("input.checkpointing", "the %s recipe runs as a RayJob and keeps its own checkpoints; tiered checkpointing is for the HyperPodPyTorchJob recipes (PYTORCH, LLAMA_FACTORY, MS_SWIFT): submit with checkpointing S3", r)
		}
	default:
		return errs.Field("input.checkpointing", "checkpointing %q is not S3 or TIERED", errs.Clip(string(mode)))
	}
	return nil
}

// resumedLine is what a job's rank 0 logs when it starts again after a
// restart: "resumed from memory at step 120", "resumed from S3 at step
// 100", or "no checkpoint to resume from" before the first one.
var resumedLine = regexp.MustCompile(`resumed from (memory|S3) at step (\d+)|no checkpoint to resume from`)

// resumeLogBytes bounds the log read since the restart that has not said
// yet.
const resumeLogBytes = 256 << 10

// readResumes fills in, for the restarts that have not said yet, which
// tier and step each resumed from, as rank 0's log says: each resume line
// belongs to the newest restart before it. A job that never logs one
// (its own loader under S3) keeps its restarts as they are.
func readResumes(ctx context.Context, kc *cloud.KubeClients, j *Job, pods []Pod, restarts []Restart) []Restart {
	if kc.Logs == nil || len(pods) == 0 {
		return restarts
	}
	// Lines come in order: a restart before one that has said never will.
	first := len(restarts)
	for first > 0 && restarts[first-1].ResumedFrom == nil {
		first--
	}
	if first == len(restarts) {
		return restarts
	}
	rank0 := slices.MinFunc(pods, func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	since := metav1.NewTime(restarts[first].Time)
	limit := int64(resumeLogBytes)
	r, err := kc.Logs.Stream(ctx, j.Namespace, rank0.Name, &corev1.PodLogOptions{Container: rank0.Container, Timestamps: true, SinceTime: &since, LimitBytes: &limit})
	if err != nil {
		return restarts // the next refresh reads again
	}
	defer r.Close()
	out := slices.Clone(restarts)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		stamp, text, ok := strings.Cut(sc.Text(), " ")
		m := resumedLine.FindStringSubmatch(text)
		if !ok || m == nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			continue
		}
		i := len(out) - 1
		for i >= 0 && out[i].Time.After(at) {
			i--
		}
		if i < first || out[i].ResumedFrom != nil {
			continue
		}
		res := &Resume{Tier: TierNone, At: at.UTC()}
		if m[1] != "" {
			res.Tier = TierS3
			if m[1] == "memory" {
				res.Tier = TierMemory
			}
			if res.Step, err = strconv.Atoi(m[2]); err != nil {
				continue
			}
		}
		out[i].ResumedFrom = res
	}
	return out
}
