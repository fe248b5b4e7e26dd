// Package cluster defines the cluster lifecycle: creating a HyperPod cluster
// with its network, IAM roles, EKS control plane and base add-ons; importing
// an existing one; and deleting it. Each is a staged operation run by
// engine/ops against the provider ports of engine/cloud.
package cluster

import (
	"encoding/json"

	"github.com/instantstart/instantstart/engine/hyperpod"
)

// RecordKind is the store kind of cluster records and of their events.
const RecordKind = "cluster"

// CreateInput asks for a new cluster. Only decisions are asked for; CIDRs,
// route tables and security groups are planned.
type CreateInput struct {
	Name              string               `json:"name"`
	Region            string               `json:"region"`
	KubernetesVersion string               `json:"kubernetesVersion"`
	Zones             []string             `json:"zones"`
	InstanceGroups    []hyperpod.GroupSpec `json:"instanceGroups,omitempty"` // under groupspec.CreatingCluster's rules
	// VpcCIDR optionally fixes the VPC's /16 (for peering plans); by default
	// the first free one is chosen.
	VpcCIDR string `json:"vpcCidr,omitempty"`
	// SystemNodes sizes the system node group (see SystemNodesInput); nil
	// means the default, two m5.large nodes.
	SystemNodes *SystemNodesInput `json:"systemNodes,omitempty"`
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
	Statuses       []hyperpod.ClusterStatus
	IncludeDeleted bool
}

// Page is one page of clusters in creation order.
type Page struct {
	Items      []*hyperpod.Cluster
	TotalCount int
	HasNext    bool
}

// UnmarshalJSON reads a stored CreateCluster request, including one stored
// while a group named a single "instanceType".
func (in *CreateInput) UnmarshalJSON(b []byte) error {
	type request CreateInput
	if err := json.Unmarshal(b, (*request)(in)); err != nil {
		return err
	}
	return hyperpod.SingleInstanceTypes(b, in.InstanceGroups)
}
