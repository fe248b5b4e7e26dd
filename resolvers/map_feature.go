package resolvers

import (
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/graph/model"
)

// mapFeatureToggles turns the input into the toggles it sends, in the
// order of the feature table.
func mapFeatureToggles(in model.UpdateClusterFeaturesInput) []features.Toggle {
	var out []features.Toggle
	if in.NodeAutoRecovery != nil {
		out = append(out, features.Toggle{Name: features.NodeAutoRecovery, Enable: *in.NodeAutoRecovery})
	}
	if k := in.Karpenter; k != nil {
		out = append(out, features.Toggle{Name: features.KarpenterAutoscaling, Enable: k.Enabled, Settings: &features.Settings{InstanceGroups: k.InstanceGroups}})
	}
	if in.TrainingOperator != nil {
		out = append(out, features.Toggle{Name: features.TrainingOperator, Enable: *in.TrainingOperator})
	}
	if tc := in.TieredCheckpointing; tc != nil {
		t := features.Toggle{Name: features.TieredCheckpointing, Enable: tc.Enabled, Settings: &features.Settings{
			Bucket: deref(tc.Bucket), Namespace: deref(tc.Namespace), ServiceAccount: deref(tc.ServiceAccount),
		}}
		if tc.MemoryPercentage != nil {
			t.Settings.MemoryPercentage = *tc.MemoryPercentage
		}
		out = append(out, t)
	}
	return out
}

func mapFeature(f *features.Feature) *model.Feature {
	m := &model.Feature{Name: model.FeatureName(f.Name), Title: f.Title, Description: f.Description, Status: model.FeatureStatus(f.Status),
		Message: optional(f.Message), DependsOn: f.DependsOn, Resources: []*model.FeatureResource{}}
	if m.DependsOn == nil {
		m.DependsOn = []string{}
	}
	for _, r := range f.Resources {
		m.Resources = append(m.Resources, &model.FeatureResource{Kind: r.Kind, Ref: r.Ref, Shared: r.Shared, Detail: optional(r.Detail)})
	}
	if s := f.Settings; s != nil && f.Name == features.KarpenterAutoscaling {
		m.Karpenter = &model.KarpenterSettings{InstanceGroups: append([]string{}, s.InstanceGroups...)}
	}
	if s := f.Settings; s != nil && f.Name == features.TieredCheckpointing {
		m.TieredCheckpointing = &model.TieredCheckpointingSettings{Bucket: optional(s.Bucket), Namespace: s.Namespace, ServiceAccount: s.ServiceAccount}
		if s.MemoryPercentage > 0 {
			m.TieredCheckpointing.MemoryPercentage = &s.MemoryPercentage
		}
	}
	return m
}
