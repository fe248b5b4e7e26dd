package cloud

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	fsxtypes "github.com/aws/aws-sdk-go-v2/service/fsx/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// MaxPages bounds how many pages a list call follows: a server that keeps
// handing out next tokens past it is answered with an error rather than
// read forever.
const MaxPages = 1000

// StopPages, returned by a page's visitor, ends the listing early without
// an error: a find-by-name stops at its match.
var StopPages = errors.New("stop paging")

// Pages calls fetch with the token of each page of operation op, nil for
// the first, until fetch answers no next token (nil or empty) or returns
// StopPages. It fails, naming op, when the pages do not end within
// MaxPages.
func Pages(op string, fetch func(token *string) (next *string, err error)) error {
	var token *string
	for range MaxPages {
		next, err := fetch(token)
		if errors.Is(err, StopPages) {
			return nil
		}
		if err != nil {
			return err
		}
		if aws.ToString(next) == "" {
			return nil
		}
		token = next
	}
	return TooManyPages(op)
}

// TooManyPages is the error of a listing of operation op that still had
// more pages after MaxPages.
func TooManyPages(op string) error {
	return fmt.Errorf("%s: the answer still had more pages after %d; the listing was stopped", op, MaxPages)
}

// Collect reads every page of operation op through call (which sends the
// token) and returns the items split takes from each page, in order.
func Collect[T, O any](op string, call func(token *string) (*O, error), split func(*O) ([]T, *string)) ([]T, error) {
	var all []T
	err := Pages(op, func(token *string) (*string, error) {
		out, err := call(token)
		if err != nil {
			return nil, err
		}
		items, next := split(out)
		all = append(all, items...)
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// iamMarker is the token of IAM's next page: its marker, when the answer
// says it is truncated.
func iamMarker(truncated bool, marker *string) *string {
	if !truncated {
		return nil
	}
	return marker
}

// AllVpcs returns every VPC DescribeVpcs answers for in, across pages.
func AllVpcs(ctx context.Context, c EC2, in ec2.DescribeVpcsInput) ([]ec2types.Vpc, error) {
	return Collect("DescribeVpcs", func(t *string) (*ec2.DescribeVpcsOutput, error) {
		in.NextToken = t
		return c.DescribeVpcs(ctx, &in)
	}, func(o *ec2.DescribeVpcsOutput) ([]ec2types.Vpc, *string) { return o.Vpcs, o.NextToken })
}

// AllSubnets returns every subnet DescribeSubnets answers for in, across
// pages.
func AllSubnets(ctx context.Context, c EC2, in ec2.DescribeSubnetsInput) ([]ec2types.Subnet, error) {
	return Collect("DescribeSubnets", func(t *string) (*ec2.DescribeSubnetsOutput, error) {
		in.NextToken = t
		return c.DescribeSubnets(ctx, &in)
	}, func(o *ec2.DescribeSubnetsOutput) ([]ec2types.Subnet, *string) { return o.Subnets, o.NextToken })
}

// AllRouteTables returns every route table DescribeRouteTables answers for
// in, across pages.
func AllRouteTables(ctx context.Context, c EC2, in ec2.DescribeRouteTablesInput) ([]ec2types.RouteTable, error) {
	return Collect("DescribeRouteTables", func(t *string) (*ec2.DescribeRouteTablesOutput, error) {
		in.NextToken = t
		return c.DescribeRouteTables(ctx, &in)
	}, func(o *ec2.DescribeRouteTablesOutput) ([]ec2types.RouteTable, *string) {
		return o.RouteTables, o.NextToken
	})
}

// AllSecurityGroups returns every security group DescribeSecurityGroups
// answers for in, across pages.
func AllSecurityGroups(ctx context.Context, c EC2, in ec2.DescribeSecurityGroupsInput) ([]ec2types.SecurityGroup, error) {
	return Collect("DescribeSecurityGroups", func(t *string) (*ec2.DescribeSecurityGroupsOutput, error) {
		in.NextToken = t
		return c.DescribeSecurityGroups(ctx, &in)
	}, func(o *ec2.DescribeSecurityGroupsOutput) ([]ec2types.SecurityGroup, *string) {
		return o.SecurityGroups, o.NextToken
	})
}

// AllInternetGateways returns every internet gateway
// DescribeInternetGateways answers for in, across pages.
func AllInternetGateways(ctx context.Context, c EC2, in ec2.DescribeInternetGatewaysInput) ([]ec2types.InternetGateway, error) {
	return Collect("DescribeInternetGateways", func(t *string) (*ec2.DescribeInternetGatewaysOutput, error) {
		in.NextToken = t
		return c.DescribeInternetGateways(ctx, &in)
	}, func(o *ec2.DescribeInternetGatewaysOutput) ([]ec2types.InternetGateway, *string) {
		return o.InternetGateways, o.NextToken
	})
}

// AllNatGateways returns every NAT gateway DescribeNatGateways answers for
// in, across pages.
func AllNatGateways(ctx context.Context, c EC2, in ec2.DescribeNatGatewaysInput) ([]ec2types.NatGateway, error) {
	return Collect("DescribeNatGateways", func(t *string) (*ec2.DescribeNatGatewaysOutput, error) {
		in.NextToken = t
		return c.DescribeNatGateways(ctx, &in)
	}, func(o *ec2.DescribeNatGatewaysOutput) ([]ec2types.NatGateway, *string) {
		return o.NatGateways, o.NextToken
	})
}

// AllAttachedRolePolicies returns every managed policy attached to the
// role in, across pages.
func AllAttachedRolePolicies(ctx context.Context, c IAM, in iam.ListAttachedRolePoliciesInput) ([]iamtypes.AttachedPolicy, error) {
	return Collect("ListAttachedRolePolicies", func(t *string) (*iam.ListAttachedRolePoliciesOutput, error) {
		in.Marker = t
		return c.ListAttachedRolePolicies(ctx, &in)
	}, func(o *iam.ListAttachedRolePoliciesOutput) ([]iamtypes.AttachedPolicy, *string) {
		return o.AttachedPolicies, iamMarker(o.IsTruncated, o.Marker)
	})
}

// AllRolePolicies returns the names of every inline policy of the role in,
// across pages.
func AllRolePolicies(ctx context.Context, c IAM, in iam.ListRolePoliciesInput) ([]string, error) {
	return Collect("ListRolePolicies", func(t *string) (*iam.ListRolePoliciesOutput, error) {
		in.Marker = t
		return c.ListRolePolicies(ctx, &in)
	}, func(o *iam.ListRolePoliciesOutput) ([]string, *string) {
		return o.PolicyNames, iamMarker(o.IsTruncated, o.Marker)
	})
}

// AllPolicyVersions returns every version of the policy in, across pages.
func AllPolicyVersions(ctx context.Context, c IAM, in iam.ListPolicyVersionsInput) ([]iamtypes.PolicyVersion, error) {
	return Collect("ListPolicyVersions", func(t *string) (*iam.ListPolicyVersionsOutput, error) {
		in.Marker = t
		return c.ListPolicyVersions(ctx, &in)
	}, func(o *iam.ListPolicyVersionsOutput) ([]iamtypes.PolicyVersion, *string) {
		return o.Versions, iamMarker(o.IsTruncated, o.Marker)
	})
}

// AllAddons returns the names of every add-on of the cluster in, across
// pages.
func AllAddons(ctx context.Context, c EKS, in eks.ListAddonsInput) ([]string, error) {
	return Collect("ListAddons", func(t *string) (*eks.ListAddonsOutput, error) {
		in.NextToken = t
		return c.ListAddons(ctx, &in)
	}, func(o *eks.ListAddonsOutput) ([]string, *string) { return o.Addons, o.NextToken })
}

// AllAssociatedAccessPolicies returns every access policy associated with
// the principal in, across pages.
func AllAssociatedAccessPolicies(ctx context.Context, c EKS, in eks.ListAssociatedAccessPoliciesInput) ([]ekstypes.AssociatedAccessPolicy, error) {
	return Collect("ListAssociatedAccessPolicies", func(t *string) (*eks.ListAssociatedAccessPoliciesOutput, error) {
		in.NextToken = t
		return c.ListAssociatedAccessPolicies(ctx, &in)
	}, func(o *eks.ListAssociatedAccessPoliciesOutput) ([]ekstypes.AssociatedAccessPolicy, *string) {
		return o.AssociatedAccessPolicies, o.NextToken
	})
}

// AllPodIdentityAssociations returns every pod identity association
// ListPodIdentityAssociations answers for in, across pages.
func AllPodIdentityAssociations(ctx context.Context, c EKS, in eks.ListPodIdentityAssociationsInput) ([]ekstypes.PodIdentityAssociationSummary, error) {
	return Collect("ListPodIdentityAssociations", func(t *string) (*eks.ListPodIdentityAssociationsOutput, error) {
		in.NextToken = t
		return c.ListPodIdentityAssociations(ctx, &in)
	}, func(o *eks.ListPodIdentityAssociationsOutput) ([]ekstypes.PodIdentityAssociationSummary, *string) {
		return o.Associations, o.NextToken
	})
}

// AllFileSystems returns every file system DescribeFileSystems answers for
// in, across pages.
func AllFileSystems(ctx context.Context, c FSx, in fsx.DescribeFileSystemsInput) ([]fsxtypes.FileSystem, error) {
	return Collect("DescribeFileSystems", func(t *string) (*fsx.DescribeFileSystemsOutput, error) {
		in.NextToken = t
		return c.DescribeFileSystems(ctx, &in)
	}, func(o *fsx.DescribeFileSystemsOutput) ([]fsxtypes.FileSystem, *string) {
		return o.FileSystems, o.NextToken
	})
}

// AllDataRepositoryAssociations returns every association
// DescribeDataRepositoryAssociations answers for in, across pages.
func AllDataRepositoryAssociations(ctx context.Context, c FSx, in fsx.DescribeDataRepositoryAssociationsInput) ([]fsxtypes.DataRepositoryAssociation, error) {
	return Collect("DescribeDataRepositoryAssociations", func(t *string) (*fsx.DescribeDataRepositoryAssociationsOutput, error) {
		in.NextToken = t
		return c.DescribeDataRepositoryAssociations(ctx, &in)
	}, func(o *fsx.DescribeDataRepositoryAssociationsOutput) ([]fsxtypes.DataRepositoryAssociation, *string) {
		return o.Associations, o.NextToken
	})
}

// KubePages lists a Kubernetes collection page by page: list is called
// with each page's continue token ("" for the first) and answers the
// token the server gave for the next, until it gives none. The server may
// return fewer items than a limit asks for, so a caller that sets one
// must follow the token. It fails, naming op, past MaxPages.
func KubePages(op string, list func(cont string) (next string, err error)) error {
	return Pages(op, func(token *string) (*string, error) {
		next, err := list(aws.ToString(token))
		return &next, err
	})
}
