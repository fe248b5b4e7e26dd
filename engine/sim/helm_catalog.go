package sim

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// helmChart is a chart the simulated chart repositories serve: its
// versions and the app version each ships, the Deployments and DaemonSets
// it renders, the custom resources its CRDs define and the extended
// resources its device plugin advertises.
type helmChart struct {
	Repository string // the repository's URL, without a trailing slash
	Name       string
	Versions   []string // newest first
	// AppVersions maps a chart version to the app version it ships (its
	// Chart.yaml's appVersion), for a chart whose versions differ from its
	// app's; nil when they are the same.
	AppVersions map[string]string
	Workloads   []helmWorkload
	Kinds       []helmKind
	// Advertises are the extended resources the chart's device plugin
	// makes the nodes advertise while its release is deployed (see
	// kubeNodeCapacity).
	Advertises []corev1.ResourceName
}

// helmWorkload is a Deployment, or a DaemonSet, a chart renders.
type helmWorkload struct {
	// Name is the Deployment's name. With FullName set it is instead the
	// chart's "fullname" helper applied to Name (see helmFullName), as the
	// KubeRay chart names its operator; KEDA's names are fixed.
	Name     string
	FullName bool
	// Image is the container image, %s standing for the app version.
	Image string
	// DaemonSet makes it a DaemonSet: one pod per node, as device plugins
	// and node agents run.
	DaemonSet bool
}

// helmKind is a custom resource a chart's CRDs define. Scope is not
// recorded: the simulated API server checks the scope of no resource, so
// ClusterTriggerAuthentication, cluster-scoped in KEDA, is simply reached
// without a namespace.
type helmKind struct {
	GVR  schema.GroupVersionResource
	Kind string
}

// helmCharts is the catalog of the simulated chart repositories.
var helmCharts = []helmChart{
	{
		Repository: "https://ray-project.github.io/kuberay-helm",
		Name:       "kuberay-operator",
		Versions:   []string{"1.4.2", "1.3.2"},
		Workloads:  []helmWorkload{{Name: "kuberay-operator", FullName: true, Image: "quay.io/kuberay/operator:v%s"}},
		Kinds: []helmKind{
			{GVR: schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayclusters"}, Kind: "RayCluster"},
			{GVR: schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayjobs"}, Kind: "RayJob"},
			{GVR: schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayservices"}, Kind: "RayService"},
		},
	},
	{
		Repository: "https://kedacore.github.io/charts",
		Name:       "keda",
		Versions:   []string{"2.17.2", "2.16.1"},
		Workloads: []helmWorkload{
			{Name: "keda-operator", Image: "ghcr.io/kedacore/keda:%s"},
			{Name: "keda-operator-metrics-apiserver", Image: "ghcr.io/kedacore/keda-metrics-apiserver:%s"},
			{Name: "keda-admission-webhooks", Image: "ghcr.io/kedacore/keda-admission-webhooks:%s"},
		},
		Kinds: []helmKind{
			{GVR: schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects"}, Kind: "ScaledObject"},
			{GVR: schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledjobs"}, Kind: "ScaledJob"},
			{GVR: schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "triggerauthentications"}, Kind: "TriggerAuthentication"},
			{GVR: schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "clustertriggerauthentications"}, Kind: "ClusterTriggerAuthentication"},
		},
	},
	// The AWS Load Balancer Controller, which makes Network Load Balancers
	// for Services (kube_loadbalancer.go). Its chart versions 1.x ship
	// controller v2.x of the same minor and patch.
	{
		Repository:  "https://aws.github.io/eks-charts",
		Name:        lbcChart,
		Versions:    []string{"1.13.4", "1.12.0"},
		AppVersions: map[string]string{"1.13.4": "v2.13.4", "1.12.0": "v2.12.0"},
		Workloads:   []helmWorkload{{Name: lbcChart, FullName: true, Image: "public.ecr.aws/eks/aws-load-balancer-controller:%s"}},
		Kinds: []helmKind{
			{GVR: schema.GroupVersionResource{Group: "elbv2.k8s.aws", Version: "v1beta1", Resource: "targetgroupbindings"}, Kind: "TargetGroupBinding"},
			{GVR: schema.GroupVersionResource{Group: "elbv2.k8s.aws", Version: "v1beta1", Resource: "ingressclassparams"}, Kind: "IngressClassParams"},
		},
	},
	// HyperPod's cluster dependencies: the node agent and device plugins
	// AWS's HyperPod dependency chart installs.
	{
		Repository: "oci://public.ecr.aws/sagemaker-hyperpod/charts",
		Name:       "health-monitoring-agent",
		Versions:   []string{"1.0.742", "1.0.699"},
		Workloads:  []helmWorkload{{Name: "health-monitoring-agent", DaemonSet: true, Image: "public.ecr.aws/sagemaker-hyperpod/health-monitoring-agent:%s"}},
	},
	{
		Repository: "https://nvidia.github.io/k8s-device-plugin",
		Name:       "nvidia-device-plugin",
		Versions:   []string{"0.17.1", "0.17.0"},
		Workloads:  []helmWorkload{{Name: "nvidia-device-plugin", FullName: true, DaemonSet: true, Image: "nvcr.io/nvidia/k8s-device-plugin:v%s"}},
		Advertises: []corev1.ResourceName{kubeResourceGPU},
	},
	{
		Repository: "https://aws.github.io/eks-charts",
		Name:       "aws-efa-k8s-device-plugin",
		Versions:   []string{"v0.5.6", "v0.5.5"},
		Workloads:  []helmWorkload{{Name: "aws-efa-k8s-device-plugin", FullName: true, DaemonSet: true, Image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:%s"}},
		Advertises: []corev1.ResourceName{kubeResourceEFA},
	},
	{
		Repository: "oci://public.ecr.aws/neuron",
		Name:       "neuron-helm-chart",
		Versions:   []string{"1.1.1", "1.0.0"},
		Workloads:  []helmWorkload{{Name: "neuron-device-plugin", DaemonSet: true, Image: "public.ecr.aws/neuron/neuron-device-plugin:%s"}},
		Advertises: []corev1.ResourceName{kubeResourceNeuron},
	},
}

// appVersion is the app version chart version v ships.
func (c *helmChart) appVersion(v string) string {
	if a, ok := c.AppVersions[v]; ok {
		return a
	}
	return v
}

// helmChartKinds returns the custom resources of every chart in the
// catalog. The simulated API server serves them in every cluster, whether
// the chart is installed or not, and after it is uninstalled: its kinds are
// fixed when the process starts (see kubeResources). Keeping them after an
// uninstall is also what Helm does with the CRDs of a chart's crds/
// directory, as KubeRay ships them.
func helmChartKinds() []helmKind {
	var out []helmKind
	for _, c := range helmCharts {
		out = append(out, c.Kinds...)
	}
	return out
}

// helmFindChart looks version of chart up in the repository at repoURL,
// and fails as Helm does when the repository, the chart or the version is
// not there. An empty version means the newest, as with Helm; it returns
// the version found.
func helmFindChart(repoURL, chart, version string) (*helmChart, string, error) {
	repo := strings.TrimSuffix(repoURL, "/")
	known := false
	for i := range helmCharts {
		c := &helmCharts[i]
		if c.Repository != repo {
			continue
		}
		known = true
		if c.Name != chart {
			continue
		}
		if version == "" {
			return c, c.Versions[0], nil
		}
		if slices.Contains(c.Versions, version) {
			return c, version, nil
		}
	}
	if !known {
		return nil, "", fmt.Errorf("chart %q version %q: looks like %q is not a valid chart repository or cannot be reached: failed to fetch %s/index.yaml : 404 Not Found",
			chart, version, repoURL, repo)
	}
	return nil, "", fmt.Errorf("chart %q version %q not found in %s repository", chart, version, repoURL)
}

// helmFullName is what a chart's conventional "fullname" template makes of
// name for release: fullnameOverride when set; else the release name when
// it contains the chart's name (or nameOverride); else both joined by a
// dash, cut to the 63 characters of a Kubernetes name.
func helmFullName(release, name string, values map[string]any) string {
	if s, ok := values["fullnameOverride"].(string); ok && s != "" {
		return helmTrunc(s)
	}
	if s, ok := values["nameOverride"].(string); ok && s != "" {
		name = s
	}
	if strings.Contains(release, name) {
		return helmTrunc(release)
	}
	return helmTrunc(release + "-" + name)
}

func helmTrunc(s string) string {
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.TrimSuffix(s, "-")
}
