package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/smithy-go"
)

func TestParseFault(t *testing.T) {
	cases := []struct {
		spec string
		want Fault
		bad  bool
	}{
		{"capacity:zone=us-west-2a,instanceType=ml.p5.48xlarge", Fault{Kind: "capacity", Zone: "us-west-2a", InstanceType: "ml.p5.48xlarge"}, false},
		{"throttle:service=eks,operation=DescribeCluster,count=3", Fault{Kind: "throttle", Service: "eks", Operation: "DescribeCluster", Count: 3}, false},
		{"error:service=eks,operation=CreateCluster,code=InvalidParameterException,message=boom",
			Fault{Kind: "error", Service: "eks", Operation: "CreateCluster", Code: "InvalidParameterException", Message: "boom"}, false},
		{"quota:instanceType=ml.p5.48xlarge,value=0", Fault{Kind: "quota", InstanceType: "ml.p5.48xlarge"}, false},
		{"fail:service=sagemaker,message=Lifecycle script failed", Fault{Kind: "fail", Service: "sagemaker", Message: "Lifecycle script failed"}, false},
		{" Throttle : Service = ec2 ", Fault{Kind: "throttle", Service: "ec2"}, false},
		{"fail", Fault{Kind: "fail"}, false},
		{"node:cluster=hp,group=workers,recovery=replace,count=2",
			Fault{Kind: "node", Cluster: "hp", Group: "workers", Recovery: "replace", Count: 2}, false},
		{"node:region=us-west-2,instance=i-0123456789abcdef0", Fault{Kind: "node", Region: "us-west-2", Instance: "i-0123456789abcdef0"}, false},
		{"healthcheck:cluster=hp,group=gpu,instanceType=ml.p5.48xlarge",
			Fault{Kind: "healthcheck", Cluster: "hp", Group: "gpu", InstanceType: "ml.p5.48xlarge"}, false},
		{"meteor:zone=us-west-2a", Fault{}, true},
		{"throttle:service", Fault{}, true},
		{"throttle:colour=red", Fault{}, true},
		{"throttle:count=many", Fault{}, true},
	}
	for _, c := range cases {
		got, err := ParseFault(c.spec)
		if (err != nil) != c.bad {
			t.Errorf("ParseFault(%q): err = %v", c.spec, err)
			continue
		}
		if !c.bad && got != c.want {
			t.Errorf("ParseFault(%q) = %+v, want %+v", c.spec, got, c.want)
		}
	}
}

func TestInjectFaultValidates(t *testing.T) {
	f := newFixture(t)
	bad := []Fault{
		{Kind: "meteor"},
		{Kind: FaultThrottle},                     // no service
		{Kind: FaultThrottle, Service: "lambda"},  // unknown service
		{Kind: FaultCapacity},                     // no zone
		{Kind: FaultCapacity, Zone: "us-west-2z"}, // unknown zone
		{Kind: FaultCapacity, Zone: "us-west-2a", Region: "us-east-1"},
		{Kind: FaultQuota},                             // no instance type
		{Kind: FaultQuota, InstanceType: "ml.x9.huge"}, // unknown type
		{Kind: FaultFail, Service: "iam"},              // nothing asynchronous
		{Kind: FaultError, Service: "eks", Count: -1},
		{Kind: FaultNode, Recovery: "pray"},
		{Kind: FaultNode, Service: "sagemaker"}, // nodes, not calls
		{Kind: FaultNode, Instance: "node-1"},   // not an instance id
		{Kind: FaultNode, Zone: "us-west-2a", Region: "us-east-1"},
		{Kind: FaultHealthCheck, Recovery: "reboot"},         // a failed check needs a replacement
		{Kind: FaultThrottle, Service: "eks", Cluster: "hp"}, // node selectors on a call fault
	}
	for _, fault := range bad {
		if _, err := f.w.InjectFault(fault); err == nil {
			t.Errorf("InjectFault(%+v) succeeded", fault)
		}
	}
	a := ok(f.w.InjectFault(Fault{Kind: FaultError, Service: "EKS"})).must(t)
	b := ok(f.w.InjectFault(Fault{Kind: FaultCapacity, Zone: "usw2-az1", InstanceType: "p5.48xlarge"})).must(t)
	if a.ID == "" || a.ID == b.ID || a.Code != "InternalFailure" || a.Service != "eks" {
		t.Errorf("stored faults: %+v %+v", a, b)
	}
	if b.Region != "us-west-2" || b.InstanceType != "ml.p5.48xlarge" {
		t.Errorf("capacity fault not normalised: %+v", b)
	}
	if _, err := f.w.InjectFault(Fault{ID: a.ID, Kind: FaultThrottle, Service: "ec2"}); err == nil {
		t.Errorf("a second fault with id %s was accepted", a.ID)
	}
	if err := f.w.ClearFault(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.w.ClearFault(a.ID); err == nil {
		t.Errorf("ClearFault of a cleared fault succeeded")
	}
	if got := f.w.Faults(); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("Faults = %+v", got)
	}
	f.w.ClearFaults()
	if got := f.w.Faults(); len(got) != 0 {
		t.Errorf("after ClearFaults: %+v", got)
	}
}

func TestThrottleFault(t *testing.T) {
	f := newFixture(t)
	ok(f.w.InjectFault(Fault{Kind: FaultThrottle, Service: "eks", Operation: "DescribeCluster", Count: 2})).must(t)
	ok(f.w.InjectFault(Fault{Kind: FaultThrottle, Service: "ec2"})).must(t)
	describe := func() error {
		_, err := f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("x")})
		return err
	}
	for i := 0; i < 2; i++ {
		if code := errorCode(t, describe()); code != "ThrottlingException" {
			t.Errorf("call %d: code %q", i, code)
		}
	}
	var notFound *ekstypes.ResourceNotFoundException
	if err := describe(); !errors.As(err, &notFound) {
		t.Errorf("third call, after the fault's count: %v", err)
	}
	if _, err := f.p.EKS.ListClusters(f.ctx, nil); err != nil {
		t.Errorf("another EKS operation was throttled: %v", err)
	}
	_, err := f.p.EC2.DescribeVpcs(f.ctx, nil)
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "RequestLimitExceeded" || ae.ErrorMessage() != "Rate exceeded" {
		t.Errorf("EC2 throttling: %v", err)
	}
	if got := f.w.Faults(); len(got) != 1 || got[0].Service != "ec2" {
		t.Errorf("the spent fault was not removed: %+v", got)
	}
	if got := f.w.Calls()["eks"]["DescribeCluster"]; got != 3 {
		t.Errorf("throttled calls are calls too: counted %d", got)
	}
}

func TestErrorFault(t *testing.T) {
	f := newFixture(t)
	ok(f.w.InjectFault(ok(ParseFault("error:service=iam,operation=CreateRole,code=ServiceFailure,message=boom,count=1")).must(t))).must(t)
	ok(f.w.InjectFault(Fault{Kind: FaultError, Service: "sts"})).must(t)
	_, err := f.p.IAM.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String("r"), AssumeRolePolicyDocument: aws.String(trustPolicy)})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ServiceFailure" || ae.ErrorMessage() != "boom" {
		t.Errorf("injected error: %v", err)
	}
	f.role("r") // the fault fired its one time
	_, err = f.p.STS.GetCallerIdentity(f.ctx, nil)
	if code := errorCode(t, err); code != "InternalFailure" {
		t.Errorf("default code: %q", code)
	}
}

func TestCapacityFault(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	fault := ok(f.w.InjectFault(ok(ParseFault("capacity:zone=us-west-2a,instanceType=ml.p5.48xlarge")).must(t))).must(t)

	// Another type in the zone is not affected.
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("g5", "ml.g5.xlarge", 1, 0))).must(t)
	// The request is accepted and fails when it would have been InService.
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.p5.48xlarge", 2, 0))).must(t)
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusCreating {
		t.Errorf("right after create: %s", s)
	}
	f.clock.Advance(scaled(hpCreateTime))
	d := f.hpStatus("hp")
	msg := aws.ToString(d.FailureMessage)
	if d.ClusterStatus != smtypes.ClusterStatusFailed || !strings.HasPrefix(msg, "InsufficientInstanceCapacity") ||
		!strings.Contains(msg, "us-west-2a") || !strings.Contains(msg, "ml.p5.48xlarge") {
		t.Fatalf("cluster = %s: %q", d.ClusterStatus, msg)
	}
	if s := f.hpStatus("g5").ClusterStatus; s != smtypes.ClusterStatusInservice {
		t.Errorf("g5 cluster: %s", s)
	}
	nodes := ok(f.p.SageMaker.ListClusterNodes(f.ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String("hp")})).must(t)
	if len(nodes.ClusterNodeSummaries) != 0 {
		t.Errorf("a failed cluster has %d nodes", len(nodes.ClusterNodeSummaries))
	}

	// Delete the failed cluster, clear the fault, and try again.
	ok(f.p.SageMaker.DeleteCluster(f.ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String("hp")})).must(t)
	f.clock.Advance(scaled(hpDeleteTime))
	if err := f.w.ClearFault(fault.ID); err != nil {
		t.Fatal(err)
	}
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.p5.48xlarge", 2, 0))).must(t)
	f.clock.Advance(scaled(hpCreateTime))
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusInservice {
		t.Errorf("after clearing the fault: %s", s)
	}
}

func TestQuotaFault(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	ok(f.w.InjectFault(ok(ParseFault("quota:instanceType=ml.p5.48xlarge,value=0")).must(t))).must(t)
	if q := f.quotas(100)["ml.p5.48xlarge for cluster usage"]; *q.Value != 0 {
		t.Errorf("ListServiceQuotas reports %v", *q.Value)
	}
	_, err := f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.p5.48xlarge", 1, 0))
	var limit *smtypes.ResourceLimitExceeded
	if !errors.As(err, &limit) || !strings.Contains(aws.ToString(limit.Message), "ml.p5.48xlarge for cluster usage") {
		t.Fatalf("CreateCluster over a zero quota: %v", err)
	}
	// Zero instances fit in a zero quota; other types are unaffected.
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("zero", "ml.p5.48xlarge", 0, 0))).must(t)
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("g5", "ml.g5.12xlarge", 16, 0))).must(t)
	f.w.ClearFaults()
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.p5.48xlarge", 4, 0))).must(t)
}

func TestFailFault(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod() // made before the faults, so its EKS cluster is ACTIVE

	ok(f.w.InjectFault(Fault{Kind: FaultFail, Service: "sagemaker", Message: "Lifecycle script failed on 1 instance", Count: 1})).must(t)
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.g5.xlarge", 1, 0))).must(t)
	f.clock.Advance(scaled(hpCreateTime))
	if d := f.hpStatus("hp"); d.ClusterStatus != smtypes.ClusterStatusFailed || aws.ToString(d.FailureMessage) != "Lifecycle script failed on 1 instance" {
		t.Errorf("sagemaker cluster = %s %q", d.ClusterStatus, aws.ToString(d.FailureMessage))
	}

	ok(f.w.InjectFault(Fault{Kind: FaultFail, Service: "eks", Operation: "CreateAddon", Count: 1})).must(t)
	ok(f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("eks"), AddonName: aws.String("cert-manager")})).must(t)
	f.clock.Advance(scaled(addonCreateTime))
	ad := ok(f.p.EKS.DescribeAddon(f.ctx, &eks.DescribeAddonInput{ClusterName: aws.String("eks"), AddonName: aws.String("cert-manager")})).must(t).Addon
	if ad.Status != ekstypes.AddonStatusCreateFailed || len(ad.Health.Issues) != 1 {
		t.Errorf("add-on = %s %+v", ad.Status, ad.Health)
	}

	ok(f.w.InjectFault(Fault{Kind: FaultFail, Service: "eks"})).must(t)
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("broken"), RoleArn: aws.String("arn:aws:iam::123456789012:role/eks-eks-role"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: h.net.subnets},
	})).must(t)
	f.clock.Advance(eksActiveAfter)
	c := ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("broken")})).must(t).Cluster
	if c.Status != ekstypes.ClusterStatusFailed {
		t.Errorf("EKS cluster = %s", c.Status)
	}
	// A FAILED control plane can be deleted.
	ok(f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: aws.String("broken")})).must(t)

	ok(f.w.InjectFault(Fault{Kind: FaultFail, Service: "ec2", Message: "no luck"})).must(t)
	igw := ok(f.p.EC2.CreateInternetGateway(f.ctx, nil)).must(t).InternetGateway.InternetGatewayId
	ok(f.p.EC2.AttachInternetGateway(f.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: igw, VpcId: &h.net.vpc})).must(t)
	eip := ok(f.p.EC2.AllocateAddress(f.ctx, nil)).must(t).AllocationId
	nat := ok(f.p.EC2.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{SubnetId: &h.net.subnets[0], AllocationId: eip})).must(t).NatGateway
	f.clock.Advance(scaled(natCreateTime))
	if got := f.natState(nat.NatGatewayId); got != ec2types.NatGatewayStateFailed {
		t.Errorf("NAT gateway = %s", got)
	}
}

func TestNodeFaultDefaults(t *testing.T) {
	f := newFixture(t)
	node := ok(f.w.InjectFault(ok(ParseFault("node:cluster=hp,zone=usw2-az1,instanceType=g5.xlarge")).must(t))).must(t)
	if node.Recovery != "reboot" || node.Count != 1 || node.Region != "us-west-2" || node.InstanceType != "ml.g5.xlarge" {
		t.Errorf("node fault = %+v", node)
	}
	check := ok(f.w.InjectFault(Fault{Kind: FaultHealthCheck, Count: 3})).must(t)
	if check.Count != 3 || check.Recovery != "" {
		t.Errorf("healthcheck fault = %+v", check)
	}
}

// TestNoFiltersFault: while it is active EC2's describes answer with
// every resource whatever their filters say (still refusing an unknown
// filter); it takes no selector beyond region and operation.
func TestNoFiltersFault(t *testing.T) {
	w := newFixture(t).world()
	p, err := w.Provider("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		if _, err := p.EC2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"), TagSpecifications: []ec2types.TagSpecification{
			{ResourceType: ec2types.ResourceTypeVpc, Tags: []ec2types.Tag{{Key: aws.String("owner"), Value: aws.String(name)}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		out, err := p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{{Name: aws.String("tag:owner"), Values: []string{"a"}}}})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Vpcs)
	}
	if n := count(); n != 1 {
		t.Fatalf("with filters: %d VPCs", n)
	}
	if _, err := w.InjectFault(Fault{Kind: FaultNoFilters, Zone: "us-east-1a"}); err == nil {
		t.Fatal("a nofilters fault took a zone")
	}
	f, err := ParseFault("nofilters:operation=DescribeVpcs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.InjectFault(f); err != nil {
		t.Fatal(err)
	}
	if n := count(); n < 2 {
		t.Fatalf("filters ignored: %d VPCs", n)
	}
	if _, err := p.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{{Name: aws.String("no-such-filter"), Values: []string{"x"}}}}); err == nil {
		t.Fatal("an unknown filter was accepted")
	}
	w.ClearFaults()
	if n := count(); n != 1 {
		t.Fatalf("after the fault: %d VPCs", n)
	}
}

func TestFaultKindsTable(t *testing.T) {
	f := newFixture(t)
	refused := []struct {
		fault Fault
		want  string
	}{
		{Fault{Kind: FaultThrottle, Service: "eks", Deployment: "vllm"},
			"sim: namespace, deployment, image and rps select model servers; only gpuoom, imagepull and load faults take them"},
		{Fault{Kind: FaultCapacity, Zone: "us-west-2a", Job: "train"},
			"sim: job and pod select training jobs; only hang, crash, nccl and slow faults take them"},
		{Fault{Kind: FaultHold, Service: "eks", Group: "workers"},
			"sim: cluster, group, instance and recovery select nodes; only node, healthcheck and patch faults take them"},
		{Fault{Kind: FaultHold, Service: "iam", Count: 2}, `sim: a hold fault needs service eks, sagemaker, ec2 or helm, got "iam"`},
		{Fault{Kind: FaultLoad, Deployment: "vllm", Count: 2}, "sim: a load fault lasts until it is cleared; it takes no count, got 2"},
		{Fault{Kind: FaultImagePull, Zone: "us-west-2a"}, "sim: a imagepull fault selects model servers by region and image and message; it takes nothing else"},
		{Fault{Kind: FaultCrash, Job: "train", Recovery: "reboot"}, "sim: a crash fault selects a training job by region, job and pod; it takes nothing else"},
		{Fault{Kind: FaultPatch, Recovery: "Reboot"}, "sim: a patch fault takes no recovery: the software update stops, and rolls back if asked"},
		{Fault{Kind: "Meteor"}, `sim: unknown fault kind "meteor"; kinds are capacity, quota, throttle, error, fail, node, healthcheck, patch, hold, hang, crash, nccl, slow, gpuoom, imagepull, load, nofilters, smallpages, iamlag`},
	}
	for _, c := range refused {
		if _, err := f.w.InjectFault(c.fault); err == nil || err.Error() != c.want {
			t.Errorf("InjectFault(%+v) = %v, want %q", c.fault, err, c.want)
		}
	}
	completed := []struct{ fault, want Fault }{
		{Fault{ID: "a", Kind: "NODE", Recovery: "Replace"}, Fault{ID: "a", Kind: FaultNode, Recovery: "replace", Count: 1}},
		{Fault{ID: "b", Kind: FaultHealthCheck, Zone: "usw2-az1"}, Fault{ID: "b", Kind: FaultHealthCheck, Zone: "usw2-az1", Region: "us-west-2", Count: 1}},
		{Fault{ID: "c", Kind: FaultSlow, Job: "train", Pod: "train-worker-1"}, Fault{ID: "c", Kind: FaultSlow, Job: "train", Pod: "train-worker-1", Count: 1}},
		{Fault{ID: "d", Kind: FaultNoFilters, Operation: "DescribeVpcs"}, Fault{ID: "d", Kind: FaultNoFilters, Service: "ec2", Operation: "DescribeVpcs"}},
		{Fault{ID: "e", Kind: FaultError, Service: "sts"}, Fault{ID: "e", Kind: FaultError, Service: "sts", Code: "InternalFailure"}},
	}
	for _, c := range completed {
		if got, err := f.w.InjectFault(c.fault); err != nil || got != c.want {
			t.Errorf("InjectFault(%+v) = %+v, %v; want %+v", c.fault, got, err, c.want)
		}
	}
	for kind, want := range map[string]bool{FaultHang: true, FaultCrash: true, FaultNCCL: true, FaultSlow: true, FaultNode: false, FaultLoad: false, "meteor": false} {
		if got := trainingFault(kind); got != want {
			t.Errorf("trainingFault(%q) = %v, want %v", kind, got, want)
		}
	}
}
