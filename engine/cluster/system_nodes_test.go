package cluster_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

func TestCreateMakesASystemNodeGroupThatDeleteRemoves(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	op, err := f.svc.Create(ctx, "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.succeeded(t, op)
	sys, addons := end.Phase("system-nodes"), end.Phase("base-addons")
	if sys == nil || sys.Status != ops.PhaseSucceeded || !slices.Contains(addons.DependsOn, "system-nodes") {
		t.Fatalf("system-nodes phase %+v, base-addons depends on %v", sys, addons.DependsOn)
	}
	c, _ := f.svc.Get(op.Target.ID)
	got, err := f.svc.SystemNodes(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Name != "train-1-system" || got.Status != "ACTIVE" || got.InstanceType != cluster.DefaultSystemInstanceType || got.Desired != 2 || got.Ready != 2 {
		t.Fatalf("system nodes after create: %+v", got)
	}
	p, _ := f.world.Provider("us-west-2")
	g, err := p.EKS.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String("train-1"), NodegroupName: aws.String("train-1-system")})
	if err != nil {
		t.Fatal(err)
	}
	ng := g.Nodegroup
	var private []string
	for _, s := range c.Network.Subnets {
		if s.Role == hyperpod.SubnetPrivate {
			private = append(private, s.ID)
		}
	}
	if !slices.Equal(ng.Subnets, private) || ng.Labels[hyperpod.SystemNodeLabel] != hyperpod.SystemNodeValue || ng.Tags["instantstart:cluster-id"] != c.ID ||
		!strings.HasSuffix(aws.ToString(ng.NodeRole), ":role/InstantStart-train-1-Node") {
		t.Fatalf("node group: subnets %v (private %v) labels %v tags %v role %s", ng.Subnets, private, ng.Labels, ng.Tags, aws.ToString(ng.NodeRole))
	}
	attached, err := p.IAM.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("InstantStart-train-1-Node")})
	if err != nil || len(attached.AttachedPolicies) != 3 {
		t.Fatalf("node role policies %v %v", attached, err)
	}
	// CoreDNS prefers the system nodes.
	dns, err := p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: aws.String("train-1"), AddonName: aws.String("coredns")})
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Affinity map[string]any `json:"affinity"`
	}
	if err := json.Unmarshal([]byte(aws.ToString(dns.Addon.ConfigurationValues)), &values); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(values.Affinity["nodeAffinity"]); !strings.Contains(string(b), `"key":"instantstart.io/role","operator":"In","values":["system"]`) {
		t.Fatalf("CoreDNS affinity %s", b)
	}

	del, err := f.svc.Delete(ctx, "tester", c.ID, cluster.DeleteOptions{}, "")
	if err != nil {
		t.Fatal(err)
	}
	end = f.succeeded(t, del)
	if eksPhase := end.Phase("eks-cluster"); !slices.Contains(eksPhase.DependsOn, "system-nodes") {
		t.Fatalf("the EKS cluster's deletion depends on %v", eksPhase.DependsOn)
	}
	if _, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("InstantStart-train-1-Node")}); !errs.IsNotFound(err) {
		t.Fatalf("the node role after delete: %v", err)
	}
	for _, r := range f.world.Resources() {
		if r.Kind == "nodegroup" {
			t.Fatalf("left behind: %+v", r)
		}
	}
}

func TestSystemNodesCanBeLeftOutThenAddedScaledAndDeleted(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	in := validInput()
	zero := 0
	in.SystemNodes = &cluster.SystemNodesInput{Count: &zero}
	op, err := f.svc.Create(ctx, "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	end := f.succeeded(t, op)
	if p := end.Phase("system-nodes"); p.Status != ops.PhaseSkipped {
		t.Fatalf("system-nodes with count 0: %s", p.Status)
	}
	id := op.Target.ID
	if got, err := f.svc.SystemNodes(ctx, id); err != nil || got != nil {
		t.Fatalf("system nodes of a cluster made without: %+v %v", got, err)
	}

	scale, err := f.svc.ScaleSystemNodes(ctx, "tester", id, 1, "m5.xlarge", "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, scale)
	if got, _ := f.svc.SystemNodes(ctx, id); got == nil || got.Desired != 1 || got.Ready != 1 || got.InstanceType != "m5.xlarge" {
		t.Fatalf("after adding one node: %+v", got)
	}
	if _, err := f.svc.ScaleSystemNodes(ctx, "tester", id, 2, "m5.large", ""); errs.CodeOf(err) != errs.ImmutableField || findField(err, "instanceType") == nil {
		t.Fatalf("another instance type: %v, want IMMUTABLE_FIELD on instanceType", err)
	}
	scale, err = f.svc.ScaleSystemNodes(ctx, "tester", id, 3, "", "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, scale)
	if got, _ := f.svc.SystemNodes(ctx, id); got.Desired != 3 || got.Ready != 3 {
		t.Fatalf("after scaling to 3: %+v", got)
	}
	same, err := f.svc.ScaleSystemNodes(ctx, "tester", id, 3, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if end := f.succeeded(t, same); !end.Noop {
		t.Fatalf("scaling to the same count applied something: %+v", end.Phases)
	}
	del, err := f.svc.DeleteSystemNodes(ctx, "tester", id, "")
	if err != nil {
		t.Fatal(err)
	}
	f.succeeded(t, del)
	if got, err := f.svc.SystemNodes(ctx, id); err != nil || got != nil {
		t.Fatalf("after deleteSystemNodes: %+v %v", got, err)
	}
}

func TestSystemNodesInputIsBounded(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		sys   cluster.SystemNodesInput
		field string
	}{
		{"too many", cluster.SystemNodesInput{Count: aws.Int(cluster.MaxSystemNodes + 1)}, "input.systemNodes.count"},
		{"negative", cluster.SystemNodesInput{Count: aws.Int(-1)}, "input.systemNodes.count"},
		{"a SageMaker type", cluster.SystemNodesInput{InstanceType: "ml.m5.large"}, "input.systemNodes.instanceType"},
		{"not a type", cluster.SystemNodesInput{InstanceType: strings.Repeat("m", 40)}, "input.systemNodes.instanceType"},
	} {
		in := validInput()
		in.SystemNodes = &tc.sys
		_, err := f.svc.Create(ctx, "tester", in, "")
		if e := findField(err, tc.field); e == nil || e.Code != errs.Validation {
			t.Errorf("%s: %v, want VALIDATION on %s", tc.name, err, tc.field)
		}
	}
	if _, err := f.svc.ScaleSystemNodes(ctx, "tester", "nope", cluster.MaxSystemNodes+1, "", ""); findField(err, "count") == nil || findField(err, "count").Code != errs.Validation {
		t.Errorf("scale beyond the bound: %v, want VALIDATION on count", err)
	}
	if len(f.world.Resources()) != 0 {
		t.Errorf("refused requests made %v", f.world.Resources())
	}
}

// TestSystemNodesKeepCoreDNSHealthyWithHyperPodAtZero: with every HyperPod
// group at zero, CoreDNS runs on the system nodes (ACTIVE); a cluster made
// without them leaves it nowhere to run (DEGRADED).
func TestSystemNodesKeepCoreDNSHealthyWithHyperPodAtZero(t *testing.T) {
	for _, tc := range []struct {
		name   string
		count  *int
		status string
	}{
		{"default system nodes", nil, "ACTIVE"},
		{"no system nodes", aws.Int(0), "DEGRADED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			in := validInput()
			in.InstanceGroups[0].Count = 0
			in.SystemNodes = &cluster.SystemNodesInput{Count: tc.count}
			op, err := f.svc.Create(ctx, "tester", in, "")
			if err != nil {
				t.Fatal(err)
			}
			f.succeeded(t, op)
			p, _ := f.world.Provider("us-west-2")
			dns, err := p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: aws.String("train-1"), AddonName: aws.String("coredns")})
			if err != nil {
				t.Fatal(err)
			}
			if string(dns.Addon.Status) != tc.status {
				t.Fatalf("CoreDNS is %s, want %s (issues %+v)", dns.Addon.Status, tc.status, dns.Addon.Health.Issues)
			}
		})
	}
}
