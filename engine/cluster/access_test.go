package cluster_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
)

const accessTrust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"sts:AssumeRole"}]}`

// accessFixture is an ACTIVE cluster and the EKS port of its region.
type accessFixture struct {
	*fixture
	id      string
	eksName string
	p       *cloud.Provider
}

func newAccessFixture(t *testing.T) *accessFixture {
	t.Helper()
	f := newFixture(t)
	op, err := f.svc.Create(context.Background(), "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	id := f.succeeded(t, op).Target.ID
	c, err := f.svc.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.world.Provider(c.Region)
	if err != nil {
		t.Fatal(err)
	}
	return &accessFixture{fixture: f, id: id, eksName: c.EKS.Name, p: p}
}

func (f *accessFixture) role(t *testing.T, name string) string {
	t.Helper()
	out, err := f.p.IAM.CreateRole(context.Background(), &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(accessTrust)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Role.Arn)
}

func (f *accessFixture) entry(t *testing.T, principal string) (cluster.AccessEntry, bool) {
	t.Helper()
	list, more, err := f.svc.AccessEntries(context.Background(), f.id)
	if err != nil || more {
		t.Fatalf("access entries: more %v, %v", more, err)
	}
	i := slices.IndexFunc(list, func(e cluster.AccessEntry) bool { return e.PrincipalArn == principal })
	if i < 0 {
		return cluster.AccessEntry{}, false
	}
	return list[i], true
}

// TestGrantAndRevokeClusterAccess: a grant makes the entry and its one
// policy, a second grant of another access replaces the association, the
// same grant again is a no-op, and a revoke deletes the entry; the list
// reads what EKS has, so an entry removed outside InstantStart is gone
// from it and one made outside is listed as found.
func TestGrantAndRevokeClusterAccess(t *testing.T) {
	f := newAccessFixture(t)
	ctx := context.Background()
	alice := f.role(t, "alice")

	f.succeeded(t, must(f.svc.GrantAccess(ctx, "ops-admin", cluster.GrantInput{ClusterID: f.id, PrincipalArn: alice, Access: cluster.AccessView}, "")))
	e, ok := f.entry(t, alice)
	if !ok || e.Access != cluster.AccessView || len(e.Namespaces) != 0 || e.Origin != cluster.OriginGranted || e.GrantedBy != "ops-admin" || e.GrantedAt == nil || e.Type != "STANDARD" {
		t.Fatalf("after granting VIEW: %+v (listed %v)", e, ok)
	}

	// Changing the access replaces the association: EDIT in two
	// namespaces, and VIEW is gone.
	f.succeeded(t, must(f.svc.GrantAccess(ctx, "ops-admin", cluster.GrantInput{ClusterID: f.id, PrincipalArn: alice, Access: cluster.AccessEdit, Namespaces: []string{"team-b", "team-a"}}, "")))
	e, _ = f.entry(t, alice)
	if e.Access != cluster.AccessEdit || !slices.Equal(e.Namespaces, []string{"team-a", "team-b"}) || !slices.Equal(e.PolicyArns, []string{cluster.AccessEdit.PolicyArn()}) {
		t.Fatalf("after granting EDIT in team-a, team-b: %+v", e)
	}
	again := f.succeeded(t, must(f.svc.GrantAccess(ctx, "ops-admin", cluster.GrantInput{ClusterID: f.id, PrincipalArn: alice, Access: cluster.AccessEdit, Namespaces: []string{"team-a", "team-b"}}, "")))
	if !again.Noop {
		t.Error("the same grant again was not a no-op")
	}

	// An entry made outside InstantStart is listed as found; a grant
	// adopts it and replaces its policies.
	bob := f.role(t, "bob")
	if _, err := f.p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String(f.eksName), PrincipalArn: aws.String(bob)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.p.EKS.AssociateAccessPolicy(ctx, &eks.AssociateAccessPolicyInput{ClusterName: aws.String(f.eksName), PrincipalArn: aws.String(bob),
		PolicyArn: aws.String("arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminPolicy"), AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster}}); err != nil {
		t.Fatal(err)
	}
	if e, _ := f.entry(t, bob); e.Origin != cluster.OriginFound || e.Access != "" || len(e.PolicyArns) != 1 {
		t.Fatalf("an entry made outside: %+v", e)
	}
	f.succeeded(t, must(f.svc.GrantAccess(ctx, "ops-admin", cluster.GrantInput{ClusterID: f.id, PrincipalArn: bob, Access: cluster.AccessView}, "")))
	if e, _ := f.entry(t, bob); e.Access != cluster.AccessView || !slices.Equal(e.PolicyArns, []string{cluster.AccessView.PolicyArn()}) {
		t.Fatalf("a grant to an entry made outside: %+v", e)
	}

	// Removed outside InstantStart: no longer listed.
	if _, err := f.p.EKS.DeleteAccessEntry(ctx, &eks.DeleteAccessEntryInput{ClusterName: aws.String(f.eksName), PrincipalArn: aws.String(bob)}); err != nil {
		t.Fatal(err)
	}
	if e, ok := f.entry(t, bob); ok {
		t.Fatalf("an entry deleted outside is still listed: %+v", e)
	}

	f.succeeded(t, must(f.svc.RevokeAccess(ctx, "ops-admin", f.id, alice, "")))
	if e, ok := f.entry(t, alice); ok {
		t.Fatalf("revoked, still listed: %+v", e)
	}
	if _, err := f.p.EKS.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(f.eksName), PrincipalArn: aws.String(alice)}); !errs.IsNotFound(err) {
		t.Fatalf("the access entry is still in EKS: %v", err)
	}
	if op := f.succeeded(t, must(f.svc.RevokeAccess(ctx, "ops-admin", f.id, alice, ""))); !op.Noop {
		t.Error("revoking a principal with no entry was not a no-op")
	}

	// The engine's own entry is listed as such.
	list, _, err := f.svc.AccessEntries(ctx, f.id)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Origin != cluster.OriginEngine || list[0].Access != cluster.AccessAdmin {
		t.Fatalf("entries at the end: %+v", list)
	}
}

// TestGrantResumesAfterTheEntry: a grant whose entry exists but whose
// policy was never associated (an interrupted run) associates it.
func TestGrantResumesAfterTheEntry(t *testing.T) {
	f := newAccessFixture(t)
	ctx := context.Background()
	carol := f.role(t, "carol")
	if _, err := f.p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String(f.eksName), PrincipalArn: aws.String(carol)}); err != nil {
		t.Fatal(err)
	}
	op := f.succeeded(t, must(f.svc.GrantAccess(ctx, "ops-admin", cluster.GrantInput{ClusterID: f.id, PrincipalArn: carol, Access: cluster.AccessAdmin}, "")))
	if op.Noop {
		t.Fatal("a grant with the policy missing was a no-op")
	}
	if e, _ := f.entry(t, carol); e.Access != cluster.AccessAdmin || e.Origin != cluster.OriginFound {
		t.Fatalf("entry: %+v", e)
	}
}

// TestGrantAndRevokeRefusals: bad input is VALIDATION naming the field,
// the engine's own principal is PRECONDITION.
func TestGrantAndRevokeRefusals(t *testing.T) {
	f := newAccessFixture(t)
	ctx := context.Background()
	ok := "arn:aws:iam::123456789012:role/team/alice"
	many := make([]string, cluster.MaxAccessNamespaces+1)
	for i := range many {
		many[i] = "ns-" + strings.Repeat("a", i+1)
	}
	for _, c := range []struct {
		name  string
		in    cluster.GrantInput
		code  errs.Code
		field string
	}{
		{"empty principal", cluster.GrantInput{Access: cluster.AccessView}, errs.Validation, "principalArn"},
		{"not an IAM ARN", cluster.GrantInput{PrincipalArn: "arn:aws:s3:::bucket", Access: cluster.AccessView}, errs.Validation, "principalArn"},
		{"a role session", cluster.GrantInput{PrincipalArn: "arn:aws:sts::123456789012:assumed-role/alice/me", Access: cluster.AccessView}, errs.Validation, "principalArn"},
		{"too long", cluster.GrantInput{PrincipalArn: "arn:aws:iam::123456789012:role/" + strings.Repeat("p/", 400) + "x", Access: cluster.AccessView}, errs.Validation, "principalArn"},
		{"no access", cluster.GrantInput{PrincipalArn: ok, Access: "OWNER"}, errs.Validation, "access"},
		{"admin in namespaces", cluster.GrantInput{PrincipalArn: ok, Access: cluster.AccessAdmin, Namespaces: []string{"team-a"}}, errs.Validation, "namespaces"},
		{"bad namespace", cluster.GrantInput{PrincipalArn: ok, Access: cluster.AccessView, Namespaces: []string{"team-a", "Team_B"}}, errs.Validation, "namespaces[1]"},
		{"twice", cluster.GrantInput{PrincipalArn: ok, Access: cluster.AccessView, Namespaces: []string{"a", "a"}}, errs.Validation, "namespaces"},
		{"too many", cluster.GrantInput{PrincipalArn: ok, Access: cluster.AccessView, Namespaces: many}, errs.Validation, "namespaces"},
		{"the engine", cluster.GrantInput{PrincipalArn: "arn:aws:iam::123456789012:role/InstantStartManagement", Access: cluster.AccessView}, errs.Precondition, "principalArn"},
		{"no cluster", cluster.GrantInput{ClusterID: "01NOSUCHCLUSTER0000000000", PrincipalArn: ok, Access: cluster.AccessView}, errs.NotFound, "clusterId"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.in.ClusterID == "" {
				c.in.ClusterID = f.id
			}
			_, err := f.svc.GrantAccess(ctx, "ops-admin", c.in, "")
			if e := errs.As(err); e == nil || e.Code != c.code || e.Field != c.field {
				t.Fatalf("%v; want %s on %s", err, c.code, c.field)
			}
		})
	}
	_, err := f.svc.RevokeAccess(ctx, "ops-admin", f.id, "arn:aws:iam::123456789012:role/InstantStartManagement", "")
	if e := errs.As(err); e == nil || e.Code != errs.Precondition || e.Field != "principalArn" {
		t.Fatalf("revoking the engine: %v; want PRECONDITION on principalArn", err)
	}
	if _, err := f.p.EKS.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(f.eksName), PrincipalArn: aws.String("arn:aws:iam::123456789012:role/InstantStartManagement")}); err != nil {
		t.Fatalf("the engine's entry: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
