// Package recipe turns the decisions of a training job (recipe, model,
// dataset, instance group, nodes, settings, recovery budget) into the
// Kubernetes object that runs it: a HyperPodPyTorchJob for PYTORCH,
// LLAMA_FACTORY and MS_SWIFT, a KubeRay RayJob for VERL and RAY. Everything else
// is derived here: processes, GPUs and EFA per pod, the launcher command,
// environment, volumes, affinity, restart policy and log monitoring rules.
// It is pure: no I/O, the same request always builds the same object.
package recipe

import "strings"

// Name is a recipe, as the schema's TrainingRecipe enum names it.
type Name string

// The recipes.
const (
	PyTorch      Name = "PYTORCH"
	LlamaFactory Name = "LLAMA_FACTORY"
	MSSwift      Name = "MS_SWIFT"
	Verl         Name = "VERL"
	Ray          Name = "RAY"
)

// The kinds of object a recipe makes, as the schema's JobKind enum names
// them.
const (
	KindHyperPodPyTorchJob = "HYPERPOD_PYTORCH_JOB"
	KindRayJob             = "RAY_JOB"
)

// label is the recipe as a label value: llama-factory.
func (n Name) label() string { return strings.ReplaceAll(strings.ToLower(string(n)), "_", "-") }

// Info is a recipe as this version runs it.
type Info struct {
	Recipe Name
	// Kind is KindHyperPodPyTorchJob or KindRayJob.
	Kind string
	// Image is the pinned container image; a regional one reads
	// <region> where the region goes (see ImageIn).
	Image   string
	Version string
	// NeedsModel says the recipe trains a model of the bucket.
	NeedsModel bool
	// CUDAOnly says the recipe's framework runs on NVIDIA GPUs only, not
	// on Trainium.
	CUDAOnly bool
	// RunsScript says the recipe runs the user's script of the bucket.
	RunsScript bool
	Settings   []SettingInfo
}

// ImageIn returns the recipe's image in region.
func (i Info) ImageIn(region string) string { return strings.ReplaceAll(i.Image, "<region>", region) }

// The pinned images and versions (schema/training.graphqls, TrainingRecipe).
const (
	dlcImage          = "763104351884.dkr.ecr.<region>.amazonaws.com/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-ec2"
	llamaFactoryImage = "hiyouga/llamafactory:0.9.3"
	verlImage         = "verlai/verl:app-verl0.4-vllm0.8.5-mcore0.12.1"
	rayImage          = "rayproject/ray:2.41.0-py311-gpu"
	// msSwiftVersion is pip-installed on the DLC image at run time.
	msSwiftVersion = "3.11.1"
	// elasticAgentVersion is the HyperPod elastic agent (hyperpodrun),
	// which the images do not ship: the command installs it.
	elasticAgentVersion = "1.1.3"
	// sagemakerMLflowVersion lets MLflow take a tracking server's ARN as
	// its tracking URI (it signs the requests).
	sagemakerMLflowVersion = "0.5.0"
)

var catalog = []Info{
	{Recipe: PyTorch, Kind: KindHyperPodPyTorchJob, Image: dlcImage, Version: "2.5.1", RunsScript: true, Settings: commonSettings("0.0001")},
	{Recipe: LlamaFactory, Kind: KindHyperPodPyTorchJob, Image: llamaFactoryImage, Version: "0.9.3", NeedsModel: true, CUDAOnly: true,
		Settings: append(commonSettings("0.0001"), llamaFactorySettings...)},
	{Recipe: MSSwift, Kind: KindHyperPodPyTorchJob, Image: dlcImage, Version: msSwiftVersion, NeedsModel: true, CUDAOnly: true,
		Settings: append(commonSettings("0.0001"), msSwiftSettings...)},
	{Recipe: Verl, Kind: KindRayJob, Image: verlImage, Version: "0.4.1", NeedsModel: true, CUDAOnly: true,
		Settings: append(commonSettings("0.000001"), verlSettings...)},
	{Recipe: Ray, Kind: KindRayJob, Image: rayImage, Version: "2.41.0", RunsScript: true, Settings: raySettings},
}

// Catalog returns every recipe, in the schema's order. The slice is the
// caller's.
func Catalog() []Info {
	out := make([]Info, len(catalog))
	for i, in := range catalog {
		in.Settings = append([]SettingInfo(nil), in.Settings...)
		out[i] = in
	}
	return out
}

// Find returns the recipe named n; the zero Info (empty Kind) for a name
// that is none.
func Find(n Name) Info {
	for _, in := range Catalog() {
		if in.Recipe == n {
			return in
		}
	}
	return Info{}
}
