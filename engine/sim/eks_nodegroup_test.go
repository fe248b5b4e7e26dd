package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nodeRole makes a role EC2 may assume, as a node group needs.
func (f *fixture) nodeRole(name string) string {
	f.t.Helper()
	doc := strings.Replace(trustPolicy, "eks.amazonaws.com", "ec2.amazonaws.com", 1)
	return *ok(f.p.IAM.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(doc)})).must(f.t).Role.Arn
}

func TestNodegroupLifecycle(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	f.eksCluster("eks", n)
	role := f.nodeRole("nodes")
	cluster := aws.String("eks")
	// CoreDNS has nowhere to run on a cluster with no node.
	ok(f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: cluster, AddonName: aws.String("coredns")})).must(t)
	f.clock.Advance(scaled(addonCreateTime))
	coredns := func() *ekstypes.Addon {
		t.Helper()
		return ok(f.p.EKS.DescribeAddon(f.ctx, &eks.DescribeAddonInput{ClusterName: cluster, AddonName: aws.String("coredns")})).must(t).Addon
	}
	if a := coredns(); a.Status != ekstypes.AddonStatusDegraded || len(a.Health.Issues) != 1 || a.Health.Issues[0].Code != ekstypes.AddonIssueCodeInsufficientNumberOfReplicas {
		t.Fatalf("CoreDNS without nodes: %s %+v", a.Status, a.Health.Issues)
	}
	create := &eks.CreateNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system"), NodeRole: aws.String(role), Subnets: n.subnets,
		InstanceTypes: []string{"m5.large"}, ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(2), MaxSize: aws.Int32(2), DesiredSize: aws.Int32(2)},
		Labels: map[string]string{"instantstart.io/role": "system"}, ClientRequestToken: aws.String("t1")}

	var badParam *ekstypes.InvalidParameterException
	bad := *create
	bad.NodeRole = aws.String(f.role("not-for-ec2"))
	if _, err := f.p.EKS.CreateNodegroup(f.ctx, &bad); !errors.As(err, &badParam) {
		t.Errorf("a role EC2 cannot assume: %v, want InvalidParameterException", err)
	}
	bad = *create
	bad.ScalingConfig = &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(0), DesiredSize: aws.Int32(0)}
	if _, err := f.p.EKS.CreateNodegroup(f.ctx, &bad); !errors.As(err, &badParam) {
		t.Errorf("maxSize 0: %v, want InvalidParameterException", err)
	}

	g := ok(f.p.EKS.CreateNodegroup(f.ctx, create)).must(t).Nodegroup
	if g.Status != ekstypes.NodegroupStatusCreating || aws.ToInt32(g.ScalingConfig.DesiredSize) != 2 {
		t.Fatalf("new node group: %s desired %d", g.Status, aws.ToInt32(g.ScalingConfig.DesiredSize))
	}
	if again := ok(f.p.EKS.CreateNodegroup(f.ctx, create)).must(t).Nodegroup; *again.NodegroupArn != *g.NodegroupArn {
		t.Errorf("a repeat with the same token made %s, want %s", *again.NodegroupArn, *g.NodegroupArn)
	}
	var inUse *ekstypes.ResourceInUseException
	other := *create
	other.ClientRequestToken = aws.String("t2")
	if _, err := f.p.EKS.CreateNodegroup(f.ctx, &other); !errors.As(err, &inUse) {
		t.Errorf("the same name with another token: %v, want ResourceInUseException", err)
	}
	if _, err := f.p.EKS.DeleteNodegroup(f.ctx, &eks.DeleteNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system")}); !errors.As(err, &inUse) {
		t.Errorf("delete while CREATING: %v, want ResourceInUseException", err)
	}
	kc := f.kubeClients("eks").Core
	systemNodes := func() []string {
		t.Helper()
		list := ok(kc.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{LabelSelector: kubeLabelNodegroup + "=system,instantstart.io/role=system"})).must(t)
		var names []string
		for _, n := range list.Items {
			if readyOf(&n) == "True" && n.Labels["node.kubernetes.io/instance-type"] == "m5.large" {
				names = append(names, n.Name)
			}
		}
		return names
	}
	if got := systemNodes(); len(got) != 0 {
		t.Errorf("nodes while CREATING: %v", got)
	}
	describe := func() *ekstypes.Nodegroup {
		t.Helper()
		return ok(f.p.EKS.DescribeNodegroup(f.ctx, &eks.DescribeNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system")})).must(t).Nodegroup
	}
	f.clock.Advance(scaled(nodegroupCreateTime))
	if st := describe().Status; st != ekstypes.NodegroupStatusActive {
		t.Fatalf("after %s/speed: %s, want ACTIVE", nodegroupCreateTime, st)
	}
	if got := systemNodes(); len(got) != 2 || !strings.HasPrefix(got[0], "ip-10-0-") {
		t.Fatalf("ready system nodes = %v, want two ip-... nodes", got)
	}
	if a := coredns(); a.Status != ekstypes.AddonStatusActive {
		t.Errorf("CoreDNS with system nodes: %s %+v", a.Status, a.Health.Issues)
	}
	if names := ok(f.p.EKS.ListNodegroups(f.ctx, &eks.ListNodegroupsInput{ClusterName: cluster})).must(t).Nodegroups; !slices.Equal(names, []string{"system"}) {
		t.Errorf("ListNodegroups = %v", names)
	}

	// Scaling down: UPDATING, and the surplus node leaves at its end.
	ok(f.p.EKS.UpdateNodegroupConfig(f.ctx, &eks.UpdateNodegroupConfigInput{ClusterName: cluster, NodegroupName: aws.String("system"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(1), DesiredSize: aws.Int32(1)}})).must(t)
	if g := describe(); g.Status != ekstypes.NodegroupStatusUpdating || aws.ToInt32(g.ScalingConfig.DesiredSize) != 1 {
		t.Errorf("after the update: %s desired %d", g.Status, aws.ToInt32(g.ScalingConfig.DesiredSize))
	}
	if _, err := f.p.EKS.UpdateNodegroupConfig(f.ctx, &eks.UpdateNodegroupConfigInput{ClusterName: cluster, NodegroupName: aws.String("system"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(2)}}); !errors.As(err, &inUse) {
		t.Errorf("an update while UPDATING: %v, want ResourceInUseException", err)
	}
	f.clock.Advance(scaled(nodegroupUpdateTime))
	if st := describe().Status; st != ekstypes.NodegroupStatusActive {
		t.Errorf("after the update's time: %s", st)
	}
	if got := systemNodes(); len(got) != 1 {
		t.Errorf("ready system nodes after scaling to 1 = %v", got)
	}

	// The cluster cannot go while it has a node group.
	if _, err := f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: cluster}); !errors.As(err, &inUse) {
		t.Errorf("DeleteCluster with a node group: %v, want ResourceInUseException", err)
	}
	if !slices.ContainsFunc(f.w.Inventory(), func(l string) bool { return strings.HasPrefix(l, "eks us-west-2 nodegroup eks/system") }) {
		t.Errorf("the inventory lacks the node group: %v", f.w.Inventory())
	}
	ok(f.p.EKS.DeleteNodegroup(f.ctx, &eks.DeleteNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system")})).must(t)
	if st := describe().Status; st != ekstypes.NodegroupStatusDeleting {
		t.Errorf("after DeleteNodegroup: %s", st)
	}
	f.clock.Advance(scaled(nodegroupDeleteTime))
	var nf *ekstypes.ResourceNotFoundException
	if _, err := f.p.EKS.DescribeNodegroup(f.ctx, &eks.DescribeNodegroupInput{ClusterName: cluster, NodegroupName: aws.String("system")}); !errors.As(err, &nf) {
		t.Errorf("a deleted node group: %v, want ResourceNotFoundException", err)
	}
	if got := systemNodes(); len(got) != 0 {
		t.Errorf("nodes of a deleted group: %v", got)
	}
	if a := coredns(); a.Status != ekstypes.AddonStatusDegraded {
		t.Errorf("CoreDNS once the system nodes are gone: %s", a.Status)
	}
	ok(f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: cluster})).must(t)
}

func TestNodegroupFaults(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	f.eksCluster("eks", n)
	role := f.nodeRole("nodes")
	in := func(name string) *eks.CreateNodegroupInput {
		return &eks.CreateNodegroupInput{ClusterName: aws.String("eks"), NodegroupName: aws.String(name), NodeRole: aws.String(role), Subnets: n.subnets,
			InstanceTypes: []string{"m5.large"}, ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(1), MaxSize: aws.Int32(1), DesiredSize: aws.Int32(1)}}
	}
	describe := func(name string) *ekstypes.Nodegroup {
		t.Helper()
		return ok(f.p.EKS.DescribeNodegroup(f.ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String("eks"), NodegroupName: aws.String(name)})).must(t).Nodegroup
	}
	w := f.w
	ok(w.InjectFault(Fault{Kind: FaultThrottle, Service: svcEKS, Operation: "CreateNodegroup", Count: 1})).must(t)
	if _, err := f.p.EKS.CreateNodegroup(f.ctx, in("a")); err == nil || !strings.Contains(errorCode(t, err), "Throttl") {
		t.Errorf("a throttle fault on CreateNodegroup: %v", err)
	}
	ok(w.InjectFault(Fault{Kind: FaultFail, Service: svcEKS, Operation: "CreateNodegroup", Count: 1})).must(t)
	ok(f.p.EKS.CreateNodegroup(f.ctx, in("a"))).must(t)
	f.clock.Advance(scaled(nodegroupCreateTime))
	if g := describe("a"); g.Status != ekstypes.NodegroupStatusCreateFailed || len(g.Health.Issues) != 1 {
		t.Errorf("a failed node group: %s %+v", g.Status, g.Health.Issues)
	}
	hold := ok(w.InjectFault(Fault{Kind: FaultHold, Service: svcEKS, Operation: "CreateNodegroup"})).must(t)
	ok(f.p.EKS.CreateNodegroup(f.ctx, in("b"))).must(t)
	f.clock.Advance(scaled(nodegroupCreateTime) * 3)
	if st := describe("b").Status; st != ekstypes.NodegroupStatusCreating {
		t.Errorf("a held node group: %s, want CREATING", st)
	}
	if err := w.ClearFault(hold.ID); err != nil {
		t.Fatal(err)
	}
	if st := describe("b").Status; st != ekstypes.NodegroupStatusActive {
		t.Errorf("a released node group: %s, want ACTIVE", st)
	}
	// Without its node role a group is DEGRADED.
	ok(f.p.IAM.DeleteRole(f.ctx, &iam.DeleteRoleInput{RoleName: aws.String("nodes")})).must(t)
	if g := describe("b"); g.Status != ekstypes.NodegroupStatusDegraded || g.Health.Issues[0].Code != ekstypes.NodegroupIssueCodeAccessDenied {
		t.Errorf("a group without its role: %s %+v", g.Status, g.Health.Issues)
	}
}
