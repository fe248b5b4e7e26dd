package compute

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/ops"
)

// KindUpdateSoftware is the operation that moves a cluster's instance
// groups to the latest HyperPod image, a rolling update.
const KindUpdateSoftware = "UpdateClusterSoftware"

// phaseUpdateSoftware is its one phase: the update started, followed
// until every group ended it.
const phaseUpdateSoftware = "software-update"

// RollingUpdate is how a software update replaces the nodes of a group: in
// batches of at most MaxUnavailablePercent of the group (rounded up),
// WaitIntervalSeconds apart, rolling the replaced nodes back when a batch
// is unhealthy if AutoRollback is set.
type RollingUpdate struct {
	MaxUnavailablePercent int  `json:"maxUnavailablePercent"`
	WaitIntervalSeconds   int  `json:"waitIntervalSeconds"`
	AutoRollback          bool `json:"autoRollback"`
}

// softwareInput is what an UpdateClusterSoftware operation stores.
type softwareInput struct {
	ClusterID string        `json:"clusterId"`
	Groups    []string      `json:"groups"` // the groups to update: all of them when the request named none
	Rolling   RollingUpdate `json:"rollingUpdate"`
}

// softwareOutput is the output of phaseUpdateSoftware.
type softwareOutput struct {
	Updated int `json:"updatedNodes"`
	Nodes   int `json:"nodes"`
}

// UpdateSoftware starts an UpdateClusterSoftware operation on the groups
// named (all of the cluster's when groups is nil; an empty, non-nil list
// names none and is refused).
func (s *Service) UpdateSoftware(ctx context.Context, caller, clusterID string, groups []string, rolling RollingUpdate, idempotencyKey string) (*ops.Operation, error) {
	if groups != nil && len(groups) == 0 {
		return nil, errs.Field("instanceGroups", "instanceGroups is empty: name the groups to update, or leave instanceGroups out to update them all")
	}
	c, err := s.clusters.Get(clusterID)
	if err != nil {
		return nil, errs.NotFoundOn(err, "clusterId")
	}
	target := ops.Ref{Kind: NodesTarget, ID: c.ID, Name: c.Name}
	asked := softwareInput{ClusterID: c.ID, Groups: slices.Clone(groups), Rolling: rolling}
	if op, err := s.runner.Replay(ops.Request{Kind: KindUpdateSoftware, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: asked}); op != nil || err != nil {
		return op, err
	}
	var bad errs.List
	if p := rolling.MaxUnavailablePercent; p < 1 || p > 100 {
		bad = append(bad, errs.Field("rollingUpdate.maxUnavailablePercent", "give 1 to 100 percent of a group to replace at once, not %d", p))
	}
	if w := rolling.WaitIntervalSeconds; w < 0 || w > 3600 {
		bad = append(bad, errs.Field("rollingUpdate.waitIntervalSeconds", "give 0 to 3600 seconds between batches, not %d", w))
	}
	if len(bad) > 0 {
		return nil, bad
	}
	t, err := s.readActive(ctx, clusterID, "clusterId")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, name := range groups {
		field := fmt.Sprintf("instanceGroups[%d]", i)
		switch {
		case seen[name]:
			bad = append(bad, errs.Field(field, "instance group %s is named twice", name))
		case groupspec.Find(t.hyperPod, name) == nil:
			bad = append(bad, errs.Field(field, "HyperPod cluster %s has no instance group %s; name one of its groups, or none to update them all", c.HyperPod.Name, name))
		}
		seen[name] = true
	}
	if len(bad) > 0 {
		return nil, bad
	}
	in := asked
	if len(in.Groups) == 0 {
		for _, g := range t.hyperPod.InstanceGroups {
			in.Groups = append(in.Groups, aws.ToString(g.InstanceGroupName))
		}
	}
	return s.runner.Submit(ops.Request{Kind: KindUpdateSoftware, Target: target, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: in, Fingerprint: asked})
}

// softwareSteps builds the phase of an UpdateClusterSoftware operation.
func (s *Service) softwareSteps(op *ops.Operation) ([]ops.Step, error) {
	var in softwareInput
	c, p, err := s.stepStart(op, &in, func() string { return in.ClusterID })
	if err != nil {
		return nil, err
	}
	w := &softwareWork{p: p, hyperPod: c.HyperPod.Name, in: in}
	return []ops.Step{{Name: phaseUpdateSoftware, Title: fmt.Sprintf("Update the software of %s in batches of %d%%", strings.Join(in.Groups, ", "), in.Rolling.MaxUnavailablePercent),
		Observe: w.observe, Apply: w.apply, Timeout: 24 * time.Hour}}, nil
}

// softwareWork carries what the phase of one software update shares.
type softwareWork struct {
	p        *cloud.Provider
	hyperPod string
	in       softwareInput
}

func (w *softwareWork) apply(ctx context.Context, _ *ops.Run) (any, error) {
	d := &smtypes.DeploymentConfiguration{
		RollingUpdatePolicy: &smtypes.RollingDeploymentPolicy{MaximumBatchSize: &smtypes.CapacitySizeConfig{
			Type: smtypes.NodeUnavailabilityTypeCapacityPercentage, Value: aws.Int32(int32(w.in.Rolling.MaxUnavailablePercent))}},
		WaitIntervalInSeconds: aws.Int32(int32(w.in.Rolling.WaitIntervalSeconds)),
	}
	if w.in.Rolling.AutoRollback {
		// An empty alarm list turns rollback on for an unhealthy batch.
		d.AutoRollbackConfiguration = []smtypes.AlarmDetails{}
	}
	in := &sagemaker.UpdateClusterSoftwareInput{ClusterName: aws.String(w.hyperPod), DeploymentConfig: d}
	for _, g := range w.in.Groups {
		in.InstanceGroups = append(in.InstanceGroups, smtypes.UpdateClusterSoftwareInstanceGroupSpecification{InstanceGroupName: aws.String(g)})
	}
	if _, err := w.p.SageMaker.UpdateClusterSoftware(ctx, in); err != nil {
		return nil, err
	}
	return nil, nil
}

// observe follows the groups' software update: done when each group ran
// it to the end, broken when one stopped on an unhealthy batch.
func (w *softwareWork) observe(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	hp, err := describe(ctx, w.p, w.hyperPod)
	if err != nil {
		return ops.Observation{}, err
	}
	nodes, err := listNodes(ctx, w.p, w.hyperPod)
	if err != nil {
		return ops.Observation{}, err
	}
	var out softwareOutput
	for _, n := range nodes {
		if slices.Contains(w.in.Groups, aws.ToString(n.InstanceGroupName)) {
			out.Nodes++
			if n.ImageVersionStatus == smtypes.ClusterImageVersionStatusUpToDate {
				out.Updated++
			}
		}
	}
	progress := fmt.Sprintf("%d of %d nodes on the latest image", out.Updated, out.Nodes)
	running, upToDate := false, true
	for _, name := range w.in.Groups {
		g := groupspec.Find(hp, name)
		if g == nil {
			return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition, "instance group %s no longer exists in HyperPod cluster %s", name, w.hyperPod)}, nil
		}
		upToDate = upToDate && g.ImageVersionStatus == smtypes.ClusterImageVersionStatusUpToDate
		switch g.SoftwareUpdateStatus {
		case smtypes.SoftwareUpdateStatusPending, smtypes.SoftwareUpdateStatusInProgress, smtypes.SoftwareUpdateStatusRollbackInProgress:
			running = true
		case smtypes.SoftwareUpdateStatusFailed, smtypes.SoftwareUpdateStatusRollbackComplete:
			if run.Applied {
				return ops.Observation{State: ops.Broken, Output: out, Err: updateFailed(name, g.SoftwareUpdateStatus, nodes)}, nil
			}
		}
	}
	switch {
	case running:
		return ops.Observation{State: ops.Pending, Message: "rolling update under way: " + progress, Output: out}, nil
	case upToDate && run.Applied:
		return ops.Observation{State: ops.Done, Message: "all " + progress, Output: out}, nil
	case upToDate:
		return ops.Observation{State: ops.NotNeeded, Message: "the groups already run the latest image", Output: out}, nil
	}
	return ops.Observation{State: ops.Absent, Message: progress, Output: out}, nil
}

// updateFailed says which batch of group stopped the update, and on which
// nodes, from what the nodes report.
func updateFailed(group string, status smtypes.SoftwareUpdateStatus, nodes map[string]smtypes.ClusterNodeSummary) error {
	var why []string
	for _, n := range nodes {
		msg := ""
		if n.InstanceStatus != nil {
			msg = aws.ToString(n.InstanceStatus.Message)
		}
		if aws.ToString(n.InstanceGroupName) == group && strings.Contains(strings.ToLower(msg), "software update failed") {
			why = append(why, aws.ToString(n.InstanceId)+": "+msg)
		}
	}
	sort.Strings(why)
	then := "the nodes already updated keep the new image; replace the unhealthy nodes, then retry"
	if status == smtypes.SoftwareUpdateStatusRollbackComplete {
		then = "HyperPod rolled the updated nodes back to their previous image; fix the cause, then retry"
	}
	detail := "no node says why; check the cluster's events"
	if len(why) > 0 {
		detail = strings.Join(why, "; ")
	}
	return errs.New(errs.Upstream, "the software update of instance group %s stopped on an unhealthy batch (%s): %s", group, detail, then)
}
