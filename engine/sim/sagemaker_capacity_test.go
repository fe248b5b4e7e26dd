package sim

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

func TestCapacityIsFinite(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	// Raise the quota, so the zone's 4 ml.p5.48xlarge are the limit.
	ok(f.w.InjectFault(ok(ParseFault("quota:instanceType=ml.p5.48xlarge,value=100")).must(t))).must(t)
	ok(f.p.SageMaker.CreateCluster(f.ctx, continuous(h.input("hp", "ml.p5.48xlarge", 6, 0)))).must(t)
	nodes := f.hpNodes("hp")
	waiting := 0
	for _, n := range nodes {
		if n.InstanceId == nil {
			waiting++
			if msg := aws.ToString(n.InstanceStatus.Message); !strings.HasPrefix(msg, "InsufficientInstanceCapacity") || !strings.Contains(msg, "us-west-2a") {
				t.Errorf("waiting node message %q", msg)
			}
		}
	}
	if len(nodes) != 6 || waiting != 2 {
		t.Fatalf("%d nodes, %d waiting for capacity", len(nodes), waiting)
	}
	if n := len(ok(f.p.SageMaker.ListClusterNodes(f.ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String("hp")})).must(t).ClusterNodeSummaries); n != 4 {
		t.Errorf("without IncludeNodeLogicalIds, %d nodes are listed", n)
	}
	f.advance(hpCreateTime)
	if g := f.group("hp", "workers"); g.Status != smtypes.InstanceGroupStatusDegraded || *g.CurrentCount != 4 || *g.TargetCount != 6 {
		t.Errorf("group: %s %d/%d", g.Status, *g.CurrentCount, *g.TargetCount)
	}

	// Without Continuous provisioning too, nodes that do not fit wait...
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("more", "ml.p5.48xlarge", 1, 0))).must(t)
	// ...unless the group needs a minimum the zone can not give.
	strict := h.input("strict", "ml.p5.48xlarge", 1, 0)
	strict.InstanceGroups[0].MinInstanceCount = aws.Int32(1)
	ok(f.p.SageMaker.CreateCluster(f.ctx, strict)).must(t)
	f.advance(hpCreateTime)
	if d := f.hpStatus("more"); d.ClusterStatus != smtypes.ClusterStatusInservice || d.InstanceGroups[0].Status != smtypes.InstanceGroupStatusDegraded {
		t.Errorf("more: %s, group %s", d.ClusterStatus, d.InstanceGroups[0].Status)
	}
	if d := f.hpStatus("strict"); d.ClusterStatus != smtypes.ClusterStatusFailed || !strings.HasPrefix(aws.ToString(d.FailureMessage), "InsufficientInstanceCapacity") {
		t.Errorf("strict: %s %q", d.ClusterStatus, aws.ToString(d.FailureMessage))
	}

	// Deleting two running nodes frees room for the waiting ones, oldest
	// cluster name first.
	running := instanceIDs(f.hpNodes("hp"))[:2]
	ok(f.p.SageMaker.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: running})).must(t)
	f.advance(hpNodeShutdownTime + hpNodeBootTime)
	if g := f.group("hp", "workers"); g.Status != smtypes.InstanceGroupStatusInservice || *g.CurrentCount != 4 || *g.TargetCount != 4 {
		t.Errorf("hp after capacity freed up: %s %d/%d", g.Status, *g.CurrentCount, *g.TargetCount)
	}
	if g := f.group("more", "workers"); g.Status != smtypes.InstanceGroupStatusDegraded {
		t.Errorf("more is %s though the zone is full", g.Status)
	}
	// Deleting the first cluster lets the second have its node.
	ok(f.p.SageMaker.DeleteCluster(f.ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("hp")})).must(t)
	f.advance(hpNodeBootTime)
	if g := f.group("more", "workers"); g.Status != smtypes.InstanceGroupStatusInservice || *g.CurrentCount != 1 {
		t.Errorf("more after hp was deleted: %s %d", g.Status, *g.CurrentCount)
	}
}

func TestScaleUpWaitsForCapacity(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	ok(f.w.InjectFault(ok(ParseFault("quota:instanceType=ml.p5.48xlarge,value=100")).must(t))).must(t)
	f.createReady(h.input("hp", "ml.p5.48xlarge", 3, 0))
	if err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"),
		InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{h.spec("workers", "ml.p5.48xlarge", 5)}}); err != nil {
		t.Fatal(err)
	}
	f.advance(hpNodeBootTime)
	d := f.hpStatus("hp")
	if g := d.InstanceGroups[0]; d.ClusterStatus != smtypes.ClusterStatusInservice || g.Status != smtypes.InstanceGroupStatusDegraded || *g.CurrentCount != 4 {
		t.Errorf("after scaling beyond the zone: %s, group %s %d/%d", d.ClusterStatus, g.Status, *g.CurrentCount, *g.TargetCount)
	}
}

func TestCapacityFaultMakesAddedNodesWait(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(continuous(h.input("hp", "ml.g5.xlarge", 1, 0)))
	fault := ok(f.w.InjectFault(ok(ParseFault("capacity:zone=us-west-2a,instanceType=ml.g5.xlarge")).must(t))).must(t)
	// Creating a cluster with the fault fails, Continuous or not...
	ok(f.p.SageMaker.CreateCluster(f.ctx, continuous(h.input("doomed", "ml.g5.xlarge", 1, 0)))).must(t)
	// ...while nodes added to a running cluster wait.
	ok(f.p.SageMaker.BatchAddClusterNodes(f.ctx, &sagemaker.BatchAddClusterNodesInput{ClusterName: aws.String("hp"),
		NodesToAdd: []smtypes.AddClusterNodeSpecification{{InstanceGroupName: aws.String("workers"), IncrementTargetCountBy: aws.Int32(2)}}})).must(t)
	f.advance(hpCreateTime)
	if d := f.hpStatus("doomed"); d.ClusterStatus != smtypes.ClusterStatusFailed {
		t.Errorf("doomed: %s", d.ClusterStatus)
	}
	if g := f.group("hp", "workers"); g.Status != smtypes.InstanceGroupStatusDegraded || *g.CurrentCount != 1 || *g.TargetCount != 3 {
		t.Fatalf("group under the fault: %s %d/%d", g.Status, *g.CurrentCount, *g.TargetCount)
	}
	if err := f.w.ClearFault(fault.ID); err != nil {
		t.Fatal(err)
	}
	f.hpStatus("hp") // the first read after the fault is gone launches the nodes
	f.advance(hpNodeBootTime)
	if g := f.group("hp", "workers"); g.Status != smtypes.InstanceGroupStatusInservice || *g.CurrentCount != 3 {
		t.Errorf("after the fault cleared: %s %d", g.Status, *g.CurrentCount)
	}
}

func TestTrainingPlanPlacement(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	var plan smtypes.TrainingPlanSummary
	for _, p := range ok(f.p.SageMaker.ListTrainingPlans(f.ctx, nil)).must(t).TrainingPlanSummaries {
		if p.ReservedCapacitySummaries[0].InstanceType == "ml.p5.48xlarge" {
			plan = p
		}
	}
	if plan.TrainingPlanArn == nil || plan.Status != smtypes.TrainingPlanStatusActive || *plan.TotalInstanceCount != 8 ||
		*plan.ReservedCapacitySummaries[0].AvailabilityZone != "us-west-2a" {
		t.Fatalf("p5 plan: %+v", plan)
	}
	onPlan := func(name string, count int32, subnets ...int) *sagemaker.CreateClusterInput {
		in := h.input(name, "ml.p5.48xlarge", count, 0)
		in.VpcConfig.Subnets = nil
		for _, i := range subnets {
			in.VpcConfig.Subnets = append(in.VpcConfig.Subnets, h.net.subnets[i])
		}
		in.InstanceGroups[0].TrainingPlanArn = plan.TrainingPlanArn
		return in
	}
	cases := []struct {
		name string
		in   *sagemaker.CreateClusterInput
	}{
		{"subnets outside the plan's zone", onPlan("a", 2, 1)},
		{"more than the plan holds", onPlan("b", 9, 1, 0)},
		{"another instance type", func() *sagemaker.CreateClusterInput {
			in := onPlan("c", 2, 0)
			in.InstanceGroups[0].InstanceType = "ml.p4d.24xlarge"
			return in
		}()},
		{"spot on a plan", func() *sagemaker.CreateClusterInput {
			in := onPlan("d", 2, 0)
			in.InstanceGroups[0].CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
			return in
		}()},
	}
	for _, c := range cases {
		_, err := f.p.SageMaker.CreateCluster(f.ctx, c.in)
		if code := errorCode(t, err); code != "ValidationException" {
			t.Errorf("%s: code %q (%v)", c.name, code, err)
		}
	}

	// The plan fixes the zone, and its capacity counts against neither the
	// quota (4) nor the zone's own capacity (4).
	f.createReady(onPlan("hp", 8, 1, 0))
	for _, n := range f.hpNodes("hp") {
		if d := f.hpNode("hp", *n.NodeLogicalId); *d.Placement.AvailabilityZone != "us-west-2a" || d.InstanceStatus.Status != smtypes.ClusterInstanceStatusRunning {
			t.Errorf("node on the plan: %s in %s", d.InstanceStatus.Status, *d.Placement.AvailabilityZone)
		}
	}
	if g := f.group("hp", "workers"); *g.TrainingPlanArn != *plan.TrainingPlanArn || aws.ToString(g.TrainingPlanStatus) != "Active" {
		t.Errorf("group: %+v", g)
	}
	described := ok(f.p.SageMaker.DescribeTrainingPlan(f.ctx, &sagemaker.DescribeTrainingPlanInput{TrainingPlanName: plan.TrainingPlanName})).must(t)
	if *described.InUseInstanceCount != 8 || *described.AvailableInstanceCount != 0 {
		t.Errorf("plan in use %d, available %d", *described.InUseInstanceCount, *described.AvailableInstanceCount)
	}
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("od", "ml.p5.48xlarge", 4, 0))).must(t)

	_, err := f.p.SageMaker.CreateCluster(f.ctx, onPlan("more", 1, 0))
	mustCode(t, err, "ValidationException")
	err = f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{
		func() smtypes.ClusterInstanceGroupSpecification {
			s := h.spec("workers", "ml.p5.48xlarge", 9)
			s.TrainingPlanArn = plan.TrainingPlanArn
			return s
		}(),
	}})
	mustCode(t, err, "ValidationException")
	_, err = f.p.SageMaker.DescribeTrainingPlan(f.ctx, &sagemaker.DescribeTrainingPlanInput{TrainingPlanName: aws.String("nope")})
	mustCode(t, err, "ResourceNotFound")
}
