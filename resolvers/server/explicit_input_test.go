package server_test

import (
	"testing"

	"github.com/instantstart/instantstart/resolvers/server"
)

// TestInputGaps sends values a client gets wrong in ways that used to pass:
// an explicit 0 where the range excludes it (absent and 0 are different),
// an empty list, a control character in a name, contradictory inputs, and
// an unknown cluster id. Each is refused with the code and the field that
// say what to change, and nothing is made.
func TestInputGaps(t *testing.T) {
	srv := startServer(t, server.Config{})
	job := func(change map[string]any) map[string]any {
		in := map[string]any{"clusterId": "no-such-cluster", "name": "sft-1", "recipe": "LLAMA_FACTORY", "model": "qwen2.5-0.5b-instruct",
			"datasetPath": "datasets/alpaca/", "instanceGroup": "gpus", "nodes": 1}
		for k, v := range change {
			in[k] = v
		}
		return map[string]any{"in": in}
	}
	endpoint := func(change map[string]any) map[string]any {
		in := map[string]any{"clusterId": "no-such-cluster", "name": "chat", "path": "SELF_MANAGED", "model": "qwen2.5-0.5b-instruct",
			"instanceType": "ml.g5.12xlarge", "replicas": 1, "gpusPerReplica": 1, "engine": "VLLM", "image": "vllm/vllm-openai:v0.10.1",
			"serviceForm": "CLUSTER_IP"}
		for k, v := range change {
			in[k] = v
		}
		return map[string]any{"in": in}
	}
	const submit = `mutation($in: SubmitTrainingJobInput!) { submitTrainingJob(input: $in) { id } }`
	const deploy = `mutation($in: DeployEndpointInput!) { deployEndpoint(input: $in) { id } }`
	for _, tc := range []struct {
		name, query string
		vars        map[string]any
		code, field string
	}{
		{"gpusPerNode 0", submit, job(map[string]any{"gpusPerNode": 0}), "VALIDATION", "input.gpusPerNode"},
		{"a control character in the experiment", submit, job(map[string]any{"experiment": "exp\x1b[31m"}), "VALIDATION", "input.experiment"},
		{"a job on an unknown cluster", submit, job(nil), "NOT_FOUND", "input.clusterId"},
		{"tensorParallelSize 0", deploy, endpoint(map[string]any{"tensorParallelSize": 0}), "VALIDATION", "input.tensorParallelSize"},
		{"gpusPerReplica 0", deploy, endpoint(map[string]any{"gpusPerReplica": 0}), "VALIDATION", "input.gpusPerReplica"},
		{"an endpoint on an unknown cluster", deploy, endpoint(nil), "NOT_FOUND", "input.clusterId"},
		{"maxTokens 0", `mutation { invokeEndpoint(endpointId: "e1", request: {messages: [{role: "user", content: "hi"}], maxTokens: 0}) { text } }`, nil, "VALIDATION", "request.maxTokens"},
		{"maxTokens over 4096", `mutation { invokeEndpoint(endpointId: "e1", request: {messages: [{role: "user", content: "hi"}], maxTokens: 5000}) { text } }`, nil, "VALIDATION", "request.maxTokens"},
		{"autoscaling target 0", `mutation { setEndpointAutoscaling(endpointId: "e1", input: {minReplicas: 1, maxReplicas: 2, trigger: REQUESTS_PER_REPLICA, target: 0}) { id } }`, nil, "VALIDATION", "input.target"},
		{"endpointMetrics rangeMinutes 1", `{ endpointMetrics(endpointId: "e1", rangeMinutes: 1) { stepSeconds } }`, nil, "VALIDATION", "rangeMinutes"},
		{"endpointMetrics stepSeconds 1", `{ endpointMetrics(endpointId: "e1", stepSeconds: 1) { stepSeconds } }`, nil, "VALIDATION", "stepSeconds"},
		{"endpointMetrics of an unknown endpoint", `{ endpointMetrics(endpointId: "e1") { stepSeconds } }`, nil, "NOT_FOUND", "endpointId"},
		{"endpointLogLines tail 0", `{ endpointLogLines(endpointId: "e1", tail: 0) { lines { text } } }`, nil, "VALIDATION", "tail"},
		{"endpointLogLines tail over 10000", `{ endpointLogLines(endpointId: "e1", tail: 10001) { lines { text } } }`, nil, "VALIDATION", "tail"},
		{"endpointLogLines of an unknown endpoint", `{ endpointLogLines(endpointId: "e1") { lines { text } } }`, nil, "NOT_FOUND", "endpointId"},
		{"jobLogLines tail 0", `{ jobLogLines(jobId: "j1", tail: 0) { lines { text } } }`, nil, "VALIDATION", "tail"},
		{"no instance group to update", `mutation { updateClusterSoftware(clusterId: "c1", instanceGroups: [], rollingUpdate: {maxUnavailablePercent: 10}) { id } }`, nil, "VALIDATION", "instanceGroups"},
		{"software of an unknown cluster", `mutation { updateClusterSoftware(clusterId: "c1", rollingUpdate: {maxUnavailablePercent: 10}) { id } }`, nil, "NOT_FOUND", "clusterId"},
		{"S3 storage with a file system too", `mutation { addStorage(input: {clusterId: "c1", kind: S3, s3: {bucket: "b-1", create: true}, fsxLustre: {name: "scratch", storageCapacityGiB: 1200}}) { id } }`, nil, "VALIDATION", "input.fsxLustre"},
		{"a file system with a bucket too", `mutation { addStorage(input: {clusterId: "c1", kind: FSX_LUSTRE, s3: {bucket: "b-1", create: true}, fsxLustre: {name: "scratch", storageCapacityGiB: 1200}}) { id } }`, nil, "VALIDATION", "input.s3"},
		{"storage on an unknown cluster", `mutation { addStorage(input: {clusterId: "c1", kind: S3, s3: {bucket: "b-1", create: true}}) { id } }`, nil, "NOT_FOUND", "input.clusterId"},
		{"objects of an unknown cluster", `{ s3Objects(clusterId: "c1") { pageInfo { hasNextPage } } }`, nil, "NOT_FOUND", "clusterId"},
		{"repair of an unknown cluster", `mutation { repairClusterDependencies(clusterId: "c1") { id } }`, nil, "NOT_FOUND", "clusterId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := query(t, srv, tc.query, tc.vars)
			if len(res.Errors) == 0 {
				t.Fatalf("accepted: %s", res.Data)
			}
			e := res.Errors[0]
			if field, _ := e.Extensions["field"].(string); e.Code() != tc.code || field != tc.field {
				t.Fatalf("got %s on %q (%s); want %s on %q", e.Code(), field, e.Message, tc.code, tc.field)
			}
		})
	}
	res := query(t, srv, `{ operations { totalCount } }`, nil)
	if string(res.Data) != `{"operations":{"totalCount":0}}` {
		t.Fatalf("operations after refused requests: %s; want none", res.Data)
	}
}
