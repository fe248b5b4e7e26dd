package cluster

import (
	"context"
	"time"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// KindRepairDependencies is the operation that reinstalls the cluster
// dependencies that are missing, failed or at another version than the
// pinned one: what a cluster needs when one was removed or broken outside
// InstantStart after its creation succeeded (a failed creation is
// repaired by retrying it).
const KindRepairDependencies = "RepairClusterDependencies"

// RepairDependencies starts a RepairClusterDependencies operation on
// cluster id, which must be ACTIVE. When every dependency is installed it
// ends SUCCEEDED as a no-op, having installed nothing.
func (s *Service) RepairDependencies(ctx context.Context, caller, id, idempotencyKey string) (*ops.Operation, error) {
	req := ops.Request{Kind: KindRepairDependencies, Target: ops.Ref{Kind: TargetKind, ID: id}, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: deleteInput{ClusterID: id}, Fingerprint: deleteInput{ClusterID: id}}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	c, err := s.Get(id)
	if err != nil {
		return nil, errs.NotFoundOn(err, "clusterId")
	}
	if c.Status != hyperpod.ClusterActive {
		return nil, errs.New(errs.Precondition, "cluster %s is %s; its dependencies can be repaired once it is ACTIVE (a failed creation or import installs them when retried)", c.Name, c.Status).WithField("clusterId")
	}
	req.Target.Name = c.Name
	return s.runner.Submit(req)
}

// repairSteps builds the one phase of a RepairClusterDependencies
// operation: the dependencies the HyperPod cluster's groups need, as now.
func (s *Service) repairSteps(op *ops.Operation) ([]ops.Step, error) {
	c, err := s.Get(op.Target.ID)
	if err != nil {
		return nil, err
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return nil, err
	}
	hyperPod := c.HyperPod.Name
	types := func(ctx context.Context, _ *ops.Run) ([]string, error) {
		return hyperPodInstanceTypes(ctx, p, hyperPod)
	}
	d := &dependencies{p: p, eksName: c.EKS.Name, instanceTypes: types}
	return []ops.Step{{Name: phaseDependencies, Title: "Reinstall HyperPod's cluster dependencies that are missing or broken",
		Observe: d.observe, Apply: d.apply, Timeout: 20 * time.Minute}}, nil
}
