package resolvers

import (
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/graph/model"
)

// mapFeatureToggles turns the input into the toggles it sends, in the
// order of the feature table.
func mapFeatureToggles(in model.UpdateClusterFeaturesInput) []features.Toggle {
	var out []features.Toggle
	if in.NodeAutoRecovery != nil {
		out = append(out, features.Toggle{Name: hyperpod.NodeAutoRecovery, Enable: *in.NodeAutoRecovery})
	}
	if k := in.Karpenter; k != nil {
		out = append(out, features.Toggle{Name: hyperpod.KarpenterAutoscaling, Enable: k.Enabled, Settings: &features.Settings{InstanceGroups: k.InstanceGroups}})
	}
	if in.TrainingOperator != nil {
		out = append(out, features.Toggle{Name: hyperpod.TrainingOperator, Enable: *in.TrainingOperator})
	}
	if tc := in.TieredCheckpointing; tc != nil {
		t := features.Toggle{Name: hyperpod.TieredCheckpointing, Enable: tc.Enabled, Settings: &features.Settings{
			Bucket: deref(tc.Bucket), Namespace: deref(tc.Namespace), ServiceAccount: deref(tc.ServiceAccount),
		}}
		if tc.MemoryPercentage != nil {
			t.Settings.MemoryPercentage = *tc.MemoryPercentage
		}
		out = append(out, t)
	}
	if d := in.DeepHealthChecks; d != nil {
		out = append(out, features.Toggle{Name: hyperpod.DeepHealthChecks, Enable: d.Enabled, Settings: &features.Settings{InstanceGroups: d.InstanceGroups, Checks: d.Checks}})
	}
	if io := in.InferenceOperator; io != nil {
		out = append(out, features.Toggle{Name: hyperpod.InferenceOperator, Enable: io.Enabled, Settings: &features.Settings{Bucket: deref(io.TLSCertificateBucket)}})
	}
	if o := in.Observability; o != nil {
		out = append(out, features.Toggle{Name: hyperpod.Observability, Enable: o.Enabled, Settings: &features.Settings{WorkspaceArn: deref(o.PrometheusWorkspaceArn)}})
	}
	if in.KubeRay != nil {
		out = append(out, features.Toggle{Name: hyperpod.KubeRay, Enable: *in.KubeRay})
	}
	if in.Keda != nil {
		out = append(out, features.Toggle{Name: hyperpod.KEDA, Enable: *in.Keda})
	}
	if in.LoadBalancerController != nil {
		out = append(out, features.Toggle{Name: hyperpod.LoadBalancerController, Enable: *in.LoadBalancerController})
	}
	if c := in.S3CsiDriver; c != nil {
		out = append(out, features.Toggle{Name: hyperpod.S3CSIDriver, Enable: c.Enabled, Settings: &features.Settings{Buckets: c.Buckets}})
	}
	if in.FsxCsiDriver != nil {
		out = append(out, features.Toggle{Name: hyperpod.FSxCSIDriver, Enable: *in.FsxCsiDriver})
	}
	if m := in.Mlflow; m != nil {
		t := features.Toggle{Name: hyperpod.MLflow, Enable: m.Enabled, Settings: &features.Settings{
			TrackingServerName: deref(m.TrackingServerName), ArtifactStoreURI: deref(m.ArtifactStoreURI), TrackingServerArn: deref(m.TrackingServerArn),
		}}
		if m.TrackingServerSize != nil {
			t.Settings.TrackingServerSize = trackingServerSizes[*m.TrackingServerSize]
		}
		out = append(out, t)
	}
	return out
}

// trackingServerSizes are SageMaker's names of the schema's tracking
// server sizes.
var trackingServerSizes = map[model.MlflowTrackingServerSize]string{
	model.MlflowTrackingServerSizeSmall: "Small", model.MlflowTrackingServerSizeMedium: "Medium", model.MlflowTrackingServerSizeLarge: "Large",
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
	s := f.Settings
	if s == nil {
		return m
	}
	switch f.Name {
	case hyperpod.KarpenterAutoscaling:
		m.Karpenter = &model.KarpenterSettings{InstanceGroups: append([]string{}, s.InstanceGroups...)}
	case hyperpod.DeepHealthChecks:
		m.DeepHealthChecks = &model.DeepHealthCheckSettings{InstanceGroups: append([]string{}, s.InstanceGroups...), Checks: append([]string{}, s.Checks...)}
	case hyperpod.InferenceOperator:
		m.InferenceOperator = &model.InferenceOperatorSettings{TLSCertificateBucket: s.Bucket}
	case hyperpod.Observability:
		m.Observability = &model.ObservabilitySettings{PrometheusWorkspaceArn: s.WorkspaceArn}
	case hyperpod.S3CSIDriver:
		m.S3CsiDriver = &model.S3CsiDriverSettings{Buckets: append([]string{}, s.Buckets...)}
	case hyperpod.MLflow:
		m.Mlflow = &model.MlflowSettings{TrackingServerArn: s.TrackingServerArn, Existing: s.TrackingServerName == "", Namespace: s.Namespace, ServiceAccount: s.ServiceAccount}
		if s.TrackingServerName != "" {
			m.Mlflow.TrackingServerName, m.Mlflow.ArtifactStoreURI = optional(s.TrackingServerName), optional(s.ArtifactStoreURI)
			for size, name := range trackingServerSizes {
				if name == s.TrackingServerSize {
					m.Mlflow.TrackingServerSize = &size
				}
			}
		}
	case hyperpod.TieredCheckpointing:
		m.TieredCheckpointing = &model.TieredCheckpointingSettings{Bucket: optional(s.Bucket), Namespace: s.Namespace, ServiceAccount: s.ServiceAccount}
		if s.MemoryPercentage > 0 {
			m.TieredCheckpointing.MemoryPercentage = &s.MemoryPercentage
		}
	}
	return m
}
