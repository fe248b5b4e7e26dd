package sim

import (
	"errors"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// hyperPod is what a HyperPod cluster needs: a network in us-west-2a and
// us-west-2d, an ACTIVE EKS cluster on it, and an execution role.
type hyperPod struct {
	net    network
	eksArn string
	role   string
}

func (f *fixture) hyperPod() hyperPod {
	f.t.Helper()
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2d")
	c := f.eksCluster("eks", n)
	return hyperPod{net: n, eksArn: *c.Arn, role: f.role("HyperPodExec")}
}

// input is a CreateClusterInput with one group of count instances of typ in
// the subnet of zone index subnet.
func (h hyperPod) input(name, typ string, count int32, subnet int) *sagemaker.CreateClusterInput {
	in := &sagemaker.CreateClusterInput{
		ClusterName:  aws.String(name),
		Orchestrator: &smtypes.ClusterOrchestrator{Eks: &smtypes.ClusterOrchestratorEksConfig{ClusterArn: aws.String(h.eksArn)}},
		VpcConfig:    &smtypes.VpcConfig{Subnets: []string{h.net.subnets[subnet]}, SecurityGroupIds: []string{h.net.sg}},
		NodeRecovery: smtypes.ClusterNodeRecoveryAutomatic,
	}
	if typ != "" {
		in.InstanceGroups = []smtypes.ClusterInstanceGroupSpecification{{
			InstanceGroupName: aws.String("workers"), InstanceCount: aws.Int32(count), ExecutionRole: aws.String(h.role),
			InstanceType: smtypes.ClusterInstanceType(typ),
			LifeCycleConfig: &smtypes.ClusterLifeCycleConfig{
				SourceS3Uri: aws.String("s3://sagemaker-lifecycle/eks"), OnCreate: aws.String("on_create.sh"),
			},
		}}
	}
	return in
}

func (f *fixture) hpStatus(name string) *sagemaker.DescribeClusterOutput {
	f.t.Helper()
	return ok(f.p.SageMaker.DescribeCluster(f.ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(name)})).must(f.t)
}

func TestHyperPodClusterLifecycle(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	arn := ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.p5.48xlarge", 2, 0))).must(t).ClusterArn
	if !regexp.MustCompile(`^arn:aws:sagemaker:us-west-2:123456789012:cluster/[a-z0-9]{12}$`).MatchString(*arn) {
		t.Errorf("arn = %s", *arn)
	}
	nodes := func() []smtypes.ClusterNodeSummary {
		return ok(f.p.SageMaker.ListClusterNodes(f.ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String("hp")})).must(t).ClusterNodeSummaries
	}
	d := f.hpStatus("hp")
	if d.ClusterStatus != smtypes.ClusterStatusCreating || d.InstanceGroups[0].Status != smtypes.InstanceGroupStatusCreating ||
		*d.InstanceGroups[0].CurrentCount != 0 || *d.InstanceGroups[0].TargetCount != 2 {
		t.Errorf("new cluster = %s, group %s %d/%d", d.ClusterStatus, d.InstanceGroups[0].Status, *d.InstanceGroups[0].CurrentCount, *d.InstanceGroups[0].TargetCount)
	}
	if ns := nodes(); len(ns) != 2 || ns[0].InstanceStatus.Status != smtypes.ClusterInstanceStatusPending {
		t.Fatalf("nodes while creating = %+v", ns)
	}
	f.clock.Advance(scaled(hpCreateTime))
	d = f.hpStatus(*arn) // by ARN too
	if d.ClusterStatus != smtypes.ClusterStatusInservice || *d.InstanceGroups[0].CurrentCount != 2 || *d.Orchestrator.Eks.ClusterArn != h.eksArn {
		t.Errorf("after 8 min/speed: %s, %d nodes", d.ClusterStatus, *d.InstanceGroups[0].CurrentCount)
	}
	ns := nodes()
	for _, n := range ns {
		if n.InstanceStatus.Status != smtypes.ClusterInstanceStatusRunning || !regexp.MustCompile(`^i-[0-9a-f]{17}$`).MatchString(*n.InstanceId) ||
			n.InstanceType != "ml.p5.48xlarge" || *n.InstanceGroupName != "workers" || n.NodeLogicalId == nil {
			t.Errorf("node = %+v", n)
		}
	}
	ok(f.p.SageMaker.DeleteCluster(f.ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("hp")})).must(t)
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusDeleting {
		t.Errorf("after DeleteCluster: %s", s)
	}
	var conflict *smtypes.ConflictException
	if _, err := f.p.SageMaker.DeleteCluster(f.ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("hp")}); !errors.As(err, &conflict) {
		t.Errorf("second delete: %v", err)
	}
	f.clock.Advance(scaled(hpDeleteTime))
	var notFound *smtypes.ResourceNotFound
	if _, err := f.p.SageMaker.DescribeCluster(f.ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String("hp")}); !errors.As(err, &notFound) {
		t.Errorf("describe after deletion: %v", err)
	}
	if _, err := f.p.SageMaker.DeleteCluster(f.ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("hp")}); !errors.As(err, &notFound) {
		t.Errorf("delete of an unknown cluster: %v", err)
	}
}

func TestHyperPodClusterWithoutGroupsIsFaster(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("empty", "", 0, 0))).must(t)
	f.clock.Advance(scaled(hpCreateEmptyTime))
	if s := f.hpStatus("empty").ClusterStatus; s != smtypes.ClusterStatusInservice {
		t.Errorf("after 4 min/speed: %s", s)
	}
}

func TestListHyperPodClusters(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	for _, name := range []string{"alpha", "beta", "alphabet"} {
		ok(f.p.SageMaker.CreateCluster(f.ctx, h.input(name, "ml.g5.xlarge", 3, 1))).must(t)
		f.clock.Advance(1)
	}
	list := ok(f.p.SageMaker.ListClusters(f.ctx, &sagemaker.ListClustersInput{NameContains: aws.String("alpha")})).must(t).ClusterSummaries
	if len(list) != 2 || *list[0].ClusterName != "alphabet" || list[0].ClusterStatus != smtypes.ClusterStatusCreating {
		t.Errorf("newest first, filtered: %+v", list)
	}
	var names []string
	in := &sagemaker.ListClustersInput{MaxResults: aws.Int32(2), SortBy: smtypes.ClusterSortByName, SortOrder: smtypes.SortOrderAscending}
	for {
		page := ok(f.p.SageMaker.ListClusters(f.ctx, in)).must(t)
		for _, s := range page.ClusterSummaries {
			names = append(names, *s.ClusterName)
		}
		if page.NextToken == nil {
			break
		}
		in.NextToken = page.NextToken
	}
	if !equalStrings(names, []string{"alpha", "alphabet", "beta"}) {
		t.Errorf("paged by name: %v", names)
	}
}
