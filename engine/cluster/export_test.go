package cluster

import (
	"slices"

	"github.com/instantstart/instantstart/engine/cloud"
)

// What the tests of package cluster_test, which run on the whole engine
// (apptest, which cannot be imported from inside the package), read of the
// package's insides.

// The names of the phases the tests look at.
const (
	PhaseHyperPod        = phaseHyperPod
	PhaseReplaceHyperPod = phaseReplaceHyperPod
	PhaseDependencies    = phaseDependencies
)

// NameIndex maps <region>/<name> to the id of the cluster that holds the
// name.
const NameIndex = indexName

// NotFound is the status a refresh records of an EKS or HyperPod cluster
// that is gone.
const NotFound = notFound

// ClusterVPC finds the VPC made for the cluster, or nil.
var ClusterVPC = clusterVPC

// ByCluster is the EC2 filter on the tag of what was made for the cluster.
var ByCluster = byCluster

// DependencyChart is the chart that installs the dependency name.
func DependencyChart(name string) cloud.HelmChart {
	i := slices.IndexFunc(hyperPodDependencies, func(d dependencyChart) bool { return d.name == name })
	return hyperPodDependencies[i].chart
}
