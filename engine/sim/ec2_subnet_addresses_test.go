package sim

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// smallSubnet adds a /24 in us-west-2a to the HyperPod fixture's VPC and
// returns its id: 251 usable addresses.
func (f *fixture) smallSubnet(h hyperPod) string {
	f.t.Helper()
	return *ok(f.p.EC2.CreateSubnet(f.ctx, &ec2.CreateSubnetInput{
		VpcId: aws.String(h.net.vpc), CidrBlock: aws.String("10.0.64.0/24"), AvailabilityZone: aws.String("us-west-2a"),
	})).must(f.t).Subnet.SubnetId
}

func (f *fixture) freeAddressCount(subnet string) int32 {
	f.t.Helper()
	out := ok(f.p.EC2.DescribeSubnets(f.ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{subnet}})).must(f.t)
	return *out.Subnets[0].AvailableIpAddressCount
}

// launched returns the instance ids of the nodes that have one.
func launched(nodes []smtypes.ClusterNodeSummary) []string {
	var ids []string
	for _, n := range nodes {
		if n.InstanceId != nil {
			ids = append(ids, *n.InstanceId)
		}
	}
	return ids
}

func TestNodesTakeTheirTypesAddresses(t *testing.T) {
	for _, tc := range []struct {
		typ, mode string
		want      int
	}{
		{"ml.p5.48xlarge", "", 81},
		{"ml.p5.48xlarge", "efa", 81},
		{"ml.p5.48xlarge", "efa-only", 50},
		{"ml.p4d.24xlarge", "", 53},
		{"ml.trn1.32xlarge", "", 57},
		{"ml.g5.xlarge", "", 15},
		{"ml.t3.medium", "", 6},
		{"ml.m7i.4xlarge", "", 30}, // not in the table: derived from its size
	} {
		if got := nodeAddresses(tc.typ, tc.mode); got != tc.want {
			t.Errorf("nodeAddresses(%s, %q) = %d, want %d", tc.typ, tc.mode, got, tc.want)
		}
	}
}

func TestSubnetRunsOutOfAddresses(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	small := f.smallSubnet(h)
	// A /24 holds three ml.p5.48xlarge (3 × 81 of 251 addresses); the zone
	// has capacity for four.
	in := continuous(h.input("hp", "ml.p5.48xlarge", 4, 0))
	in.VpcConfig.Subnets = []string{small}
	ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(t)
	var waiting []smtypes.ClusterNodeSummary
	for _, n := range f.hpNodes("hp") {
		if n.InstanceId == nil {
			waiting = append(waiting, n)
		}
	}
	if len(waiting) != 1 {
		t.Fatalf("%d of 4 nodes wait, want 1", len(waiting))
	}
	d := f.hpNode("hp", *waiting[0].NodeLogicalId)
	if msg := aws.ToString(d.InstanceStatus.Message); d.InstanceStatus.Status != smtypes.ClusterInstanceStatusPending ||
		!strings.HasPrefix(msg, "InsufficientFreeAddressesInSubnet") || !strings.Contains(msg, small) {
		t.Errorf("waiting node: %s %q", d.InstanceStatus.Status, msg)
	}
	if free := f.freeAddressCount(small); free != 251-3*81 {
		t.Errorf("subnet has %d free addresses, want %d", free, 251-3*81)
	}
	f.advance(hpCreateTime)
	if g := f.group("hp", "workers"); g.Status != smtypes.InstanceGroupStatusDegraded || *g.CurrentCount != 3 {
		t.Errorf("group: %s %d/%d", g.Status, *g.CurrentCount, *g.TargetCount)
	}

	// Without Continuous provisioning, a minimum the subnet can not hold
	// fails the cluster with EC2's error.
	strict := h.input("strict", "ml.m5.xlarge", 1, 0)
	strict.VpcConfig.Subnets = []string{small}
	strict.InstanceGroups[0].MinInstanceCount = aws.Int32(1)
	ok(f.p.SageMaker.CreateCluster(f.ctx, strict)).must(t)
	f.advance(hpCreateTime)
	if d := f.hpStatus("strict"); d.ClusterStatus != smtypes.ClusterStatusFailed ||
		!strings.HasPrefix(aws.ToString(d.FailureMessage), "InsufficientFreeAddressesInSubnet") {
		t.Errorf("strict: %s %q", d.ClusterStatus, aws.ToString(d.FailureMessage))
	}

	// The addresses come back with the instances: once a node is gone, the
	// waiting one launches.
	gone := launched(f.hpNodes("hp"))[:1]
	ok(f.p.SageMaker.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: gone})).must(t)
	f.advance(hpNodeShutdownTime)
	for _, n := range f.hpNodes("hp") {
		if n.InstanceId == nil {
			t.Errorf("node %s still waits once addresses are free", *n.NodeLogicalId)
		}
	}
	ok(f.p.SageMaker.DeleteCluster(f.ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("hp")})).must(t)
	f.advance(hpDeleteTime)
	if free := f.freeAddressCount(small); free != 251 {
		t.Errorf("after the clusters are gone the subnet has %d free addresses, want 251", free)
	}
}

func TestEFAOnlyInterfacesTakeNoAddresses(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	small := f.smallSubnet(h)
	in := continuous(h.input("hp", "ml.p5.48xlarge", 4, 0))
	in.VpcConfig.Subnets = []string{small}
	in.InstanceGroups[0].NetworkInterface = &smtypes.ClusterNetworkInterface{InterfaceType: smtypes.ClusterInterfaceTypeEfaOnly}
	ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(t)
	if ids := launched(f.hpNodes("hp")); len(ids) != 4 {
		t.Errorf("%d of 4 nodes launched, want all with EFA-only interfaces", len(ids))
	}
	if free := f.freeAddressCount(small); free != 251-4*50 {
		t.Errorf("subnet has %d free addresses, want %d", free, 251-4*50)
	}
}
