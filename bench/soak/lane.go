package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
)

// The workload each lane runs.
const (
	groupName    = "gpus"
	instanceType = "ml.g5.12xlarge" // 4 GPUs
	modelID      = "Qwen/Qwen2.5-0.5B-Instruct"
	modelName    = "qwen2.5-0.5b-instruct"
	datasetKey   = "datasets/alpaca/train.json"
	datasetPath  = "datasets/alpaca/"
)

// lane is one cluster's life: made, given its training operator, shared
// bucket, model and dataset, then a random mix of jobs, endpoints,
// scaling and file systems, then deleted with everything on it. Its
// operations run one after another; lanes run side by side.
type lane struct {
	r      *run
	n      int
	budget int // operations left to ask for
	rng    *rand.Rand
	name   string
	seq    int // for unique names and keys

	cluster, group string
	groupCount     int
	ready          bool     // the bucket, model and dataset are there
	jobs           []string // ids of the jobs not deleted
	endpoints      []endpoint
	fsx            string // the id of the file system's storage, if any
}

type endpoint struct {
	id       string
	replicas int
}

func newLane(r *run, n, budget int, rng *rand.Rand) *lane {
	return &lane{r: r, n: n, budget: budget, rng: rng, name: fmt.Sprintf("soak-%d-%d", r.opts.Seed%100000, n)}
}

// do asks for m with the lane's next key and spends one operation of the
// budget; it returns the record when the operation SUCCEEDED, else nil.
func (l *lane) do(ctx context.Context, m mutation) *opRecord {
	l.budget--
	l.seq++
	rec := l.r.do(ctx, l.n, fmt.Sprintf("%s-%d-%s", l.name, l.seq, m.kind), m)
	if rec.Status != "SUCCEEDED" {
		return nil
	}
	return rec
}

func (l *lane) run(ctx context.Context) {
	if !l.setUp(ctx) {
		return
	}
	for l.budget > 1 && ctx.Err() == nil {
		l.next(ctx)
	}
	if l.budget > 0 {
		l.do(ctx, l.r.deleteCluster(l.cluster))
	}
}

// setUp makes the cluster and what its work needs, as far as the budget
// allows, keeping one operation for the deletion. It tells whether the
// cluster was made.
func (l *lane) setUp(ctx context.Context) bool {
	rec := l.do(ctx, mutation{kind: "createCluster", field: "createCluster",
		query: `mutation($in: CreateClusterInput!, $key: String) { createCluster(input: $in, idempotencyKey: $key) { ` + opFields + ` } }`,
		vars: map[string]any{"in": map[string]any{"name": l.name, "zones": []string{region + "a", region + "b"},
			"instanceGroups": []any{map[string]any{"name": groupName, "instanceType": instanceType, "count": 2, "zone": region + "a"}}}}})
	if rec == nil {
		return false
	}
	l.cluster, l.groupCount = rec.Target, 2
	if l.budget < 5 {
		return true
	}
	vars := map[string]any{"c": l.cluster}
	if l.do(ctx, mutation{kind: "updateClusterFeatures", field: "updateClusterFeatures", vars: vars,
		query: `mutation($c: ID!, $key: String) { updateClusterFeatures(clusterId: $c, input: {trainingOperator: true}, idempotencyKey: $key) { ` + opFields + ` } }`}) == nil {
		return true
	}
	l.r.keepBucket(l.name + "-data")
	if l.do(ctx, mutation{kind: "addStorage S3", field: "addStorage", vars: map[string]any{"c": l.cluster, "b": l.name + "-data"},
		query: `mutation($c: ID!, $b: String!, $key: String) { addStorage(input: {clusterId: $c, kind: S3, s3: {bucket: $b, create: true}}, idempotencyKey: $key) { ` + opFields + ` } }`}) == nil {
		return true
	}
	if l.do(ctx, mutation{kind: "downloadModel", field: "downloadModel", vars: map[string]any{"c": l.cluster, "m": modelID},
		query: `mutation($c: ID!, $m: String!, $key: String) { downloadModel(input: {clusterId: $c, modelId: $m}, idempotencyKey: $key) { ` + opFields + ` } }`}) == nil {
		return true
	}
	err := l.r.c.sim(ctx, http.MethodPut, "/sim/objects/"+l.name+"-data/"+datasetKey, []byte(`[{"instruction": "Say hello.", "output": "Hello."}]`), http.StatusNoContent, nil)
	if err != nil {
		l.r.logf("lane %d: put the dataset: %v", l.n, err)
		return true
	}
	l.ready = true
	return true
}

// choice is one thing a lane may ask for next, with its weight.
type choice struct {
	weight int
	ask    func(ctx context.Context)
}

// next asks for one of the operations the lane's state allows, drawn by
// weight.
func (l *lane) next(ctx context.Context) {
	var cs []choice
	add := func(ok bool, weight int, ask func(context.Context)) {
		if ok {
			cs = append(cs, choice{weight, ask})
		}
	}
	add(l.ready && len(l.jobs) < 2, 3, l.submitJob)
	add(len(l.jobs) > 0, 2, l.deleteJob)
	add(l.ready && len(l.endpoints) < 2, 3, l.deployEndpoint)
	add(len(l.endpoints) > 0, 3, l.scaleEndpoint)
	add(len(l.endpoints) > 0, 1, l.deleteEndpoint)
	add(true, 2, l.scaleGroup)
	add(l.fsx == "", 1, l.addFileSystem)
	add(l.fsx != "", 1, l.removeFileSystem)
	total := 0
	for _, c := range cs {
		total += c.weight
	}
	pick := l.rng.IntN(total)
	for _, c := range cs {
		if pick < c.weight {
			c.ask(ctx)
			return
		}
		pick -= c.weight
	}
}

func (l *lane) submitJob(ctx context.Context) {
	in := map[string]any{"clusterId": l.cluster, "name": fmt.Sprintf("job-%d", l.seq+1), "recipe": "LLAMA_FACTORY", "model": modelName,
		"datasetPath": datasetPath, "instanceGroup": groupName, "nodes": 1, "gpusPerNode": 2,
		"settings": []any{map[string]any{"key": "max_steps", "value": "20"}}}
	if rec := l.do(ctx, mutation{kind: "submitTrainingJob", field: "submitTrainingJob", vars: map[string]any{"in": in},
		query: `mutation($in: SubmitTrainingJobInput!, $key: String) { submitTrainingJob(input: $in, idempotencyKey: $key) { ` + opFields + ` } }`}); rec != nil {
		l.jobs = append(l.jobs, rec.Target)
	}
}

func (l *lane) deleteJob(ctx context.Context) {
	i := l.rng.IntN(len(l.jobs))
	if l.do(ctx, mutation{kind: "deleteJob", field: "deleteJob", vars: map[string]any{"id": l.jobs[i]},
		query: `mutation($id: ID!, $key: String) { deleteJob(id: $id, idempotencyKey: $key) { ` + opFields + ` } }`}) != nil {
		l.jobs = slices.Delete(l.jobs, i, i+1)
	}
}

func (l *lane) deployEndpoint(ctx context.Context) {
	in := map[string]any{"clusterId": l.cluster, "name": fmt.Sprintf("ep-%d", l.seq+1), "path": "SELF_MANAGED", "model": modelName,
		"instanceType": instanceType, "replicas": 1, "gpusPerReplica": 1, "engine": "VLLM", "image": "vllm/vllm-openai:v0.10.1",
		"serviceForm": "CLUSTER_IP"}
	if rec := l.do(ctx, mutation{kind: "deployEndpoint", field: "deployEndpoint", vars: map[string]any{"in": in},
		query: `mutation($in: DeployEndpointInput!, $key: String) { deployEndpoint(input: $in, idempotencyKey: $key) { ` + opFields + ` } }`}); rec != nil {
		l.endpoints = append(l.endpoints, endpoint{rec.Target, 1})
	}
}

// scaleEndpoint sets an endpoint's replicas to another of 0, 1 and 2.
func (l *lane) scaleEndpoint(ctx context.Context) {
	e := &l.endpoints[l.rng.IntN(len(l.endpoints))]
	replicas := (e.replicas + 1 + l.rng.IntN(2)) % 3
	if l.do(ctx, mutation{kind: "updateEndpoint", field: "updateEndpoint", vars: map[string]any{"id": e.id, "n": replicas},
		query: `mutation($id: ID!, $n: Int, $key: String) { updateEndpoint(id: $id, input: {replicas: $n}, idempotencyKey: $key) { ` + opFields + ` } }`}) != nil {
		e.replicas = replicas
	}
}

func (l *lane) deleteEndpoint(ctx context.Context) {
	i := l.rng.IntN(len(l.endpoints))
	if l.do(ctx, mutation{kind: "deleteEndpoint", field: "deleteEndpoint", vars: map[string]any{"id": l.endpoints[i].id},
		query: `mutation($id: ID!, $key: String) { deleteEndpoint(id: $id, idempotencyKey: $key) { ` + opFields + ` } }`}) != nil {
		l.endpoints = slices.Delete(l.endpoints, i, i+1)
	}
}

// scaleGroup moves the instance group between 2 and 3 instances.
func (l *lane) scaleGroup(ctx context.Context) {
	if l.group == "" {
		// The group's record is made when the cluster's groups are first
		// read from HyperPod, which may come after createCluster ends.
		var out struct {
			InstanceGroups struct {
				Edges []struct{ Node struct{ ID, Name string } }
			}
		}
		err := l.r.query(ctx, `query($c: ID!) { instanceGroups(clusterId: $c) { edges { node { id name } } } }`, map[string]any{"c": l.cluster}, &out)
		for _, e := range out.InstanceGroups.Edges {
			if e.Node.Name == groupName {
				l.group = e.Node.ID
			}
		}
		if l.group == "" {
			l.r.logf("lane %d: no instance group %s to scale yet (%v)", l.n, groupName, err)
			return
		}
	}
	count := 5 - l.groupCount
	if l.do(ctx, mutation{kind: "scaleInstanceGroup", field: "scaleInstanceGroup", vars: map[string]any{"id": l.group, "n": count},
		query: `mutation($id: ID!, $n: Int!, $key: String) { scaleInstanceGroup(id: $id, count: $n, idempotencyKey: $key) { ` + opFields + ` } }`}) != nil {
		l.groupCount = count
	}
}

func (l *lane) addFileSystem(ctx context.Context) {
	if rec := l.do(ctx, mutation{kind: "addStorage FSX", field: "addStorage", vars: map[string]any{"c": l.cluster, "name": fmt.Sprintf("fsx-%d", l.seq+1)},
		query: `mutation($c: ID!, $name: String!, $key: String) { addStorage(input: {clusterId: $c, kind: FSX_LUSTRE,
			fsxLustre: {name: $name, deploymentType: SCRATCH_2, storageCapacityGiB: 1200}}, idempotencyKey: $key) { ` + opFields + ` } }`}); rec != nil {
		l.fsx = rec.Target
	}
}

func (l *lane) removeFileSystem(ctx context.Context) {
	if l.do(ctx, mutation{kind: "removeStorage", field: "removeStorage", vars: map[string]any{"id": l.fsx},
		query: `mutation($id: ID!, $key: String) { removeStorage(id: $id, idempotencyKey: $key) { ` + opFields + ` } }`}) != nil {
		l.fsx = ""
	}
}
