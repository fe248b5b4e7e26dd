package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// dependencyChart is a cluster dependency and the chart that installs it.
type dependencyChart struct {
	name  string
	chart cloud.HelmChart
	// trainiumOnly: needed only when an instance group runs Trainium.
	trainiumOnly bool
}

// hyperPodDependencies are what a HyperPod EKS cluster needs besides the
// base add-ons, in the order they are installed: the four that AWS's own
// HyperPod dependency chart (aws/sagemaker-hyperpod-cli,
// helm_chart/HyperPodHelmChart) installs for node health and devices. AWS
// offers none of them as an EKS add-on, so each is a Helm chart, pinned so
// that every cluster gets the same.
var hyperPodDependencies = []dependencyChart{
	// The health-monitoring agent reports GPU, Neuron and network faults to
	// HyperPod, which is what node auto-recovery acts on. AWS ships its
	// chart inside the dependency chart; 1.0.742 carries agent
	// 1.0.742.0_1.0.241.0, the least managed Karpenter accepts.
	{name: "health-monitoring-agent", chart: cloud.HelmChart{Release: "health-monitoring-agent", Namespace: "aws-hyperpod",
		Repository: "oci://public.ecr.aws/sagemaker-hyperpod/charts", Chart: "health-monitoring-agent", Version: "1.0.742"}},
	// NVIDIA's device plugin advertises nvidia.com/gpu on GPU nodes.
	{name: "nvidia-device-plugin", chart: cloud.HelmChart{Release: "nvidia-device-plugin", Namespace: "kube-system",
		Repository: "https://nvidia.github.io/k8s-device-plugin", Chart: "nvidia-device-plugin", Version: "0.17.1"}},
	// The EFA device plugin advertises vpc.amazonaws.com/efa on EFA nodes.
	{name: "efa-device-plugin", chart: cloud.HelmChart{Release: "aws-efa-k8s-device-plugin", Namespace: "kube-system",
		Repository: "https://aws.github.io/eks-charts", Chart: "aws-efa-k8s-device-plugin", Version: "v0.5.6"}},
	// The Neuron device plugin advertises aws.amazon.com/neuron on
	// Trainium nodes.
	{name: "neuron-device-plugin", trainiumOnly: true, chart: cloud.HelmChart{Release: "neuron-device-plugin", Namespace: "kube-system",
		Repository: "oci://public.ecr.aws/neuron", Chart: "neuron-helm-chart", Version: "1.1.1"}},
}

// wantedDependencies are the dependencies a cluster whose groups run
// instanceTypes needs.
func wantedDependencies(instanceTypes []string) []dependencyChart {
	trainium := false
	for _, t := range instanceTypes {
		if strings.HasPrefix(strings.TrimPrefix(t, "ml."), "trn") {
			trainium = true
		}
	}
	var out []dependencyChart
	for _, d := range hyperPodDependencies {
		if !d.trainiumOnly || trainium {
			out = append(out, d)
		}
	}
	return out
}

// DependenciesStep returns the phase that installs the dependencies a new
// group of instanceTypes needs beyond those every cluster has, or nil when
// it needs none. It observes every dependency the group needs, so that it
// also repairs one removed since the cluster was made.
func (s *Service) DependenciesStep(clusterID string, instanceTypes []string) (*ops.Step, error) {
	var extra []string
	for _, d := range wantedDependencies(instanceTypes) {
		if d.trainiumOnly {
			extra = append(extra, d.name)
		}
	}
	if len(extra) == 0 {
		return nil, nil
	}
	c, err := s.Get(clusterID)
	if err != nil {
		return nil, err
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return nil, err
	}
	types := slices.Clone(instanceTypes)
	d := &dependencies{p: p, eksName: c.EKS.Name, instanceTypes: func(context.Context, *ops.Run) ([]string, error) { return types, nil }}
	return &ops.Step{Name: phaseDependencies, Title: "Install what the group needs: " + strings.Join(extra, ", "),
		Observe: d.observe, Apply: d.apply, Timeout: 20 * time.Minute, Recheck: true}, nil
}

// dependencies is the phase that installs the cluster dependencies: in
// createCluster, in importCluster where they are missing, and in
// addInstanceGroup for a group that needs more (DependenciesStep). It is
// rechecked on retry, so that a retry reinstalls one removed since.
type dependencies struct {
	p       *cloud.Provider
	eksName string
	// instanceTypes returns the instance types of the cluster's groups.
	instanceTypes func(ctx context.Context, run *ops.Run) ([]string, error)
}

// observe reads the release of each dependency: Done when every one is
// deployed at its pinned version, Pending while one is being installed
// and none is missing, Absent when one is missing, at another version or
// failed before this attempt applied anything.
func (d *dependencies) observe(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	seen, err := d.read(ctx, run)
	if err != nil {
		return ops.Observation{}, err
	}
	var waiting, missing, failed []string
	for _, s := range seen {
		switch s.Status {
		case hyperpod.DependencyInstalling:
			waiting = append(waiting, s.Name)
		case hyperpod.DependencyFailed:
			failed = append(failed, s.Name+": "+s.Message)
		case hyperpod.DependencyMissing, hyperpod.DependencyOutdated:
			missing = append(missing, s.Name)
		}
	}
	out := dependenciesOutput{Dependencies: seen}
	switch {
	case len(failed) > 0 && run.Applied:
		return ops.Observation{State: ops.Broken, Output: out, Err: errs.New(errs.Upstream,
			"cluster dependencies failed to install (%s); fix the cause and retry the operation, which installs them again", strings.Join(failed, "; "))}, nil
	case len(missing) > 0 || len(failed) > 0:
		return ops.Observation{State: ops.Absent, Output: out, Message: "missing: " + strings.Join(append(missing, failed...), ", ")}, nil
	case len(waiting) > 0:
		return ops.Observation{State: ops.Pending, Output: out, Message: "waiting for " + strings.Join(waiting, ", ")}, nil
	}
	return ops.Observation{State: ops.Done, Output: out, Message: fmt.Sprintf("%d dependencies installed", len(seen))}, nil
}

// apply installs (or upgrades) each dependency that is missing, at
// another version or failed, and leaves those installed or installing.
func (d *dependencies) apply(ctx context.Context, run *ops.Run) (any, error) {
	h, err := d.helm()
	if err != nil {
		return nil, err
	}
	wanted, err := d.wanted(ctx, run)
	if err != nil {
		return nil, err
	}
	out := dependenciesOutput{Dependencies: make([]hyperpod.Dependency, 0, len(wanted))}
	for _, dep := range wanted {
		s, err := d.readOne(ctx, h, dep)
		if err != nil {
			return nil, err
		}
		switch s.Status {
		case hyperpod.DependencyMissing, hyperpod.DependencyOutdated, hyperpod.DependencyFailed:
			r, err := h.Install(ctx, d.eksName, dep.chart)
			if err != nil {
				return nil, errs.Wrap(errs.Upstream, err, "install %s (chart %s %s): %v", dep.name, dep.chart.Chart, dep.chart.Version, err)
			}
			s = dependencyOf(dep, r)
		}
		out.Dependencies = append(out.Dependencies, s)
	}
	return out, nil
}

func (d *dependencies) helm() (cloud.Helm, error) {
	if d.p.Helm == nil {
		return nil, errs.New(errs.Internal, "the %s provider cannot install Helm charts, so the cluster's dependencies cannot be installed", d.p.Name)
	}
	return d.p.Helm, nil
}

func (d *dependencies) wanted(ctx context.Context, run *ops.Run) ([]dependencyChart, error) {
	types, err := d.instanceTypes(ctx, run)
	if err != nil {
		return nil, err
	}
	return wantedDependencies(types), nil
}

// read reads every wanted dependency.
func (d *dependencies) read(ctx context.Context, run *ops.Run) ([]hyperpod.Dependency, error) {
	h, err := d.helm()
	if err != nil {
		return nil, err
	}
	wanted, err := d.wanted(ctx, run)
	if err != nil {
		return nil, err
	}
	out := make([]hyperpod.Dependency, 0, len(wanted))
	for _, dep := range wanted {
		s, err := d.readOne(ctx, h, dep)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (d *dependencies) readOne(ctx context.Context, h cloud.Helm, dep dependencyChart) (hyperpod.Dependency, error) {
	r, err := h.Release(ctx, d.eksName, dep.chart.Namespace, dep.chart.Release)
	if err != nil {
		return hyperpod.Dependency{}, errs.Wrap(errs.Upstream, err, "read %s (helm release %s/%s): %v", dep.name, dep.chart.Namespace, dep.chart.Release, err)
	}
	return dependencyOf(dep, r), nil
}

// dependencyOf is what release r (nil when not installed) says of dep.
func dependencyOf(dep dependencyChart, r *cloud.HelmRelease) hyperpod.Dependency {
	s := hyperpod.Dependency{Name: dep.name, Kind: hyperpod.DependencyHelm, Status: hyperpod.DependencyMissing}
	if r == nil {
		return s
	}
	s.Version = r.ChartVersion
	switch {
	case r.Status == cloud.HelmUninstalling:
		s.Status = hyperpod.DependencyMissing
	case r.Chart != dep.chart.Chart || r.ChartVersion != dep.chart.Version:
		if r.Status == cloud.HelmPendingInstall || r.Status == cloud.HelmPendingUpgrade {
			s.Status = hyperpod.DependencyInstalling
		} else {
			s.Status = hyperpod.DependencyOutdated
		}
	case r.Status == cloud.HelmDeployed:
		s.Status = hyperpod.DependencyInstalled
	case r.Status == cloud.HelmFailed:
		s.Status, s.Message = hyperpod.DependencyFailed, r.Description
	default:
		s.Status = hyperpod.DependencyInstalling
	}
	return s
}

// createInstanceTypes returns the instance types the request's groups run.
func createInstanceTypes(in *CreateInput) func(context.Context, *ops.Run) ([]string, error) {
	return func(context.Context, *ops.Run) ([]string, error) {
		var out []string
		for _, g := range in.InstanceGroups {
			out = append(out, g.InstanceTypes...)
		}
		return out, nil
	}
}

// importedInstanceTypes returns the instance types of the groups of the
// HyperPod cluster an import found, none when it found none.
func importedInstanceTypes(p *cloud.Provider) func(context.Context, *ops.Run) ([]string, error) {
	return func(ctx context.Context, run *ops.Run) ([]string, error) {
		hp, err := outputOf[hyperPodOutput](run, phaseHyperPod)
		if err != nil {
			return nil, err
		}
		return hyperPodInstanceTypes(ctx, p, hp.Name)
	}
}

// hyperPodInstanceTypes returns the instance types the groups of HyperPod
// cluster name run (none when name is empty).
func hyperPodInstanceTypes(ctx context.Context, p *cloud.Provider, name string) ([]string, error) {
	if name == "" {
		return nil, nil
	}
	out, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(name)})
	if err != nil {
		return nil, errs.FromUpstream(err, "read the instance types of HyperPod cluster "+name)
	}
	var types []string
	for i := range out.InstanceGroups {
		types = append(types, groupspec.Actual(&out.InstanceGroups[i]).InstanceTypes...)
	}
	return types, nil
}
