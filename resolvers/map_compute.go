package resolvers

import (
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/graph/model"
)

func mapInstanceGroup(g *hyperpod.InstanceGroup) *model.InstanceGroup {
	out := &model.InstanceGroup{
		ID: g.ID, ClusterID: g.ClusterID, Name: g.Name, InstanceTypes: g.InstanceTypes, Flexible: g.Flexible(),
		CapacityType: model.CapacityType(g.CapacityType), TrainingPlanArn: optional(g.TrainingPlanArn), Zone: g.Zone,
		SubnetID: optional(g.SubnetID), NetworkInterfaceMode: model.NetworkInterfaceMode(g.InterfaceMode),
		ThreadsPerCore: g.ThreadsPerCore, VolumeSizeGb: g.VolumeSizeGB, DeepHealthChecks: g.DeepHealthChecks,
		Labels: make([]*model.KubernetesLabel, 0, len(g.Labels)), Taints: make([]*model.Taint, 0, len(g.Taints)),
		TargetCount: g.Count, CurrentCount: g.CurrentCount, Status: model.InstanceGroupStatus(g.Status),
		StatusMessage: optional(g.StatusMessage), Managed: g.Managed, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt,
		Software: &model.InstanceGroupSoftware{
			ImageVersion: optional(g.Software.ImageVersion), TargetImageVersion: optional(g.Software.TargetImageVersion),
			ImageVersionStatus: imageVersionStatus(g.Software.ImageVersionStatus),
		},
	}
	if v := model.SoftwareUpdateStatus(g.Software.UpdateStatus); v.IsValid() {
		out.Software.UpdateStatus = &v
	}
	if len(g.InstanceTypes) > 0 {
		out.InstanceType = g.InstanceTypes[0]
	}
	if out.DeepHealthChecks == nil {
		out.DeepHealthChecks = []string{}
	}
	if g.MinCount > 0 {
		out.MinCount = &g.MinCount
	}
	for _, l := range g.Labels {
		out.Labels = append(out.Labels, &model.KubernetesLabel{Key: l.Key, Value: l.Value})
	}
	for _, t := range g.Taints {
		out.Taints = append(out.Taints, &model.Taint{Key: t.Key, Value: optional(t.Value), Effect: model.TaintEffect(t.Effect)})
	}
	return out
}

func mapNode(n *compute.Node) *model.Node {
	return &model.Node{
		ID: n.ID, InstanceID: n.ID, ClusterID: n.ClusterID, InstanceGroupID: n.GroupID, InstanceGroupName: n.GroupName,
		LogicalID: optional(n.LogicalID), InstanceType: n.InstanceType, Status: model.NodeStatus(n.Status),
		StatusMessage: optional(n.StatusMessage), Health: model.NodeHealth(n.Health), DeepHealthCheck: model.DeepHealthCheckResult(n.DeepHealthCheck),
		CapacityType: model.CapacityType(n.CapacityType), Zone: n.Zone, PrivateDNSHostname: optional(n.PrivateDNS),
		KubernetesNodeName: optional(n.KubeNodeName), LaunchTime: n.LaunchTime, UpdatedAt: n.UpdatedAt,
		ImageVersion: optional(n.ImageVersion), ImageVersionStatus: imageVersionStatus(n.ImageStatus),
	}
}

// imageVersionStatus maps a stored image version status to the schema's
// enum: empty, or a value a newer SageMaker added, is UNKNOWN.
func imageVersionStatus(s string) model.ImageVersionStatus {
	if v := model.ImageVersionStatus(s); v.IsValid() {
		return v
	}
	return model.ImageVersionStatusUnknown
}

func mapLabels(in []*model.KubernetesLabelInput) []hyperpod.Label {
	out := make([]hyperpod.Label, 0, len(in))
	for _, l := range in {
		out = append(out, hyperpod.Label{Key: l.Key, Value: l.Value})
	}
	return out
}

func mapTaints(in []*model.TaintInput) []hyperpod.Taint {
	out := make([]hyperpod.Taint, 0, len(in))
	for _, t := range in {
		out = append(out, hyperpod.Taint{Key: t.Key, Value: deref(t.Value), Effect: string(t.Effect)})
	}
	return out
}

func mapAddInstanceGroupInput(in model.AddInstanceGroupInput) compute.AddInput {
	out := compute.AddInput{ClusterID: in.ClusterID, GroupSpec: hyperpod.GroupSpec{
		Name: in.Name, InstanceTypes: in.InstanceTypes, Count: in.Count, Zone: deref(in.Zone), TrainingPlanArn: deref(in.TrainingPlanArn),
		DeepHealthChecks: in.DeepHealthChecks, Labels: mapLabels(in.Labels), Taints: mapTaints(in.Taints),
	}}
	if in.InstanceType != nil {
		out.InstanceTypes = append([]string{*in.InstanceType}, in.InstanceTypes...)
	}
	if in.MinCount != nil {
		out.MinCount = *in.MinCount
	}
	if in.CapacityType != nil {
		out.CapacityType = string(*in.CapacityType)
	}
	if in.NetworkInterfaceMode != nil {
		out.InterfaceMode = string(*in.NetworkInterfaceMode)
	}
	if in.ThreadsPerCore != nil {
		out.ThreadsPerCore = *in.ThreadsPerCore
	}
	if in.VolumeSizeGb != nil {
		out.VolumeSizeGB = *in.VolumeSizeGb
	}
	return out
}

func mapUpdateInstanceGroupInput(in model.UpdateInstanceGroupInput) compute.UpdateInput {
	out := compute.UpdateInput{
		Count: in.Count, MinCount: in.MinCount, TrainingPlanArn: in.TrainingPlanArn, Zone: in.Zone, InstanceTypes: in.InstanceTypes,
		DeepHealthChecks: in.DeepHealthChecks, SetHealthChecks: in.DeepHealthChecks != nil,
		SetLabels: in.Labels != nil, SetTaints: in.Taints != nil,
	}
	if in.Labels != nil {
		out.Labels = mapLabels(in.Labels)
	}
	if in.Taints != nil {
		out.Taints = mapTaints(in.Taints)
	}
	if in.CapacityType != nil {
		v := string(*in.CapacityType)
		out.CapacityType = &v
	}
	if in.NetworkInterfaceMode != nil {
		v := string(*in.NetworkInterfaceMode)
		out.InterfaceMode = &v
	}
	return out
}

func mapDiagnosis(d *compute.Diagnosis) *model.NodeDiagnosis {
	out := &model.NodeDiagnosis{
		Node: mapNode(d.Node), AutoRecovery: d.AutoRecovery, FailedChecks: d.FailedChecks, Findings: d.Findings,
		NextStep: model.NodeNextStep(d.NextStep), Reason: d.Reason, RecentEvents: make([]*model.NodeEvent, 0, len(d.Events)),
	}
	if out.FailedChecks == nil {
		out.FailedChecks = []string{}
	}
	for _, e := range d.Events {
		out.RecentEvents = append(out.RecentEvents, &model.NodeEvent{Time: e.Time, Level: e.Level, Description: e.Description})
	}
	return out
}
