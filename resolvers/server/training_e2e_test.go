package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// trainingCluster makes, over GraphQL, a cluster with a GPU group of two
// ml.g5.12xlarge, the training operator on, a shared bucket, a model and
// a dataset, and returns its id.
func trainingCluster(t *testing.T, srv *server.Server, name string) string {
	t.Helper()
	res := query(t, srv, `mutation($in: CreateClusterInput!) { createCluster(input: $in) { id target { id } } }`,
		map[string]any{"in": map[string]any{"name": name, "zones": []string{"us-west-2a", "us-west-2b"},
			"instanceGroups": []any{map[string]any{"name": "gpus", "instanceType": "ml.g5.12xlarge", "count": 2, "zone": "us-west-2a"}}}})
	var created struct {
		CreateCluster struct {
			ID     string
			Target struct{ ID string }
		}
	}
	mustDecode(t, res, &created)
	if s := waitOperation(t, srv, created.CreateCluster.ID); s != "SUCCEEDED" {
		t.Fatalf("cluster creation ended %s", s)
	}
	clusterID := created.CreateCluster.Target.ID
	for _, step := range []struct{ what, q string }{
		{"updateClusterFeatures", `mutation($c: ID!) { updateClusterFeatures(clusterId: $c, input: {trainingOperator: true}) { id } }`},
		{"addStorage", `mutation($c: ID!) { addStorage(input: {clusterId: $c, kind: S3, s3: {bucket: "` + name + `-data", create: true}}) { id } }`},
		{"downloadModel", `mutation($c: ID!) { downloadModel(input: {clusterId: $c, modelId: "Qwen/Qwen2.5-0.5B-Instruct"}) { id } }`},
	} {
		var out map[string]struct{ ID string }
		mustDecode(t, query(t, srv, step.q, map[string]any{"c": clusterID}), &out)
		if s := waitOperation(t, srv, out[step.what].ID); s != "SUCCEEDED" {
			t.Fatalf("%s ended %s", step.what, s)
		}
	}
	if code, body := do(t, http.MethodPut, srv.URL()+"/sim/objects/"+name+"-data/datasets/alpaca/train.json", `[{"instruction": "Say hello.", "output": "Hello."}]`); code != http.StatusNoContent {
		t.Fatalf("PUT the dataset = %d %s", code, body)
	}
	return clusterID
}

type logChunk struct {
	JobLogs struct {
		Lines  []struct{ Pod, Text string }
		Cursor string
		End    *string
	}
}

const jobLogsSub = `subscription($id: ID!, $pod: String, $since: String, $follow: Boolean) {
	jobLogs(jobId: $id, pod: $pod, tail: 10000, since: $since, follow: $follow) { lines { pod text } cursor end } }`

// TestTrainingJobOverGraphQL submits a LLaMA-Factory job through the API,
// follows it to SUCCEEDED, reads its log through the jobLogs subscription
// (every line, then from a cursor with nothing twice), and finds the job
// in the cluster's list.
func TestTrainingJobOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := trainingCluster(t, srv, "train-e2e")
	res := query(t, srv, `mutation($in: SubmitTrainingJobInput!) { submitTrainingJob(input: $in) { id target { id } } }`,
		map[string]any{"in": map[string]any{"clusterId": clusterID, "name": "sft-e2e", "recipe": "LLAMA_FACTORY", "model": "qwen2.5-0.5b-instruct",
			"datasetPath": "datasets/alpaca/", "instanceGroup": "gpus", "nodes": 2,
			"settings": []any{map[string]any{"key": "max_steps", "value": "40"}, map[string]any{"key": "save_steps", "value": "20"}}}})
	var sub struct {
		SubmitTrainingJob struct {
			ID     string
			Target struct{ ID string }
		}
	}
	mustDecode(t, res, &sub)
	if s := waitOperation(t, srv, sub.SubmitTrainingJob.ID); s != "SUCCEEDED" {
		t.Fatalf("submitTrainingJob ended %s", s)
	}
	jobID := sub.SubmitTrainingJob.Target.ID
	var job struct {
		Job struct {
			Status string
			Pods   []struct{ Name, Node string }
		}
	}
	for deadline := time.Now().Add(60 * time.Second); ; {
		mustDecode(t, query(t, srv, `query($id: ID!) { job(id: $id) { status pods { name node } } }`, map[string]any{"id": jobID}), &job)
		if job.Job.Status == "SUCCEEDED" || job.Job.Status == "FAILED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job is still %s", job.Job.Status)
		}
		time.Sleep(20 * time.Millisecond) // polling the job, with a deadline
	}
	if job.Job.Status != "SUCCEEDED" || len(job.Job.Pods) != 2 {
		t.Fatalf("job = %+v, want SUCCEEDED on two pods", job.Job)
	}

	// The whole log of one pod, then the end: not following, it is DONE.
	pod := job.Job.Pods[0].Name
	c := dial(t, srv)
	ch, err := c.Subscribe(testContext(t), jobLogsSub, map[string]any{"id": jobID, "pod": pod, "follow": false})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	var cursor, mid string
	firstN := 0
	for {
		var chunk logChunk
		if r := next(t, ch); r.Decode(&chunk) != nil {
			t.Fatalf("a chunk that does not decode: %s %v", r.Data, r.Errors)
		}
		for _, l := range chunk.JobLogs.Lines {
			if l.Pod != pod {
				t.Fatalf("a line of %s in %s's log", l.Pod, pod)
			}
			all = append(all, l.Text)
		}
		if mid == "" && len(all) > 0 {
			mid, firstN = chunk.JobLogs.Cursor, len(all)
		}
		cursor = chunk.JobLogs.Cursor
		if chunk.JobLogs.End != nil {
			if *chunk.JobLogs.End != "DONE" {
				t.Fatalf("end = %s, want DONE", *chunk.JobLogs.End)
			}
			break
		}
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"NCCL INFO", "step=40 ", "Training completed"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the log has no %q:\n%s", want, text)
		}
	}
	if cursor == "" || mid == "" {
		t.Fatal("no cursor")
	}

	// From the first chunk's cursor: the rest, with no gap and nothing twice.
	ch, err = c.Subscribe(testContext(t), jobLogsSub, map[string]any{"id": jobID, "pod": pod, "since": mid, "follow": false})
	if err != nil {
		t.Fatal(err)
	}
	var rest []string
	for {
		var chunk logChunk
		r := next(t, ch)
		mustDecode(t, &r, &chunk)
		for _, l := range chunk.JobLogs.Lines {
			rest = append(rest, l.Text)
		}
		if chunk.JobLogs.End != nil {
			break
		}
	}
	if got, want := strings.Join(rest, "\n"), strings.Join(all[firstN:], "\n"); got != want {
		t.Fatalf("resumed from the first chunk's cursor:\n%s\nwant:\n%s", got, want)
	}

	// Following from the end of a finished job's log: no line, and ENDED.
	ch, err = c.Subscribe(testContext(t), jobLogsSub, map[string]any{"id": jobID, "pod": pod, "since": cursor, "follow": true})
	if err != nil {
		t.Fatal(err)
	}
	for {
		var chunk logChunk
		r := next(t, ch)
		mustDecode(t, &r, &chunk)
		if len(chunk.JobLogs.Lines) != 0 {
			t.Fatalf("lines after the end: %+v", chunk.JobLogs.Lines)
		}
		if chunk.JobLogs.End != nil {
			if *chunk.JobLogs.End != "ENDED" {
				t.Fatalf("end = %s, want ENDED", *chunk.JobLogs.End)
			}
			break
		}
	}

	var list struct {
		Jobs struct {
			Edges []struct{ Node struct{ Name, Status string } }
		}
	}
	mustDecode(t, query(t, srv, `query($c: ID!) { jobs(clusterId: $c) { edges { node { name status } } } }`, map[string]any{"c": clusterID}), &list)
	if len(list.Jobs.Edges) != 1 || list.Jobs.Edges[0].Node.Name != "sft-e2e" || list.Jobs.Edges[0].Node.Status != "SUCCEEDED" {
		t.Fatalf("jobs = %+v", list.Jobs)
	}
}
