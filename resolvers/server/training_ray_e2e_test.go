package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/resolvers/server"
)

// TestRayJobOverGraphQL submits a RAY job through the API (the user's
// script with arguments, a runtime environment and a worker group),
// follows it to SUCCEEDED, reads the entrypoint's output from the
// submitter's log through jobLogs, deletes it, and finds nothing of it
// left in the simulated cluster.
func TestRayJobOverGraphQL(t *testing.T) {
	srv := startServer(t, server.Config{Engine: app.Config{Region: "us-west-2"}})
	clusterID := trainingCluster(t, srv, "ray-e2e")
	var on struct{ UpdateClusterFeatures struct{ ID string } }
	mustDecode(t, query(t, srv, `mutation($c: ID!) { updateClusterFeatures(clusterId: $c, input: {kubeRay: true}) { id } }`, map[string]any{"c": clusterID}), &on)
	if s := waitOperation(t, srv, on.UpdateClusterFeatures.ID); s != "SUCCEEDED" {
		t.Fatalf("turning KubeRay on ended %s", s)
	}
	if code, body := do(t, http.MethodPut, srv.URL()+"/sim/objects/ray-e2e-data/code/train.py", "import ray\nray.init()\n"); code != http.StatusNoContent {
		t.Fatalf("PUT the script = %d %s", code, body)
	}
	res := query(t, srv, `mutation($in: SubmitTrainingJobInput!) { submitTrainingJob(input: $in) { id target { id } } }`,
		map[string]any{"in": map[string]any{"clusterId": clusterID, "name": "ray-e2e", "recipe": "RAY", "script": "code/train.py",
			"datasetPath": "datasets/alpaca/", "instanceGroup": "gpus", "nodes": 1,
			"settings": []any{map[string]any{"key": "max_steps", "value": "40"}, map[string]any{"key": "save_steps", "value": "20"}},
			"ray": map[string]any{"args": []string{"--lr", "1e-4"}, "pip": []string{"datasets==3.2.0"},
				"env":          []any{map[string]any{"name": "HF_HUB_OFFLINE", "value": "1"}},
				"workerGroups": []any{map[string]any{"instanceGroup": "gpus", "replicas": 1, "gpusPerNode": 2}}}}})
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
			Status, Kind, Recipe, OperatorState string
			Nodes                               int
			Pods                                []struct{ Name string }
			Ray                                 struct {
				Entrypoint   string
				Pip          []string
				EnvNames     []string
				WorkerGroups []struct {
					InstanceGroup, InstanceType string
					Replicas, GpusPerNode       int
				}
			}
		}
	}
	const jobQuery = `query($id: ID!) { job(id: $id) { status kind recipe operatorState nodes pods { name }
		ray { entrypoint pip envNames workerGroups { instanceGroup instanceType replicas gpusPerNode } } } }`
	for deadline := time.Now().Add(60 * time.Second); ; {
		mustDecode(t, query(t, srv, jobQuery, map[string]any{"id": jobID}), &job)
		if job.Job.Status == "SUCCEEDED" || job.Job.Status == "FAILED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job is still %s", job.Job.Status)
		}
		time.Sleep(20 * time.Millisecond) // polling the job, with a deadline
	}
	j := job.Job
	if j.Status != "SUCCEEDED" || j.Kind != "RAY_JOB" || j.Recipe != "RAY" || j.OperatorState != "Complete/SUCCEEDED" || j.Nodes != 2 || len(j.Pods) != 3 {
		t.Fatalf("job = %+v, want a SUCCEEDED RAY_JOB on a head, a worker and the submitter", j)
	}
	if j.Ray.Entrypoint != "python /s3/code/train.py --lr 1e-4" || !slices.Equal(j.Ray.Pip, []string{"datasets==3.2.0"}) || !slices.Equal(j.Ray.EnvNames, []string{"HF_HUB_OFFLINE"}) ||
		len(j.Ray.WorkerGroups) != 1 || j.Ray.WorkerGroups[0].InstanceType != "ml.g5.12xlarge" || j.Ray.WorkerGroups[0].GpusPerNode != 2 {
		t.Fatalf("ray = %+v", j.Ray)
	}
	submitter := ""
	for _, p := range j.Pods {
		if !strings.HasSuffix(p.Name, "-head") && !strings.Contains(p.Name, "-worker-") {
			submitter = p.Name
		}
	}
	c := dial(t, srv)
	ch, err := c.Subscribe(testContext(t), jobLogsSub, map[string]any{"id": jobID, "pod": submitter, "follow": false})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for {
		var chunk logChunk
		r := next(t, ch)
		mustDecode(t, &r, &chunk)
		for _, l := range chunk.JobLogs.Lines {
			all = append(all, l.Text)
		}
		if chunk.JobLogs.End != nil {
			break
		}
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"submitted successfully", "step=40 ", "Training completed"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the submitter's log (%s) has no %q:\n%s", submitter, want, text)
		}
	}

	// What the job made in the simulated cluster: the RayJob, its
	// RayCluster, the submitter Job and every pod.
	made := func() []string {
		code, body := do(t, http.MethodGet, srv.URL()+"/sim/inventory", "")
		var lines []string
		if code != http.StatusOK || json.Unmarshal([]byte(body), &lines) != nil {
			t.Fatalf("inventory = %d %s", code, body)
		}
		return slices.DeleteFunc(lines, func(l string) bool {
			return !strings.HasPrefix(l, "kubernetes ") || !strings.Contains(l, " default/ray-e2e")
		})
	}
	if before := strings.Join(made(), "\n"); !strings.Contains(before, "ray.io/v1/rayjobs") || !strings.Contains(before, "ray.io/v1/rayclusters") ||
		!strings.Contains(before, "batch/v1/jobs") || strings.Count(before, " v1/pods ") != 3 {
		t.Fatalf("before deleteJob the cluster holds:\n%s", before)
	}
	var del struct{ DeleteJob struct{ ID string } }
	mustDecode(t, query(t, srv, `mutation($id: ID!) { deleteJob(id: $id) { id } }`, map[string]any{"id": jobID}), &del)
	if s := waitOperation(t, srv, del.DeleteJob.ID); s != "SUCCEEDED" {
		t.Fatalf("deleteJob ended %s", s)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		left := made()
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left after deleteJob: %v", left)
		}
		time.Sleep(20 * time.Millisecond) // polling the simulated cluster, with a deadline
	}
}
