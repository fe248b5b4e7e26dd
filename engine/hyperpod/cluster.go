package hyperpod

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
)

// ClusterStatus is the control plane's summary of a cluster.
type ClusterStatus string

// The cluster states.
const (
	ClusterCreating  ClusterStatus = "CREATING"
	ClusterActive    ClusterStatus = "ACTIVE"
	ClusterFailed    ClusterStatus = "FAILED"
	ClusterDeleting  ClusterStatus = "DELETING"
	ClusterDeleted   ClusterStatus = "DELETED"
	ClusterImporting ClusterStatus = "IMPORTING"
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
	ID                string        `json:"id"`
	Name              string        `json:"name"`
	Region            string        `json:"region"`
	KubernetesVersion string        `json:"kubernetesVersion"`
	Zones             []string      `json:"zones"`
	Status            ClusterStatus `json:"status"`
	StatusMessage     string        `json:"statusMessage,omitempty"`
	Imported          bool          `json:"imported"`
	Network           Network       `json:"network"`
	EKS               EKS           `json:"eks"`
	HyperPod          HyperPod      `json:"hyperPod"`
	Roles             Roles         `json:"roles"`
	InstanceGroups    []GroupSpec   `json:"instanceGroups,omitempty"`
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

// UnmarshalJSON reads a cluster record, including one stored while a
// requested group named a single "instanceType".
func (c *Cluster) UnmarshalJSON(b []byte) error {
	type record Cluster
	if err := json.Unmarshal(b, (*record)(c)); err != nil {
		return err
	}
	return SingleInstanceTypes(b, c.InstanceGroups)
}

// DependencyKind says how a cluster dependency is installed.
type DependencyKind string

// The ways a dependency is installed.
const (
	DependencyHelm  DependencyKind = "HELM"
	DependencyAddon DependencyKind = "ADDON"
)

// DependencyStatus is what was last seen of a dependency.
type DependencyStatus string

// The dependency states.
const (
	DependencyInstalled  DependencyStatus = "INSTALLED"
	DependencyInstalling DependencyStatus = "INSTALLING"
	// DependencyOutdated: installed at another version than the pinned one.
	DependencyOutdated DependencyStatus = "OUTDATED"
	DependencyFailed   DependencyStatus = "FAILED"
	DependencyMissing  DependencyStatus = "MISSING"
)

// Dependency is one of HyperPod's cluster dependencies as last seen.
type Dependency struct {
	Name string         `json:"name"`
	Kind DependencyKind `json:"kind"`
	// Version is the installed version; empty when it is missing.
	Version string           `json:"version,omitempty"`
	Status  DependencyStatus `json:"status"`
	// Message says why a dependency FAILED.
	Message string `json:"message,omitempty"`
}

// AccountID is the AWS account of the cluster, read from its OIDC
// provider's ARN ("" before it has one).
func (c *Cluster) AccountID() string {
	if parts := strings.Split(c.EKS.OIDCProviderArn, ":"); len(parts) > 4 {
		return parts[4]
	}
	return ""
}

// OIDCIssuerHost is the cluster's OIDC issuer without https://, as IAM
// trust policies name it.
func (c *Cluster) OIDCIssuerHost() string { return strings.TrimPrefix(c.EKS.OIDCIssuer, "https://") }

// ComputeSubnets are the cluster's compute subnets, where its nodes run.
func (c *Cluster) ComputeSubnets() []Subnet {
	var out []Subnet
	for _, sn := range c.Network.Subnets {
		if sn.Role == SubnetCompute {
			out = append(out, sn)
		}
	}
	return out
}

// RequireActive refuses, with a PRECONDITION on field, what may be done
// only while the cluster is ACTIVE; doing says what ("jobs can be
// submitted").
func (c *Cluster) RequireActive(field, doing string) error {
	if c.Status == ClusterActive {
		return nil
	}
	return errs.New(errs.Precondition, "cluster %s is %s; %s only while it is ACTIVE", c.Name, c.Status, doing).WithField(field)
}

// SingleInstanceTypes fills the instance types of groups, decoded from b,
// that were stored with the single "instanceType" of earlier versions.
func SingleInstanceTypes(b []byte, groups []GroupSpec) error {
	if !slices.ContainsFunc(groups, func(g GroupSpec) bool { return len(g.InstanceTypes) == 0 }) {
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

// Gone tells, for one pass of a refresher, which clusters are deleted or
// no longer stored: their records are not polled, since nothing of them is
// left to read. It looks each cluster up once.
type Gone struct {
	Get  func(id string) (*Cluster, error)
	seen map[string]bool
}

// Cluster reports whether cluster id is gone. A lookup that fails for
// another reason counts as not gone: the refresher tries, and says why.
func (g *Gone) Cluster(id string) bool {
	if v, ok := g.seen[id]; ok {
		return v
	}
	c, err := g.Get(id)
	v := errs.CodeOf(err) == errs.NotFound || (err == nil && c.Status == ClusterDeleted)
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	g.seen[id] = v
	return v
}
