package sim

import (
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

const s3Policy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::ckpt/*"]}]}`

func TestManagedPolicyLifecycle(t *testing.T) {
	f := newFixture(t)
	im := f.p.IAM
	p := ok(im.CreatePolicy(f.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("ckpt"), Path: aws.String("/instantstart/"), PolicyDocument: aws.String(s3Policy)})).must(t).Policy
	if *p.Arn != "arn:aws:iam::123456789012:policy/instantstart/ckpt" || *p.DefaultVersionId != "v1" {
		t.Fatalf("policy %+v", p)
	}
	if _, err := im.CreatePolicy(f.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("CKPT"), PolicyDocument: aws.String(s3Policy)}); errorCode(t, err) != "EntityAlreadyExists" {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := im.CreatePolicy(f.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("bad"), PolicyDocument: aws.String("{}")}); errorCode(t, err) != "MalformedPolicyDocument" {
		t.Errorf("empty document: %v", err)
	}
	v := ok(im.GetPolicyVersion(f.ctx, &iam.GetPolicyVersionInput{PolicyArn: p.Arn, VersionId: aws.String("v1")})).must(t)
	if doc, _ := url.QueryUnescape(*v.PolicyVersion.Document); doc != s3Policy {
		t.Errorf("document round trip: %s", doc)
	}

	f.role("ckpt-role")
	role := "ckpt-role"
	ok(im.AttachRolePolicy(f.ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(role), PolicyArn: p.Arn})).must(t)
	missing := "arn:aws:iam::123456789012:policy/nope"
	if _, err := im.AttachRolePolicy(f.ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(missing)}); errorCode(t, err) != "NoSuchEntity" {
		t.Errorf("attaching a missing policy: %v", err)
	}
	if got := ok(im.GetPolicy(f.ctx, &iam.GetPolicyInput{PolicyArn: p.Arn})).must(t).Policy; aws.ToInt32(got.AttachmentCount) != 1 {
		t.Errorf("attachment count %d", aws.ToInt32(got.AttachmentCount))
	}
	if _, err := im.DeletePolicy(f.ctx, &iam.DeletePolicyInput{PolicyArn: p.Arn}); errorCode(t, err) != "DeleteConflict" {
		t.Errorf("deleting an attached policy: %v", err)
	}
	ok(im.DetachRolePolicy(f.ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(role), PolicyArn: p.Arn})).must(t)
	ok(im.DeletePolicy(f.ctx, &iam.DeletePolicyInput{PolicyArn: p.Arn})).must(t)
	if _, err := im.GetPolicy(f.ctx, &iam.GetPolicyInput{PolicyArn: p.Arn}); errorCode(t, err) != "NoSuchEntity" {
		t.Errorf("a deleted policy: %v", err)
	}
}

func TestManagedPolicyVersions(t *testing.T) {
	f := newFixture(t)
	im := f.p.IAM
	p := ok(im.CreatePolicy(f.ctx, &iam.CreatePolicyInput{PolicyName: aws.String("mount"), PolicyDocument: aws.String(s3Policy)})).must(t).Policy
	other := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::data/*"]}]}`
	v := ok(im.CreatePolicyVersion(f.ctx, &iam.CreatePolicyVersionInput{PolicyArn: p.Arn, PolicyDocument: aws.String(other), SetAsDefault: true})).must(t).PolicyVersion
	if *v.VersionId != "v2" || !v.IsDefaultVersion {
		t.Fatalf("new version %+v", v)
	}
	if got := ok(im.GetPolicy(f.ctx, &iam.GetPolicyInput{PolicyArn: p.Arn})).must(t).Policy; *got.DefaultVersionId != "v2" {
		t.Errorf("default version %s", *got.DefaultVersionId)
	}
	doc := ok(im.GetPolicyVersion(f.ctx, &iam.GetPolicyVersionInput{PolicyArn: p.Arn, VersionId: aws.String("v2")})).must(t).PolicyVersion.Document
	if d, _ := url.QueryUnescape(*doc); d != other {
		t.Errorf("v2 document %s", d)
	}
	for range 3 {
		ok(im.CreatePolicyVersion(f.ctx, &iam.CreatePolicyVersionInput{PolicyArn: p.Arn, PolicyDocument: aws.String(s3Policy)})).must(t)
	}
	if _, err := im.CreatePolicyVersion(f.ctx, &iam.CreatePolicyVersionInput{PolicyArn: p.Arn, PolicyDocument: aws.String(s3Policy)}); errorCode(t, err) != "LimitExceeded" {
		t.Errorf("sixth version: %v", err)
	}
	versions := ok(im.ListPolicyVersions(f.ctx, &iam.ListPolicyVersionsInput{PolicyArn: p.Arn})).must(t).Versions
	if len(versions) != 5 {
		t.Fatalf("%d versions", len(versions))
	}
	if _, err := im.DeletePolicyVersion(f.ctx, &iam.DeletePolicyVersionInput{PolicyArn: p.Arn, VersionId: aws.String("v2")}); errorCode(t, err) != "DeleteConflict" {
		t.Errorf("deleting the default version: %v", err)
	}
	if _, err := im.DeletePolicy(f.ctx, &iam.DeletePolicyInput{PolicyArn: p.Arn}); errorCode(t, err) != "DeleteConflict" {
		t.Errorf("deleting a policy with versions: %v", err)
	}
	for _, v := range versions {
		if !v.IsDefaultVersion {
			ok(im.DeletePolicyVersion(f.ctx, &iam.DeletePolicyVersionInput{PolicyArn: p.Arn, VersionId: v.VersionId})).must(t)
		}
	}
	ok(im.DeletePolicy(f.ctx, &iam.DeletePolicyInput{PolicyArn: p.Arn})).must(t)
}
