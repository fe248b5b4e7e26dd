package compute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/capacity"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Operation kinds of instance groups.
const (
	KindAddGroup    = "AddInstanceGroup"
	KindScaleGroup  = "ScaleInstanceGroup"
	KindUpdateGroup = "UpdateInstanceGroup"
	KindDeleteGroup = "DeleteInstanceGroup"

	groupStatusQuery = "instanceGroup"
)

// groupInput is what a group operation stores: the group as it should be.
type groupInput struct {
	ClusterID string             `json:"clusterId"`
	Desired   hyperpod.GroupSpec `json:"desired"`
	Changed   []string           `json:"changed,omitempty"` // the fields an update changes
}

func (s *Service) register() {
	for _, kind := range []string{KindAddGroup, KindScaleGroup, KindUpdateGroup, KindDeleteGroup} {
		s.runner.Register(ops.Definition{Kind: kind, StatusQuery: groupStatusQuery, Steps: s.groupSteps, Reflect: reflectGroup})
	}
	for _, kind := range []string{KindRebootNodes, KindReplaceNodes, KindDeleteNodes} {
		s.runner.Register(ops.Definition{Kind: kind, StatusQuery: nodesStatusQuery, Steps: s.nodeSteps})
	}
	s.runner.Register(ops.Definition{Kind: KindUpdateSoftware, StatusQuery: nodesStatusQuery, Steps: s.softwareSteps})
}

// Add checks a new group against the cluster, the zone's offerings, the
// quota and the training plan, then starts an AddInstanceGroup operation.
func (s *Service) Add(ctx context.Context, caller string, in AddInput, idempotencyKey string) (*ops.Operation, error) {
	asSent := in
	in.InstanceTypes = slices.Clone(in.InstanceTypes)
	replay := ops.Request{Kind: KindAddGroup, Target: ops.Ref{Kind: GroupTarget, Name: in.Name}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: asSent}
	if op, err := s.runner.Replay(replay); op != nil || err != nil {
		return op, err
	}
	if bad := groupspec.Normalize(&in.GroupSpec, func(f string) string { return "input." + f }, groupspec.AddingGroup); len(bad) > 0 {
		return nil, bad
	}
	t, err := s.readActive(ctx, in.ClusterID, "input.clusterId")
	if err != nil {
		return nil, err
	}
	c, p, hp := t.cluster, t.p, t.hyperPod
	if groupspec.Find(hp, in.Name) != nil {
		return nil, errs.New(errs.Precondition, "HyperPod cluster %s already has an instance group named %s; choose another name", c.HyperPod.Name, in.Name).WithField("input.name")
	}
	if executionRole(c, hp) == "" {
		return nil, errs.New(errs.Precondition, "cluster %s has no execution role for instances: import it again once one of its groups exists, or create the cluster with InstantStart", c.Name).WithField("input.clusterId")
	}
	if err := s.checkPlacement(ctx, p, c, &in.GroupSpec, in.Count); err != nil {
		return nil, err
	}
	id := s.ids.NewID()
	return s.runner.Submit(ops.Request{
		Kind: KindAddGroup, Target: ops.Ref{Kind: GroupTarget, ID: id, Name: in.Name}, RequestedBy: caller,
		IdempotencyKey: idempotencyKey, Input: groupInput{ClusterID: c.ID, Desired: in.GroupSpec}, Fingerprint: asSent,
		Prepare: func(tx *store.Tx, op *ops.Operation) error {
			key := c.ID + "/" + in.Name
			holder, err := tx.GetIndex(groupIndex, key)
			if err == nil && holder != id {
				return errs.New(errs.Precondition, "cluster %s already has an instance group named %s (id %s); choose another name", c.Name, in.Name, holder).WithField("input.name")
			}
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if err := tx.PutIndex(groupIndex, key, id); err != nil {
				return err
			}
			now := tx.Now()
			return tx.Put(GroupKind, id, &hyperpod.InstanceGroup{ID: id, ClusterID: c.ID, GroupSpec: in.GroupSpec, Status: hyperpod.GroupPending, Managed: true, CreatedAt: now, UpdatedAt: now})
		},
	})
}

// UpdateInput changes a group: nil fields stay as they are.
type UpdateInput struct {
	Count            *int             `json:"count,omitempty"`
	MinCount         *int             `json:"minCount,omitempty"`
	DeepHealthChecks []string         `json:"deepHealthChecks,omitempty"`
	SetHealthChecks  bool             `json:"setDeepHealthChecks,omitempty"` // DeepHealthChecks was sent (it may be empty)
	Labels           []hyperpod.Label `json:"labels,omitempty"`
	SetLabels        bool             `json:"setLabels,omitempty"`
	Taints           []hyperpod.Taint `json:"taints,omitempty"`
	SetTaints        bool             `json:"setTaints,omitempty"`
	// Fixed for the group's lifetime: a different value is IMMUTABLE_FIELD.
	CapacityType    *string  `json:"capacityType,omitempty"`
	InterfaceMode   *string  `json:"networkInterfaceMode,omitempty"`
	TrainingPlanArn *string  `json:"trainingPlanArn,omitempty"`
	Zone            *string  `json:"zone,omitempty"`
	InstanceTypes   []string `json:"instanceTypes,omitempty"`
}

// Scale sets a group's target count.
func (s *Service) Scale(ctx context.Context, caller, id string, count int, idempotencyKey string) (*ops.Operation, error) {
	return s.change(ctx, caller, KindScaleGroup, id, UpdateInput{Count: &count}, idempotencyKey)
}

// Update changes the fields of a group that in sends, where they differ
// from the actual state.
func (s *Service) Update(ctx context.Context, caller, id string, in UpdateInput, idempotencyKey string) (*ops.Operation, error) {
	return s.change(ctx, caller, KindUpdateGroup, id, in, idempotencyKey)
}

func (s *Service) change(ctx context.Context, caller, kind, id string, in UpdateInput, idempotencyKey string) (*ops.Operation, error) {
	g, err := s.Group(id)
	if err != nil {
		return nil, err
	}
	target := ops.Ref{Kind: GroupTarget, ID: g.ID, Name: g.Name}
	if op, err := s.runner.Replay(ops.Request{Kind: kind, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: in}); op != nil || err != nil {
		return op, err
	}
	if g.Status == hyperpod.GroupDeleted || g.Status == hyperpod.GroupDeleting {
		return nil, errs.New(errs.Precondition, "instance group %s is %s", g.Name, g.Status).WithField("id")
	}
	types := strings.Join(g.InstanceTypes, ",")
	var sentTypes *string
	if in.InstanceTypes != nil {
		v := strings.Join(in.InstanceTypes, ",")
		sentTypes = &v
	}
	var bad errs.List
	for _, err := range []error{
		immutable(g.Name, "capacityType", in.CapacityType, g.CapacityType),
		immutable(g.Name, "networkInterfaceMode", in.InterfaceMode, g.InterfaceMode),
		immutable(g.Name, "trainingPlanArn", in.TrainingPlanArn, g.TrainingPlanArn),
		immutable(g.Name, "zone", in.Zone, g.Zone),
		immutable(g.Name, "instanceTypes", sentTypes, types),
	} {
		if err != nil {
			bad = append(bad, errs.As(err))
		}
	}
	if len(bad) > 0 {
		return nil, bad
	}
	t, err := s.readActive(ctx, g.ClusterID, "id")
	if err != nil {
		return nil, err
	}
	c, p, hp := t.cluster, t.p, t.hyperPod
	d := groupspec.Find(hp, g.Name)
	if d == nil {
		return nil, errs.New(errs.Precondition, "HyperPod cluster %s has no instance group %s (deleted outside InstantStart?); add it again", c.HyperPod.Name, g.Name).WithField("id")
	}
	actual := groupspec.Actual(d)
	desired := actual
	desired.InterfaceMode, desired.VolumeSizeGB = g.InterfaceMode, max(actual.VolumeSizeGB, g.VolumeSizeGB)
	var changed []string
	if in.Count != nil && *in.Count != actual.Count {
		desired.Count = *in.Count
		changed = append(changed, "count")
		if in.MinCount == nil && desired.MinCount > desired.Count {
			desired.MinCount = desired.Count
		}
	}
	if in.MinCount != nil && *in.MinCount != actual.MinCount {
		desired.MinCount, changed = *in.MinCount, append(changed, "minCount")
	}
	if in.SetHealthChecks && !sameSet(in.DeepHealthChecks, actual.DeepHealthChecks) {
		desired.DeepHealthChecks, changed = in.DeepHealthChecks, append(changed, "deepHealthChecks")
	}
	if in.SetLabels && !sameLabels(in.Labels, actual.Labels) {
		desired.Labels, changed = in.Labels, append(changed, "labels")
	}
	if in.SetTaints && !sameTaints(in.Taints, actual.Taints) {
		desired.Taints, changed = in.Taints, append(changed, "taints")
	}
	field := func(f string) string { return "input." + f }
	if kind == KindScaleGroup {
		field = func(string) string { return "count" }
	}
	bad = append(bad, checkCounts(desired, field)...)
	bad = append(bad, groupspec.CheckKubernetesConfig(desired.Labels, desired.Taints, field)...)
	if len(bad) > 0 {
		return nil, bad
	}
	if extra := desired.Count - actual.Count; extra > 0 {
		placed := desired
		if err := s.checkPlacement(ctx, p, c, &placed, extra); err != nil {
			return nil, err
		}
	}
	return s.runner.Submit(ops.Request{
		Kind: kind, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: in,
		Input: groupInput{ClusterID: c.ID, Desired: desired, Changed: changed}, Noop: len(changed) == 0,
	})
}

func checkCounts(g hyperpod.GroupSpec, field func(string) string) errs.List {
	return append(capacity.CheckCounts(g.Count, g.MinCount, field), capacity.CheckDeepHealthChecks(g.DeepHealthChecks, field)...)
}

// Delete starts a DeleteInstanceGroup operation.
func (s *Service) Delete(ctx context.Context, caller, id, idempotencyKey string) (*ops.Operation, error) {
	g, err := s.Group(id)
	if err != nil {
		return nil, err
	}
	target := ops.Ref{Kind: GroupTarget, ID: g.ID, Name: g.Name}
	if op, err := s.runner.Replay(ops.Request{Kind: KindDeleteGroup, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey}); op != nil || err != nil {
		return op, err
	}
	if g.Status == hyperpod.GroupDeleted {
		return nil, errs.New(errs.Precondition, "instance group %s was already deleted", g.Name).WithField("id")
	}
	c, err := s.activeCluster(g.ClusterID, "id")
	if err != nil {
		return nil, err
	}
	return s.runner.Submit(ops.Request{Kind: KindDeleteGroup, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: groupInput{ClusterID: c.ID, Desired: g.GroupSpec}})
}

// groupSteps builds the phases of a group operation.
func (s *Service) groupSteps(op *ops.Operation) ([]ops.Step, error) {
	var in groupInput
	c, p, err := s.stepStart(op, &in, func() string { return in.ClusterID })
	if err != nil {
		return nil, err
	}
	w := &groupWork{s: s, p: p, c: c, desired: in.Desired}
	switch op.Kind {
	case KindAddGroup:
		steps := []ops.Step{
			{Name: phaseComputeSubnet, Title: "Find or make the compute subnet in " + in.Desired.Zone, Observe: w.observeSubnet, Apply: w.applySubnet, Timeout: 10 * time.Minute},
			{Name: phaseAddGroup, Title: "Add the instance group to the HyperPod cluster", DependsOn: []string{phaseComputeSubnet},
				Observe: w.observeAdded, Apply: w.applyGroup, Timeout: 4 * time.Hour},
		}
		// What the group needs on the cluster (a device plugin) runs before
		// its nodes join, so that they advertise their devices at once.
		deps, err := s.clusters.DependenciesStep(c.ID, in.Desired.InstanceTypes)
		if err != nil {
			return nil, err
		}
		if deps != nil {
			steps[1].DependsOn = append(steps[1].DependsOn, deps.Name)
			steps = append([]ops.Step{*deps}, steps...)
		}
		return steps, nil
	case KindScaleGroup, KindUpdateGroup:
		title := "Change " + strings.Join(in.Changed, ", ")
		if op.Kind == KindScaleGroup {
			title = fmt.Sprintf("Scale to %d instances", in.Desired.Count)
		}
		return []ops.Step{{Name: phaseUpdateGroup, Title: title, Observe: w.observeUpdated, Apply: w.applyGroup, Timeout: 4 * time.Hour}}, nil
	case KindDeleteGroup:
		return []ops.Step{{Name: phaseDeleteGroup, Title: "Delete the instance group and its instances", Observe: w.observeDeleted, Apply: w.applyDelete, Timeout: 2 * time.Hour}}, nil
	}
	return nil, fmt.Errorf("unknown instance group operation %s", op.Kind)
}

// The phases of the instance group operations.
const (
	phaseComputeSubnet = "compute-subnet"
	phaseAddGroup      = "instance-group"
	phaseUpdateGroup   = "update-group"
	phaseDeleteGroup   = "delete-group"
)

// subnetOutput is the output of phaseComputeSubnet.
type subnetOutput struct {
	SubnetID string `json:"subnetId,omitempty"`
}

// groupOutput is the output of phaseAddGroup and phaseUpdateGroup: the
// group's HyperPod status, and the subnet its instances are in.
type groupOutput struct {
	Status   string `json:"status,omitempty"`
	SubnetID string `json:"subnetId,omitempty"`
}

// groupWork carries what the phases of one group operation share.
type groupWork struct {
	s       *Service
	p       *cloud.Provider
	c       *hyperpod.Cluster
	desired hyperpod.GroupSpec
}

func (w *groupWork) observeSubnet(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	id, err := w.s.clusters.ComputeSubnet(ctx, w.c.ID, w.desired.Zone, false)
	if err != nil || id == "" {
		return ops.Observation{State: ops.Absent}, err
	}
	return ops.Observation{State: ops.Done, Message: "compute subnet " + id, Output: subnetOutput{SubnetID: id}}, nil
}

func (w *groupWork) applySubnet(ctx context.Context, _ *ops.Run) (any, error) {
	id, err := w.s.clusters.ComputeSubnet(ctx, w.c.ID, w.desired.Zone, true)
	if err != nil {
		return nil, err
	}
	return subnetOutput{SubnetID: id}, nil
}

// observeAdded: the group exists and has settled.
func (w *groupWork) observeAdded(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	hp, err := describe(ctx, w.p, w.c.HyperPod.Name)
	if err != nil {
		return ops.Observation{}, err
	}
	d := groupspec.Find(hp, w.desired.Name)
	if d == nil {
		return ops.Observation{State: ops.Absent}, nil
	}
	return groupProgress(d, run)
}

// observeUpdated: the group has the desired settings and has settled.
func (w *groupWork) observeUpdated(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	hp, err := describe(ctx, w.p, w.c.HyperPod.Name)
	if err != nil {
		return ops.Observation{}, err
	}
	d := groupspec.Find(hp, w.desired.Name)
	if d == nil {
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition, "instance group %s no longer exists in HyperPod cluster %s", w.desired.Name, w.c.HyperPod.Name)}, nil
	}
	if !matches(groupspec.Actual(d), w.desired) {
		if run.Applied && d.Status == smtypes.InstanceGroupStatusUpdating {
			return ops.Observation{State: ops.Pending, Message: "HyperPod is updating the group"}, nil
		}
		return ops.Observation{State: ops.Absent}, nil
	}
	return groupProgress(d, run)
}

// groupProgress turns a group's status into the phase's state.
func groupProgress(d *smtypes.ClusterInstanceGroupDetails, run *ops.Run) (ops.Observation, error) {
	cur, target := aws.ToInt32(d.CurrentCount), aws.ToInt32(d.TargetCount)
	msg := fmt.Sprintf("%s: %d of %d instances", d.Status, cur, target)
	out := groupOutput{Status: string(d.Status)}
	switch {
	case d.Status == smtypes.InstanceGroupStatusInservice && cur >= target:
		return ops.Observation{State: ops.Done, Message: msg, Output: out}, nil
	case d.Status == smtypes.InstanceGroupStatusDegraded:
		// Some instances could not be had; the group runs the rest and
		// HyperPod keeps trying (continuous provisioning).
		return ops.Observation{State: ops.Done, Message: msg + " (degraded: some instances could not be provisioned; HyperPod keeps trying)", Output: out}, nil
	case d.Status == smtypes.InstanceGroupStatusFailed:
		if !run.Applied {
			return ops.Observation{State: ops.Absent}, nil
		}
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Upstream, "instance group %s failed in HyperPod: check the cluster's events, then retry or delete the group", aws.ToString(d.InstanceGroupName))}, nil
	}
	return ops.Observation{State: ops.Pending, Message: msg, Output: out}, nil
}

// matches reports whether the actual group has every desired setting.
func matches(actual, desired hyperpod.GroupSpec) bool {
	return actual.Count == desired.Count && actual.MinCount == desired.MinCount && sameSet(actual.DeepHealthChecks, desired.DeepHealthChecks) &&
		sameLabels(actual.Labels, desired.Labels) && sameTaints(actual.Taints, desired.Taints)
}

// applyGroup sends the group's whole desired spec with UpdateCluster, which
// adds it or changes it.
func (w *groupWork) applyGroup(ctx context.Context, run *ops.Run) (any, error) {
	hp, err := describe(ctx, w.p, w.c.HyperPod.Name)
	if err != nil {
		return nil, err
	}
	made, err := ops.OutputOf[subnetOutput](run.Op, phaseComputeSubnet)
	if err != nil {
		return nil, err
	}
	subnet := made.SubnetID
	if d := groupspec.Find(hp, w.desired.Name); d != nil && d.OverrideVpcConfig != nil && len(d.OverrideVpcConfig.Subnets) > 0 {
		subnet = d.OverrideVpcConfig.Subnets[0] // a group's subnets are fixed
	}
	spec := groupspec.Specification(&w.desired, executionRole(w.c, hp), subnet, w.c.Network.SecurityGroupID)
	if d := groupspec.Find(hp, w.desired.Name); d != nil {
		groupspec.KeepPlacement(&spec, d)
	}
	_, err = w.p.SageMaker.UpdateCluster(ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String(w.c.HyperPod.Name), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{spec}})
	if err != nil {
		return nil, errs.FromUpstream(err, "update HyperPod cluster "+w.c.HyperPod.Name)
	}
	return groupOutput{SubnetID: subnet}, nil
}

func (w *groupWork) observeDeleted(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	hp, err := describe(ctx, w.p, w.c.HyperPod.Name)
	if err != nil {
		return ops.Observation{}, err
	}
	d := groupspec.Find(hp, w.desired.Name)
	switch {
	case d == nil:
		return ops.Observation{State: ops.Done, Message: "the group is gone"}, nil
	case d.Status == smtypes.InstanceGroupStatusDeleting:
		return ops.Observation{State: ops.Pending, Message: fmt.Sprintf("deleting: %d instances left", aws.ToInt32(d.CurrentCount))}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (w *groupWork) applyDelete(ctx context.Context, _ *ops.Run) (any, error) {
	_, err := w.p.SageMaker.UpdateCluster(ctx, &sagemaker.UpdateClusterInput{ClusterName: aws.String(w.c.HyperPod.Name), InstanceGroupsToDelete: []string{w.desired.Name}})
	if err != nil && !errs.IsNotFound(err) {
		return nil, errs.FromUpstream(err, "delete instance group "+w.desired.Name)
	}
	return nil, nil
}

// reflectGroup brings the group record in line with an operation on it, in
// the operation's own transaction.
func reflectGroup(tx *store.Tx, op *ops.Operation) error {
	var g hyperpod.InstanceGroup
	if err := tx.Get(GroupKind, op.Target.ID, &g); err != nil {
		return fmt.Errorf("load instance group %s: %w", op.Target.ID, err)
	}
	var in groupInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return err
	}
	g.LastOperationID = op.ID
	failed := ""
	if op.Error != nil {
		failed = op.Error.Message
	}
	switch op.Status {
	case ops.Succeeded:
		g.StatusMessage = ""
		switch op.Kind {
		case KindDeleteGroup:
			now := tx.Now()
			g.Status, g.DeletedAt, g.CurrentCount = hyperpod.GroupDeleted, &now, 0
			if holder, err := tx.GetIndex(groupIndex, g.ClusterID+"/"+g.Name); err == nil && holder == g.ID {
				if err := tx.DeleteIndex(groupIndex, g.ClusterID+"/"+g.Name); err != nil {
					return err
				}
			}
		default:
			if !op.Noop {
				g.GroupSpec = in.Desired
			}
			// An output that does not decode leaves the record as it is:
			// storing the operation must not fail on it.
			if out, err := ops.OutputOf[groupOutput](op, lastPhase(op)); err == nil && out.Status != "" {
				g.Status = groupStatus(smtypes.InstanceGroupStatus(out.Status))
			} else if g.Status == hyperpod.GroupPending || g.Status == hyperpod.GroupUpdating || g.Status == hyperpod.GroupCreating {
				g.Status = hyperpod.GroupInService
			}
		}
		if out, err := ops.OutputOf[subnetOutput](op, phaseComputeSubnet); err == nil && out.SubnetID != "" {
			g.SubnetID = out.SubnetID
		}
	case ops.Failed, ops.Cancelled:
		what := strings.ToLower(strings.TrimSuffix(op.Kind, "InstanceGroup"))
		if op.Status == ops.Cancelled {
			failed = "cancelled"
		}
		g.StatusMessage = fmt.Sprintf("%s failed: %s (retry the operation)", what, failed)
		if op.Kind == KindAddGroup {
			g.Status = hyperpod.GroupFailed
		}
	default:
		switch op.Kind {
		case KindAddGroup:
			g.Status = hyperpod.GroupCreating
		case KindDeleteGroup:
			g.Status = hyperpod.GroupDeleting
		default:
			if !op.Noop {
				g.Status = hyperpod.GroupUpdating
			}
		}
	}
	g.UpdatedAt = tx.Now()
	if err := tx.Put(GroupKind, g.ID, &g); err != nil {
		return err
	}
	if op.Kind == KindDeleteGroup && op.Status == ops.Succeeded {
		return deleteGroupNodes(tx, &g)
	}
	return nil
}

func lastPhase(op *ops.Operation) string {
	if len(op.Phases) == 0 {
		return ""
	}
	return op.Phases[len(op.Phases)-1].Name
}

// deleteGroupNodes removes the node records of a deleted group.
func deleteGroupNodes(tx *store.Tx, g *hyperpod.InstanceGroup) error {
	var gone []*Node
	err := eachNode(tx, g.ClusterID, groupPosition(g.Name, g.ID), func(n *Node) (bool, error) {
		gone = append(gone, n)
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, n := range gone {
		if err := deleteNode(tx, n); err != nil {
			return err
		}
	}
	return nil
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func sameLabels(a, b []hyperpod.Label) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	cmp := func(p, q hyperpod.Label) int { return strings.Compare(p.Key, q.Key) }
	slices.SortFunc(x, cmp)
	slices.SortFunc(y, cmp)
	return len(x) == len(y) && (len(x) == 0 || reflect.DeepEqual(x, y))
}

func sameTaints(a, b []hyperpod.Taint) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	cmp := func(p, q hyperpod.Taint) int {
		return strings.Compare(p.Key+"="+p.Value+":"+p.Effect, q.Key+"="+q.Value+":"+q.Effect)
	}
	slices.SortFunc(x, cmp)
	slices.SortFunc(y, cmp)
	return len(x) == len(y) && (len(x) == 0 || reflect.DeepEqual(x, y))
}
