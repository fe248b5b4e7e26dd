package recipe

import (
	"errors"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
)

// rayRequest is a RAY job with arguments, a runtime environment and two
// worker groups, one of them on the head's group.
func rayRequest() Request {
	r := request(Ray)
	r.Ray = &RayProgram{
		Args: []string{"--epochs", "3", "--note", "it's fine"},
		Pip:  []string{"torch==2.5.1", "transformers[torch]>=4.44,<5"},
		Env:  []EnvVar{{Name: "WANDB_MODE", Value: "offline"}, {Name: "NOTE", Value: `a "quoted" value`}},
		Workers: []RayWorkers{
			{InstanceGroup: "gpu", Replicas: 1, InstanceType: "ml.p5.48xlarge", Shape: p5},
			{InstanceGroup: "small", Replicas: 2, GPUsPerNode: 2, InstanceType: "ml.g5.12xlarge", Shape: g5},
		},
	}
	return r
}

func TestRayJobFields(t *testing.T) {
	r := rayRequest()
	job, err := Build(r)
	if err != nil {
		t.Fatal(err)
	}
	if job.Kind != KindRayJob || job.Image != "rayproject/ray:2.41.0-py311-gpu" || r.RayNodes() != 4 {
		t.Fatalf("kind %s image %s nodes %d", job.Kind, job.Image, r.RayNodes())
	}
	spec := job.Object.Object["spec"].(map[string]any)
	if got := spec["entrypoint"]; got != `python /s3/code/train.py --epochs 3 --note 'it'\''s fine'` {
		t.Fatalf("entrypoint %v", got)
	}
	if spec["submissionMode"] != "K8sJobMode" || spec["shutdownAfterJobFinishes"] != true || spec["ttlSecondsAfterFinished"] != int64(3600) || spec["backoffLimit"] != int64(5) {
		t.Fatalf("spec %v", spec)
	}
	env := spec["runtimeEnvYAML"].(string)
	for _, want := range []string{"pip:\n  - \"torch==2.5.1\"\n  - \"transformers[torch]>=4.44,<5\"\nenv_vars:\n", "  MAX_STEPS: \"1000\"\n",
		"  DATASET_PATH: \"/s3/datasets/alpaca/\"\n", "  WANDB_MODE: \"offline\"\n", `  NOTE: "a \"quoted\" value"` + "\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("runtimeEnvYAML lacks %q:\n%s", want, env)
		}
	}
	groups := spec["rayClusterSpec"].(map[string]any)["workerGroupSpecs"].([]any)
	if len(groups) != 2 {
		t.Fatalf("%d worker groups", len(groups))
	}
	small := groups[1].(map[string]any)
	if small["groupName"] != "small" || small["replicas"] != int64(2) || small["minReplicas"] != int64(2) || small["maxReplicas"] != int64(2) {
		t.Fatalf("worker group %v", small)
	}
	tmpl := small["template"].(map[string]any)["spec"].(map[string]any)
	c := tmpl["containers"].([]any)[0].(map[string]any)
	if got := c["resources"].(map[string]any)["limits"].(map[string]any)["nvidia.com/gpu"]; got != int64(2) {
		t.Fatalf("small workers' GPUs %v", got)
	}
	terms := tmpl["affinity"].(map[string]any)["nodeAffinity"].(map[string]any)["requiredDuringSchedulingIgnoredDuringExecution"].(map[string]any)["nodeSelectorTerms"].([]any)
	exprs := terms[0].(map[string]any)["matchExpressions"].([]any)
	if exprs[0].(map[string]any)["values"].([]any)[0] != "small" || exprs[1].(map[string]any)["values"].([]any)[0] != "ml.g5.12xlarge" {
		t.Fatalf("small workers placed by %v", exprs)
	}
	if job.GPUsPerNode != 8 {
		t.Fatalf("the head's GPUs %d", job.GPUsPerNode)
	}
}

func TestRayCheckRefuses(t *testing.T) {
	many := func(n int, f func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	cases := []struct {
		name  string
		edit  func(*Request)
		code  errs.Code
		field string
		says  string
	}{
		{"no script", func(r *Request) { r.Script = "" }, errs.Validation, "input.script", "RAY recipe runs your script"},
		{"a shell script", func(r *Request) { r.Script = "code/run.sh" }, errs.Validation, "input.script", ".py"},
		{"a model", func(r *Request) { r.Model = "m" }, errs.Validation, "input.model", "takes no model"},
		{"more than one head node", func(r *Request) { r.Nodes = 3 }, errs.Validation, "input.nodes", "ray.workerGroups"},
		{"ray for another recipe", func(r *Request) { *r = request(PyTorch); r.Ray = &RayProgram{} }, errs.Validation, "input.ray", "only the RAY recipe"},
		{"too many arguments", func(r *Request) { r.Ray.Args = many(65, func(int) string { return "a" }) }, errs.Validation, "input.ray.args", "64"},
		{"an argument too long", func(r *Request) { r.Ray.Args = []string{strings.Repeat("a", 1025)} }, errs.Validation, "input.ray.args", "1024 bytes"},
		{"an argument with a newline", func(r *Request) { r.Ray.Args = []string{"a\nb"} }, errs.Validation, "input.ray.args", "control"},
		{"too many pip packages", func(r *Request) { r.Ray.Pip = many(65, func(int) string { return "torch" }) }, errs.Validation, "input.ray.pip", "64"},
		{"a pip URL", func(r *Request) { r.Ray.Pip = []string{"https://evil.example/x.whl"} }, errs.Validation, "input.ray.pip", "requirement"},
		{"a pip option", func(r *Request) { r.Ray.Pip = []string{"--index-url"} }, errs.Validation, "input.ray.pip", "requirement"},
		{"a pip package with a space", func(r *Request) { r.Ray.Pip = []string{"torch; rm -rf /"} }, errs.Validation, "input.ray.pip", "requirement"},
		{"too many variables", func(r *Request) {
			r.Ray.Env = nil
			for i := range 65 {
				r.Ray.Env = append(r.Ray.Env, EnvVar{Name: "V" + strings.Repeat("x", i), Value: "1"})
			}
		}, errs.Validation, "input.ray.env", "64"},
		{"a bad variable name", func(r *Request) { r.Ray.Env = []EnvVar{{Name: "1X", Value: "v"}} }, errs.Validation, "input.ray.env", "letters, digits"},
		{"a variable the recipe sets", func(r *Request) { r.Ray.Env = []EnvVar{{Name: "MAX_STEPS", Value: "3"}} }, errs.Validation, "input.ray.env", "set by the recipe"},
		{"a variable twice", func(r *Request) { r.Ray.Env = []EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}} }, errs.Validation, "input.ray.env", "twice"},
		{"a value too long", func(r *Request) { r.Ray.Env = []EnvVar{{Name: "A", Value: strings.Repeat("v", 4097)}} }, errs.Validation, "input.ray.env", "4096"},
		{"a value with a control character", func(r *Request) { r.Ray.Env = []EnvVar{{Name: "A", Value: "\x00"}} }, errs.Validation, "input.ray.env", "control"},
		{"too many worker groups", func(r *Request) {
			r.Ray.Workers = nil
			for i := range 9 {
				r.Ray.Workers = append(r.Ray.Workers, RayWorkers{InstanceGroup: "g" + strings.Repeat("x", i), Replicas: 1})
			}
		}, errs.Validation, "input.ray.workerGroups", "8"},
		{"a worker group without a group", func(r *Request) { r.Ray.Workers[0].InstanceGroup = "" }, errs.Validation, "input.ray.workerGroups[0].instanceGroup", "instance group"},
		{"a group twice", func(r *Request) { r.Ray.Workers[1].InstanceGroup = "gpu" }, errs.Validation, "input.ray.workerGroups[1].instanceGroup", "once"},
		{"no replicas", func(r *Request) { r.Ray.Workers[0].Replicas = 0 }, errs.Validation, "input.ray.workerGroups[0].replicas", "1-256"},
		{"negative GPUs", func(r *Request) { r.Ray.Workers[0].GPUsPerNode = -1 }, errs.Validation, "input.ray.workerGroups[0].gpusPerNode", "negative"},
		{"too many nodes in all", func(r *Request) { r.Ray.Workers[0].Replicas, r.Ray.Workers[1].Replicas = 200, 100 }, errs.Validation, "input.ray.workerGroups", "more than 256"},
		{"more GPUs than the workers' type has", func(r *Request) { r.Ray.Workers[1].GPUsPerNode = 5 }, errs.Validation, "input.ray.workerGroups[1].gpusPerNode", "at most 4"},
		{"Trainium workers under a GPU head", func(r *Request) { r.Ray.Workers[1].InstanceType, r.Ray.Workers[1].Shape = "ml.trn1.32xlarge", trn1 }, errs.Precondition, "input.ray.workerGroups[1].instanceGroup", "one kind"},
		{"a head without accelerators", func(r *Request) { r.InstanceType, r.Shape = "ml.m5.4xlarge", m5 }, errs.Precondition, "input.instanceGroup", "no GPUs"},
		{"an unknown setting", func(r *Request) { r.Settings = map[string]string{"learning_rate": "0.1"} }, errs.Validation, "input.settings", "max_steps, save_steps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rayRequest()
			tc.edit(&r)
			var list errs.List
			if err := Check(r); !errors.As(err, &list) {
				t.Fatalf("want an errs.List, got %v", err)
			}
			for _, e := range list {
				if e.Code == tc.code && e.Field == tc.field && strings.Contains(e.Message, tc.says) {
					return
				}
			}
			t.Fatalf("no %s error on %s saying %q in: %v", tc.code, tc.field, tc.says, list)
		})
	}
	if err := Check(rayRequest()); err != nil {
		t.Fatalf("a good RAY job: %v", err)
	}
}
