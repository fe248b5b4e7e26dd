package sim

import (
	"strings"
	"testing"
	"time"
)

// TestTrainingResumeTier: under tiered checkpointing a restart resumes
// from the newest in-memory checkpoint (every 3 steps here), unless the
// only copy was lost with a one-node job's node; without it, from the
// newest S3 checkpoint (every 30), which is older.
func TestTrainingResumeTier(t *testing.T) {
	crashAt40 := kubeTrainAttempt{Fault: FaultCrash, FaultAt: after(125 * time.Second), EndAt: after(130 * time.Second)}
	nodeAt40 := kubeTrainAttempt{Fault: "node", FaultAt: after(125 * time.Second), EndAt: after(125 * time.Second)}
	cases := []struct {
		name     string
		tiered   bool
		nodes    int
		attempt  kubeTrainAttempt
		wantStep int64
		wantTier string
	}{
		{"S3: a crash at step 40 resumes from S3 at step 30", false, 2, crashAt40, 30, tierS3},
		{"TIERED: a crash at step 40 resumes from memory at step 39", true, 2, crashAt40, 39, tierMemory},
		{"TIERED: a lost node of a two-node job leaves the shard on its peer", true, 2, nodeAt40, 39, tierMemory},
		{"TIERED: a lost node of a one-node job takes the only in-memory copy", true, 1, nodeAt40, 30, tierS3},
		{"TIERED: after a memory resume at 39, losing the one node goes back to S3 at 30", true, 1,
			kubeTrainAttempt{From: 39, Tier: tierMemory, Fault: "node", FaultAt: after(40 * time.Second), EndAt: after(40 * time.Second)}, 30, tierS3},
		{"TIERED: a crash before the first checkpoint starts over", true, 2,
			kubeTrainAttempt{Fault: FaultCrash, FaultAt: after(47 * time.Second), EndAt: after(52 * time.Second)}, 0, ""},
		{"S3: a crash before the first checkpoint starts over", false, 2,
			kubeTrainAttempt{Fault: FaultCrash, FaultAt: after(47 * time.Second), EndAt: after(52 * time.Second)}, 0, ""},
	}
	w := &World{speed: 1}
	for _, c := range cases {
		rec := &kubeTrainRec{Plan: kubeTrainPlan{MaxSteps: 100, SaveSteps: 30, Nodes: c.nodes, Tiered: c.tiered}}
		if c.tiered {
			rec.Plan.MemorySteps = 3
		}
		a := c.attempt
		a.Start = trainT0
		if step, tier := rec.resume(w, &a); step != c.wantStep || tier != c.wantTier {
			t.Errorf("%s: resume = %d %q, want %d %q", c.name, step, tier, c.wantStep, c.wantTier)
		}
	}
}

// TestTrainingMemoryResumeStartsSooner: an attempt that resumed from
// memory reaches its first step 13 s sooner than one that read S3, and
// rank 0 says where it resumed from just before it trains.
func TestTrainingMemoryResumeStartsSooner(t *testing.T) {
	w := &World{speed: 1}
	rec := &kubeTrainRec{Name: "job", Plan: kubeTrainPlan{MaxSteps: 100, SaveSteps: 30, MemorySteps: 3, Tiered: true, Nodes: 1, ProcsPerNode: 1, CheckpointDir: "/s3/checkpoints/job"}}
	mem := kubeTrainAttempt{Start: trainT0, From: 39, Tier: tierMemory}
	s3 := kubeTrainAttempt{Start: trainT0, From: 30, Tier: tierS3}
	if got := rec.stepAt(w, &mem, 40).Sub(trainT0); got != 34*time.Second {
		t.Errorf("memory: step 40 at +%v, want +34s (32 s of start-up, one step)", got)
	}
	if got := rec.stepAt(w, &s3, 31).Sub(trainT0); got != 47*time.Second {
		t.Errorf("S3: step 31 at +%v, want +47s (45 s of start-up, one step)", got)
	}
	for _, c := range []struct {
		a    kubeTrainAttempt
		want string
	}{
		{mem, "[rank0] resumed from memory at step 39 (in-memory tier)"},
		{s3, "[rank0] resumed from S3 at step 30 (/s3/checkpoints/job)"},
		{kubeTrainAttempt{Start: trainT0}, "[rank0] no checkpoint to resume from: training from step 0"},
	} {
		first := kubeTrainAttempt{Start: trainT0.Add(-time.Hour), Fault: FaultCrash, FaultAt: trainT0.Add(-time.Minute), EndAt: trainT0.Add(-time.Minute), Outcome: "restart"}
		rec.Attempts = []kubeTrainAttempt{first, c.a}
		var text []string
		for _, l := range rec.trainLines(w, 0, trainT0.Add(-time.Hour), trainT0.Add(time.Minute)) {
			text = append(text, l.Text)
		}
		log := strings.Join(text, "\n")
		if !strings.Contains(log, c.want) {
			t.Errorf("the log has no %q:\n%s", c.want, log)
		}
		if strings.Count(log, "resumed from")+strings.Count(log, "no checkpoint to resume") != 1 {
			t.Errorf("the log says where it resumed from other than once, on the second attempt only:\n%s", log)
		}
	}
}
