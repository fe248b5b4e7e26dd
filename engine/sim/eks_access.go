package sim

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// accessEntryRec grants an IAM principal access to a cluster's Kubernetes
// API, through Kubernetes groups or associated access policies.
type accessEntryRec struct {
	PrincipalArn string
	Arn          string
	Type         string
	Username     string
	Groups       []string          `json:",omitempty"`
	Tags         map[string]string `json:",omitempty"`
	CreatedAt    time.Time
	ModifiedAt   time.Time
	Policies     []accessPolicyRec `json:",omitempty"`
}

type accessPolicyRec struct {
	PolicyArn    string
	ScopeType    string
	Namespaces   []string `json:",omitempty"`
	AssociatedAt time.Time
	ModifiedAt   time.Time
}

var (
	principalPattern    = regexp.MustCompile(`^arn:aws:iam::(\d{12}):(role|user)/(.+/)?([\w+=,.@-]+)$`)
	accessPolicyPattern = regexp.MustCompile(`^arn:aws:eks::aws:cluster-access-policy/[A-Za-z]+$`)
)

// validAccessEntryType tells whether EKS knows access entry type typ.
func validAccessEntryType(typ string) bool {
	switch typ {
	case "STANDARD", "EC2_LINUX", "EC2_WINDOWS", "FARGATE_LINUX", "EC2", "HYBRID_LINUX", "HYPERPOD_LINUX":
		return true
	}
	return false
}

// newAccessEntry records an access entry; the caller has validated it.
func (t *txn) newAccessEntry(c *eksClusterRec, principal, typ, username string, groups []string, tags map[string]string) *accessEntryRec {
	m := principalPattern.FindStringSubmatch(principal)
	kind, account, name := m[2], m[1], m[4]
	if username == "" {
		switch {
		case typ != "STANDARD":
			username = "system:node:{{EC2PrivateDNSName}}"
		case kind == "role":
			username = fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/{{SessionName}}", account, name)
		default:
			username = principal
		}
	}
	e := &accessEntryRec{
		PrincipalArn: principal, Type: typ, Username: username, Groups: groups, Tags: tags, CreatedAt: t.now, ModifiedAt: t.now,
		Arn: fmt.Sprintf("arn:aws:eks:%s:%s:access-entry/%s/%s/%s/%s/%s", t.region, t.account(), c.Name, kind, account, name, t.uuid()),
	}
	c.AccessEntries[principal] = e
	return e
}

func (t *txn) accessEntryOut(c *eksClusterRec, e *accessEntryRec) *ekstypes.AccessEntry {
	return &ekstypes.AccessEntry{
		AccessEntryArn: aws.String(e.Arn), ClusterName: aws.String(c.Name), PrincipalArn: aws.String(e.PrincipalArn),
		Type: aws.String(e.Type), Username: aws.String(e.Username), KubernetesGroups: slices.Clone(e.Groups), Tags: maps.Clone(e.Tags),
		CreatedAt: aws.Time(e.CreatedAt), ModifiedAt: aws.Time(e.ModifiedAt),
	}
}

// accessCluster returns a cluster whose access entries may be managed: it
// exists, is not being deleted, and authenticates through the EKS API.
func (t *txn) accessCluster(name *string) (*eksClusterRec, error) {
	c, err := t.eksCluster(name)
	if err != nil {
		return nil, err
	}
	if c.status(t.now) == ekstypes.ClusterStatusDeleting {
		return nil, eksInvalidRequest("Cluster %s is being deleted.", c.Name)
	}
	if c.AuthMode == string(ekstypes.AuthenticationModeConfigMap) {
		return nil, eksInvalidRequest("The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation.")
	}
	return c, nil
}

func (t *txn) accessEntry(clusterName, principal *string) (*eksClusterRec, *accessEntryRec, error) {
	c, err := t.accessCluster(clusterName)
	if err != nil {
		return nil, nil, err
	}
	e := c.AccessEntries[aws.ToString(principal)]
	if e == nil {
		return nil, nil, &ekstypes.ResourceNotFoundException{
			Message:     aws.String("The specified principalArn could not be found. You can view your available access entries with 'list-access-entries'."),
			ClusterName: aws.String(c.Name),
		}
	}
	return c, e, nil
}

// CreateAccessEntry grants an IAM role or user access to a cluster.
func (a *eksAPI) CreateAccessEntry(ctx context.Context, in *eks.CreateAccessEntryInput, _ ...func(*eks.Options)) (*eks.CreateAccessEntryOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "CreateAccessEntry", func(t *txn) (*eks.CreateAccessEntryOutput, error) {
		in := orZero(in)
		if err := need("CreateAccessEntryInput", param{"ClusterName", in.ClusterName != nil}, param{"PrincipalArn", in.PrincipalArn != nil}); err != nil {
			return nil, err
		}
		c, err := t.accessCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		principal := *in.PrincipalArn
		m := principalPattern.FindStringSubmatch(principal)
		if m == nil {
			return nil, eksInvalidParameter("The specified principalArn is invalid: %s is not an IAM role or user ARN.", principal)
		}
		if m[1] == t.account() && m[2] == "role" && principal != t.callerArn() && t.roleUsable(principal) == nil {
			return nil, eksInvalidParameter("The specified principalArn is invalid: invalid principal %s.", principal)
		}
		typ := aws.ToString(in.Type)
		if typ == "" {
			typ = "STANDARD"
		}
		if !validAccessEntryType(typ) {
			return nil, eksInvalidParameter("The access entry type %s is not supported.", typ)
		}
		if typ != "STANDARD" && (len(in.KubernetesGroups) > 0 || in.Username != nil) {
			return nil, eksInvalidParameter("Kubernetes groups and username can only be set on access entries of type STANDARD.")
		}
		for _, g := range in.KubernetesGroups {
			if strings.HasPrefix(g, "system:") {
				return nil, eksInvalidParameter("The Kubernetes group %s is reserved.", g)
			}
		}
		if c.AccessEntries[principal] != nil {
			return nil, &ekstypes.ResourceInUseException{
				Message:     aws.String("The specified access entry resource is already in use on this cluster."),
				ClusterName: aws.String(c.Name),
			}
		}
		e := t.newAccessEntry(c, principal, typ, aws.ToString(in.Username), append([]string(nil), in.KubernetesGroups...), maps.Clone(in.Tags))
		return &eks.CreateAccessEntryOutput{AccessEntry: t.accessEntryOut(c, e)}, nil
	})
}

// DescribeAccessEntry describes an access entry.
func (a *eksAPI) DescribeAccessEntry(ctx context.Context, in *eks.DescribeAccessEntryInput, _ ...func(*eks.Options)) (*eks.DescribeAccessEntryOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DescribeAccessEntry", func(t *txn) (*eks.DescribeAccessEntryOutput, error) {
		in := orZero(in)
		if err := need("DescribeAccessEntryInput", param{"ClusterName", in.ClusterName != nil}, param{"PrincipalArn", in.PrincipalArn != nil}); err != nil {
			return nil, err
		}
		c, e, err := t.accessEntry(in.ClusterName, in.PrincipalArn)
		if err != nil {
			return nil, err
		}
		return &eks.DescribeAccessEntryOutput{AccessEntry: t.accessEntryOut(c, e)}, nil
	})
}

// DeleteAccessEntry revokes an access entry and its access policies.
func (a *eksAPI) DeleteAccessEntry(ctx context.Context, in *eks.DeleteAccessEntryInput, _ ...func(*eks.Options)) (*eks.DeleteAccessEntryOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DeleteAccessEntry", func(t *txn) (*eks.DeleteAccessEntryOutput, error) {
		in := orZero(in)
		if err := need("DeleteAccessEntryInput", param{"ClusterName", in.ClusterName != nil}, param{"PrincipalArn", in.PrincipalArn != nil}); err != nil {
			return nil, err
		}
		c, e, err := t.accessEntry(in.ClusterName, in.PrincipalArn)
		if err != nil {
			return nil, err
		}
		delete(c.AccessEntries, e.PrincipalArn)
		return &eks.DeleteAccessEntryOutput{}, nil
	})
}

// AssociateAccessPolicy associates an EKS access policy with an access
// entry, for the whole cluster or some namespaces. Associating it again
// replaces the scope.
func (a *eksAPI) AssociateAccessPolicy(ctx context.Context, in *eks.AssociateAccessPolicyInput, _ ...func(*eks.Options)) (*eks.AssociateAccessPolicyOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "AssociateAccessPolicy", func(t *txn) (*eks.AssociateAccessPolicyOutput, error) {
		in := orZero(in)
		if err := need("AssociateAccessPolicyInput", param{"AccessScope", in.AccessScope != nil}, param{"ClusterName", in.ClusterName != nil},
			param{"PolicyArn", in.PolicyArn != nil}, param{"PrincipalArn", in.PrincipalArn != nil}); err != nil {
			return nil, err
		}
		c, e, err := t.accessEntry(in.ClusterName, in.PrincipalArn)
		if err != nil {
			return nil, err
		}
		if !accessPolicyPattern.MatchString(*in.PolicyArn) {
			return nil, eksInvalidParameter("The policy ARN %s is not an EKS cluster access policy (arn:aws:eks::aws:cluster-access-policy/<name>).", *in.PolicyArn)
		}
		if e.Type != "STANDARD" {
			return nil, eksInvalidRequest("Access policies can only be associated with access entries of type STANDARD.")
		}
		scope := in.AccessScope
		switch scope.Type {
		case ekstypes.AccessScopeTypeCluster:
			if len(scope.Namespaces) > 0 {
				return nil, eksInvalidParameter("A cluster access scope takes no namespaces.")
			}
		case ekstypes.AccessScopeTypeNamespace:
			if len(scope.Namespaces) == 0 {
				return nil, eksInvalidParameter("A namespace access scope needs at least one namespace.")
			}
		default:
			return nil, eksInvalidParameter("Access scope type %q is invalid: use cluster or namespace.", scope.Type)
		}
		p := accessPolicyRec{
			PolicyArn: *in.PolicyArn, ScopeType: string(scope.Type), Namespaces: append([]string(nil), scope.Namespaces...),
			AssociatedAt: t.now, ModifiedAt: t.now,
		}
		replaced := false
		for i, old := range e.Policies {
			if old.PolicyArn == p.PolicyArn {
				p.AssociatedAt = old.AssociatedAt
				e.Policies[i], replaced = p, true
			}
		}
		if !replaced {
			e.Policies = append(e.Policies, p)
		}
		return &eks.AssociateAccessPolicyOutput{
			ClusterName: aws.String(c.Name), PrincipalArn: aws.String(e.PrincipalArn), AssociatedAccessPolicy: accessPolicyOut(p),
		}, nil
	})
}

func accessPolicyOut(p accessPolicyRec) *ekstypes.AssociatedAccessPolicy {
	return &ekstypes.AssociatedAccessPolicy{
		PolicyArn:    aws.String(p.PolicyArn),
		AccessScope:  &ekstypes.AccessScope{Type: ekstypes.AccessScopeType(p.ScopeType), Namespaces: slices.Clone(p.Namespaces)},
		AssociatedAt: aws.Time(p.AssociatedAt),
		ModifiedAt:   aws.Time(p.ModifiedAt),
	}
}

// ListAssociatedAccessPolicies lists the access policies of an access entry.
func (a *eksAPI) ListAssociatedAccessPolicies(ctx context.Context, in *eks.ListAssociatedAccessPoliciesInput, _ ...func(*eks.Options)) (*eks.ListAssociatedAccessPoliciesOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "ListAssociatedAccessPolicies", func(t *txn) (*eks.ListAssociatedAccessPoliciesOutput, error) {
		in := orZero(in)
		if err := need("ListAssociatedAccessPoliciesInput", param{"ClusterName", in.ClusterName != nil}, param{"PrincipalArn", in.PrincipalArn != nil}); err != nil {
			return nil, err
		}
		if err := eksMaxResults(in.MaxResults); err != nil {
			return nil, err
		}
		c, e, err := t.accessEntry(in.ClusterName, in.PrincipalArn)
		if err != nil {
			return nil, err
		}
		var all []ekstypes.AssociatedAccessPolicy
		for _, p := range e.Policies {
			all = append(all, *accessPolicyOut(p))
		}
		items, next, err := page(all, in.NextToken, t.pageSize(svcEKS, "ListAssociatedAccessPolicies", in.MaxResults), 100)
		if err != nil {
			return nil, eksInvalidParameter("The pagination token is invalid.")
		}
		return &eks.ListAssociatedAccessPoliciesOutput{
			ClusterName: aws.String(c.Name), PrincipalArn: aws.String(e.PrincipalArn), AssociatedAccessPolicies: items, NextToken: next,
		}, nil
	})
}

// ListAccessEntries lists the principals with an access entry on a
// cluster, in ARN order, a page at a time.
func (a *eksAPI) ListAccessEntries(ctx context.Context, in *eks.ListAccessEntriesInput, _ ...func(*eks.Options)) (*eks.ListAccessEntriesOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "ListAccessEntries", func(t *txn) (*eks.ListAccessEntriesOutput, error) {
		in := orZero(in)
		if err := need("ListAccessEntriesInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		if err := eksMaxResults(in.MaxResults); err != nil {
			return nil, err
		}
		c, err := t.accessCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		var all []string
		for _, e := range c.AccessEntries {
			if in.AssociatedPolicyArn != nil && !slices.ContainsFunc(e.Policies, func(p accessPolicyRec) bool { return p.PolicyArn == *in.AssociatedPolicyArn }) {
				continue
			}
			all = append(all, e.PrincipalArn)
		}
		slices.Sort(all)
		items, next, err := page(all, in.NextToken, t.pageSize(svcEKS, "ListAccessEntries", in.MaxResults), 100)
		if err != nil {
			return nil, eksInvalidParameter("The pagination token is invalid.")
		}
		return &eks.ListAccessEntriesOutput{AccessEntries: items, NextToken: next}, nil
	})
}

// DisassociateAccessPolicy removes an access policy from an access entry.
func (a *eksAPI) DisassociateAccessPolicy(ctx context.Context, in *eks.DisassociateAccessPolicyInput, _ ...func(*eks.Options)) (*eks.DisassociateAccessPolicyOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DisassociateAccessPolicy", func(t *txn) (*eks.DisassociateAccessPolicyOutput, error) {
		in := orZero(in)
		if err := need("DisassociateAccessPolicyInput", param{"ClusterName", in.ClusterName != nil},
			param{"PolicyArn", in.PolicyArn != nil}, param{"PrincipalArn", in.PrincipalArn != nil}); err != nil {
			return nil, err
		}
		c, e, err := t.accessEntry(in.ClusterName, in.PrincipalArn)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(e.Policies, func(p accessPolicyRec) bool { return p.PolicyArn == *in.PolicyArn })
		if i < 0 {
			return nil, &ekstypes.ResourceNotFoundException{
				Message:     aws.String(fmt.Sprintf("The access policy %s is not associated with %s.", *in.PolicyArn, e.PrincipalArn)),
				ClusterName: aws.String(c.Name),
			}
		}
		e.Policies = slices.Delete(e.Policies, i, i+1)
		return &eks.DisassociateAccessPolicyOutput{}, nil
	})
}
