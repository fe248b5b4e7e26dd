package compute

import "github.com/instantstart/instantstart/engine/training"

// TrainingView shows the instance groups to the training area.
type TrainingView struct{ Service *Service }

var _ training.Groups = TrainingView{}

// Group returns the cluster's live instance group called name, or nil.
func (v TrainingView) Group(clusterID, name string) (*training.Group, error) {
	groups, err := v.Service.Groups(clusterID, false)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if g.Name == name && len(g.InstanceTypes) > 0 {
			return &training.Group{Name: g.Name, InstanceType: g.InstanceTypes[0], Status: string(g.Status), Count: g.Count}, nil
		}
	}
	return nil, nil
}
