package compute

import "github.com/instantstart/instantstart/engine/inference"

// InferenceView shows the instance groups to the inference area.
type InferenceView struct{ Service *Service }

var _ inference.Groups = InferenceView{}

// InstanceTypes returns the instance types of the cluster's live groups,
// with the nodes their groups are asked to hold.
func (v InferenceView) InstanceTypes(clusterID string) (map[string]int, error) {
	groups, err := v.Service.Groups(clusterID, false)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, g := range groups {
		for _, t := range g.InstanceTypes {
			out[t] += g.Count
		}
	}
	return out, nil
}
