package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// training, the program of a training job's pods (labelled
// instantstart.io/program=training): its containers run until the job's
// operator (kube_training.go) ends them, and what they log is computed
// from the operator's record of the job, line by line at its moment, for
// the pods/log subresource (kube_logs.go):
//
//   - when the pod's containers start, the elastic agent waits for the
//     job's nodes;
//   - at each attempt's start, each node's agent starts its workers, torch
//     rendezvous, NCCL (with the EFA provider when the pod has EFA
//     devices) comes up, the model loads, or the checkpoint it resumes
//     from;
//   - then a line every trainLogEvery steps, "step=<n> loss=<x>
//     learning_rate=<x> tokens_per_sec=<x> epoch=<x>", the loss falling
//     with the steps, and "Saving model checkpoint to <dir>/checkpoint-<n>"
//     every CHECKPOINT_STEPS;
//   - a crash logs the worker's traceback on its pod; a hang logs nothing
//     from its moment; an NCCL fault logs NET/OFI errors, then the
//     watchdog's timeout on every pod; each restart logs the agent's
//     restart; the end logs the final model saved and the workers' exit.

// kubeTrainingProgram is the training pods' program name.
const kubeTrainingProgram = "training"

// trainForever stands for a run that only its operator ends.
var trainForever = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// beginTraining starts a training pod's containers: they run until the
// operator ends them.
func beginTraining(_ *kubeSession, _ *corev1.Pod, _ time.Time) *kubeRun {
	return &kubeRun{End: trainForever, Reason: "Completed"}
}

// kubeLogLine is one line of a container's log.
type kubeLogLine struct {
	At   time.Time
	Text string
}

// trainMetrics are rank 0's figures at a step.
type trainMetrics struct{ loss, lr, tokens float64 }

// metricsAt is what the job reports at step k: a loss falling from about
// 2.3 towards 0.4, a cosine learning rate, a steady throughput, each with
// a little noise of the job's own.
func (rec *kubeTrainRec) metricsAt(k int64) trainMetrics {
	p := rec.Plan
	noise := func(salt string) float64 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%s/%s/%d", rec.Namespace, rec.Name, salt, k)
		return float64(h.Sum64()%2001)/1000 - 1 // -1 to 1
	}
	loss := 0.4 + 1.9*math.Exp(-float64(k)/float64(max(p.MaxSteps/4, 1))) + 0.03*noise("loss")
	lr := p.LearningRate * 0.5 * (1 + math.Cos(math.Pi*float64(k)/float64(max(p.MaxSteps, 1))))
	tokens := p.TokensPerSec * (1 + 0.02*noise("tokens"))
	return trainMetrics{loss: round(loss, 4), lr: lr, tokens: round(tokens, 1)}
}

func round(v float64, digits int) float64 {
	f := math.Pow(10, float64(digits))
	return math.Round(v*f) / f
}

// trainLines is the log of the pod of rank, whose containers started at
// since, up to until.
func (rec *kubeTrainRec) trainLines(w *World, rank int, since, until time.Time) []kubeLogLine {
	var out []kubeLogLine
	at := func(t time.Time, format string, args ...any) {
		if !t.Before(since) && !t.After(until) {
			out = append(out, kubeLogLine{At: t, Text: fmt.Sprintf(format, args...)})
		}
	}
	p := rec.Plan
	world := p.Nodes * p.ProcsPerNode
	r0 := rank * p.ProcsPerNode
	at(since, "[hyperpodrun] agent listening on 0.0.0.0:8080; node_rank=%d nnodes=%d nproc_per_node=%d, waiting for the job's nodes", rank, p.Nodes, p.ProcsPerNode)
	for i := range rec.Attempts {
		a := &rec.Attempts[i]
		if a.Start.Before(since) {
			continue // before this pod
		}
		ms := func(d time.Duration) time.Duration { return w.scale(d) }
		t0 := a.Start
		// What the attempt logs stops at a hang or a crash; an NCCL
		// fault logs until its watchdog fires.
		stop := until
		if !a.EndAt.IsZero() && a.EndAt.Before(stop) {
			stop = a.EndAt
		}
		if a.stopsLogs() && a.FaultAt.Before(stop) {
			stop = a.FaultAt
		}
		line := func(t time.Time, format string, args ...any) {
			if !t.After(stop) {
				at(t, format, args...)
			}
		}
		line(t0, "[hyperpodrun] starting %d workers (ranks %d-%d of %d), attempt %d", p.ProcsPerNode, r0, r0+p.ProcsPerNode-1, world, i+1)
		line(t0.Add(ms(time.Second)), "[rank%d] torch.distributed: initialising process group, backend=nccl, world_size=%d, rendezvous at %s-0:29500", r0, world, rec.Name)
		if p.EFAPerNode > 0 {
			line(t0.Add(ms(3*time.Second)), "[rank%d] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found %d nics)", r0, p.EFAPerNode)
			line(t0.Add(ms(3*time.Second+time.Millisecond)), "[rank%d] NCCL INFO NET/OFI Using Libfabric version 1.22, aws-ofi-nccl 1.13", r0)
		} else {
			line(t0.Add(ms(3*time.Second)), "[rank%d] NCCL INFO NET/Socket : Using [0]eth0; no EFA devices in this pod", r0)
		}
		ncclUp := t0.Add(ms(trainNCCLReady))
		if a.Fault == "nccl" && a.FaultAt.Before(ncclUp) {
			// The ranks never finish initialising.
			line(a.FaultAt, "[rank%d] NCCL WARN NET/OFI Request completed with error. RC: 110. Error: Connection timed out, peer %s-%d", r0, rec.Name, (rank+1)%max(p.Nodes, 1))
		} else {
			line(ncclUp, "[rank%d] NCCL INFO comm rank %d nranks %d nNodes %d localRanks %d - Init COMPLETE", r0, r0, world, p.Nodes, p.ProcsPerNode)
			switch {
			case a.Tier == tierMemory:
				line(ncclUp.Add(ms(2*time.Second)), "[rank%d] Loading checkpoint of step %d from the in-memory tier", r0, a.From)
			case a.From > 0:
				line(ncclUp.Add(ms(2*time.Second)), "[rank%d] Resuming training from checkpoint %s/checkpoint-%d", r0, p.CheckpointDir, a.From)
			default:
				line(ncclUp.Add(ms(2*time.Second)), "[rank%d] Loading model weights and dataset", r0)
			}
			if words := rec.resumeWords(a, i == 0); words != "" {
				line(t0.Add(ms(a.startup()-time.Second-time.Millisecond)), "[rank%d] %s", r0, words)
			}
			line(t0.Add(ms(a.startup()-time.Second)), "[rank%d] ***** Running training ***** max_steps=%d, world_size=%d, from step %d", r0, p.MaxSteps, world, a.From)
			last := rec.reached(w, a, stop)
			for k := a.From + 1; k <= last; k++ {
				if k%trainLogEvery != 0 && k != p.MaxSteps {
					continue
				}
				m := rec.metricsAt(k)
				st := rec.stepAt(w, a, k)
				if a.slowed(st) {
					m.tokens = round(m.tokens*slowFactor, 1)
				}
				line(st, "[rank%d] step=%d loss=%.4f learning_rate=%.3e tokens_per_sec=%.1f epoch=%.2f", r0, k, m.loss, m.lr, m.tokens, float64(k)/float64(p.MaxSteps))
				if p.SaveSteps > 0 && k%p.SaveSteps == 0 && k != p.MaxSteps {
					line(st.Add(time.Millisecond), "[rank%d] Saving model checkpoint to %s/checkpoint-%d", r0, p.CheckpointDir, k)
				}
			}
			if a.Fault == "nccl" {
				line(a.FaultAt, "[rank%d] NCCL WARN NET/OFI Request completed with error. RC: 110. Error: Connection timed out, peer %s-%d", r0, rec.Name, (rank+1)%max(p.Nodes, 1))
			}
		}
		if a.EndAt.IsZero() || a.EndAt.After(until) {
			continue
		}
		end := a.EndAt
		switch {
		case a.Outcome == "succeeded":
			at(end.Add(-ms(trainFinish)), "[rank%d] Training completed: %d steps. Saving the final model to %s", r0, p.MaxSteps, p.OutputDir)
			at(end, "[hyperpodrun] all %d workers exited with code 0", p.ProcsPerNode)
			continue
		case a.Fault == "crash" && a.Rank == rank:
			at(a.FaultAt, "[rank%d] Traceback (most recent call last):", r0)
			at(a.FaultAt.Add(time.Microsecond), "[rank%d]   File \"train.py\", line 212, in training_step", r0)
			at(a.FaultAt.Add(2*time.Microsecond), "[rank%d] %s", r0, crashMessage(a))
			at(end, "[hyperpodrun] worker rank %d exited with code 1; reporting a process failure", r0)
		case a.Fault == "nccl":
			at(end, "[rank%d] [PG 0 Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=%d) ran for %d milliseconds before timing out", r0, r0, trainNCCLTimeout.Milliseconds(), trainNCCLTimeout.Milliseconds()+12)
			at(end.Add(time.Microsecond), "[hyperpodrun] workers exited with code 1 after the NCCL timeout")
		}
		switch a.Outcome {
		case "restart":
			at(end.Add(2*time.Microsecond), "[hyperpodrun] the operator restarts the workers in place (restart %d)", rec.restartNumber(i))
		case "failed":
			at(end.Add(2*time.Microsecond), "[hyperpodrun] the operator stopped the job: its restart budget is spent")
		}
	}
	return out
}

// restartNumber is which restart attempt i's end was.
func (rec *kubeTrainRec) restartNumber(i int) int {
	n := 0
	for j := 0; j <= i && j < len(rec.Attempts); j++ {
		if o := rec.Attempts[j].Outcome; o == "restart" || o == "full-restart" {
			n++
		}
	}
	return n
}
