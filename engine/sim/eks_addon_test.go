package sim

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

func TestAddonLifecycle(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	role := f.role("eks")
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("hp"), RoleArn: aws.String(role), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	})).must(t)
	var invalid *ekstypes.InvalidRequestException
	if _, err := f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("vpc-cni")}); !errors.As(err, &invalid) {
		t.Errorf("add-on on a CREATING cluster: %v", err)
	}
	f.clock.Advance(eksActiveAfter)

	ad := ok(f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("vpc-cni")})).must(t).Addon
	if ad.Status != ekstypes.AddonStatusCreating || *ad.AddonVersion != "v1.19.2-eksbuild.1" {
		t.Errorf("new add-on = %s %s", ad.Status, *ad.AddonVersion)
	}
	var inUse *ekstypes.ResourceInUseException
	if _, err := f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("vpc-cni")}); !errors.As(err, &inUse) {
		t.Errorf("duplicate add-on: %v", err)
	}
	var badParam *ekstypes.InvalidParameterException
	if _, err := f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("istio")}); !errors.As(err, &badParam) {
		t.Errorf("unknown add-on: %v", err)
	}
	describe := func() *ekstypes.Addon {
		return ok(f.p.EKS.DescribeAddon(f.ctx, &eks.DescribeAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("vpc-cni")})).must(t).Addon
	}
	f.clock.Advance(scaled(addonCreateTime))
	if got := describe().Status; got != ekstypes.AddonStatusActive {
		t.Fatalf("after 90s/speed: %s", got)
	}

	// The training operator brings its pod identity association along.
	opRole := f.role("training-operator")
	op := ok(f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{
		ClusterName: aws.String("hp"), AddonName: aws.String("amazon-sagemaker-hyperpod-training-operator"),
		PodIdentityAssociations: []ekstypes.AddonPodIdentityAssociations{{ServiceAccount: aws.String("hp-training-operator-controller-manager"), RoleArn: aws.String(opRole)}},
	})).must(t).Addon
	if len(op.PodIdentityAssociations) != 1 {
		t.Errorf("training operator associations = %v", op.PodIdentityAssociations)
	}
	assocs := ok(f.p.EKS.ListPodIdentityAssociations(f.ctx, &eks.ListPodIdentityAssociationsInput{ClusterName: aws.String("hp"), Namespace: aws.String("aws-hyperpod")})).must(t).Associations
	if len(assocs) != 1 || aws.ToString(assocs[0].OwnerArn) != *op.AddonArn {
		t.Errorf("associations = %+v", assocs)
	}
	if names := ok(f.p.EKS.ListAddons(f.ctx, &eks.ListAddonsInput{ClusterName: aws.String("hp")})).must(t).Addons; len(names) != 2 {
		t.Errorf("ListAddons = %v", names)
	}

	del := ok(f.p.EKS.DeleteAddon(f.ctx, &eks.DeleteAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("vpc-cni")})).must(t).Addon
	if del.Status != ekstypes.AddonStatusDeleting {
		t.Errorf("after DeleteAddon: %s", del.Status)
	}
	f.clock.Advance(scaled(addonDeleteTime))
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.EKS.DescribeAddon(f.ctx, &eks.DescribeAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("vpc-cni")}); !errors.As(err, &notFound) {
		t.Errorf("describe after deletion: %v", err)
	}
}

func TestDeletingClusterRemovesItsChildren(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	f.eksCluster("hp", n)
	role := f.role("app")
	ok(f.p.EKS.CreateAddon(f.ctx, &eks.CreateAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("coredns")})).must(t)
	ok(f.p.EKS.CreateAccessEntry(f.ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(role)})).must(t)
	ok(f.p.EKS.CreatePodIdentityAssociation(f.ctx, &eks.CreatePodIdentityAssociationInput{
		ClusterName: aws.String("hp"), Namespace: aws.String("default"), ServiceAccount: aws.String("app"), RoleArn: aws.String(role),
	})).must(t)
	f.clock.Advance(scaled(addonCreateTime))
	ok(f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: aws.String("hp")})).must(t)
	ad := ok(f.p.EKS.DescribeAddon(f.ctx, &eks.DescribeAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("coredns")})).must(t).Addon
	if ad.Status != ekstypes.AddonStatusDeleting {
		t.Errorf("add-on of a deleting cluster is %s", ad.Status)
	}
	f.clock.Advance(scaled(eksDeleteTime))
	// A new cluster of the same name starts empty.
	f.eksCluster("hp", n)
	if names := ok(f.p.EKS.ListAddons(f.ctx, &eks.ListAddonsInput{ClusterName: aws.String("hp")})).must(t).Addons; len(names) != 0 {
		t.Errorf("add-ons survived: %v", names)
	}
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.EKS.DescribeAccessEntry(f.ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(role)}); !errors.As(err, &notFound) {
		t.Errorf("access entry survived: %v", err)
	}
	if assocs := ok(f.p.EKS.ListPodIdentityAssociations(f.ctx, &eks.ListPodIdentityAssociationsInput{ClusterName: aws.String("hp")})).must(t).Associations; len(assocs) != 0 {
		t.Errorf("associations survived: %v", assocs)
	}
}

func TestAddonUpdate(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	f.eksCluster("hp", n)
	in := &eks.CreateAddonInput{ClusterName: aws.String("hp"), AddonName: aws.String("amazon-sagemaker-hyperpod-observability"), ConfigurationValues: aws.String(`{"a":1}`)}
	ok(f.p.EKS.CreateAddon(f.ctx, in)).must(t)
	update := &eks.UpdateAddonInput{ClusterName: aws.String("hp"), AddonName: in.AddonName, ConfigurationValues: aws.String(`{"a":2}`)}
	var inUse *ekstypes.ResourceInUseException
	if _, err := f.p.EKS.UpdateAddon(f.ctx, update); !errors.As(err, &inUse) {
		t.Errorf("updating a CREATING add-on: %v", err)
	}
	f.clock.Advance(scaled(addonCreateTime))
	var badParam *ekstypes.InvalidParameterException
	if _, err := f.p.EKS.UpdateAddon(f.ctx, &eks.UpdateAddonInput{ClusterName: aws.String("hp"), AddonName: in.AddonName, ConfigurationValues: aws.String(`{"a":`)}); !errors.As(err, &badParam) {
		t.Errorf("bad JSON: %v", err)
	}
	ok(f.p.EKS.UpdateAddon(f.ctx, update)).must(t)
	describe := func() *ekstypes.Addon {
		return ok(f.p.EKS.DescribeAddon(f.ctx, &eks.DescribeAddonInput{ClusterName: aws.String("hp"), AddonName: in.AddonName})).must(t).Addon
	}
	if a := describe(); a.Status != ekstypes.AddonStatusUpdating || *a.ConfigurationValues != `{"a":2}` {
		t.Errorf("after update: %s %s", a.Status, *a.ConfigurationValues)
	}
	f.clock.Advance(scaled(addonUpdateTime))
	if a := describe(); a.Status != ekstypes.AddonStatusActive {
		t.Errorf("after the update time: %s", a.Status)
	}
}
