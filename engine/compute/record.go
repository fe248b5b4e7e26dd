package compute

import (
	"context"
	"time"

	"github.com/instantstart/instantstart/engine/ops"
)

// RecordStep is the last phase of createCluster and importCluster: it
// reads the new cluster's instance groups and nodes into their records,
// so that once the operation has SUCCEEDED a call that needs them (a job,
// an endpoint, a list) finds them, without waiting for the refresher.
func (s *Service) RecordStep(clusterID string) ops.Step {
	return ops.Step{Name: "record-compute", Title: "Read the instance groups and nodes", Timeout: 10 * time.Minute,
		Observe: func(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
			c, err := s.clusters.Get(clusterID)
			if err != nil {
				return ops.Observation{}, err
			}
			if _, err := s.Sync(ctx, c); err != nil {
				return ops.Observation{}, err
			}
			groups, err := s.Groups(clusterID, false)
			if err != nil {
				return ops.Observation{}, err
			}
			return ops.Observation{State: ops.Done, Message: plural(len(groups), "instance group") + " recorded"}, nil
		}}
}
