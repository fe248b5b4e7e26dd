// Package cluster defines the cluster lifecycle: creating a HyperPod cluster
// with its network, IAM roles, EKS control plane and base add-ons; importing
// an existing one; and deleting it. Each is a staged operation run by
// engine/ops against the provider ports of engine/cloud.
package cluster

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/instantstart/instantstart/engine/compute"
)

// RecordKind is the store kind of cluster records and of their events.
const RecordKind = "cluster"

// Status is the control plane's summary of a cluster.
type Status string

// The cluster states.
const (
	StatusCreating  Status = "CREATING"
	StatusActive    Status = "ACTIVE"
	StatusFailed    Status = "FAILED"
	StatusDeleting  Status = "DELETING"
	StatusDeleted   Status = "DELETED"
	StatusImporting Status = "IMPORTING"
)

// SubnetRole says what a subnet is for.
type SubnetRole string

// The subnet roles.
const (
	SubnetPublic  SubnetRole = "PUBLIC"
	SubnetPrivate SubnetRole = "PRIVATE"
	SubnetCompute SubnetRole = "COMPUTE"
)

// Subnet is one subnet of a cluster's network.
type Subnet struct {
	ID   string     `json:"id"`
	Zone string     `json:"zone"`
	CIDR string     `json:"cidr"`
	Role SubnetRole `json:"role"`
}

// Network is the VPC a cluster lives in.
type Network struct {
	VpcID           string   `json:"vpcId,omitempty"`
	CIDR            string   `json:"cidr,omitempty"`
	Subnets         []Subnet `json:"subnets,omitempty"`
	SecurityGroupID string   `json:"securityGroupId,omitempty"`
	NatGatewayID    string   `json:"natGatewayId,omitempty"`
	InternetGateway string   `json:"internetGatewayId,omitempty"`
	// Owned is false for an imported network, which deleteCluster leaves alone.
	Owned bool `json:"owned"`
}

// EKS is the cluster's EKS control plane as last seen.
type EKS struct {
	Name            string   `json:"name"`
	Arn             string   `json:"arn,omitempty"`
	Status          string   `json:"status,omitempty"`
	Version         string   `json:"version,omitempty"`
	Endpoint        string   `json:"endpoint,omitempty"`
	OIDCIssuer      string   `json:"oidcIssuer,omitempty"`
	OIDCProviderArn string   `json:"oidcProviderArn,omitempty"`
	AuthMode        string   `json:"authenticationMode,omitempty"`
	Addons          []string `json:"addons,omitempty"`
	Owned           bool     `json:"owned"`
}

// HyperPod is the cluster's SageMaker HyperPod cluster as last seen.
type HyperPod struct {
	Name             string `json:"name"`
	Arn              string `json:"arn,omitempty"`
	Status           string `json:"status,omitempty"`
	FailureMessage   string `json:"failureMessage,omitempty"`
	NodeRecovery     string `json:"nodeRecovery,omitempty"`
	NodeProvisioning string `json:"nodeProvisioningMode,omitempty"`
	Owned            bool   `json:"owned"`
}

// Roles are the IAM roles made for the cluster.
type Roles struct {
	EKSClusterRoleArn string `json:"eksClusterRoleArn,omitempty"`
	ExecutionRoleArn  string `json:"executionRoleArn,omitempty"`
	Owned             bool   `json:"owned"`
}

// NodeCounts counts a HyperPod cluster's nodes.
type NodeCounts struct {
	Ready int `json:"ready"` // Running
	Total int `json:"total"`
}

// Cluster is the record the control plane keeps for a HyperPod cluster.
type Cluster struct {
	ID                string              `json:"id"`
	Name              string              `json:"name"`
	Region            string              `json:"region"`
	KubernetesVersion string              `json:"kubernetesVersion"`
	Zones             []string            `json:"zones"`
	Status            Status              `json:"status"`
	StatusMessage     string              `json:"statusMessage,omitempty"`
	Imported          bool                `json:"imported"`
	Network           Network             `json:"network"`
	EKS               EKS                 `json:"eks"`
	HyperPod          HyperPod            `json:"hyperPod"`
	Roles             Roles               `json:"roles"`
	InstanceGroups    []compute.GroupSpec `json:"instanceGroups,omitempty"`
	// Dependencies are HyperPod's cluster dependencies (the health-monitoring
	// agent, the device plugins) as the last create or import saw them.
	Dependencies []Dependency `json:"dependencies,omitempty"`
	// Nodes counts the HyperPod cluster's nodes as last read; nil until
	// the first read.
	Nodes *NodeCounts `json:"nodes,omitempty"`
	// LastOperationID is the newest operation on the cluster.
	LastOperationID string     `json:"lastOperationId,omitempty"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	DeletedAt       *time.Time `json:"deletedAt,omitempty"`
}

// CreateInput asks for a new cluster. Only decisions are asked for; CIDRs,
// route tables and security groups are planned.
type CreateInput struct {
	Name              string              `json:"name"`
	Region            string              `json:"region"`
	KubernetesVersion string              `json:"kubernetesVersion"`
	Zones             []string            `json:"zones"`
	InstanceGroups    []compute.GroupSpec `json:"instanceGroups,omitempty"` // under compute.CreatingCluster's rules
	// VpcCIDR optionally fixes the VPC's /16 (for peering plans); by default
	// the first free one is chosen.
	VpcCIDR string `json:"vpcCidr,omitempty"`
}

// ImportInput adopts an existing EKS cluster and, if given, its HyperPod cluster.
type ImportInput struct {
	Name                string `json:"name"`
	Region              string `json:"region"`
	EKSClusterName      string `json:"eksClusterName"`
	HyperPodClusterName string `json:"hyperPodClusterName,omitempty"`
}

// ListFilter selects clusters; the zero value lists every cluster that is
// not DELETED.
type ListFilter struct {
	Statuses       []Status
	IncludeDeleted bool
}

// Page is one page of clusters in creation order.
type Page struct {
	Items      []*Cluster
	TotalCount int
	HasNext    bool
}

// UnmarshalJSON reads a cluster record, including one stored while a
// requested group named a single "instanceType".
func (c *Cluster) UnmarshalJSON(b []byte) error {
	type record Cluster
	if err := json.Unmarshal(b, (*record)(c)); err != nil {
		return err
	}
	return singleInstanceTypes(b, c.InstanceGroups)
}

// UnmarshalJSON reads a stored CreateCluster request, including one stored
// while a group named a single "instanceType".
func (in *CreateInput) UnmarshalJSON(b []byte) error {
	type request CreateInput
	if err := json.Unmarshal(b, (*request)(in)); err != nil {
		return err
	}
	return singleInstanceTypes(b, in.InstanceGroups)
}

// singleInstanceTypes fills the instance types of groups, decoded from b,
// that were stored with the single "instanceType" of earlier versions.
func singleInstanceTypes(b []byte, groups []compute.GroupSpec) error {
	if !slices.ContainsFunc(groups, func(g compute.GroupSpec) bool { return len(g.InstanceTypes) == 0 }) {
		return nil
	}
	var stored struct {
		InstanceGroups []struct {
			InstanceType string `json:"instanceType"`
		} `json:"instanceGroups"`
	}
	if err := json.Unmarshal(b, &stored); err != nil {
		return err
	}
	for i, g := range stored.InstanceGroups {
		if i < len(groups) && len(groups[i].InstanceTypes) == 0 && g.InstanceType != "" {
			groups[i].InstanceTypes = []string{g.InstanceType}
		}
	}
	return nil
}
