package sim

import (
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

func TestAccessEntries(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	f.eksCluster("hp", n)
	admin := "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"

	// With API authentication the creator gets an admin entry, as in EKS.
	creator := ok(f.p.EKS.ListAssociatedAccessPolicies(f.ctx, &eks.ListAssociatedAccessPoliciesInput{
		ClusterName: aws.String("hp"), PrincipalArn: aws.String("arn:aws:iam::123456789012:role/InstantStartManagement"),
	})).must(t).AssociatedAccessPolicies
	if len(creator) != 1 || *creator[0].PolicyArn != admin {
		t.Errorf("creator policies = %+v", creator)
	}

	role := f.role("ops")
	entry := ok(f.p.EKS.CreateAccessEntry(f.ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(role)})).must(t).AccessEntry
	if *entry.Type != "STANDARD" || *entry.Username != "arn:aws:sts::123456789012:assumed-role/ops/{{SessionName}}" {
		t.Errorf("entry = %s %s", *entry.Type, *entry.Username)
	}
	var inUse *ekstypes.ResourceInUseException
	if _, err := f.p.EKS.CreateAccessEntry(f.ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(role)}); !errors.As(err, &inUse) {
		t.Errorf("duplicate entry: %v", err)
	}
	var badParam *ekstypes.InvalidParameterException
	if _, err := f.p.EKS.AssociateAccessPolicy(f.ctx, &eks.AssociateAccessPolicyInput{
		ClusterName: aws.String("hp"), PrincipalArn: aws.String(role), PolicyArn: aws.String(admin),
		AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeNamespace},
	}); !errors.As(err, &badParam) {
		t.Errorf("namespace scope without namespaces: %v", err)
	}
	ok(f.p.EKS.AssociateAccessPolicy(f.ctx, &eks.AssociateAccessPolicyInput{
		ClusterName: aws.String("hp"), PrincipalArn: aws.String(role), PolicyArn: aws.String("arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy"),
		AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeNamespace, Namespaces: []string{"team-a"}},
	})).must(t)
	got := ok(f.p.EKS.ListAssociatedAccessPolicies(f.ctx, &eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(role)})).must(t).AssociatedAccessPolicies
	if len(got) != 1 || got[0].AccessScope.Namespaces[0] != "team-a" {
		t.Errorf("policies = %+v", got)
	}
	ok(f.p.EKS.DeleteAccessEntry(f.ctx, &eks.DeleteAccessEntryInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(role)})).must(t)
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.EKS.DescribeAccessEntry(f.ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(role)}); !errors.As(err, &notFound) {
		t.Errorf("describe after delete: %v", err)
	}
}

func TestAccessEntriesNeedAPIAuthentication(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("cm"), RoleArn: aws.String(f.role("eks")), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	})).must(t)
	var invalid *ekstypes.InvalidRequestException
	if _, err := f.p.EKS.CreateAccessEntry(f.ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("cm"), PrincipalArn: aws.String(f.role("ops"))}); !errors.As(err, &invalid) {
		t.Errorf("access entry on a CONFIG_MAP cluster: %v", err)
	}
}

func TestListAccessEntriesAndDisassociate(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	f.eksCluster("hp", n)
	view := "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"
	edit := "arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy"
	a, b := f.role("alice"), f.role("bob")
	for _, r := range []string{b, a} {
		ok(f.p.EKS.CreateAccessEntry(f.ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(r)})).must(t)
	}
	for _, pol := range []string{view, edit} {
		ok(f.p.EKS.AssociateAccessPolicy(f.ctx, &eks.AssociateAccessPolicyInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(a),
			PolicyArn: aws.String(pol), AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster}})).must(t)
	}

	// One entry a page: the creator, alice and bob, in ARN order.
	var all []string
	var token *string
	for range 5 {
		out := ok(f.p.EKS.ListAccessEntries(f.ctx, &eks.ListAccessEntriesInput{ClusterName: aws.String("hp"), MaxResults: aws.Int32(1), NextToken: token})).must(t)
		all = append(all, out.AccessEntries...)
		if token = out.NextToken; token == nil {
			break
		}
	}
	want := []string{"arn:aws:iam::123456789012:role/InstantStartManagement", a, b}
	if !slices.Equal(all, want) {
		t.Errorf("access entries = %v, want %v", all, want)
	}
	withEdit := ok(f.p.EKS.ListAccessEntries(f.ctx, &eks.ListAccessEntriesInput{ClusterName: aws.String("hp"), AssociatedPolicyArn: aws.String(edit)})).must(t).AccessEntries
	if !slices.Equal(withEdit, []string{a}) {
		t.Errorf("entries with the edit policy = %v", withEdit)
	}

	ok(f.p.EKS.DisassociateAccessPolicy(f.ctx, &eks.DisassociateAccessPolicyInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(a), PolicyArn: aws.String(view)})).must(t)
	left := ok(f.p.EKS.ListAssociatedAccessPolicies(f.ctx, &eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(a)})).must(t).AssociatedAccessPolicies
	if len(left) != 1 || *left[0].PolicyArn != edit {
		t.Errorf("policies after disassociating view = %+v", left)
	}
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.EKS.DisassociateAccessPolicy(f.ctx, &eks.DisassociateAccessPolicyInput{ClusterName: aws.String("hp"), PrincipalArn: aws.String(a), PolicyArn: aws.String(view)}); !errors.As(err, &notFound) {
		t.Errorf("disassociating a policy not associated: %v", err)
	}
	if _, err := f.p.EKS.ListAccessEntries(f.ctx, &eks.ListAccessEntriesInput{ClusterName: aws.String("hp"), MaxResults: aws.Int32(101)}); err == nil {
		t.Error("ListAccessEntries took maxResults 101")
	}
}
