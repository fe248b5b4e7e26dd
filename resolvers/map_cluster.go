package resolvers

import (
	"strings"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/graph/model"
)

// mapCluster turns a stored cluster into its GraphQL form. Its operations
// and lastOperation are field resolvers.
func mapCluster(c *hyperpod.Cluster) *model.Cluster {
	if c == nil {
		return nil
	}
	out := &model.Cluster{
		ID:                c.ID,
		Name:              c.Name,
		Region:            c.Region,
		KubernetesVersion: c.KubernetesVersion,
		Zones:             append([]string{}, c.Zones...),
		Status:            model.ClusterStatus(c.Status),
		StatusMessage:     optional(c.StatusMessage),
		Imported:          c.Imported,
		Network:           mapNetwork(c.Network),
		Eks: &model.EksControlPlane{
			Name:               c.EKS.Name,
			Arn:                optional(c.EKS.Arn),
			Status:             optional(c.EKS.Status),
			Version:            optional(c.EKS.Version),
			Endpoint:           optional(c.EKS.Endpoint),
			OidcIssuer:         optional(c.EKS.OIDCIssuer),
			OidcProviderArn:    optional(c.EKS.OIDCProviderArn),
			AuthenticationMode: optional(c.EKS.AuthMode),
			Addons:             append([]string{}, c.EKS.Addons...),
		},
		HyperPod: &model.HyperPodCluster{
			Name:                 c.HyperPod.Name,
			Arn:                  optional(c.HyperPod.Arn),
			Status:               optional(c.HyperPod.Status),
			FailureMessage:       optional(c.HyperPod.FailureMessage),
			NodeRecovery:         optional(c.HyperPod.NodeRecovery),
			NodeProvisioningMode: optional(c.HyperPod.NodeProvisioning),
		},
		EksClusterRoleArn:       optional(c.Roles.EKSClusterRoleArn),
		ExecutionRoleArn:        optional(c.Roles.ExecutionRoleArn),
		RequestedInstanceGroups: make([]*model.InstanceGroupSpec, 0, len(c.InstanceGroups)),
		CreatedAt:               c.CreatedAt,
		UpdatedAt:               c.UpdatedAt,
	}
	for _, g := range c.InstanceGroups {
		out.RequestedInstanceGroups = append(out.RequestedInstanceGroups, mapInstanceGroupSpec(g))
	}
	out.Dependencies = make([]*model.ClusterDependency, 0, len(c.Dependencies))
	for _, d := range c.Dependencies {
		out.Dependencies = append(out.Dependencies, &model.ClusterDependency{Name: d.Name, Version: optional(d.Version),
			Status: model.DependencyStatus(d.Status), Kind: model.DependencyKind(d.Kind), Message: optional(d.Message)})
	}
	if c.Nodes != nil {
		out.NodesReady, out.NodesTotal = &c.Nodes.Ready, &c.Nodes.Total
	}
	return out
}

func mapNetwork(n hyperpod.Network) *model.ClusterNetwork {
	out := &model.ClusterNetwork{
		VpcID:             optional(n.VpcID),
		Cidr:              optional(n.CIDR),
		Subnets:           make([]*model.Subnet, 0, len(n.Subnets)),
		SecurityGroupID:   optional(n.SecurityGroupID),
		NatGatewayID:      optional(n.NatGatewayID),
		InternetGatewayID: optional(n.InternetGateway),
		Owned:             n.Owned,
	}
	for _, s := range n.Subnets {
		out.Subnets = append(out.Subnets, &model.Subnet{ID: s.ID, Zone: s.Zone, Cidr: s.CIDR, Role: model.SubnetRole(s.Role)})
	}
	return out
}

func mapInstanceGroupSpec(g hyperpod.GroupSpec) *model.InstanceGroupSpec {
	out := &model.InstanceGroupSpec{
		Name:                 g.Name,
		InstanceTypes:        append([]string{}, g.InstanceTypes...),
		Count:                g.Count,
		Zone:                 g.Zone,
		CapacityType:         model.CapacityType(g.CapacityType),
		NetworkInterfaceMode: model.NetworkInterfaceMode(g.InterfaceMode),
		ThreadsPerCore:       g.ThreadsPerCore,
		VolumeSizeGb:         g.VolumeSizeGB,
		DeepHealthChecks:     append([]string{}, g.DeepHealthChecks...),
	}
	if len(g.InstanceTypes) > 0 {
		out.InstanceType = g.InstanceTypes[0]
	}
	if out.NetworkInterfaceMode == "" {
		out.NetworkInterfaceMode = model.NetworkInterfaceModeStandard
	}
	if g.MinCount > 0 {
		minCount := g.MinCount
		out.MinCount = &minCount
	}
	if out.CapacityType == "" {
		out.CapacityType = model.CapacityTypeOnDemand
	}
	return out
}

func mapClusterFilter(f *model.ClusterFilter) cluster.ListFilter {
	if f == nil {
		return cluster.ListFilter{}
	}
	out := cluster.ListFilter{IncludeDeleted: f.IncludeDeleted != nil && *f.IncludeDeleted}
	for _, s := range f.Statuses {
		out.Statuses = append(out.Statuses, hyperpod.ClusterStatus(s))
	}
	return out
}

// mapRegion is the region a client named in field: "" when it left the
// field out, which the engine reads as the server's default region. An
// empty region sent explicitly is refused rather than read as that default:
// it is a mistake more often than a choice.
func mapRegion(field string, region *string) (string, error) {
	if region != nil && strings.TrimSpace(*region) == "" {
		return "", errs.Field(field, "%s is empty; name a region (such as us-west-2), or leave %s out for the server's default region", field, field)
	}
	return deref(region), nil
}

// mapCreateClusterInput passes the request on as given: absent fields stay
// zero and the engine applies the defaults the schema documents.
func mapCreateClusterInput(in model.CreateClusterInput) (cluster.CreateInput, error) {
	region, err := mapRegion("input.region", in.Region)
	if err != nil {
		return cluster.CreateInput{}, err
	}
	out := cluster.CreateInput{
		Name:              in.Name,
		Region:            region,
		KubernetesVersion: deref(in.KubernetesVersion),
		Zones:             in.Zones,
		VpcCIDR:           deref(in.VpcCidr),
		SystemNodes:       mapSystemNodesInput(in.SystemNodes),
	}
	for _, g := range in.InstanceGroups {
		out.InstanceGroups = append(out.InstanceGroups, mapInstanceGroupInput(g))
	}
	return out, nil
}

// mapInstanceGroupInput maps a group of createCluster the way
// addInstanceGroup's group is mapped: both ask the same decisions of one
// group model, except that a group created with its cluster names no
// cluster and no training plan (groupspec.Normalize refuses one).
func mapInstanceGroupInput(g *model.InstanceGroupInput) hyperpod.GroupSpec {
	return mapAddInstanceGroupInput(model.AddInstanceGroupInput{
		Name: g.Name, InstanceType: g.InstanceType, InstanceTypes: g.InstanceTypes, Count: g.Count, MinCount: g.MinCount, Zone: g.Zone,
		CapacityType: g.CapacityType, NetworkInterfaceMode: g.NetworkInterfaceMode, ThreadsPerCore: g.ThreadsPerCore,
		VolumeSizeGb: g.VolumeSizeGb, DeepHealthChecks: g.DeepHealthChecks, Labels: g.Labels, Taints: g.Taints,
	}).GroupSpec
}

func mapImportClusterInput(in model.ImportClusterInput) (cluster.ImportInput, error) {
	region, err := mapRegion("input.region", in.Region)
	if err != nil {
		return cluster.ImportInput{}, err
	}
	return cluster.ImportInput{
		Name:                deref(in.Name),
		Region:              region,
		EKSClusterName:      in.EksClusterName,
		HyperPodClusterName: deref(in.HyperPodClusterName),
	}, nil
}

// mapSystemNodesInput passes the system node group's size on; an absent
// count stays absent (the default), unlike 0 (no group).
func mapSystemNodesInput(in *model.SystemNodesInput) *cluster.SystemNodesInput {
	if in == nil {
		return nil
	}
	return &cluster.SystemNodesInput{InstanceType: deref(in.InstanceType), Count: in.Count}
}

func mapSystemNodes(s *hyperpod.SystemNodes) *model.SystemNodeGroup {
	if s == nil {
		return nil
	}
	issues := s.Issues
	if issues == nil {
		issues = []string{}
	}
	return &model.SystemNodeGroup{Name: s.Name, Arn: optional(s.Arn), Status: s.Status, InstanceType: s.InstanceType,
		DesiredCount: s.Desired, ReadyCount: s.Ready, Issues: issues}
}
