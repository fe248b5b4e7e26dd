package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

// iamAPI is the account-wide view of the simulated IAM.
type iamAPI struct{ w *World }

var _ cloud.IAM = (*iamAPI)(nil)

// roleRec is an IAM role with its managed and inline policies.
type roleRec struct {
	Name        string
	ID          string
	Path        string
	AssumeDoc   string
	Description string `json:",omitempty"`
	MaxSession  int32
	CreatedAt   time.Time
	Tags        map[string]string `json:",omitempty"`
	Attached    []string          `json:",omitempty"` // managed policy ARNs, in attach order
	Inline      map[string]string `json:",omitempty"` // inline policy name -> document
}

// maxPoliciesPerRole is IAM's default quota of managed policies per role.
const maxPoliciesPerRole = 10

var (
	roleNamePattern   = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
	policyNamePattern = regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)
	policyArnPattern  = regexp.MustCompile(`^arn:aws:iam::(aws|\d{12}):policy/([\x21-\x7e]+/)*[\w+=,.@-]+$`)
)

func (t *txn) roleArn(r *roleRec) string {
	return fmt.Sprintf("arn:aws:iam::%s:role%s%s", t.account(), r.Path, r.Name)
}

// roleByArn returns the role an ARN names in this account, or nil.
func (t *txn) roleByArn(arn string) *roleRec {
	prefix := fmt.Sprintf("arn:aws:iam::%s:role/", t.account())
	if !strings.HasPrefix(arn, prefix) {
		return nil
	}
	rest := strings.TrimPrefix(arn, prefix)
	name := rest[strings.LastIndex(rest, "/")+1:]
	r := t.st.Roles[strings.ToLower(name)]
	if r == nil || t.roleArn(r) != arn {
		return nil
	}
	return r
}

func (t *txn) role(name *string) (*roleRec, error) {
	r := t.st.Roles[strings.ToLower(aws.ToString(name))]
	if r == nil {
		return nil, &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf("The role with name %s cannot be found.", aws.ToString(name)))}
	}
	return r, nil
}

func (t *txn) roleOut(r *roleRec) *iamtypes.Role {
	out := &iamtypes.Role{
		Arn:        aws.String(t.roleArn(r)),
		RoleName:   aws.String(r.Name),
		RoleId:     aws.String(r.ID),
		Path:       aws.String(r.Path),
		CreateDate: aws.Time(r.CreatedAt),
		// IAM returns policy documents URL-encoded (RFC 3986).
		AssumeRolePolicyDocument: aws.String(urlEncodeDocument(r.AssumeDoc)),
		MaxSessionDuration:       aws.Int32(r.MaxSession),
		Tags:                     iamTags(r.Tags),
	}
	if r.Description != "" {
		out.Description = aws.String(r.Description)
	}
	return out
}

func iamTags(m map[string]string) []iamtypes.Tag {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []iamtypes.Tag
	for _, k := range keys {
		out = append(out, iamtypes.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return out
}

func iamTagMap(tags []iamtypes.Tag) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, tag := range tags {
		m[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	return m
}

// checkPolicyDocument rejects what IAM would not parse as a policy.
func checkPolicyDocument(doc string) error {
	var v struct {
		Statement json.RawMessage
	}
	if err := json.Unmarshal([]byte(doc), &v); err != nil || len(v.Statement) == 0 {
		return &iamtypes.MalformedPolicyDocumentException{Message: aws.String("Syntax errors in policy: a policy is a JSON object with a Statement.")}
	}
	return nil
}

// CreateRole creates a role; names are unique (case-insensitively) in the
// account.
func (a *iamAPI) CreateRole(ctx context.Context, in *iam.CreateRoleInput, _ ...func(*iam.Options)) (*iam.CreateRoleOutput, error) {
	return call(ctx, a.w, svcIAM, "", "CreateRole", func(t *txn) (*iam.CreateRoleOutput, error) {
		in := orZero(in)
		if err := need("CreateRoleInput", param{"AssumeRolePolicyDocument", in.AssumeRolePolicyDocument != nil}, param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		name := *in.RoleName
		if !roleNamePattern.MatchString(name) {
			return nil, apiError("ValidationError", "1 validation error detected: Value '%s' at 'roleName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+ and have length at most 64", name)
		}
		path := aws.ToString(in.Path)
		if path == "" {
			path = "/"
		}
		if !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, "/") || len(path) > 512 {
			return nil, apiError("ValidationError", "The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
		}
		if err := t.checkTrustPolicy(*in.AssumeRolePolicyDocument); err != nil {
			return nil, err
		}
		session := aws.ToInt32(in.MaxSessionDuration)
		if session == 0 {
			session = 3600
		}
		if session < 3600 || session > 43200 {
			return nil, apiError("ValidationError", "The requested MaxSessionDuration %d must be between 3600 and 43200 seconds.", session)
		}
		if t.st.Roles[strings.ToLower(name)] != nil {
			return nil, &iamtypes.EntityAlreadyExistsException{Message: aws.String(fmt.Sprintf("Role with name %s already exists.", name))}
		}
		r := &roleRec{
			Name: name, ID: "AROA" + t.randString(upperAlnum, 17), Path: path, AssumeDoc: *in.AssumeRolePolicyDocument,
			Description: aws.ToString(in.Description), MaxSession: session, CreatedAt: t.now, Tags: iamTagMap(in.Tags),
		}
		t.st.Roles[strings.ToLower(name)] = r
		return &iam.CreateRoleOutput{Role: t.roleOut(r)}, nil
	})
}

// GetRole describes a role.
func (a *iamAPI) GetRole(ctx context.Context, in *iam.GetRoleInput, _ ...func(*iam.Options)) (*iam.GetRoleOutput, error) {
	return call(ctx, a.w, svcIAM, "", "GetRole", func(t *txn) (*iam.GetRoleOutput, error) {
		in := orZero(in)
		if err := need("GetRoleInput", param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		return &iam.GetRoleOutput{Role: t.roleOut(r)}, nil
	})
}

// ListRoles lists the account's roles whose path starts with PathPrefix
// ("/" when empty), by name, in pages of MaxItems (100 when unset).
func (a *iamAPI) ListRoles(ctx context.Context, in *iam.ListRolesInput, _ ...func(*iam.Options)) (*iam.ListRolesOutput, error) {
	return call(ctx, a.w, svcIAM, "", "ListRoles", func(t *txn) (*iam.ListRolesOutput, error) {
		in := orZero(in)
		prefix := aws.ToString(in.PathPrefix)
		if prefix == "" {
			prefix = "/"
		}
		var all []iamtypes.Role
		for _, key := range sortedKeys(t.st.Roles) {
			if r := t.st.Roles[key]; strings.HasPrefix(r.Path, prefix) {
				all = append(all, *t.roleOut(r))
			}
		}
		items, marker, err := page(all, in.Marker, t.pageSize(svcIAM, "ListRoles", in.MaxItems), 100)
		if err != nil {
			return nil, &iamtypes.InvalidInputException{Message: aws.String("Invalid Marker.")}
		}
		return &iam.ListRolesOutput{Roles: items, Marker: marker, IsTruncated: marker != nil}, nil
	})
}

// DeleteRole deletes a role once no managed policy is attached and no
// inline policy remains.
func (a *iamAPI) DeleteRole(ctx context.Context, in *iam.DeleteRoleInput, _ ...func(*iam.Options)) (*iam.DeleteRoleOutput, error) {
	return call(ctx, a.w, svcIAM, "", "DeleteRole", func(t *txn) (*iam.DeleteRoleOutput, error) {
		in := orZero(in)
		if err := need("DeleteRoleInput", param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		switch {
		case len(r.Attached) > 0:
			return nil, &iamtypes.DeleteConflictException{Message: aws.String("Cannot delete entity, must detach all policies first.")}
		case len(r.Inline) > 0:
			return nil, &iamtypes.DeleteConflictException{Message: aws.String("Cannot delete entity, must delete policies first.")}
		}
		delete(t.st.Roles, strings.ToLower(r.Name))
		return &iam.DeleteRoleOutput{}, nil
	})
}

// urlEncodeDocument encodes a policy document as IAM returns documents:
// URL-encoded, spaces as %20.
func urlEncodeDocument(doc string) string {
	return strings.ReplaceAll(url.QueryEscape(doc), "+", "%20")
}

// checkTrustPolicy rejects a role trust policy IAM would not accept: one
// that is not a policy, or that trusts an OIDC provider of the account
// that does not exist (IAM resolves principals when it stores a policy).
func (t *txn) checkTrustPolicy(doc string) error {
	if err := checkPolicyDocument(doc); err != nil {
		return err
	}
	var v struct {
		Statement json.RawMessage
	}
	_ = json.Unmarshal([]byte(doc), &v) // checkPolicyDocument parsed it
	type statement struct{ Principal json.RawMessage }
	var statements []statement
	if json.Unmarshal(v.Statement, &statements) != nil {
		var one statement
		if json.Unmarshal(v.Statement, &one) != nil {
			return &iamtypes.MalformedPolicyDocumentException{Message: aws.String("Syntax errors in policy: Statement is an object or a list of objects.")}
		}
		statements = []statement{one}
	}
	prefix := fmt.Sprintf("arn:aws:iam::%s:oidc-provider/", t.account())
	for _, st := range statements {
		var principal map[string]json.RawMessage
		if json.Unmarshal(st.Principal, &principal) != nil {
			continue // "*", or no principal
		}
		for _, arn := range principalValues(principal["Federated"]) {
			if strings.HasPrefix(arn, prefix) && t.st.OIDC[arn] == nil {
				return &iamtypes.MalformedPolicyDocumentException{Message: aws.String(fmt.Sprintf("Invalid principal in policy: \"Federated\":\"%s\"", arn))}
			}
		}
	}
	return nil
}

// principalValues reads a principal's value: one string or a list of them.
func principalValues(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// UpdateAssumeRolePolicy replaces a role's trust policy.
func (a *iamAPI) UpdateAssumeRolePolicy(ctx context.Context, in *iam.UpdateAssumeRolePolicyInput, _ ...func(*iam.Options)) (*iam.UpdateAssumeRolePolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "UpdateAssumeRolePolicy", func(t *txn) (*iam.UpdateAssumeRolePolicyOutput, error) {
		in := orZero(in)
		if err := need("UpdateAssumeRolePolicyInput", param{"PolicyDocument", in.PolicyDocument != nil}, param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		if err := t.checkTrustPolicy(*in.PolicyDocument); err != nil {
			return nil, err
		}
		r.AssumeDoc = *in.PolicyDocument
		return &iam.UpdateAssumeRolePolicyOutput{}, nil
	})
}
