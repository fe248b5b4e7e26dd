package cluster

import (
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// The phases of the cluster operations. A phase of the same name in two
// kinds plays the same part in each (e.g. phaseEKS makes, reads or deletes
// the EKS control plane).
const (
	phaseIAMRoles        = "iam-roles"
	phaseVPC             = "vpc"
	phaseSubnets         = "subnets"
	phaseNAT             = "nat-gateway"
	phaseEKS             = "eks-cluster"
	phaseOIDC            = "oidc-provider"
	phaseAccess          = "cluster-access"
	phaseAddons          = "base-addons"
	phaseDependencies    = "cluster-dependencies"
	phaseComputeSubnet   = "compute-subnet"
	phaseReplaceHyperPod = "replace-failed-hyperpod"
	phaseHyperPod        = "hyperpod-cluster"
	// phaseNetwork reads the network of an imported cluster, or deletes a
	// created one.
	phaseNetwork   = "network"
	phaseElasticIP = "elastic-ip"
)

// The typed outputs of the phases. Their json tags are the keys of the
// string outputs that earlier versions stored, so that operations those
// versions left resume. Every field is omitempty: an output merges over the
// one stored before it, and an empty field keeps what an earlier Observe or
// Apply of the phase found.

// iamOutput is the output of phaseIAMRoles.
type iamOutput struct {
	EKSClusterRoleArn string `json:"eksClusterRoleArn,omitempty"`
	ExecutionRoleArn  string `json:"executionRoleArn,omitempty"`
	NodeRoleArn       string `json:"nodeRoleArn,omitempty"`
}

// vpcOutput is the output of phaseVPC.
type vpcOutput struct {
	VpcID             string `json:"vpcId,omitempty"`
	CIDR              string `json:"cidr,omitempty"`
	InternetGatewayID string `json:"internetGatewayId,omitempty"`
}

// subnetsOutput is the output of phaseSubnets (the control plane's
// subnets) and phaseComputeSubnet (the compute subnets).
type subnetsOutput struct {
	Subnets            []hyperpod.Subnet `json:"subnets,omitempty"`
	SecurityGroupID    string            `json:"securityGroupId,omitempty"`
	PublicRouteTableID string            `json:"publicRouteTableId,omitempty"`
}

// natOutput is the output of phaseNAT.
type natOutput struct {
	NatGatewayID        string `json:"natGatewayId,omitempty"`
	PrivateRouteTableID string `json:"privateRouteTableId,omitempty"`
}

// eksOutput is the output of phaseEKS when it makes or reads the cluster.
type eksOutput struct {
	Arn                    string    `json:"arn,omitempty"`
	Version                string    `json:"version,omitempty"`
	Endpoint               string    `json:"endpoint,omitempty"`
	Status                 string    `json:"status,omitempty"`
	OIDCIssuer             string    `json:"oidcIssuer,omitempty"`
	AuthenticationMode     string    `json:"authenticationMode,omitempty"`
	VpcID                  string    `json:"vpcId,omitempty"`
	SubnetIDs              ops.Names `json:"subnetIds,omitempty"`
	ClusterSecurityGroupID string    `json:"clusterSecurityGroupId,omitempty"`
}

// oidcOutput is the output of phaseOIDC.
type oidcOutput struct {
	OIDCProviderArn string `json:"oidcProviderArn,omitempty"`
}

// accessOutput is the output of phaseAccess.
type accessOutput struct {
	PrincipalArn string `json:"principalArn,omitempty"`
}

// addonsOutput is the output of phaseAddons.
type addonsOutput struct {
	Addons ops.Names `json:"addons,omitempty"`
}

// dependenciesOutput is the output of phaseDependencies: every wanted
// dependency as last seen.
type dependenciesOutput struct {
	Dependencies []hyperpod.Dependency `json:"dependencies,omitempty"`
}

// hyperPodOutput is the output of phaseHyperPod and phaseReplaceHyperPod.
type hyperPodOutput struct {
	// Name is set when an import found the cluster by its EKS cluster.
	Name                 string `json:"name,omitempty"`
	Arn                  string `json:"arn,omitempty"`
	Status               string `json:"status,omitempty"`
	FailureMessage       string `json:"failureMessage,omitempty"`
	NodeRecovery         string `json:"nodeRecovery,omitempty"`
	NodeProvisioningMode string `json:"nodeProvisioningMode,omitempty"`
}

// importedNetworkOutput is the output of phaseNetwork of an import.
type importedNetworkOutput struct {
	Subnets         []hyperpod.Subnet `json:"subnets,omitempty"`
	Zones           ops.Names         `json:"zones,omitempty"`
	CIDR            string            `json:"cidr,omitempty"`
	OIDCProviderArn string            `json:"oidcProviderArn,omitempty"`
	Addons          ops.Names         `json:"addons,omitempty"`
}

// outputOf reads the typed output of phase from the operation of run.
func outputOf[T any](run *ops.Run, phase string) (T, error) {
	return ops.OutputOf[T](run.Op, phase)
}
