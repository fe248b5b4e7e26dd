package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestTieredCheckpointingOverGraphQL: checkpointing TIERED is refused with
// PRECONDITION on input.checkpointing while the feature is off; with it on
// the job says TIERED, and after a crash its restart says it resumed from
// MEMORY, at which step and when.
func TestTieredCheckpointingOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := trainingCluster(t, srv, "tiered-e2e")
	const submit = `mutation($in: SubmitTrainingJobInput!) { submitTrainingJob(input: $in) { id target { id } } }`
	in := map[string]any{"clusterId": clusterID, "name": "sft-tiered", "recipe": "LLAMA_FACTORY", "model": "qwen2.5-0.5b-instruct",
		"datasetPath": "datasets/alpaca/", "instanceGroup": "gpus", "nodes": 2, "checkpointing": "TIERED",
		"settings": []any{map[string]any{"key": "max_steps", "value": "100000"}, map[string]any{"key": "save_steps", "value": "100"}}}
	res := query(t, srv, submit, map[string]any{"in": in})
	if len(res.Errors) != 1 || res.Errors[0].Code() != "PRECONDITION" || res.Errors[0].Extensions["field"] != "input.checkpointing" {
		t.Fatalf("TIERED with the feature off: %+v, want PRECONDITION on input.checkpointing", res.Errors)
	}

	var up struct{ UpdateClusterFeatures struct{ ID string } }
	mustDecode(t, query(t, srv, `mutation($c: ID!) { updateClusterFeatures(clusterId: $c, input: {tieredCheckpointing: {enabled: true, bucket: "tiered-e2e-data"}}) { id } }`,
		map[string]any{"c": clusterID}), &up)
	if s := waitOperation(t, srv, up.UpdateClusterFeatures.ID); s != "SUCCEEDED" {
		t.Fatalf("TIERED_CHECKPOINTING ended %s", s)
	}
	var sub struct {
		SubmitTrainingJob struct {
			ID     string
			Target struct{ ID string }
		}
	}
	mustDecode(t, query(t, srv, submit, map[string]any{"in": in}), &sub)
	if s := waitOperation(t, srv, sub.SubmitTrainingJob.ID); s != "SUCCEEDED" {
		t.Fatalf("submitTrainingJob ended %s", s)
	}
	jobID := sub.SubmitTrainingJob.Target.ID

	type restart struct {
		Reason          string
		ResumedFromTier *string
		ResumedFromStep *int
		ResumedAt       *time.Time
		Time            time.Time
	}
	var job struct {
		Job struct {
			Status, Checkpointing string
			Restarts              []restart
		}
	}
	read := func() {
		mustDecode(t, query(t, srv, `query($id: ID!) { job(id: $id) { status checkpointing restarts { reason time resumedFromTier resumedFromStep resumedAt } } }`,
			map[string]any{"id": jobID}), &job)
	}
	lines := func() int {
		var out struct {
			JobLogLines struct{ Lines []struct{ Text string } }
		}
		mustDecode(t, query(t, srv, `query($id: ID!) { jobLogLines(jobId: $id, tail: 10000, contains: "step=30 ") { lines { text } } }`, map[string]any{"id": jobID}), &out)
		return len(out.JobLogLines.Lines)
	}
	for deadline := time.Now().Add(60 * time.Second); lines() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the job logged no step 30")
		}
		time.Sleep(20 * time.Millisecond) // polling the log, with a deadline
	}
	if code, body := do(t, http.MethodPost, srv.URL()+"/sim/faults", `{"Kind": "crash", "Job": "sft-tiered"}`); code/100 != 2 {
		t.Fatalf("inject the crash = %d %s", code, body)
	}
	for deadline := time.Now().Add(60 * time.Second); ; {
		read()
		if len(job.Job.Restarts) > 0 && job.Job.Restarts[0].ResumedFromTier != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restart says where it resumed from: %+v", job.Job)
		}
		time.Sleep(20 * time.Millisecond) // polling the job, with a deadline
	}
	r := job.Job.Restarts[0]
	if job.Job.Checkpointing != "TIERED" || r.Reason != "PROCESS_CRASH" || *r.ResumedFromTier != "MEMORY" || r.ResumedFromStep == nil || *r.ResumedFromStep < 30 || *r.ResumedFromStep%10 != 0 ||
		r.ResumedAt == nil || r.ResumedAt.Before(r.Time) {
		t.Fatalf("job = %s, restart = %s from %v at step %v at %v; want a TIERED job's crash resumed from MEMORY at an in-memory step past 30, after the restart",
			job.Job.Checkpointing, r.Reason, *r.ResumedFromTier, r.ResumedFromStep, r.ResumedAt)
	}
}
