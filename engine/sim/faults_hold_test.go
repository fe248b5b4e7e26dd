package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

func TestHoldFaultValidates(t *testing.T) {
	f := newFixture(t)
	if got := ok(ParseFault("hold:service=sagemaker,operation=CreateCluster")).must(t); got != (Fault{Kind: FaultHold, Service: "sagemaker", Operation: "CreateCluster"}) {
		t.Errorf("parsed %+v", got)
	}
	for _, bad := range []Fault{
		{Kind: FaultHold},                                   // no service
		{Kind: FaultHold, Service: "iam"},                   // nothing asynchronous
		{Kind: FaultHold, Service: "sagemaker", Count: 1},   // lasts until cleared
		{Kind: FaultHold, Service: "eks", Cluster: "other"}, // node selectors
	} {
		if _, err := f.w.InjectFault(bad); err == nil {
			t.Errorf("InjectFault(%+v) succeeded", bad)
		}
	}
}

func TestHoldFaultKeepsResourcesCreatingUntilCleared(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod() // made before the faults, so its EKS cluster is ACTIVE
	hp := ok(f.w.InjectFault(ok(ParseFault("hold:service=sagemaker,operation=CreateCluster")).must(t))).must(t)
	ok(f.w.InjectFault(Fault{Kind: FaultHold, Service: "eks", Operation: "CreateCluster"})).must(t)
	ok(f.w.InjectFault(Fault{Kind: FaultHold, Service: "ec2"})).must(t)

	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.g5.xlarge", 1, 0))).must(t)
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("held"), RoleArn: aws.String("arn:aws:iam::123456789012:role/eks-eks-role"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: h.net.subnets},
	})).must(t)
	// An add-on is not what the EKS hold names: it ends as usual.
	ok(f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("eks"), AddonName: aws.String("cert-manager")})).must(t)
	igw := ok(f.p.EC2.CreateInternetGateway(f.ctx, nil)).must(t).InternetGateway.InternetGatewayId
	ok(f.p.EC2.AttachInternetGateway(f.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: igw, VpcId: &h.net.vpc})).must(t)
	eip := ok(f.p.EC2.AllocateAddress(f.ctx, nil)).must(t).AllocationId
	nat := ok(f.p.EC2.CreateNatGateway(f.ctx, &ec2.CreateNatGatewayInput{SubnetId: &h.net.subnets[0], AllocationId: eip})).must(t).NatGateway.NatGatewayId

	eksStatus := func() ekstypes.ClusterStatus {
		return ok(f.p.EKS.DescribeCluster(f.ctx, &eks.DescribeClusterInput{Name: aws.String("held")})).must(t).Cluster.Status
	}
	f.clock.Advance(10 * scaled(hpCreateTime+eksCreateMax))
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusCreating {
		t.Fatalf("held HyperPod cluster is %s long after its time", s)
	}
	if s := eksStatus(); s != ekstypes.ClusterStatusCreating {
		t.Fatalf("held EKS cluster is %s long after its time", s)
	}
	if s := f.natState(nat); s != ec2types.NatGatewayStatePending {
		t.Fatalf("held NAT gateway is %s long after its time", s)
	}
	ad := ok(f.p.EKS.DescribeAddon(f.ctx, &eks.DescribeAddonInput{ClusterName: aws.String("eks"), AddonName: aws.String("cert-manager")})).must(t).Addon
	if ad.Status != ekstypes.AddonStatusActive {
		t.Fatalf("an add-on no fault holds is %s", ad.Status)
	}

	// A restarted process finds the holds where they were.
	f.w = f.world()
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusCreating {
		t.Fatalf("after a restart the held HyperPod cluster is %s", s)
	}

	// Cleared after its time, the HyperPod cluster ends its creation at once;
	// the others stay held by their own faults.
	if err := f.w.ClearFault(hp.ID); err != nil {
		t.Fatal(err)
	}
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusInservice {
		t.Fatalf("released HyperPod cluster is %s", s)
	}
	if s := eksStatus(); s != ekstypes.ClusterStatusCreating {
		t.Fatalf("EKS cluster still held is %s", s)
	}
	f.w.ClearFaults()
	if s := eksStatus(); s != ekstypes.ClusterStatusActive {
		t.Fatalf("released EKS cluster is %s", s)
	}
	if s := f.natState(nat); s != ec2types.NatGatewayStateAvailable {
		t.Fatalf("released NAT gateway is %s", s)
	}
}

func TestHoldFaultReleasedEarlyKeepsThePlannedTime(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	hold := ok(f.w.InjectFault(Fault{Kind: FaultHold, Service: "sagemaker"})).must(t)
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("hp", "ml.g5.xlarge", 1, 0))).must(t)
	f.clock.Advance(scaled(hpCreateTime) / 2)
	if err := f.w.ClearFault(hold.ID); err != nil {
		t.Fatal(err)
	}
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusCreating {
		t.Fatalf("half way through its creation the cluster is %s", s)
	}
	f.clock.Advance(scaled(hpCreateTime) - scaled(hpCreateTime)/2)
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusInservice {
		t.Fatalf("at its planned time the cluster is %s", s)
	}
}

func TestHoldFaultKeepsAHelmReleasePending(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	chart := kubeRayChart()
	hold := ok(f.w.InjectFault(ok(ParseFault("hold:service=helm,operation=Install")).must(t))).must(t)
	ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t)
	f.clock.Advance(10 * scaled(helmInstallTime))
	if got := f.release(chart.Namespace, chart.Release); got.Status != cloud.HelmPendingInstall {
		t.Fatalf("held release is %s long after its time", got.Status)
	}
	if d := deployments(f, kc, chart.Namespace)["kuberay-operator"]; available(d) {
		t.Fatal("the deployment of a held release is available")
	}
	if err := f.w.ClearFault(hold.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.release(chart.Namespace, chart.Release); got.Status != cloud.HelmDeployed {
		t.Fatalf("released release is %s", got.Status)
	}
	if d := deployments(f, kc, chart.Namespace)["kuberay-operator"]; !available(d) {
		t.Fatalf("the deployment of the deployed release: %+v", d.Status)
	}
}
