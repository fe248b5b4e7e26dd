package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// policyRec is a customer managed policy of the account.
type policyRec struct {
	Name, ID, Path string
	Document       string // the default version's
	Description    string `json:",omitempty"`
	Created        time.Time
	// DefaultVersion is the default version's id (v1 when empty); Older
	// the other versions, oldest first; Next the number of the next one
	// (2 when zero).
	DefaultVersion string             `json:",omitempty"`
	DefaultSince   time.Time          `json:",omitzero"`
	Older          []policyVersionRec `json:",omitempty"`
	Next           int                `json:",omitempty"`
}

// policyVersionRec is a version of a managed policy that is not the
// default.
type policyVersionRec struct {
	ID       string
	Document string
	Created  time.Time
}

// maxPolicyVersions is how many versions IAM keeps of a managed policy.
const maxPolicyVersions = 5

func (p *policyRec) defaultVersion() policyVersionRec {
	v := policyVersionRec{ID: cmp.Or(p.DefaultVersion, "v1"), Document: p.Document, Created: p.Created}
	if !p.DefaultSince.IsZero() {
		v.Created = p.DefaultSince
	}
	return v
}

// version returns version id of the policy, and whether it is the default.
func (p *policyRec) version(id string) (policyVersionRec, bool, bool) {
	if d := p.defaultVersion(); d.ID == id {
		return d, true, true
	}
	for _, v := range p.Older {
		if v.ID == id {
			return v, false, true
		}
	}
	return policyVersionRec{}, false, false
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
		DefaultVersionId: aws.String(p.defaultVersion().ID), AttachmentCount: aws.Int32(int32(attached)), IsAttachable: true,
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
		if err := checkManagedDocument(*in.PolicyDocument); err != nil {
			return nil, err
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

// GetPolicyVersion returns a version of a customer managed policy, its
// document URL-encoded as IAM returns it.
func (a *iamAPI) GetPolicyVersion(ctx context.Context, in *iam.GetPolicyVersionInput, _ ...func(*iam.Options)) (*iam.GetPolicyVersionOutput, error) {
	return call(ctx, a.w, svcIAM, "", "GetPolicyVersion", func(t *txn) (*iam.GetPolicyVersionOutput, error) {
		in := orZero(in)
		if err := need("GetPolicyVersionInput", param{"PolicyArn", in.PolicyArn != nil}, param{"VersionId", in.VersionId != nil}); err != nil {
			return nil, err
		}
		p, _ := t.customerPolicy(*in.PolicyArn)
		if p == nil {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		v, isDefault, ok := p.version(*in.VersionId)
		if !ok {
			return nil, &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf("Policy %s version %s does not exist or is not attachable.", *in.PolicyArn, *in.VersionId))}
		}
		return &iam.GetPolicyVersionOutput{PolicyVersion: &iamtypes.PolicyVersion{
			Document: aws.String(urlEncodeDocument(v.Document)), VersionId: aws.String(v.ID), IsDefaultVersion: isDefault, CreateDate: aws.Time(v.Created),
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
		if len(p.Older) > 0 {
			return nil, &iamtypes.DeleteConflictException{Message: aws.String("This policy has more than one version. Before you delete a policy, you must delete the policy's versions. The default version is deleted with the policy.")}
		}
		delete(t.st.Policies, strings.ToLower(p.Name))
		return &iam.DeletePolicyOutput{}, nil
	})
}

// checkManagedDocument refuses a managed policy document IAM would not take.
func checkManagedDocument(document string) error {
	if len(document) > maxPolicyDocument {
		return &iamtypes.LimitExceededException{Message: aws.String(fmt.Sprintf("Cannot exceed quota for PolicySize: %d", maxPolicyDocument))}
	}
	var doc struct{ Version string }
	if json.Unmarshal([]byte(document), &doc) == nil && doc.Version == "" {
		return &iamtypes.MalformedPolicyDocumentException{Message: aws.String("The policy document has no Version.")}
	}
	return checkPolicyDocument(document)
}

// CreatePolicyVersion adds a version to a customer managed policy, the
// default one when SetAsDefault is set. A policy keeps at most five.
func (a *iamAPI) CreatePolicyVersion(ctx context.Context, in *iam.CreatePolicyVersionInput, _ ...func(*iam.Options)) (*iam.CreatePolicyVersionOutput, error) {
	return call(ctx, a.w, svcIAM, "", "CreatePolicyVersion", func(t *txn) (*iam.CreatePolicyVersionOutput, error) {
		in := orZero(in)
		if err := need("CreatePolicyVersionInput", param{"PolicyArn", in.PolicyArn != nil}, param{"PolicyDocument", in.PolicyDocument != nil}); err != nil {
			return nil, err
		}
		p, _ := t.customerPolicy(*in.PolicyArn)
		if p == nil {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		if err := checkManagedDocument(*in.PolicyDocument); err != nil {
			return nil, err
		}
		if 1+len(p.Older) >= maxPolicyVersions {
			return nil, &iamtypes.LimitExceededException{Message: aws.String(fmt.Sprintf("A managed policy can have up to %d versions. Before you create a new version, you must delete an existing version.", maxPolicyVersions))}
		}
		next := max(p.Next, 2)
		v := policyVersionRec{ID: fmt.Sprintf("v%d", next), Document: *in.PolicyDocument, Created: t.now}
		p.Next = next + 1
		if in.SetAsDefault {
			p.Older = append(p.Older, p.defaultVersion())
			p.Document, p.DefaultVersion, p.DefaultSince = v.Document, v.ID, v.Created
		} else {
			p.Older = append(p.Older, v)
		}
		return &iam.CreatePolicyVersionOutput{PolicyVersion: &iamtypes.PolicyVersion{VersionId: aws.String(v.ID), IsDefaultVersion: in.SetAsDefault, CreateDate: aws.Time(v.Created)}}, nil
	})
}

// ListPolicyVersions lists a customer managed policy's versions, newest
// first, without their documents.
func (a *iamAPI) ListPolicyVersions(ctx context.Context, in *iam.ListPolicyVersionsInput, _ ...func(*iam.Options)) (*iam.ListPolicyVersionsOutput, error) {
	return call(ctx, a.w, svcIAM, "", "ListPolicyVersions", func(t *txn) (*iam.ListPolicyVersionsOutput, error) {
		in := orZero(in)
		if err := need("ListPolicyVersionsInput", param{"PolicyArn", in.PolicyArn != nil}); err != nil {
			return nil, err
		}
		p, _ := t.customerPolicy(*in.PolicyArn)
		if p == nil {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		out := &iam.ListPolicyVersionsOutput{}
		for _, v := range append(slices.Clone(p.Older), p.defaultVersion()) {
			out.Versions = append(out.Versions, iamtypes.PolicyVersion{VersionId: aws.String(v.ID), IsDefaultVersion: v.ID == p.defaultVersion().ID, CreateDate: aws.Time(v.Created)})
		}
		slices.SortFunc(out.Versions, func(a, b iamtypes.PolicyVersion) int { return b.CreateDate.Compare(*a.CreateDate) })
		items, marker, err := page(out.Versions, in.Marker, t.pageSize(svcIAM, "ListPolicyVersions", in.MaxItems), 100)
		if err != nil {
			return nil, &iamtypes.InvalidInputException{Message: aws.String("Invalid Marker.")}
		}
		out.Versions, out.Marker, out.IsTruncated = items, marker, marker != nil
		return out, nil
	})
}

// DeletePolicyVersion deletes a version of a customer managed policy that
// is not its default.
func (a *iamAPI) DeletePolicyVersion(ctx context.Context, in *iam.DeletePolicyVersionInput, _ ...func(*iam.Options)) (*iam.DeletePolicyVersionOutput, error) {
	return call(ctx, a.w, svcIAM, "", "DeletePolicyVersion", func(t *txn) (*iam.DeletePolicyVersionOutput, error) {
		in := orZero(in)
		if err := need("DeletePolicyVersionInput", param{"PolicyArn", in.PolicyArn != nil}, param{"VersionId", in.VersionId != nil}); err != nil {
			return nil, err
		}
		p, _ := t.customerPolicy(*in.PolicyArn)
		if p == nil {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		_, isDefault, ok := p.version(*in.VersionId)
		switch {
		case !ok:
			return nil, &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf("Policy %s version %s does not exist.", *in.PolicyArn, *in.VersionId))}
		case isDefault:
			return nil, &iamtypes.DeleteConflictException{Message: aws.String("Cannot delete the default version of a policy.")}
		}
		p.Older = slices.DeleteFunc(p.Older, func(v policyVersionRec) bool { return v.ID == *in.VersionId })
		return &iam.DeletePolicyVersionOutput{}, nil
	})
}
