package recipe

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/kubecrds"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var (
	p5   = Shape{Accelerators: 8, EFA: 32, VCPUs: 192, MemoryGiB: 2048}
	g5   = Shape{Accelerators: 4, VCPUs: 48, MemoryGiB: 192}
	trn1 = Shape{Accelerators: 16, Neuron: true, EFA: 8, VCPUs: 128, MemoryGiB: 512}
	m5   = Shape{VCPUs: 16, MemoryGiB: 64}
)

func request(n Name) Request {
	r := Request{JobID: "01JOB", Name: "job-1", Namespace: "default", Recipe: n, DatasetPath: "datasets/alpaca/",
		InstanceGroup: "gpu", InstanceType: "ml.p5.48xlarge", Shape: p5, Nodes: 2, Recovery: DefaultRecovery(),
		ClaimName: "s3-shared", Bucket: "my-bucket", Region: "us-west-2"}
	switch n {
	case PyTorch:
		r.Script = "code/train.py"
	case Verl:
		r.Model, r.DatasetPath = "qwen2.5-0.5b", "datasets/gsm8k/train.parquet"
	case Ray:
		r.Script, r.Nodes = "code/train.py", 1
	default:
		r.Model = "llama-3.2-1b"
	}
	return r
}

func TestBuildGolden(t *testing.T) {
	mlflow := &MLflow{TrackingServerArn: "arn:aws:sagemaker:us-west-2:111122223333:mlflow-tracking-server/ts", Experiment: "exp", RunName: "job-1", ServiceAccount: "mlflow"}
	cases := map[string]func() Request{
		"pytorch": func() Request { return request(PyTorch) },
		"llama_factory": func() Request {
			r := request(LlamaFactory)
			r.Settings = map[string]string{"stage": "dpo", "template": "llama3"}
			r.MLflow = mlflow
			return r
		},
		"ms_swift": func() Request {
			r := request(MSSwift)
			r.GPUsPerNode = 4
			return r
		},
		"verl": func() Request {
			r := request(Verl)
			r.MLflow = mlflow
			return r
		},
		"verl_one_node": func() Request {
			r := request(Verl)
			r.Nodes = 1
			return r
		},
		"ray":           rayRequest,
		"ray_head_only": func() Request { return request(Ray) },
		"pytorch_trainium": func() Request {
			r := request(PyTorch)
			r.InstanceGroup, r.InstanceType, r.Shape = "trn", "ml.trn1.32xlarge", trn1
			return r
		},
		"pytorch_tiered": func() Request {
			r := request(PyTorch)
			r.Tiered = &Tiered{ServiceAccount: "tiered-checkpointing", Bucket: "ckpt-bucket", MemoryPercentage: 25}
			return r
		},
		"llama_factory_no_efa": func() Request {
			r := request(LlamaFactory)
			r.InstanceType, r.Shape, r.Nodes = "ml.g5.12xlarge", g5, 1
			r.Recovery.DetectHangs = false
			return r
		},
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			job, err := Build(req())
			if err != nil {
				t.Fatal(err)
			}
			if err := kubecrds.Validate(job.Object); err != nil {
				t.Fatalf("the object does not pass its CRD: %v", err)
			}
			for _, tmpl := range templates(t, job.Object.Object) {
				if err := kubecrds.ValidatePodTemplate(tmpl); err != nil {
					t.Fatalf("a pod template: %v", err)
				}
			}
			// A deep copy panics on values that are not JSON's.
			_ = job.Object.DeepCopy()
			got, err := json.MarshalIndent(map[string]any{
				"kind": job.Kind, "image": job.Image, "settings": job.Settings,
				"processesPerNode": job.ProcessesPerNode, "gpusPerNode": job.GPUsPerNode, "efaPerNode": job.EFAPerNode,
				"outputPath": job.OutputPath, "checkpointPath": job.CheckpointPath, "object": job.Object.Object,
			}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if string(got) != string(want) {
				t.Fatalf("%s differs from the built job (go test -update rewrites it); got:\n%s", path, got)
			}
		})
	}
}

// templates returns the pod templates of a built object.
func templates(t *testing.T, obj map[string]any) []map[string]any {
	t.Helper()
	spec := obj["spec"].(map[string]any)
	var out []map[string]any
	if rs, ok := spec["replicaSpecs"].([]any); ok {
		for _, r := range rs {
			out = append(out, r.(map[string]any)["template"].(map[string]any))
		}
	}
	if c, ok := spec["rayClusterSpec"].(map[string]any); ok {
		out = append(out, c["headGroupSpec"].(map[string]any)["template"].(map[string]any))
		ws, _ := c["workerGroupSpecs"].([]any)
		for _, w := range ws {
			out = append(out, w.(map[string]any)["template"].(map[string]any))
		}
	}
	if len(out) == 0 {
		t.Fatal("no pod templates")
	}
	return out
}

func TestBuildDerives(t *testing.T) {
	r := request(PyTorch)
	r.InstanceType, r.Shape = "ml.trn1.32xlarge", trn1
	job, err := Build(r)
	if err != nil {
		t.Fatal(err)
	}
	if job.ProcessesPerNode != 32 || job.GPUsPerNode != 16 || job.EFAPerNode != 8 {
		t.Fatalf("trn1: %d processes, %d devices, %d EFA per node", job.ProcessesPerNode, job.GPUsPerNode, job.EFAPerNode)
	}
	if job.Image != "763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-ec2" {
		t.Fatalf("image %s", job.Image)
	}
	r = request(MSSwift)
	r.GPUsPerNode = 2
	job, err = Build(r)
	if err != nil {
		t.Fatal(err)
	}
	if job.ProcessesPerNode != 2 || job.Object.Object["spec"].(map[string]any)["nprocPerNode"] != "2" {
		t.Fatalf("2 GPUs asked: %d processes", job.ProcessesPerNode)
	}
	if job.OutputPath != "s3://my-bucket/outputs/job-1/" || job.CheckpointPath != "s3://my-bucket/checkpoints/job-1/" {
		t.Fatalf("paths %s %s", job.OutputPath, job.CheckpointPath)
	}
	if job.Settings["train_type"] != "lora" || job.Settings["max_steps"] != "1000" {
		t.Fatalf("defaults not filled: %v", job.Settings)
	}
	var list errs.List
	if _, err := Build(Request{}); !errors.As(err, &list) || list[0].Code != errs.Validation {
		t.Fatalf("an empty request builds: %v", err)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path-1.py": "plain/path-1.py",
		"":                "''",
		"a b":             "'a b'",
		"it's":            `'it'\''s'`,
		"$(rm -rf /)":     "'$(rm -rf /)'",
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	long := strings.Repeat("x", 1025)
	cases := []struct {
		name  string
		edit  func(*Request)
		code  errs.Code
		field string
		says  string
	}{
		{"name with capitals", func(r *Request) { r.Name = "Job" }, errs.Validation, "input.name", "lower-case"},
		{"name starting with a digit", func(r *Request) { r.Name = "1job" }, errs.Validation, "input.name", ""},
		{"name too long", func(r *Request) { r.Name = "j" + strings.Repeat("a", 40) }, errs.Validation, "input.name", "1-40"},
		{"name empty", func(r *Request) { r.Name = "" }, errs.Validation, "input.name", ""},
		{"unknown recipe", func(r *Request) { r.Recipe = "DEEPSPEED" }, errs.Validation, "input.recipe", "PYTORCH"},
		{"no nodes", func(r *Request) { r.Nodes = 0 }, errs.Validation, "input.nodes", "1-256"},
		{"too many nodes", func(r *Request) { r.Nodes = 257 }, errs.Validation, "input.nodes", ""},
		{"more GPUs than the type has", func(r *Request) { r.GPUsPerNode = 9 }, errs.Validation, "input.gpusPerNode", "at most 8"},
		{"negative GPUs", func(r *Request) { r.GPUsPerNode = -1 }, errs.Validation, "input.gpusPerNode", ""},
		{"a type without accelerators", func(r *Request) { r.InstanceType, r.Shape = "ml.m5.4xlarge", m5 }, errs.Precondition, "input.instanceGroup", "no GPUs"},
		{"a CUDA recipe on Trainium", func(r *Request) { r.Recipe, r.Script, r.Model, r.Shape = LlamaFactory, "", "m", trn1 }, errs.Precondition, "input.instanceGroup", "NVIDIA"},
		{"no script for PYTORCH", func(r *Request) { r.Script = "" }, errs.Validation, "input.script", "code/train.py"},
		{"a script that is not Python", func(r *Request) { r.Script = "code/train.sh" }, errs.Validation, "input.script", ".py"},
		{"a script leaving the bucket", func(r *Request) { r.Script = "../etc/x.py" }, errs.Validation, "input.script", ".."},
		{"a model for PYTORCH", func(r *Request) { r.Model = "m" }, errs.Validation, "input.model", "takes no model"},
		{"a script for another recipe", func(r *Request) { r.Recipe, r.Model = LlamaFactory, "m" }, errs.Validation, "input.script", "only the PYTORCH and RAY recipes"},
		{"no model", func(r *Request) { r.Recipe, r.Script = MSSwift, "" }, errs.Validation, "input.model", "models"},
		{"a model path", func(r *Request) { r.Recipe, r.Script, r.Model = MSSwift, "", "a/b" }, errs.Validation, "input.model", "folder name"},
		{"a dataset outside datasets/", func(r *Request) { r.DatasetPath = "models/x/" }, errs.Validation, "input.datasetPath", "datasets/"},
		{"the datasets folder itself", func(r *Request) { r.DatasetPath = "datasets/" }, errs.Validation, "input.datasetPath", ""},
		{"a dataset with ..", func(r *Request) { r.DatasetPath = "datasets/../models/x" }, errs.Validation, "input.datasetPath", ".."},
		{"a dataset path too long", func(r *Request) { r.DatasetPath = "datasets/" + strings.Repeat("a", 600) }, errs.Validation, "input.datasetPath", "longer"},
		{"verl without parquet", func(r *Request) { *r = request(Verl); r.DatasetPath = "datasets/gsm8k/" }, errs.Validation, "input.datasetPath", "Parquet"},
		{"an unknown setting", func(r *Request) { r.Settings = map[string]string{"stage": "sft"} }, errs.Validation, "input.settings", "max_steps, save_steps, learning_rate"},
		{"a value outside the allowed", func(r *Request) { *r = request(LlamaFactory); r.Settings = map[string]string{"stage": "grpo"} }, errs.Validation, "input.settings", "sft, pt, rm, ppo, dpo, kto"},
		{"an integer out of range", func(r *Request) { r.Settings = map[string]string{"max_steps": "0"} }, errs.Validation, "input.settings", "1 to 1e+06"},
		{"not an integer", func(r *Request) { r.Settings = map[string]string{"save_steps": "1.5"} }, errs.Validation, "input.settings", "whole number"},
		{"not a number", func(r *Request) { r.Settings = map[string]string{"learning_rate": "fast"} }, errs.Validation, "input.settings", "a number"},
		{"an unsafe template", func(r *Request) {
			*r = request(LlamaFactory)
			r.Settings = map[string]string{"template": "x; rm -rf /"}
		}, errs.Validation, "input.settings", "template"},
		{"ppo without a reward model", func(r *Request) { *r = request(LlamaFactory); r.Settings = map[string]string{"stage": "ppo"} }, errs.Validation, "input.settings", "reward_model"},
		{"grpo with one rollout", func(r *Request) { *r = request(Verl); r.Settings = map[string]string{"rollout_n": "1"} }, errs.Validation, "input.settings", "at least 2"},
		{"a batch the GPUs cannot split", func(r *Request) {
			*r = request(Verl)
			r.Settings = map[string]string{"train_batch_size": "3", "rollout_n": "5"}
		}, errs.Validation, "input.settings", "multiple of 16"},
		{"too many settings", func(r *Request) {
			r.Settings = map[string]string{}
			for i := range 33 {
				r.Settings[strings.Repeat("k", i+1)] = "v"
			}
		}, errs.Validation, "input.settings", "32"},
		{"a key too long", func(r *Request) { r.Settings = map[string]string{strings.Repeat("k", 65): "1"} }, errs.Validation, "input.settings", "64 bytes"},
		{"a value too long", func(r *Request) { r.Settings = map[string]string{"max_steps": long} }, errs.Validation, "input.settings", "1024 bytes"},
		{"too many restarts", func(r *Request) { r.Recovery.MaxRestarts = 101 }, errs.Validation, "input.recovery.maxRestarts", "0 to 100"},
		{"a window too short", func(r *Request) { r.Recovery.WindowSeconds = 59 }, errs.Validation, "input.recovery.windowSeconds", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := request(PyTorch)
			tc.edit(&r)
			err := Check(r)
			var list errs.List
			if !errors.As(err, &list) {
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
}

func TestCheckRequestNeedsNoShape(t *testing.T) {
	r := request(LlamaFactory)
	r.InstanceType, r.Shape, r.ClaimName, r.Bucket, r.Region = "", Shape{}, "", "", ""
	if err := CheckRequest(r); err != nil {
		t.Fatalf("CheckRequest: %v", err)
	}
	var list errs.List
	if err := Check(r); !errors.As(err, &list) || list[0].Code != errs.Internal {
		t.Fatalf("Check without the looked-up facts: %v", err)
	}
}

// Every setting's default, given explicitly, passes Check, and so does the
// recipe with no settings at all.
func TestCatalogDefaultsPass(t *testing.T) {
	for _, info := range Catalog() {
		if info.Kind != KindHyperPodPyTorchJob && info.Kind != KindRayJob {
			t.Errorf("%s: kind %q", info.Recipe, info.Kind)
		}
		if Find(info.Recipe).Recipe != info.Recipe {
			t.Errorf("Find(%s) does not find it", info.Recipe)
		}
		all := map[string]string{}
		for _, s := range info.Settings {
			if s.Type != typeInt && s.Type != typeFloat && s.Type != typeString {
				t.Errorf("%s.%s: type %q", info.Recipe, s.Key, s.Type)
			}
			if s.Allowed == nil || s.Description == "" {
				t.Errorf("%s.%s: allowed must be a list (empty for any) and there must be a description", info.Recipe, s.Key)
			}
			all[s.Key] = s.Default
			r := request(info.Recipe)
			r.Settings = map[string]string{s.Key: s.Default}
			if err := Check(r); err != nil {
				t.Errorf("%s.%s default %q: %v", info.Recipe, s.Key, s.Default, err)
			}
		}
		r := request(info.Recipe)
		r.Settings = all
		if err := Check(r); err != nil {
			t.Errorf("%s with every default: %v", info.Recipe, err)
		}
		r.Settings = nil
		if _, err := Build(r); err != nil {
			t.Errorf("%s with no settings: %v", info.Recipe, err)
		}
	}
	if Find("NOPE").Kind != "" {
		t.Error("Find of no recipe has a kind")
	}
}
