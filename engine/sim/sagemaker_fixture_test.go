package sim

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// advance moves the test clock by the simulated time a real latency d
// takes.
func (f *fixture) advance(d time.Duration) { f.clock.Advance(scaled(d)) }

// hpNodes lists every node of a cluster, those that wait for capacity
// included.
func (f *fixture) hpNodes(cluster string) []smtypes.ClusterNodeSummary {
	f.t.Helper()
	return ok(f.p.SageMaker.ListClusterNodes(f.ctx, &sagemaker.ListClusterNodesInput{
		ClusterName: aws.String(cluster), IncludeNodeLogicalIds: aws.Bool(true),
	})).must(f.t).ClusterNodeSummaries
}

// hpNode describes a node of a cluster by logical id.
func (f *fixture) hpNode(cluster, logicalID string) *smtypes.ClusterNodeDetails {
	f.t.Helper()
	return ok(f.p.SageMaker.DescribeClusterNode(f.ctx, &sagemaker.DescribeClusterNodeInput{
		ClusterName: aws.String(cluster), NodeLogicalId: aws.String(logicalID),
	})).must(f.t).NodeDetails
}

// kubeNodes is what the Kubernetes cluster of the fixture's EKS cluster
// "eks" shows.
func (f *fixture) kubeNodes() []NodeView {
	f.t.Helper()
	return ok(f.w.HyperPodNodes("us-west-2", "eks")).must(f.t)
}

// kubeNode is the Kubernetes view of one instance, or false when it has
// not joined.
func (f *fixture) kubeNode(instanceID string) (NodeView, bool) {
	f.t.Helper()
	for _, v := range f.kubeNodes() {
		if v.InstanceID == instanceID {
			return v, true
		}
	}
	return NodeView{}, false
}

// group describes the instance group name of a cluster.
func (f *fixture) group(cluster, name string) smtypes.ClusterInstanceGroupDetails {
	f.t.Helper()
	for _, g := range f.hpStatus(cluster).InstanceGroups {
		if *g.InstanceGroupName == name {
			return g
		}
	}
	f.t.Fatalf("cluster %s has no instance group %s", cluster, name)
	return smtypes.ClusterInstanceGroupDetails{}
}

// createReady creates cluster in and waits (on the test clock) until it is
// InService.
func (f *fixture) createReady(in *sagemaker.CreateClusterInput) {
	f.t.Helper()
	ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(f.t)
	var checks []smtypes.DeepHealthCheckType
	for _, g := range in.InstanceGroups {
		if len(g.OnStartDeepHealthChecks) > len(checks) {
			checks = g.OnStartDeepHealthChecks
		}
	}
	var names []string
	for _, c := range checks {
		names = append(names, string(c))
	}
	f.advance(hpCreateTime + checksTime(names))
	if s := f.hpStatus(*in.ClusterName).ClusterStatus; s != smtypes.ClusterStatusInservice {
		f.t.Fatalf("cluster %s is %s, want InService", *in.ClusterName, s)
	}
}

// continuous sets Continuous provisioning on in.
func continuous(in *sagemaker.CreateClusterInput) *sagemaker.CreateClusterInput {
	in.NodeProvisioningMode = smtypes.ClusterNodeProvisioningModeContinuous
	return in
}

// instanceIDs returns the instance ids of nodes, "" for those without.
func instanceIDs(nodes []smtypes.ClusterNodeSummary) []string {
	var ids []string
	for _, n := range nodes {
		ids = append(ids, aws.ToString(n.InstanceId))
	}
	return ids
}

// statusCount counts the nodes in each status.
func statusCount(nodes []smtypes.ClusterNodeSummary) map[smtypes.ClusterInstanceStatus]int {
	m := map[smtypes.ClusterInstanceStatus]int{}
	for _, n := range nodes {
		m[n.InstanceStatus.Status]++
	}
	return m
}

// mustCode fails the test unless err is an API error with code.
func mustCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := errorCode(t, err); got != code {
		t.Errorf("error code %q, want %q (%v)", got, code, err)
	}
}
