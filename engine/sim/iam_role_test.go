package sim

import (
	"errors"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"
)

func TestRoleLifecycle(t *testing.T) {
	f := newFixture(t)
	im := f.p.IAM
	role := ok(im.CreateRole(f.ctx, &iam.CreateRoleInput{
		RoleName: aws.String("HyperPodExec"), Path: aws.String("/instantstart/"), AssumeRolePolicyDocument: aws.String(trustPolicy),
	})).must(t).Role
	if *role.Arn != "arn:aws:iam::123456789012:role/instantstart/HyperPodExec" {
		t.Errorf("arn = %s", *role.Arn)
	}
	if doc, _ := url.QueryUnescape(*role.AssumeRolePolicyDocument); doc != trustPolicy {
		t.Errorf("trust policy round trip: %s", doc)
	}
	_, err := im.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String("hyperpodexec"), AssumeRolePolicyDocument: aws.String(trustPolicy)})
	var exists *iamtypes.EntityAlreadyExistsException
	if !errors.As(err, &exists) {
		t.Errorf("duplicate (case-insensitive) name: %v", err)
	}
	policy := "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
	ok(im.AttachRolePolicy(f.ctx, &iam.AttachRolePolicyInput{RoleName: role.RoleName, PolicyArn: aws.String(policy)})).must(t)
	ok(im.AttachRolePolicy(f.ctx, &iam.AttachRolePolicyInput{RoleName: role.RoleName, PolicyArn: aws.String(policy)})).must(t)
	ok(im.PutRolePolicy(f.ctx, &iam.PutRolePolicyInput{RoleName: role.RoleName, PolicyName: aws.String("s3"), PolicyDocument: aws.String(trustPolicy)})).must(t)
	attached := ok(im.ListAttachedRolePolicies(f.ctx, &iam.ListAttachedRolePoliciesInput{RoleName: role.RoleName})).must(t)
	if len(attached.AttachedPolicies) != 1 || *attached.AttachedPolicies[0].PolicyName != "AmazonSageMakerClusterInstanceRolePolicy" {
		t.Errorf("attached = %+v", attached.AttachedPolicies)
	}
	var conflict *iamtypes.DeleteConflictException
	if _, err := im.DeleteRole(f.ctx, &iam.DeleteRoleInput{RoleName: role.RoleName}); !errors.As(err, &conflict) {
		t.Errorf("delete with an attached policy: %v", err)
	}
	ok(im.DetachRolePolicy(f.ctx, &iam.DetachRolePolicyInput{RoleName: role.RoleName, PolicyArn: aws.String(policy)})).must(t)
	if _, err := im.DeleteRole(f.ctx, &iam.DeleteRoleInput{RoleName: role.RoleName}); !errors.As(err, &conflict) {
		t.Errorf("delete with an inline policy: %v", err)
	}
	names := ok(im.ListRolePolicies(f.ctx, &iam.ListRolePoliciesInput{RoleName: role.RoleName})).must(t).PolicyNames
	if len(names) != 1 || names[0] != "s3" {
		t.Errorf("inline policies = %v", names)
	}
	ok(im.DeleteRolePolicy(f.ctx, &iam.DeleteRolePolicyInput{RoleName: role.RoleName, PolicyName: aws.String("s3")})).must(t)
	ok(im.DeleteRole(f.ctx, &iam.DeleteRoleInput{RoleName: role.RoleName})).must(t)
	var missing *iamtypes.NoSuchEntityException
	if _, err := im.GetRole(f.ctx, &iam.GetRoleInput{RoleName: role.RoleName}); !errors.As(err, &missing) {
		t.Errorf("GetRole after delete: %v", err)
	}
}

func TestRoleValidation(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name string
		in   *iam.CreateRoleInput
		want any
	}{
		{"missing document", &iam.CreateRoleInput{RoleName: aws.String("r")}, new(*smithy.InvalidParamsError)},
		{"bad name", &iam.CreateRoleInput{RoleName: aws.String("a b"), AssumeRolePolicyDocument: aws.String(trustPolicy)}, new(smithy.APIError)},
		{"bad document", &iam.CreateRoleInput{RoleName: aws.String("r"), AssumeRolePolicyDocument: aws.String("{")}, new(*iamtypes.MalformedPolicyDocumentException)},
	}
	for _, c := range cases {
		_, err := f.p.IAM.CreateRole(f.ctx, c.in)
		if err == nil || !errors.As(err, c.want) {
			t.Errorf("%s: err = %v, want %T", c.name, err, c.want)
		}
	}
	_, err := f.p.IAM.AttachRolePolicy(f.ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("r"), PolicyArn: aws.String("AdministratorAccess")})
	var invalid *iamtypes.InvalidInputException
	if !errors.As(err, &invalid) {
		t.Errorf("attach of a malformed ARN: %v", err)
	}
}

func TestIAMIsGlobal(t *testing.T) {
	f := newFixture(t)
	f.role("shared")
	east := ok(f.w.Provider("us-east-1")).must(t)
	if _, err := east.IAM.GetRole(f.ctx, &iam.GetRoleInput{RoleName: aws.String("shared")}); err != nil {
		t.Errorf("a role made through us-west-2 is not visible from us-east-1: %v", err)
	}
}

func TestTrustPolicyNeedsAnExistingOIDCProvider(t *testing.T) {
	f := newFixture(t)
	im := f.p.IAM.(*iamAPI)
	provider := "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF"
	irsa := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"` + provider +
		`"},"Action":"sts:AssumeRoleWithWebIdentity"}]}`
	wantInvalid := func(what string, err error) {
		t.Helper()
		var malformed *iamtypes.MalformedPolicyDocumentException
		if !errors.As(err, &malformed) || aws.ToString(malformed.Message) != `Invalid principal in policy: "Federated":"`+provider+`"` {
			t.Errorf("%s: %v", what, err)
		}
	}

	_, err := im.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String("irsa"), AssumeRolePolicyDocument: aws.String(irsa)})
	wantInvalid("CreateRole before the provider exists", err)
	ok(im.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String("irsa"), AssumeRolePolicyDocument: aws.String(trustPolicy)})).must(t)
	_, err = im.UpdateAssumeRolePolicy(f.ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("irsa"), PolicyDocument: aws.String(irsa)})
	wantInvalid("UpdateAssumeRolePolicy before the provider exists", err)
	if doc := *ok(im.GetRole(f.ctx, &iam.GetRoleInput{RoleName: aws.String("irsa")})).must(t).Role.AssumeRolePolicyDocument; doc != urlEncodeDocument(trustPolicy) {
		t.Errorf("a refused update changed the trust policy to %s", doc)
	}

	ok(im.CreateOpenIDConnectProvider(f.ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String("https://oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF"), ClientIDList: []string{"sts.amazonaws.com"},
	})).must(t)
	ok(im.UpdateAssumeRolePolicy(f.ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("irsa"), PolicyDocument: aws.String(irsa)})).must(t)
	ok(im.CreateRole(f.ctx, &iam.CreateRoleInput{RoleName: aws.String("irsa2"), AssumeRolePolicyDocument: aws.String(irsa)})).must(t)
	if doc := *ok(im.GetRole(f.ctx, &iam.GetRoleInput{RoleName: aws.String("irsa")})).must(t).Role.AssumeRolePolicyDocument; doc != urlEncodeDocument(irsa) {
		t.Errorf("trust policy after the update: %s", doc)
	}
}
