package cluster

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// baseAddons are installed on every cluster, in this order. HyperPod needs
// VPC CNI and pod identity; cert-manager comes before anything with webhooks.
var baseAddons = []string{"vpc-cni", "kube-proxy", "coredns", "eks-pod-identity-agent", "cert-manager"}

type controlPlane struct {
	p       *cloud.Provider
	name    string
	version string
	tags    map[string]string
}

// eks-cluster: the EKS control plane with API authentication (HyperPod
// accepts only API or API_AND_CONFIG_MAP).
func (c *controlPlane) observeCluster(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	return observeEKS(ctx, c.p, c.name)
}

func observeEKS(ctx context.Context, p *cloud.Provider, name string) (ops.Observation, error) {
	out, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Absent}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	cl := out.Cluster
	msg := "EKS cluster " + name + " is " + string(cl.Status)
	switch cl.Status {
	case ekstypes.ClusterStatusActive:
		o := eksOutput{Arn: aws.ToString(cl.Arn), Version: aws.ToString(cl.Version), Endpoint: aws.ToString(cl.Endpoint), Status: string(cl.Status)}
		if cl.Identity != nil && cl.Identity.Oidc != nil {
			o.OIDCIssuer = aws.ToString(cl.Identity.Oidc.Issuer)
		}
		if cl.AccessConfig != nil {
			o.AuthenticationMode = string(cl.AccessConfig.AuthenticationMode)
		}
		if v := cl.ResourcesVpcConfig; v != nil {
			o.VpcID, o.SubnetIDs = aws.ToString(v.VpcId), v.SubnetIds
			o.ClusterSecurityGroupID = aws.ToString(v.ClusterSecurityGroupId)
		}
		return ops.Observation{State: ops.Done, Message: msg, Output: o}, nil
	case ekstypes.ClusterStatusFailed:
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Upstream, "EKS cluster %s FAILED; delete the cluster and create it again", name)}, nil
	case ekstypes.ClusterStatusDeleting:
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition, "EKS cluster %s is being deleted; wait for the deletion to end, then retry", name)}, nil
	}
	return ops.Observation{State: ops.Pending, Message: msg, Output: eksOutput{Arn: aws.ToString(cl.Arn), Status: string(cl.Status)}}, nil
}

func (c *controlPlane) applyCluster(ctx context.Context, run *ops.Run) (any, error) {
	roles, err := outputOf[iamOutput](run, phaseIAMRoles)
	if err != nil {
		return nil, err
	}
	net, err := outputOf[subnetsOutput](run, phaseSubnets)
	if err != nil {
		return nil, err
	}
	var subnets []string
	for _, role := range []hyperpod.SubnetRole{hyperpod.SubnetPrivate, hyperpod.SubnetPublic} {
		for _, s := range net.Subnets {
			if s.Role == role {
				subnets = append(subnets, s.ID)
			}
		}
	}
	out, err := c.p.EKS.CreateCluster(ctx, &eks.CreateClusterInput{
		Name: aws.String(c.name), RoleArn: aws.String(roles.EKSClusterRoleArn), Version: aws.String(c.version),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: subnets, SecurityGroupIds: []string{net.SecurityGroupID},
			EndpointPublicAccess: aws.Bool(true), EndpointPrivateAccess: aws.Bool(true)},
		AccessConfig:       &ekstypes.CreateAccessConfigRequest{AuthenticationMode: ekstypes.AuthenticationModeApi, BootstrapClusterCreatorAdminPermissions: aws.Bool(true)},
		ClientRequestToken: aws.String(run.ClientToken()),
		Tags:               c.tags,
	})
	if err != nil {
		return nil, err
	}
	return eksOutput{Arn: aws.ToString(out.Cluster.Arn)}, nil
}

// oidc-provider: the IAM OIDC provider of the cluster's issuer (for IRSA).
func (c *controlPlane) observeOIDC(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	cl, err := outputOf[eksOutput](run, phaseEKS)
	if err != nil {
		return ops.Observation{}, err
	}
	arn, err := findOIDCProvider(ctx, c.p, cl.OIDCIssuer)
	if err != nil || arn == "" {
		return ops.Observation{State: ops.Absent}, err
	}
	return ops.Observation{State: ops.Done, Output: oidcOutput{OIDCProviderArn: arn}, Message: "OIDC provider ready"}, nil
}

func findOIDCProvider(ctx context.Context, p *cloud.Provider, issuer string) (string, error) {
	if issuer == "" {
		return "", errs.New(errs.Upstream, "the EKS cluster reports no OIDC issuer")
	}
	host := strings.TrimPrefix(issuer, "https://")
	out, err := p.IAM.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil {
		return "", err
	}
	for _, e := range out.OpenIDConnectProviderList {
		if strings.HasSuffix(aws.ToString(e.Arn), ":oidc-provider/"+host) {
			return aws.ToString(e.Arn), nil
		}
	}
	return "", nil
}

func (c *controlPlane) applyOIDC(ctx context.Context, run *ops.Run) (any, error) {
	cl, err := outputOf[eksOutput](run, phaseEKS)
	if err != nil {
		return nil, err
	}
	out, err := c.p.IAM.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(cl.OIDCIssuer), ClientIDList: []string{"sts.amazonaws.com"}})
	if err != nil {
		if errs.IsAPICode(err, "EntityAlreadyExists", "EntityAlreadyExistsException") {
			return nil, nil
		}
		return nil, err
	}
	return oidcOutput{OIDCProviderArn: aws.ToString(out.OpenIDConnectProviderArn)}, nil
}

// cluster-access: the control plane's own principal is a cluster admin, so
// it can manage Kubernetes objects.
func (c *controlPlane) principal(ctx context.Context) (string, error) {
	id, err := c.p.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", err
	}
	return cloud.PrincipalARN(aws.ToString(id.Arn)), nil
}

func (c *controlPlane) observeAccess(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	who, err := c.principal(ctx)
	if err != nil {
		return ops.Observation{}, err
	}
	policies, err := cloud.AllAssociatedAccessPolicies(ctx, c.p.EKS, eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String(c.name), PrincipalArn: aws.String(who)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Absent}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	for _, p := range policies {
		if aws.ToString(p.PolicyArn) == cloud.EKSClusterAdminPolicy {
			return ops.Observation{State: ops.Done, Message: who + " is a cluster admin", Output: accessOutput{PrincipalArn: who}}, nil
		}
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (c *controlPlane) applyAccess(ctx context.Context, _ *ops.Run) (any, error) {
	who, err := c.principal(ctx)
	if err != nil {
		return nil, err
	}
	_, err = c.p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String(c.name), PrincipalArn: aws.String(who), ClientRequestToken: nil})
	if err != nil && !errs.IsAPICode(err, "ResourceInUseException") {
		return nil, err
	}
	_, err = c.p.EKS.AssociateAccessPolicy(ctx, &eks.AssociateAccessPolicyInput{ClusterName: aws.String(c.name), PrincipalArn: aws.String(who),
		PolicyArn: aws.String(cloud.EKSClusterAdminPolicy), AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster}})
	return accessOutput{PrincipalArn: who}, err
}

// base-addons: VPC CNI, kube-proxy, CoreDNS, the pod identity agent and
// cert-manager as EKS add-ons.
func (c *controlPlane) observeAddons(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	var waiting, ready []string
	for _, name := range baseAddons {
		out, err := c.p.EKS.DescribeAddon(ctx, &eks.DescribeAddonInput{ClusterName: aws.String(c.name), AddonName: aws.String(name)})
		if errs.IsNotFound(err) {
			return ops.Observation{State: ops.Absent}, nil
		}
		if err != nil {
			return ops.Observation{}, err
		}
		switch st := out.Addon.Status; st {
		case ekstypes.AddonStatusActive:
			ready = append(ready, name)
		case ekstypes.AddonStatusDegraded:
			// CoreDNS and cert-manager run on nodes; with none yet they are DEGRADED.
			ready = append(ready, name+" (degraded until nodes join)")
		case ekstypes.AddonStatusCreateFailed, ekstypes.AddonStatusDeleteFailed, ekstypes.AddonStatusUpdateFailed:
			msg := string(st)
			if len(out.Addon.Health.Issues) > 0 {
				msg += ": " + aws.ToString(out.Addon.Health.Issues[0].Message)
			}
			return ops.Observation{State: ops.Broken, Err: errs.New(errs.Upstream, "add-on %s is %s; fix the cause, delete the add-on, and retry", name, msg)}, nil
		case ekstypes.AddonStatusDeleting:
			return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition, "add-on %s is being deleted; retry once it is gone", name)}, nil
		default:
			waiting = append(waiting, name)
		}
	}
	if len(waiting) > 0 {
		return ops.Observation{State: ops.Pending, Message: "waiting for add-ons: " + strings.Join(waiting, ", ")}, nil
	}
	return ops.Observation{State: ops.Done, Message: "add-ons active: " + strings.Join(ready, ", "), Output: addonsOutput{Addons: baseAddons}}, nil
}

func (c *controlPlane) applyAddons(ctx context.Context, _ *ops.Run) (any, error) {
	list, err := cloud.AllAddons(ctx, c.p.EKS, eks.ListAddonsInput{ClusterName: aws.String(c.name)})
	if err != nil {
		return nil, err
	}
	for _, name := range baseAddons {
		if slices.Contains(list, name) {
			continue
		}
		_, err := c.p.EKS.CreateAddon(ctx, &eks.CreateAddonInput{ClusterName: aws.String(c.name), AddonName: aws.String(name),
			ResolveConflicts: ekstypes.ResolveConflictsOverwrite, ConfigurationValues: baseAddonValues(name), Tags: c.tags})
		if err != nil && !errs.IsAPICode(err, "ResourceInUseException") {
			return nil, err
		}
	}
	return nil, nil
}

// baseAddonValues are the configuration values of base add-on name, nil
// for those installed as EKS configures them. CoreDNS prefers the system
// node group's nodes, and keeps its replicas on separate nodes as its
// default affinity (which this one replaces) does.
func baseAddonValues(name string) *string {
	if name != "coredns" {
		return nil
	}
	affinity := hyperpod.SystemAffinity()
	affinity["podAntiAffinity"] = map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
		"weight": 100,
		"podAffinityTerm": map[string]any{
			"topologyKey":   "kubernetes.io/hostname",
			"labelSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "k8s-app", "operator": "In", "values": []any{"kube-dns"}}}},
		},
	}}}
	b, err := json.Marshal(map[string]any{"affinity": affinity})
	if err != nil {
		panic(err) // maps of strings, numbers and slices always encode
	}
	return aws.String(string(b))
}
