package cluster

import (
	"context"
	"strings"

	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/models"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/engine/training"
)

// ComputeView shows the cluster area to the compute area as the narrow
// interface compute needs, so that compute knows nothing of cluster
// records.
type ComputeView struct{ Service *Service }

var _ compute.Clusters = ComputeView{}

// Cluster returns what compute needs to know of cluster id.
func (v ComputeView) Cluster(id string) (*compute.Cluster, error) {
	c, err := v.Service.Get(id)
	if err != nil {
		return nil, err
	}
	return computeCluster(c), nil
}

// Live lists the ACTIVE clusters.
func (v ComputeView) Live() ([]*compute.Cluster, error) {
	page, err := v.Service.List(ListFilter{Statuses: []Status{StatusActive}}, 1<<20, "")
	if err != nil {
		return nil, err
	}
	out := make([]*compute.Cluster, 0, len(page.Items))
	for _, c := range page.Items {
		out = append(out, computeCluster(c))
	}
	return out, nil
}

// ComputeSubnet finds or makes the cluster's compute subnet in zone.
func (v ComputeView) ComputeSubnet(ctx context.Context, clusterID, zone string, create bool) (string, error) {
	return v.Service.ComputeSubnet(ctx, clusterID, zone, create)
}

// DependenciesStep returns the phase that installs what a new group of
// instanceTypes needs beyond every cluster's dependencies.
func (v ComputeView) DependenciesStep(clusterID string, instanceTypes []string) (*ops.Step, error) {
	return v.Service.dependenciesStep(clusterID, instanceTypes)
}

func computeCluster(c *Cluster) *compute.Cluster {
	return &compute.Cluster{
		ID: c.ID, Name: c.Name, Region: c.Region, Status: string(c.Status),
		HyperPodName: c.HyperPod.Name, EKSName: c.EKS.Name, Zones: c.Zones,
		SecurityGroupID: c.Network.SecurityGroupID, ExecutionRoleArn: c.Roles.ExecutionRoleArn, Imported: c.Imported,
	}
}

// FeaturesView shows the cluster area to the features area.
type FeaturesView struct{ Service *Service }

var _ features.Clusters = FeaturesView{}

// Cluster returns what the features need to know of cluster id.
func (v FeaturesView) Cluster(id string) (*features.Cluster, error) {
	c, err := v.Service.Get(id)
	if err != nil {
		return nil, err
	}
	account := accountOf(c)
	return &features.Cluster{
		ID: c.ID, Name: c.Name, Region: c.Region, Status: string(c.Status), EKSName: c.EKS.Name, HyperPodName: c.HyperPod.Name,
		OIDCProviderArn: c.EKS.OIDCProviderArn, OIDCIssuer: strings.TrimPrefix(c.EKS.OIDCIssuer, "https://"), AccountID: account,
	}, nil
}

// StorageView shows the cluster area to the storage area.
type StorageView struct{ Service *Service }

var _ storage.Clusters = StorageView{}

// Cluster returns what storage needs to know of cluster id.
func (v StorageView) Cluster(id string) (*storage.Cluster, error) {
	c, err := v.Service.Get(id)
	if err != nil {
		return nil, err
	}
	account := accountOf(c)
	out := &storage.Cluster{ID: c.ID, Name: c.Name, Region: c.Region, Status: string(c.Status), EKSName: c.EKS.Name, AccountID: account,
		VpcID: c.Network.VpcID, NodeSecurityGroupID: c.Network.SecurityGroupID}
	for _, sn := range c.Network.Subnets {
		if sn.Role == SubnetCompute {
			out.ComputeSubnets = append(out.ComputeSubnets, storage.Subnet{ID: sn.ID, Zone: sn.Zone})
		}
	}
	return out, nil
}

// accountOf is the AWS account of cluster c, read from its OIDC provider's
// ARN ("" before it has one).
func accountOf(c *Cluster) string {
	if parts := strings.Split(c.EKS.OIDCProviderArn, ":"); len(parts) > 4 {
		return parts[4]
	}
	return ""
}

// ModelsView shows the cluster area to the models area.
type ModelsView struct{ Service *Service }

var _ models.Clusters = ModelsView{}

// Cluster returns what models need to know of cluster id.
func (v ModelsView) Cluster(id string) (*models.Cluster, error) {
	c, err := v.Service.Get(id)
	if err != nil {
		return nil, err
	}
	return &models.Cluster{ID: c.ID, Name: c.Name, Region: c.Region, Status: string(c.Status), EKSName: c.EKS.Name}, nil
}

// TrainingView shows the cluster area to the training area.
type TrainingView struct{ Service *Service }

var _ training.Clusters = TrainingView{}

// Cluster returns what training needs to know of cluster id.
func (v TrainingView) Cluster(id string) (*training.Cluster, error) {
	c, err := v.Service.Get(id)
	if err != nil {
		return nil, err
	}
	return &training.Cluster{ID: c.ID, Name: c.Name, Region: c.Region, Status: string(c.Status), EKSName: c.EKS.Name}, nil
}

// InferenceView shows the cluster area to the inference area.
type InferenceView struct{ Service *Service }

var _ inference.Clusters = InferenceView{}

// Cluster returns what inference needs to know of cluster id.
func (v InferenceView) Cluster(id string) (*inference.Cluster, error) {
	c, err := v.Service.Get(id)
	if err != nil {
		return nil, err
	}
	return &inference.Cluster{ID: c.ID, Name: c.Name, Region: c.Region, Status: string(c.Status), EKSName: c.EKS.Name}, nil
}
