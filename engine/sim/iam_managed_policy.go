package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// policyRec is a customer managed policy of the account.
type policyRec struct {
	Name, ID, Path string
	Document       string
	Description    string `json:",omitempty"`
	Created        time.Time
}

// maxPolicyDocument is IAM's limit on a managed policy document's size.
const maxPolicyDocument = 6144

func (t *txn) policyArn(p *policyRec) string {
	return fmt.Sprintf("arn:aws:iam::%s:policy%s%s", t.account(), p.Path, p.Name)
}

// customerPolicy finds the account's policy arn: nil, false when arn is an
// AWS managed policy (which the simulator takes as existing), nil, true
// when it is the account's and does not exist.
func (t *txn) customerPolicy(arn string) (*policyRec, bool) {
	if !strings.HasPrefix(arn, "arn:aws:iam::"+t.account()+":policy") {
		return nil, false
	}
	_, name := policyPathAndName(arn)
	p := t.st.Policies[strings.ToLower(name)]
	if p == nil || t.policyArn(p) != arn {
		return nil, true
	}
	return p, true
}

func (t *txn) policyOut(p *policyRec) *iamtypes.Policy {
	attached := 0
	for _, r := range t.st.Roles {
		for _, a := range r.Attached {
			if a == t.policyArn(p) {
				attached++
			}
		}
	}
	return &iamtypes.Policy{
		Arn: aws.String(t.policyArn(p)), PolicyName: aws.String(p.Name), PolicyId: aws.String(p.ID), Path: aws.String(p.Path),
		DefaultVersionId: aws.String("v1"), AttachmentCount: aws.Int32(int32(attached)), IsAttachable: true,
		CreateDate: aws.Time(p.Created), UpdateDate: aws.Time(p.Created), Description: optString(p.Description),
	}
}

func noSuchPolicy(arn string) error {
	return &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf("Policy %s does not exist or is not attachable.", arn))}
}

// CreatePolicy creates a customer managed policy.
func (a *iamAPI) CreatePolicy(ctx context.Context, in *iam.CreatePolicyInput, _ ...func(*iam.Options)) (*iam.CreatePolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "CreatePolicy", func(t *txn) (*iam.CreatePolicyOutput, error) {
		in := orZero(in)
		if err := need("CreatePolicyInput", param{"PolicyDocument", in.PolicyDocument != nil}, param{"PolicyName", in.PolicyName != nil}); err != nil {
			return nil, err
		}
		name, path := *in.PolicyName, aws.ToString(in.Path)
		if path == "" {
			path = "/"
		}
		if !policyNamePattern.MatchString(name) {
			return nil, &iamtypes.InvalidInputException{Message: aws.String(fmt.Sprintf("The specified value for policyName is invalid: %q.", name))}
		}
		if !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, "/") {
			return nil, &iamtypes.InvalidInputException{Message: aws.String("The specified value for path is invalid: it must begin and end with /.")}
		}
		if len(*in.PolicyDocument) > maxPolicyDocument {
			return nil, &iamtypes.LimitExceededException{Message: aws.String(fmt.Sprintf("Cannot exceed quota for PolicySize: %d", maxPolicyDocument))}
		}
		var doc struct {
			Version   string
			Statement json.RawMessage
		}
		if err := json.Unmarshal([]byte(*in.PolicyDocument), &doc); err != nil || doc.Version == "" || len(doc.Statement) == 0 {
			return nil, &iamtypes.MalformedPolicyDocumentException{Message: aws.String("The policy document is not valid JSON with a Version and a Statement.")}
		}
		if t.st.Policies[strings.ToLower(name)] != nil {
			return nil, &iamtypes.EntityAlreadyExistsException{Message: aws.String(fmt.Sprintf("A policy called %s already exists. Duplicate names are not allowed.", name))}
		}
		p := &policyRec{Name: name, ID: "ANPA" + t.randString(upperAlnum, 17), Path: path, Document: *in.PolicyDocument,
			Description: aws.ToString(in.Description), Created: t.now}
		t.st.Policies[strings.ToLower(name)] = p
		return &iam.CreatePolicyOutput{Policy: t.policyOut(p)}, nil
	})
}

// GetPolicy describes a customer managed policy.
func (a *iamAPI) GetPolicy(ctx context.Context, in *iam.GetPolicyInput, _ ...func(*iam.Options)) (*iam.GetPolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "GetPolicy", func(t *txn) (*iam.GetPolicyOutput, error) {
		in := orZero(in)
		if err := need("GetPolicyInput", param{"PolicyArn", in.PolicyArn != nil}); err != nil {
			return nil, err
		}
		p, _ := t.customerPolicy(*in.PolicyArn)
		if p == nil {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		return &iam.GetPolicyOutput{Policy: t.policyOut(p)}, nil
	})
}

// GetPolicyVersion returns a customer managed policy's document (the
// simulator keeps one version, v1), URL-encoded as IAM returns it.
func (a *iamAPI) GetPolicyVersion(ctx context.Context, in *iam.GetPolicyVersionInput, _ ...func(*iam.Options)) (*iam.GetPolicyVersionOutput, error) {
	return call(ctx, a.w, svcIAM, "", "GetPolicyVersion", func(t *txn) (*iam.GetPolicyVersionOutput, error) {
		in := orZero(in)
		if err := need("GetPolicyVersionInput", param{"PolicyArn", in.PolicyArn != nil}, param{"VersionId", in.VersionId != nil}); err != nil {
			return nil, err
		}
		p, _ := t.customerPolicy(*in.PolicyArn)
		if p == nil || *in.VersionId != "v1" {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		return &iam.GetPolicyVersionOutput{PolicyVersion: &iamtypes.PolicyVersion{
			Document: aws.String(urlEncodeDocument(p.Document)), VersionId: aws.String("v1"), IsDefaultVersion: true, CreateDate: aws.Time(p.Created),
		}}, nil
	})
}

// DeletePolicy deletes a customer managed policy that no role has attached.
func (a *iamAPI) DeletePolicy(ctx context.Context, in *iam.DeletePolicyInput, _ ...func(*iam.Options)) (*iam.DeletePolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "DeletePolicy", func(t *txn) (*iam.DeletePolicyOutput, error) {
		in := orZero(in)
		if err := need("DeletePolicyInput", param{"PolicyArn", in.PolicyArn != nil}); err != nil {
			return nil, err
		}
		p, _ := t.customerPolicy(*in.PolicyArn)
		if p == nil {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		if aws.ToInt32(t.policyOut(p).AttachmentCount) > 0 {
			return nil, &iamtypes.DeleteConflictException{Message: aws.String("Cannot delete a policy attached to entities.")}
		}
		delete(t.st.Policies, strings.ToLower(p.Name))
		return &iam.DeletePolicyOutput{}, nil
	})
}
