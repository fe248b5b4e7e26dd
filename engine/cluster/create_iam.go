package cluster

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// roleSpec is an IAM role a cluster needs.
type roleSpec struct {
	// output is where the phase's output carries its ARN.
	output   func(o *iamOutput) *string
	name     string
	service  string // the service principal that may assume it
	policies []string
	// inline is an optional inline policy document (scoped permissions).
	inline string
}

func clusterRoles(name string) []roleSpec {
	return []roleSpec{
		{output: func(o *iamOutput) *string { return &o.EKSClusterRoleArn }, name: "InstantStart-" + name + "-EKS", service: "eks.amazonaws.com",
			policies: []string{"arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"}},
		{output: func(o *iamOutput) *string { return &o.ExecutionRoleArn }, name: "InstantStart-" + name + "-Exec", service: "sagemaker.amazonaws.com",
			policies: []string{"arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"},
			// Nodes read their own HyperPod description (node labels, health).
			inline: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["sagemaker:DescribeClusterNode"],"Resource":"*"}]}`},
		// The system node group's instances; made with the others so that
		// scaleSystemNodes can add a group to a cluster made without one.
		{output: func(o *iamOutput) *string { return &o.NodeRoleArn }, name: nodeRoleName(name), service: "ec2.amazonaws.com", policies: nodeRolePolicies},
	}
}

func trustPolicy(service string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"` + service + `"},"Action":"sts:AssumeRole"}]}`
}

const inlinePolicyName = "instantstart"

type roles struct {
	p     *cloud.Provider
	specs []roleSpec
}

func (r *roles) observe(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	var out iamOutput
	for _, spec := range r.specs {
		arn, complete, err := r.check(ctx, spec)
		if err != nil {
			return ops.Observation{}, err
		}
		if !complete {
			return ops.Observation{State: ops.Absent}, nil
		}
		*spec.output(&out) = arn
	}
	return ops.Observation{State: ops.Done, Output: out, Message: "IAM roles ready"}, nil
}

// check reports the role's ARN and whether it has every policy it needs.
func (r *roles) check(ctx context.Context, spec roleSpec) (string, bool, error) {
	role, err := r.p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(spec.name)})
	if errs.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	attached, err := cloud.AllAttachedRolePolicies(ctx, r.p.IAM, iam.ListAttachedRolePoliciesInput{RoleName: aws.String(spec.name)})
	if err != nil {
		return "", false, err
	}
	for _, want := range spec.policies {
		if !slices.ContainsFunc(attached, func(p iamtypes.AttachedPolicy) bool { return aws.ToString(p.PolicyArn) == want }) {
			return "", false, nil
		}
	}
	if spec.inline != "" {
		inl, err := cloud.AllRolePolicies(ctx, r.p.IAM, iam.ListRolePoliciesInput{RoleName: aws.String(spec.name)})
		if err != nil {
			return "", false, err
		}
		if !slices.Contains(inl, inlinePolicyName) {
			return "", false, nil
		}
	}
	return aws.ToString(role.Role.Arn), true, nil
}

func (r *roles) apply(ctx context.Context, _ *ops.Run) (any, error) {
	var out iamOutput
	for _, spec := range r.specs {
		role, err := r.p.IAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(spec.name), AssumeRolePolicyDocument: aws.String(trustPolicy(spec.service)),
			Description: aws.String("Made by InstantStart"), Tags: []iamtypes.Tag{{Key: aws.String("instantstart:managed"), Value: aws.String("true")}}})
		switch {
		case err == nil:
			*spec.output(&out) = aws.ToString(role.Role.Arn)
		case errs.IsAPICode(err, "EntityAlreadyExists", "EntityAlreadyExistsException"):
		default:
			return nil, err
		}
		for _, p := range spec.policies {
			if _, err := r.p.IAM.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(spec.name), PolicyArn: aws.String(p)}); err != nil {
				return nil, err
			}
		}
		if spec.inline != "" {
			if _, err := r.p.IAM.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(spec.name), PolicyName: aws.String(inlinePolicyName), PolicyDocument: aws.String(spec.inline)}); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// deleteRoles removes the roles, their policies first; roles already gone
// are fine.
func deleteRoles(ctx context.Context, p *cloud.Provider, specs []roleSpec) error {
	for _, spec := range specs {
		name := aws.String(spec.name)
		attached, err := cloud.AllAttachedRolePolicies(ctx, p.IAM, iam.ListAttachedRolePoliciesInput{RoleName: name})
		if errs.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		for _, a := range attached {
			if _, err := p.IAM.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: name, PolicyArn: a.PolicyArn}); err != nil && !errs.IsNotFound(err) {
				return err
			}
		}
		inl, err := cloud.AllRolePolicies(ctx, p.IAM, iam.ListRolePoliciesInput{RoleName: name})
		if err != nil && !errs.IsNotFound(err) {
			return err
		}
		for _, pn := range inl {
			if _, err := p.IAM.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: name, PolicyName: aws.String(pn)}); err != nil && !errs.IsNotFound(err) {
				return err
			}
		}
		if _, err := p.IAM.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: name}); err != nil && !errs.IsNotFound(err) {
			return err
		}
	}
	return nil
}
