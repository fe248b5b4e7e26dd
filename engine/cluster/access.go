package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// The operations that give people kubectl on a cluster: an EKS access
// entry for an IAM role or user, with one of EKS's access policies.
const (
	KindGrantAccess  = "GrantClusterAccess"
	KindRevokeAccess = "RevokeClusterAccess"

	phaseAccessEntry  = "access-entry"
	phaseAccessPolicy = "access-policy"
)

// Access is what a principal may do in a cluster's Kubernetes API: one of
// the EKS access policies.
type Access string

const (
	// AccessAdmin is AmazonEKSClusterAdminPolicy: everything, cluster-wide.
	AccessAdmin Access = "ADMIN"
	// AccessEdit is AmazonEKSEditPolicy: read and write workloads,
	// services, config maps, secrets and volume claims; no RBAC.
	AccessEdit Access = "EDIT"
	// AccessView is AmazonEKSViewPolicy: get, list and watch most
	// resources, but not secrets.
	AccessView Access = "VIEW"
)

// accessPolicyPrefix is the ARN prefix of EKS's access policies.
const accessPolicyPrefix = "arn:aws:eks::aws:cluster-access-policy/"

// PolicyArn is the EKS access policy a grants.
func (a Access) PolicyArn() string {
	switch a {
	case AccessAdmin:
		return cloud.EKSClusterAdminPolicy
	case AccessEdit:
		return accessPolicyPrefix + "AmazonEKSEditPolicy"
	case AccessView:
		return accessPolicyPrefix + "AmazonEKSViewPolicy"
	}
	return ""
}

// accessOf is the access a policy ARN is, or "" for a policy that is none
// of ADMIN, EDIT and VIEW.
func accessOf(policyArn string) Access {
	for _, a := range []Access{AccessAdmin, AccessEdit, AccessView} {
		if a.PolicyArn() == policyArn {
			return a
		}
	}
	return ""
}

// Bounds of a grant, checked before anything is read.
const (
	// maxPrincipalArnLen bounds a principal ARN: an IAM path is at most
	// 512 characters and a name 64, with the account and prefix around.
	maxPrincipalArnLen = 640
	// MaxAccessNamespaces bounds the namespaces of one grant.
	MaxAccessNamespaces = 25
	// MaxListedAccessEntries bounds the access entries AccessEntries
	// reads: two EKS calls each.
	MaxListedAccessEntries = 50
	// maxTagValue is the longest value an EKS tag may have.
	maxTagValue = 256
)

// Tags on an access entry InstantStart made, so a later read tells it
// from one made outside.
const (
	grantedByTag = "instantstart:granted-by"
	clusterIDTag = "instantstart:cluster-id"
)

var (
	// principalPattern is an IAM role or user ARN: arn:PARTITION:iam::
	// ACCOUNT:role|user/[PATH/]NAME.
	principalPattern = regexp.MustCompile(`^arn:aws(-cn|-us-gov)?:iam::\d{12}:(role|user)/([!-~]+/)?[\w+=,.@-]{1,64}$`)
	// tagUnsafe are the characters an EKS tag value may not hold.
	tagUnsafe = regexp.MustCompile(`[^\p{L}\p{Z}\p{N}_.:/=+@-]`)
)

// GrantInput gives a principal access to a cluster.
type GrantInput struct {
	ClusterID    string `json:"clusterId"`
	PrincipalArn string `json:"principalArn"`
	Access       Access `json:"access"`
	// Namespaces, for EDIT and VIEW, limit the access to them; none means
	// the whole cluster.
	Namespaces []string `json:"namespaces,omitempty"`
}

type revokeInput struct {
	ClusterID    string `json:"clusterId"`
	PrincipalArn string `json:"principalArn"`
}

// checkPrincipal checks that arn is an IAM role or user ARN.
func checkPrincipal(field, arn string) error {
	switch {
	case arn == "":
		return errs.Field(field, "give the IAM role or user ARN, such as arn:aws:iam::123456789012:role/data-scientists")
	case len(arn) > maxPrincipalArnLen:
		return errs.Field(field, "%s is %d characters; an IAM role or user ARN has at most %d", field, len(arn), maxPrincipalArnLen)
	case strings.Contains(arn, ":assumed-role/"):
		return errs.Field(field, "%s is a role session; give the role's ARN, %s", arn, cloud.PrincipalARN(arn))
	case !principalPattern.MatchString(arn):
		return errs.Field(field, "%q is not an IAM role or user ARN: use arn:aws:iam::ACCOUNT:role/NAME or arn:aws:iam::ACCOUNT:user/NAME", arn)
	}
	return nil
}

// check validates in and puts its namespaces in order.
func (in *GrantInput) check() error {
	if err := checkPrincipal("principalArn", in.PrincipalArn); err != nil {
		return err
	}
	if in.Access.PolicyArn() == "" {
		return errs.Field("access", "access %q is not ADMIN, EDIT or VIEW", in.Access)
	}
	if len(in.Namespaces) > MaxAccessNamespaces {
		return errs.Field("namespaces", "%d namespaces given; one grant takes at most %d (grant the whole cluster instead, with no namespaces)", len(in.Namespaces), MaxAccessNamespaces)
	}
	if in.Access == AccessAdmin && len(in.Namespaces) > 0 {
		return errs.Field("namespaces", "ADMIN is AmazonEKSClusterAdminPolicy, which is for the whole cluster: give no namespaces, or grant EDIT for write access in the namespaces")
	}
	for i, ns := range in.Namespaces {
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			return errs.Field(fmt.Sprintf("namespaces[%d]", i), "namespace %.80q is not a Kubernetes namespace name: %s", ns, strings.Join(msgs, "; "))
		}
	}
	ns := slices.Clone(in.Namespaces)
	slices.Sort(ns)
	if len(slices.Compact(ns)) != len(in.Namespaces) {
		return errs.Field("namespaces", "a namespace is given twice; name each once")
	}
	in.Namespaces = ns
	return nil
}

// scope is the access scope of in.
func (in *GrantInput) scope() *ekstypes.AccessScope {
	if len(in.Namespaces) == 0 {
		return &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster}
	}
	return &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeNamespace, Namespaces: slices.Clone(in.Namespaces)}
}

// enginePrincipal is the IAM principal the control plane runs as, which
// keeps its cluster-admin access entry.
func enginePrincipal(ctx context.Context, p *cloud.Provider) (string, error) {
	id, err := p.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", errs.FromUpstream(err, "read the identity InstantStart runs as")
	}
	return cloud.PrincipalARN(aws.ToString(id.Arn)), nil
}

// accessTarget reads the cluster of a grant or revoke: it must be ACTIVE,
// and principal must not be the control plane's own.
func (s *Service) accessTarget(ctx context.Context, id, principal, doing string) (*hyperpod.Cluster, *cloud.Provider, error) {
	c, p, err := s.Reach(id, true)
	if err != nil {
		return nil, nil, errs.NotFoundOn(err, "clusterId")
	}
	if err := c.RequireActive("clusterId", doing); err != nil {
		return nil, nil, err
	}
	self, err := enginePrincipal(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	if principal == self {
		return nil, nil, errs.New(errs.Precondition, "%s is the identity InstantStart runs as; its cluster-admin access entry is how InstantStart reaches the cluster's Kubernetes API, and changing it would cut InstantStart off. Grant or revoke another principal", principal).WithField("principalArn")
	}
	return c, p, nil
}

// GrantAccess starts a GrantClusterAccess operation: an EKS access entry
// for in.PrincipalArn on an ACTIVE cluster, with in.Access's policy as its
// only access policy, for the whole cluster or in.Namespaces. An entry
// that exists (made here or outside) is kept and its access policies are
// replaced; when it already has exactly that access the operation ends
// SUCCEEDED as a no-op.
func (s *Service) GrantAccess(ctx context.Context, caller string, in GrantInput, idempotencyKey string) (*ops.Operation, error) {
	req := ops.Request{Kind: KindGrantAccess, Target: ops.Ref{Kind: TargetKind, ID: in.ClusterID}, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: in, Fingerprint: in}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	c, p, err := s.accessTarget(ctx, in.ClusterID, in.PrincipalArn, "access is granted")
	if err != nil {
		return nil, err
	}
	a := &accessGrant{p: p, eksName: c.EKS.Name, in: in, caller: caller}
	entry, err := a.observeEntry(ctx, &ops.Run{})
	if err != nil {
		return nil, errs.FromUpstream(err, "read the access entry of "+in.PrincipalArn)
	}
	if entry.State == ops.Broken {
		return nil, entry.Err
	}
	if entry.State == ops.Done {
		policy, err := a.observePolicy(ctx, nil)
		if err != nil {
			return nil, errs.FromUpstream(err, "read the access policies of "+in.PrincipalArn)
		}
		req.Noop = policy.State == ops.Done
	}
	req.Input, req.Target.Name = in, c.Name
	return s.runner.Submit(req)
}

// RevokeAccess starts a RevokeClusterAccess operation: the principal's
// EKS access entry, with its access policies, is deleted, whoever made
// it. A principal with no entry ends SUCCEEDED as a no-op.
func (s *Service) RevokeAccess(ctx context.Context, caller, clusterID, principal, idempotencyKey string) (*ops.Operation, error) {
	in := revokeInput{ClusterID: clusterID, PrincipalArn: principal}
	req := ops.Request{Kind: KindRevokeAccess, Target: ops.Ref{Kind: TargetKind, ID: clusterID}, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: in, Fingerprint: in}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	if err := checkPrincipal("principalArn", principal); err != nil {
		return nil, err
	}
	c, p, err := s.accessTarget(ctx, clusterID, principal, "access is revoked")
	if err != nil {
		return nil, err
	}
	r := &accessRevoke{p: p, eksName: c.EKS.Name, principal: principal}
	gone, err := r.observe(ctx, nil)
	if err != nil {
		return nil, errs.FromUpstream(err, "read the access entry of "+principal)
	}
	req.Noop = gone.State == ops.Done
	req.Target.Name = c.Name
	return s.runner.Submit(req)
}

// grantSteps builds the phases of a GrantClusterAccess operation.
func (s *Service) grantSteps(op *ops.Operation) ([]ops.Step, error) {
	var in GrantInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, err
	}
	c, err := s.Get(in.ClusterID)
	if err != nil {
		return nil, err
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return nil, err
	}
	a := &accessGrant{p: p, eksName: c.EKS.Name, in: in, caller: op.RequestedBy}
	return []ops.Step{
		{Name: phaseAccessEntry, Title: "Give " + in.PrincipalArn + " an EKS access entry", Observe: a.observeEntry, Apply: a.applyEntry, Timeout: 5 * time.Minute},
		{Name: phaseAccessPolicy, Title: fmt.Sprintf("Associate %s %s", in.Access.PolicyArn(), scopeText(in.Namespaces)), DependsOn: []string{phaseAccessEntry},
			Observe: a.observePolicy, Apply: a.applyPolicy, Timeout: 5 * time.Minute},
	}, nil
}

// revokeSteps builds the phase of a RevokeClusterAccess operation.
func (s *Service) revokeSteps(op *ops.Operation) ([]ops.Step, error) {
	var in revokeInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, err
	}
	c, err := s.Get(in.ClusterID)
	if err != nil {
		return nil, err
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return nil, err
	}
	r := &accessRevoke{p: p, eksName: c.EKS.Name, principal: in.PrincipalArn}
	return []ops.Step{{Name: phaseAccessEntry, Title: "Delete the EKS access entry of " + in.PrincipalArn + " and its access policies",
		Observe: r.observe, Apply: r.apply, Timeout: 5 * time.Minute}}, nil
}

func scopeText(namespaces []string) string {
	if len(namespaces) == 0 {
		return "for the whole cluster"
	}
	return "in namespaces " + strings.Join(namespaces, ", ")
}

// accessGrant holds what a GrantClusterAccess operation makes.
type accessGrant struct {
	p       *cloud.Provider
	eksName string
	in      GrantInput
	caller  string
}

// accessEntryOutput is the access-entry phase's output.
type accessEntryOutput struct {
	AccessEntryArn string `json:"accessEntryArn"`
}

func (a *accessGrant) observeEntry(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	out, err := a.p.EKS.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(a.eksName), PrincipalArn: aws.String(a.in.PrincipalArn)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Absent}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	e := out.AccessEntry
	if typ := aws.ToString(e.Type); typ != "" && typ != "STANDARD" {
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition,
			"%s has an access entry of type %s (a node's), which takes no access policies; grant access to another principal", a.in.PrincipalArn, typ).WithField("principalArn")}, nil
	}
	return ops.Observation{State: ops.Done, Message: "access entry " + aws.ToString(e.AccessEntryArn), Output: accessEntryOutput{AccessEntryArn: aws.ToString(e.AccessEntryArn)}}, nil
}

func (a *accessGrant) applyEntry(ctx context.Context, run *ops.Run) (any, error) {
	out, err := a.p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String(a.eksName), PrincipalArn: aws.String(a.in.PrincipalArn),
		Type: aws.String("STANDARD"), ClientRequestToken: aws.String(run.ClientToken()),
		Tags: map[string]string{grantedByTag: eksTagValue(a.caller), clusterIDTag: eksTagValue(a.in.ClusterID)}})
	if errs.IsAPICode(err, "ResourceInUseException") {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return accessEntryOutput{AccessEntryArn: aws.ToString(out.AccessEntry.AccessEntryArn)}, nil
}

// eksTagValue is s as an EKS tag value may hold it.
func eksTagValue(s string) string {
	s = tagUnsafe.ReplaceAllString(s, "_")
	if s == "" {
		s = "unknown"
	}
	if len(s) > maxTagValue {
		s = s[:maxTagValue]
	}
	return s
}

// policies reads the access policies associated with the principal.
func (a *accessGrant) policies(ctx context.Context) ([]ekstypes.AssociatedAccessPolicy, error) {
	return cloud.AllAssociatedAccessPolicies(ctx, a.p.EKS, eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String(a.eksName), PrincipalArn: aws.String(a.in.PrincipalArn)})
}

// sameScope tells whether got is want: the same type and namespaces.
func sameScope(got, want *ekstypes.AccessScope) bool {
	if got == nil || got.Type != want.Type {
		return false
	}
	ns := slices.Clone(got.Namespaces)
	slices.Sort(ns)
	return slices.Equal(ns, want.Namespaces)
}

// observePolicy is done when the wanted policy, at the wanted scope, is
// the only one associated.
func (a *accessGrant) observePolicy(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	list, err := a.policies(ctx)
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Absent}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	want, scope := a.in.Access.PolicyArn(), a.in.scope()
	if len(list) == 1 && aws.ToString(list[0].PolicyArn) == want && sameScope(list[0].AccessScope, scope) {
		return ops.Observation{State: ops.Done, Message: fmt.Sprintf("%s has %s %s", a.in.PrincipalArn, a.in.Access, scopeText(a.in.Namespaces))}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

// applyPolicy associates the wanted policy (associating it again replaces
// its scope), then removes every other: the principal has exactly the
// access asked for.
func (a *accessGrant) applyPolicy(ctx context.Context, _ *ops.Run) (any, error) {
	want := a.in.Access.PolicyArn()
	if _, err := a.p.EKS.AssociateAccessPolicy(ctx, &eks.AssociateAccessPolicyInput{ClusterName: aws.String(a.eksName), PrincipalArn: aws.String(a.in.PrincipalArn),
		PolicyArn: aws.String(want), AccessScope: a.in.scope()}); err != nil {
		return nil, err
	}
	list, err := a.policies(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range list {
		if arn := aws.ToString(p.PolicyArn); arn != want {
			_, err := a.p.EKS.DisassociateAccessPolicy(ctx, &eks.DisassociateAccessPolicyInput{ClusterName: aws.String(a.eksName),
				PrincipalArn: aws.String(a.in.PrincipalArn), PolicyArn: aws.String(arn)})
			if err != nil && !errs.IsNotFound(err) {
				return nil, err
			}
		}
	}
	return nil, nil
}

// accessRevoke holds what a RevokeClusterAccess operation deletes.
type accessRevoke struct {
	p         *cloud.Provider
	eksName   string
	principal string
}

func (r *accessRevoke) observe(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	_, err := r.p.EKS.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(r.eksName), PrincipalArn: aws.String(r.principal)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Done, Message: r.principal + " has no access entry"}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (r *accessRevoke) apply(ctx context.Context, _ *ops.Run) (any, error) {
	_, err := r.p.EKS.DeleteAccessEntry(ctx, &eks.DeleteAccessEntryInput{ClusterName: aws.String(r.eksName), PrincipalArn: aws.String(r.principal)})
	if errs.IsNotFound(err) {
		return nil, nil
	}
	return nil, err
}

// AccessOrigin says who made an access entry.
type AccessOrigin string

const (
	// OriginEngine is the entry of the identity InstantStart runs as,
	// made with the cluster.
	OriginEngine AccessOrigin = "ENGINE"
	// OriginGranted is an entry grantClusterAccess made.
	OriginGranted AccessOrigin = "INSTANTSTART"
	// OriginFound is an entry made outside InstantStart.
	OriginFound AccessOrigin = "FOUND"
)

// AccessEntry is who may reach a cluster's Kubernetes API, as EKS says
// now.
type AccessEntry struct {
	PrincipalArn string
	// Type is the EKS access entry type: STANDARD, or a node's.
	Type string
	// Access is the strongest of ADMIN, EDIT and VIEW the entry has, or ""
	// when it has none of them.
	Access Access
	// Namespaces limit Access to them; none means the whole cluster.
	Namespaces []string
	// PolicyArns are every access policy associated with the entry.
	PolicyArns       []string
	KubernetesGroups []string
	Username         string
	Origin           AccessOrigin
	// GrantedBy is who granted it through InstantStart; "" for others.
	GrantedBy string
	CreatedAt time.Time
	// GrantedAt is when Access was associated; nil without Access.
	GrantedAt *time.Time
}

// AccessEntries reads from EKS who has access to cluster id: at most
// MaxListedAccessEntries entries, in ARN order, with 2 EKS calls for each
// (its entry and its policies) beside one for the list and one for the
// identity InstantStart runs as. A cluster that is not ACTIVE lists none.
// more is true when the cluster has entries past those.
func (s *Service) AccessEntries(ctx context.Context, id string) (entries []AccessEntry, more bool, err error) {
	c, p, err := s.Reach(id, true)
	if err != nil {
		return nil, false, errs.NotFoundOn(err, "clusterId")
	}
	if c.Status != hyperpod.ClusterActive {
		return nil, false, nil
	}
	self, err := enginePrincipal(ctx, p)
	if err != nil {
		return nil, false, err
	}
	list, err := p.EKS.ListAccessEntries(ctx, &eks.ListAccessEntriesInput{ClusterName: aws.String(c.EKS.Name), MaxResults: aws.Int32(MaxListedAccessEntries)})
	if err != nil {
		return nil, false, errs.FromUpstream(err, "list the access entries of EKS cluster "+c.EKS.Name)
	}
	principals := list.AccessEntries[:min(len(list.AccessEntries), MaxListedAccessEntries)]
	more = list.NextToken != nil || len(list.AccessEntries) > MaxListedAccessEntries
	for _, principal := range principals {
		e, ok, err := readAccessEntry(ctx, p, c.EKS.Name, principal)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue // deleted since the list was read
		}
		switch {
		case principal == self:
			e.Origin = OriginEngine
		case e.GrantedBy != "":
			e.Origin = OriginGranted
		default:
			e.Origin = OriginFound
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b AccessEntry) int { return strings.Compare(a.PrincipalArn, b.PrincipalArn) })
	return entries, more, nil
}

// readAccessEntry reads one access entry and its policies; ok is false
// when it is gone.
func readAccessEntry(ctx context.Context, p *cloud.Provider, eksName, principal string) (AccessEntry, bool, error) {
	out, err := p.EKS.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(eksName), PrincipalArn: aws.String(principal)})
	if errs.IsNotFound(err) {
		return AccessEntry{}, false, nil
	}
	if err != nil {
		return AccessEntry{}, false, errs.FromUpstream(err, "describe the access entry of "+principal)
	}
	ae := out.AccessEntry
	e := AccessEntry{PrincipalArn: principal, Type: aws.ToString(ae.Type), KubernetesGroups: ae.KubernetesGroups, Username: aws.ToString(ae.Username),
		CreatedAt: aws.ToTime(ae.CreatedAt)}
	if ae.Tags[grantedByTag] != "" {
		e.GrantedBy = ae.Tags[grantedByTag]
	}
	// One page: EKS has at most a few access policies.
	pols, err := p.EKS.ListAssociatedAccessPolicies(ctx, &eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String(eksName), PrincipalArn: aws.String(principal), MaxResults: aws.Int32(100)})
	if errs.IsNotFound(err) {
		return AccessEntry{}, false, nil
	}
	if err != nil {
		return AccessEntry{}, false, errs.FromUpstream(err, "list the access policies of "+principal)
	}
	rank := map[Access]int{AccessAdmin: 3, AccessEdit: 2, AccessView: 1}
	for _, pol := range pols.AssociatedAccessPolicies {
		arn := aws.ToString(pol.PolicyArn)
		e.PolicyArns = append(e.PolicyArns, arn)
		if a := accessOf(arn); a != "" && rank[a] > rank[e.Access] {
			e.Access, e.GrantedAt, e.Namespaces = a, pol.AssociatedAt, nil
			if pol.AccessScope != nil && pol.AccessScope.Type == ekstypes.AccessScopeTypeNamespace {
				e.Namespaces = slices.Sorted(slices.Values(pol.AccessScope.Namespaces))
			}
		}
	}
	return e, true, nil
}
