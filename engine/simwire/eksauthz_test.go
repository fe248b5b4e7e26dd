package simwire

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	authzv1 "k8s.io/api/authorization/v1"
)

const trustAccount = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"sts:AssumeRole"}]}`

// assume makes role name in the fixture's account and assumes it on the
// wire, returning the session's credentials.
func (f *authFixture) assume(t *testing.T, name string) (roleArn string, creds aws.Credentials) {
	t.Helper()
	ctx := context.Background()
	role, err := f.p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trustAccount)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := sts.NewFromConfig(f.cfg).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: role.Role.Arn, RoleSessionName: aws.String(name + "@laptop")})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Credentials
	return aws.ToString(role.Role.Arn), aws.Credentials{AccessKeyID: aws.ToString(c.AccessKeyId), SecretAccessKey: aws.ToString(c.SecretAccessKey), SessionToken: aws.ToString(c.SessionToken)}
}

// tokenAs presigns an EKS token for cluster wire with creds.
func (f *authFixture) tokenAs(t *testing.T, creds aws.Credentials) string {
	t.Helper()
	cfg := f.cfg.Copy()
	cfg.Credentials = credentials.StaticCredentialsProvider{Value: creds}
	presign := sts.NewPresignClient(sts.NewFromConfig(cfg))
	req, err := presign.PresignGetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{}, func(o *sts.PresignOptions) {
		o.ClientOptions = append(o.ClientOptions, func(so *sts.Options) {
			so.APIOptions = append(so.APIOptions, smithyhttp.SetHeaderValue("x-k8s-aws-id", "wire"))
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return "k8s-aws-v1." + base64.RawURLEncoding.EncodeToString([]byte(req.URL))
}

// TestAssumedRoleAuthenticatesAsItsRole: credentials from AssumeRole on
// the wire sign as the role's session; its EKS token authenticates as
// the role's access entry once it has one, and not before.
func TestAssumedRoleAuthenticatesAsItsRole(t *testing.T) {
	f := newAuthFixture(t)
	ctx := context.Background()
	role, creds := f.assume(t, "alice")

	cfg := f.cfg.Copy()
	cfg.Credentials = credentials.StaticCredentialsProvider{Value: creds}
	who, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := aws.ToString(who.Arn), "arn:aws:sts::123456789012:assumed-role/alice/alice@laptop"; got != want {
		t.Fatalf("the session is %s, want %s", got, want)
	}

	token := f.tokenAs(t, creds)
	if st := f.review(t, token); st.Authenticated {
		t.Fatalf("a role with no access entry authenticated: %+v", st.User)
	}
	if _, err := f.p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("wire"), PrincipalArn: aws.String(role)}); err != nil {
		t.Fatal(err)
	}
	st := f.review(t, token)
	if !st.Authenticated || st.User.Username != "arn:aws:sts::123456789012:assumed-role/alice/alice-laptop" || st.User.Extra["canonicalArn"][0] != role {
		t.Fatalf("review %+v", st)
	}
}

// TestEKSAuthorizerAppliesAccessPolicies: VIEW reads but does not write
// or read secrets, EDIT writes, namespace scope holds, and a principal
// with no entry is left to RBAC.
func TestEKSAuthorizerAppliesAccessPolicies(t *testing.T) {
	f := newAuthFixture(t)
	ctx := context.Background()
	authz := &EKSAuthorizer{Providers: f.auth.Providers, Region: f.auth.Region, Cluster: "wire"}
	const view, edit = eksViewPolicy, eksEditPolicy
	role := "arn:aws:iam::123456789012:role/bob"
	if _, err := f.p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("bob"), AssumeRolePolicyDocument: aws.String(trustAccount)}); err != nil {
		t.Fatal(err)
	}
	ask := func(verb, group, resource, sub, ns string) bool {
		t.Helper()
		ok, _, err := authz.Authorize(ctx, authzv1.SubjectAccessReviewSpec{
			User: "bob", Extra: map[string]authzv1.ExtraValue{"canonicalArn": {role}},
			ResourceAttributes: &authzv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Subresource: sub, Namespace: ns},
		})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if ask("list", "", "pods", "", "team-a") {
		t.Fatal("a principal with no entry was allowed")
	}
	if _, err := f.p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("wire"), PrincipalArn: aws.String(role)}); err != nil {
		t.Fatal(err)
	}
	associate := func(policy string, namespaces ...string) {
		t.Helper()
		scope := &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster}
		if len(namespaces) > 0 {
			scope = &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeNamespace, Namespaces: namespaces}
		}
		if _, err := f.p.EKS.AssociateAccessPolicy(ctx, &eks.AssociateAccessPolicyInput{ClusterName: aws.String("wire"), PrincipalArn: aws.String(role),
			PolicyArn: aws.String(policy), AccessScope: scope}); err != nil {
			t.Fatal(err)
		}
	}
	associate(view, "team-a", "ml-*")
	for _, c := range []struct {
		verb, group, resource, sub, ns string
		want                           bool
	}{
		{"list", "", "pods", "", "team-a", true},
		{"get", "", "pods", "log", "ml-research", true},
		{"list", "", "pods", "", "default", false},
		{"delete", "", "pods", "", "team-a", false},
		{"get", "", "secrets", "", "team-a", false},
		{"list", "apps", "deployments", "", "team-a", true},
		{"list", "", "nodes", "", "", false},
	} {
		if got := ask(c.verb, c.group, c.resource, c.sub, c.ns); got != c.want {
			t.Errorf("VIEW in team-a, ml-*: %s %s/%s/%s in %q = %v, want %v", c.verb, c.group, c.resource, c.sub, c.ns, got, c.want)
		}
	}
	associate(edit)
	for _, c := range []struct {
		verb, group, resource, sub, ns string
		want                           bool
	}{
		{"delete", "", "pods", "", "default", true},
		{"create", "", "pods", "exec", "default", true},
		{"get", "", "secrets", "", "default", true},
		{"create", "rbac.authorization.k8s.io", "rolebindings", "", "default", false},
		{"delete", "", "namespaces", "", "", false},
	} {
		if got := ask(c.verb, c.group, c.resource, c.sub, c.ns); got != c.want {
			t.Errorf("EDIT: %s %s/%s/%s in %q = %v, want %v", c.verb, c.group, c.resource, c.sub, c.ns, got, c.want)
		}
	}
}
