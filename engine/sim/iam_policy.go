package sim

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// AttachRolePolicy attaches a managed policy to a role; attaching it again
// changes nothing.
func (a *iamAPI) AttachRolePolicy(ctx context.Context, in *iam.AttachRolePolicyInput, _ ...func(*iam.Options)) (*iam.AttachRolePolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "AttachRolePolicy", func(t *txn) (*iam.AttachRolePolicyOutput, error) {
		in := orZero(in)
		if err := need("AttachRolePolicyInput", param{"PolicyArn", in.PolicyArn != nil}, param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		if !policyArnPattern.MatchString(*in.PolicyArn) {
			return nil, &iamtypes.InvalidInputException{Message: aws.String(fmt.Sprintf("ARN %s is not valid.", *in.PolicyArn))}
		}
		if p, ours := t.customerPolicy(*in.PolicyArn); ours && p == nil {
			return nil, noSuchPolicy(*in.PolicyArn)
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		for _, arn := range r.Attached {
			if arn == *in.PolicyArn {
				return &iam.AttachRolePolicyOutput{}, nil
			}
		}
		if len(r.Attached) >= maxPoliciesPerRole {
			return nil, &iamtypes.LimitExceededException{Message: aws.String(fmt.Sprintf("Cannot exceed quota for PoliciesPerRole: %d", maxPoliciesPerRole))}
		}
		r.Attached = append(r.Attached, *in.PolicyArn)
		return &iam.AttachRolePolicyOutput{}, nil
	})
}

// DetachRolePolicy detaches a managed policy from a role.
func (a *iamAPI) DetachRolePolicy(ctx context.Context, in *iam.DetachRolePolicyInput, _ ...func(*iam.Options)) (*iam.DetachRolePolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "DetachRolePolicy", func(t *txn) (*iam.DetachRolePolicyOutput, error) {
		in := orZero(in)
		if err := need("DetachRolePolicyInput", param{"PolicyArn", in.PolicyArn != nil}, param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		for i, arn := range r.Attached {
			if arn == *in.PolicyArn {
				r.Attached = append(r.Attached[:i:i], r.Attached[i+1:]...)
				return &iam.DetachRolePolicyOutput{}, nil
			}
		}
		return nil, &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf("Policy %s was not found.", *in.PolicyArn))}
	})
}

// policyPathAndName splits a policy ARN into its path and name.
func policyPathAndName(arn string) (string, string) {
	_, rest, _ := strings.Cut(arn, ":policy")
	i := strings.LastIndex(rest, "/")
	return rest[:i+1], rest[i+1:]
}

// ListAttachedRolePolicies lists a role's managed policies, paginated with
// Marker and MaxItems.
func (a *iamAPI) ListAttachedRolePolicies(ctx context.Context, in *iam.ListAttachedRolePoliciesInput, _ ...func(*iam.Options)) (*iam.ListAttachedRolePoliciesOutput, error) {
	return call(ctx, a.w, svcIAM, "", "ListAttachedRolePolicies", func(t *txn) (*iam.ListAttachedRolePoliciesOutput, error) {
		in := orZero(in)
		if err := need("ListAttachedRolePoliciesInput", param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		var all []iamtypes.AttachedPolicy
		for _, arn := range r.Attached {
			path, name := policyPathAndName(arn)
			if strings.HasPrefix(path, aws.ToString(in.PathPrefix)) {
				all = append(all, iamtypes.AttachedPolicy{PolicyArn: aws.String(arn), PolicyName: aws.String(name)})
			}
		}
		items, marker, err := page(all, in.Marker, t.pageSize(svcIAM, "ListAttachedRolePolicies", in.MaxItems), 100)
		if err != nil {
			return nil, &iamtypes.InvalidInputException{Message: aws.String("Invalid Marker.")}
		}
		return &iam.ListAttachedRolePoliciesOutput{AttachedPolicies: items, Marker: marker, IsTruncated: marker != nil}, nil
	})
}

// PutRolePolicy adds or replaces an inline policy of a role.
func (a *iamAPI) PutRolePolicy(ctx context.Context, in *iam.PutRolePolicyInput, _ ...func(*iam.Options)) (*iam.PutRolePolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "PutRolePolicy", func(t *txn) (*iam.PutRolePolicyOutput, error) {
		in := orZero(in)
		if err := need("PutRolePolicyInput", param{"PolicyDocument", in.PolicyDocument != nil},
			param{"PolicyName", in.PolicyName != nil}, param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		if !policyNamePattern.MatchString(*in.PolicyName) {
			return nil, apiError("ValidationError", "1 validation error detected: Value '%s' at 'policyName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+", *in.PolicyName)
		}
		if err := checkPolicyDocument(*in.PolicyDocument); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		if r.Inline == nil {
			r.Inline = map[string]string{}
		}
		r.Inline[*in.PolicyName] = *in.PolicyDocument
		return &iam.PutRolePolicyOutput{}, nil
	})
}

// DeleteRolePolicy deletes an inline policy of a role.
func (a *iamAPI) DeleteRolePolicy(ctx context.Context, in *iam.DeleteRolePolicyInput, _ ...func(*iam.Options)) (*iam.DeleteRolePolicyOutput, error) {
	return call(ctx, a.w, svcIAM, "", "DeleteRolePolicy", func(t *txn) (*iam.DeleteRolePolicyOutput, error) {
		in := orZero(in)
		if err := need("DeleteRolePolicyInput", param{"PolicyName", in.PolicyName != nil}, param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		if _, ok := r.Inline[*in.PolicyName]; !ok {
			return nil, &iamtypes.NoSuchEntityException{Message: aws.String(fmt.Sprintf("The role policy with name %s cannot be found.", *in.PolicyName))}
		}
		delete(r.Inline, *in.PolicyName)
		return &iam.DeleteRolePolicyOutput{}, nil
	})
}

// ListRolePolicies lists the names of a role's inline policies.
func (a *iamAPI) ListRolePolicies(ctx context.Context, in *iam.ListRolePoliciesInput, _ ...func(*iam.Options)) (*iam.ListRolePoliciesOutput, error) {
	return call(ctx, a.w, svcIAM, "", "ListRolePolicies", func(t *txn) (*iam.ListRolePoliciesOutput, error) {
		in := orZero(in)
		if err := need("ListRolePoliciesInput", param{"RoleName", in.RoleName != nil}); err != nil {
			return nil, err
		}
		r, err := t.role(in.RoleName)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(r.Inline))
		for name := range r.Inline {
			names = append(names, name)
		}
		sort.Strings(names)
		items, marker, err := page(names, in.Marker, t.pageSize(svcIAM, "ListRolePolicies", in.MaxItems), 100)
		if err != nil {
			return nil, &iamtypes.InvalidInputException{Message: aws.String("Invalid Marker.")}
		}
		return &iam.ListRolePoliciesOutput{PolicyNames: items, Marker: marker, IsTruncated: marker != nil}, nil
	})
}
