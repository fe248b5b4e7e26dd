package cluster

import (
	"context"
	"encoding/json"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// Operation kinds on a cluster's system node group.
const (
	KindScaleSystemNodes  = "ScaleSystemNodes"
	KindDeleteSystemNodes = "DeleteSystemNodes"
)

const phaseSystemNodes = "system-nodes"

type systemNodesOpInput struct {
	ClusterID    string `json:"clusterId"`
	Count        int    `json:"count"`
	InstanceType string `json:"instanceType,omitempty"`
}

// ScaleSystemNodes starts a ScaleSystemNodes operation: cluster id's
// system node group runs count nodes, made with instanceType (default
// m5.large) when the cluster has no group yet. A group at count already
// ends SUCCEEDED as a no-op.
func (s *Service) ScaleSystemNodes(ctx context.Context, caller, id string, count int, instanceType, idempotencyKey string) (*ops.Operation, error) {
	in := systemNodesOpInput{ClusterID: id, Count: count, InstanceType: instanceType}
	req := ops.Request{Kind: KindScaleSystemNodes, Target: ops.Ref{Kind: TargetKind, ID: id}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Input: in, Fingerprint: in}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	spec := SystemNodesInput{InstanceType: instanceType, Count: &count}
	if bad := normalizeSystemNodes(&spec, ""); len(bad) > 0 {
		return nil, bad
	}
	c, p, err := s.systemNodesTarget(id)
	if err != nil {
		return nil, err
	}
	g, err := (&systemNodes{p: p, eksName: c.EKS.Name}).describe(ctx)
	if err != nil {
		return nil, errs.FromUpstream(err, "read the system node group")
	}
	if g != nil && instanceType != "" && len(g.InstanceTypes) > 0 && g.InstanceTypes[0] != spec.InstanceType {
		return nil, errs.New(errs.ImmutableField, "the system node group runs %s, and a node group's instance type is fixed: leave instanceType out, or delete the system nodes with deleteSystemNodes and scale again with the new type", g.InstanceTypes[0]).WithField("instanceType")
	}
	in.InstanceType = spec.InstanceType
	req.Input, req.Target.Name = in, c.Name
	return s.runner.Submit(req)
}

// DeleteSystemNodes starts a DeleteSystemNodes operation: cluster id's
// system node group and its instances go. A cluster without one ends
// SUCCEEDED as a no-op.
func (s *Service) DeleteSystemNodes(ctx context.Context, caller, id, idempotencyKey string) (*ops.Operation, error) {
	in := systemNodesOpInput{ClusterID: id}
	req := ops.Request{Kind: KindDeleteSystemNodes, Target: ops.Ref{Kind: TargetKind, ID: id}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Input: in, Fingerprint: in}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	c, _, err := s.systemNodesTarget(id)
	if err != nil {
		return nil, err
	}
	req.Target.Name = c.Name
	return s.runner.Submit(req)
}

// systemNodesTarget is cluster id when its system node group may change:
// it is ACTIVE and InstantStart made it.
func (s *Service) systemNodesTarget(id string) (*hyperpod.Cluster, *cloud.Provider, error) {
	c, p, err := s.Reach(id, true)
	if err != nil {
		return nil, nil, errs.NotFoundOn(err, "clusterId")
	}
	if c.Status != hyperpod.ClusterActive {
		return nil, nil, errs.New(errs.Precondition, "cluster %s is %s; its system nodes can change once it is ACTIVE", c.Name, c.Status).WithField("clusterId")
	}
	if c.Imported || !c.Roles.Owned {
		return nil, nil, errs.New(errs.Precondition, "cluster %s was imported: InstantStart manages no node group or node role on it; add a managed node group with the EKS console or API", c.Name).WithField("clusterId")
	}
	return c, p, nil
}

// systemNodesSteps builds the one phase of ScaleSystemNodes and
// DeleteSystemNodes.
func (s *Service) systemNodesSteps(op *ops.Operation) ([]ops.Step, error) {
	var in systemNodesOpInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	c, err := s.Get(op.Target.ID)
	if err != nil {
		return nil, err
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return nil, err
	}
	sn := &systemNodes{p: p, eksName: c.EKS.Name, instanceType: in.InstanceType, count: in.Count, tags: clusterTags(c.ID, c.Name),
		subnets: func(*ops.Run) ([]string, error) { return privateSubnets(c.Network.Subnets), nil }}
	if op.Kind == KindDeleteSystemNodes {
		return []ops.Step{{Name: phaseSystemNodes, Title: "Delete the system node group", Observe: sn.observeDeleted, Apply: sn.applyDeleted, Timeout: 30 * time.Minute}}, nil
	}
	return []ops.Step{{Name: phaseSystemNodes, Title: "Scale the system node group", Observe: sn.observeScaled, Apply: sn.applyScaled, Timeout: 30 * time.Minute}}, nil
}

// clusterTags are the tags of what createCluster makes for a cluster.
func clusterTags(id, name string) map[string]string {
	return map[string]string{tagClusterID: id, "instantstart:cluster": name}
}

// privateSubnets are the ids of the PRIVATE subnets among subnets.
func privateSubnets(subnets []hyperpod.Subnet) []string {
	var out []string
	for _, sn := range subnets {
		if sn.Role == hyperpod.SubnetPrivate {
			out = append(out, sn.ID)
		}
	}
	return out
}
