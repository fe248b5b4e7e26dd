package sim

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// Limits of the batch node operations, per call.
const (
	hpMaxDeleteNodeIDs    = 99 // more needs a support request
	hpMaxDeleteLogicalIDs = 50 // with instance ids, 50 identifiers in all
	hpMaxRecoverNodeIDs   = 25 // reboot and replace, each of NodeIds and NodeLogicalIds
)

// hpBatchFailure is one node a batch call could not act on.
type hpBatchFailure struct {
	id, code, message string
}

// hpBatchResult is what a batch call did, by instance id and by logical id.
type hpBatchResult struct {
	ok, okLogical         []string
	failed, failedLogical []hpBatchFailure
}

// hpEachNode resolves the instance ids and logical ids of a batch call on
// c and runs act on each node found; act returns an error code and message
// for a node it refuses. notFound is the operation's code for an unknown
// id.
func hpEachNode(c *hpClusterRec, ids, logicalIDs []string, notFound string, act func(r hpNodeRef) (string, string)) hpBatchResult {
	var res hpBatchResult
	for _, id := range ids {
		r, found := c.nodeByInstance(id)
		if !found {
			res.failed = append(res.failed, hpBatchFailure{id, notFound, fmt.Sprintf("Node %s was not found in cluster %s.", id, c.Name)})
			continue
		}
		if code, msg := act(r); code != "" {
			res.failed = append(res.failed, hpBatchFailure{id, code, msg})
			continue
		}
		res.ok = append(res.ok, id)
	}
	for _, id := range logicalIDs {
		r, found := c.nodeByLogicalID(id)
		if !found {
			res.failedLogical = append(res.failedLogical, hpBatchFailure{id, notFound, fmt.Sprintf("Node %s was not found in cluster %s.", id, c.Name)})
			continue
		}
		if code, msg := act(r); code != "" {
			res.failedLogical = append(res.failedLogical, hpBatchFailure{id, code, msg})
			continue
		}
		res.okLogical = append(res.okLogical, id)
	}
	return res
}

// hpClusterForNodes finds a cluster for a call that reboots, replaces or
// checks its nodes: it must be InService or Updating.
func (t *txn) hpClusterForNodes(nameOrArn *string, op string) (*hpClusterRec, error) {
	c, err := t.hpCluster(nameOrArn)
	if err != nil {
		return nil, err
	}
	switch st := c.status(t.now); st {
	case smtypes.ClusterStatusInservice, smtypes.ClusterStatusUpdating, smtypes.ClusterStatusSystemupdating:
		return c, nil
	case smtypes.ClusterStatusFailed:
		return nil, sageMakerValidation("Cluster %s is Failed and has no nodes for %s. Delete the cluster and create it again.", c.Name, op)
	default:
		return nil, &smtypes.ConflictException{Message: aws.String(fmt.Sprintf(
			"Cluster %s is %s; %s needs it InService or Updating. Wait until DescribeCluster shows InService, then retry.", c.Name, st, op))}
	}
}

// BatchDeleteClusterNodes deletes nodes from a cluster: each node's
// instance shuts down and its group's target count drops by one. A node
// that waits for capacity goes at once.
func (a *sageMakerAPI) BatchDeleteClusterNodes(ctx context.Context, in *sagemaker.BatchDeleteClusterNodesInput, _ ...func(*sagemaker.Options)) (*sagemaker.BatchDeleteClusterNodesOutput, error) {
	return hpCall(ctx, a, "BatchDeleteClusterNodes", func(t *txn) (*sagemaker.BatchDeleteClusterNodesOutput, error) {
		in := orZero(in)
		if err := need("BatchDeleteClusterNodesInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		ids, logical := len(in.NodeIds), len(in.NodeLogicalIds)
		switch {
		case ids == 0 && logical == 0:
			return nil, sageMakerValidation("Specify the nodes to delete in NodeIds, NodeLogicalIds or both.")
		case ids > hpMaxDeleteNodeIDs:
			return nil, sageMakerValidation("Value at 'nodeIds' failed to satisfy constraint: Member must have length less than or equal to %d (got %d). Delete the nodes in several calls.", hpMaxDeleteNodeIDs, ids)
		case logical > 0 && ids+logical > hpMaxDeleteLogicalIDs:
			return nil, sageMakerValidation("NodeIds and NodeLogicalIds together name %d nodes; with NodeLogicalIds, a call deletes at most %d. Delete the nodes in several calls.", ids+logical, hpMaxDeleteLogicalIDs)
		}
		c, err := t.hpClusterToChange(in.ClusterName, "BatchDeleteClusterNodes")
		if err != nil {
			return nil, err
		}
		res := hpEachNode(c, in.NodeIds, in.NodeLogicalIds, string(smtypes.BatchDeleteClusterNodesErrorCodeNodeIdNotFound), func(r hpNodeRef) (string, string) {
			switch {
			case r.n.Deleting:
				return string(smtypes.BatchDeleteClusterNodesErrorCodeInvalidNodeStatus), fmt.Sprintf("Node %s is already being deleted.", r.n.LogicalID)
			case r.g.Deleting:
				return string(smtypes.BatchDeleteClusterNodesErrorCodeInvalidNodeStatus), fmt.Sprintf("Instance group %s of node %s is being deleted, and its nodes with it.", r.g.Name, r.n.LogicalID)
			}
			t.removeNode(r)
			return "", ""
		})
		out := &sagemaker.BatchDeleteClusterNodesOutput{Successful: res.ok, SuccessfulNodeLogicalIds: res.okLogical}
		for _, f := range res.failed {
			out.Failed = append(out.Failed, smtypes.BatchDeleteClusterNodesError{Code: smtypes.BatchDeleteClusterNodesErrorCode(f.code), Message: aws.String(f.message), NodeId: aws.String(f.id)})
		}
		for _, f := range res.failedLogical {
			out.FailedNodeLogicalIds = append(out.FailedNodeLogicalIds, smtypes.BatchDeleteClusterNodeLogicalIdsError{
				Code: smtypes.BatchDeleteClusterNodesErrorCode(f.code), Message: aws.String(f.message), NodeLogicalId: aws.String(f.id),
			})
		}
		return out, nil
	})
}

// removeNode deletes a node and lowers its group's target count, so
// HyperPod does not launch another in its place.
func (t *txn) removeNode(r hpNodeRef) {
	r.g.Count--
	if r.g.MinCount != nil && *r.g.MinCount > r.g.Count {
		r.g.MinCount = aws.Int32(r.g.Count)
	}
	t.deleteNode(r.c, r.g, r.n, t.now)
	t.markBusy(r.c, r.g, smtypes.InstanceGroupStatusUpdating, t.after(hpNodeShutdownTime))
}

// hpRecoverLimits checks the node lists of BatchRebootClusterNodes and
// BatchReplaceClusterNodes: 1 to 25 of each, logical ids only with
// Continuous provisioning (checked once the cluster is known).
func hpRecoverLimits(op string, ids, logicalIDs []string) error {
	switch {
	case len(ids) == 0 && len(logicalIDs) == 0:
		return sageMakerValidation("%s needs NodeIds, NodeLogicalIds or both.", op)
	case len(ids) > hpMaxRecoverNodeIDs:
		return sageMakerValidation("Value at 'nodeIds' failed to satisfy constraint: Member must have length between 1 and %d (got %d). Split the nodes into several calls.", hpMaxRecoverNodeIDs, len(ids))
	case len(logicalIDs) > hpMaxRecoverNodeIDs:
		return sageMakerValidation("Value at 'nodeLogicalIds' failed to satisfy constraint: Member must have length between 1 and %d (got %d). Split the nodes into several calls.", hpMaxRecoverNodeIDs, len(logicalIDs))
	}
	for _, id := range ids {
		if !instanceIDPattern.MatchString(id) {
			return sageMakerValidation("Value '%s' at 'nodeIds' failed to satisfy constraint: Member must satisfy regular expression pattern: i-[a-f0-9]{8}(?:[a-f0-9]{9})?", id)
		}
	}
	return nil
}

// hpClusterToRecover finds the cluster of a reboot or replacement.
func (t *txn) hpClusterToRecover(name *string, op string, logicalIDs []string) (*hpClusterRec, error) {
	c, err := t.hpClusterForNodes(name, op)
	if err != nil {
		return nil, err
	}
	if len(logicalIDs) > 0 && !c.continuous() {
		return nil, sageMakerValidation("NodeLogicalIds work only on clusters with NodeProvisioningMode Continuous; cluster %s uses the default mode. Use NodeIds instead.", c.Name)
	}
	return c, nil
}

// recoverable tells why node r can not be rebooted (replace false) or
// replaced now: an error code, which the reboot and replace enums share,
// or "".
func (t *txn) recoverable(r hpNodeRef, replace bool) (string, string) {
	const invalid = string(smtypes.BatchRebootClusterNodesErrorCodeInvalidInstanceStatus)
	n := r.n
	switch {
	case n.InstanceID == "":
		return invalid, fmt.Sprintf("Node %s has no instance yet: it waits for capacity.", n.LogicalID)
	case n.Deleting || n.Status == smtypes.ClusterInstanceStatusShuttingDown:
		return invalid, fmt.Sprintf("Node %s is ShuttingDown.", n.InstanceID)
	case n.Health == HealthUnschedulablePendingReboot || n.Health == HealthUnschedulablePendingReplacement:
		return string(smtypes.BatchRebootClusterNodesErrorCodeInstanceIdInUse), fmt.Sprintf("Node %s is %s: a recovery is already under way.", n.InstanceID, n.Health)
	case n.Status == smtypes.ClusterInstanceStatusRunning,
		replace && n.Status == smtypes.ClusterInstanceStatusDeepHealthCheckInProgress:
		return "", ""
	}
	return invalid, fmt.Sprintf("Node %s is %s; retry once it is Running.", n.InstanceID, n.Status)
}

// hpRecovery is what a reboot or replacement request asks for, whichever
// API carried it.
type hpRecovery struct {
	op              string
	cluster         *string
	ids, logicalIDs []string
	notFound, verb  string
	replace         bool
}

// recoverNodes checks a reboot or replacement request and starts it on each
// node it may, reporting per node what it did.
func (t *txn) recoverNodes(r hpRecovery) (hpBatchResult, error) {
	if err := need(r.op+"Input", param{"ClusterName", r.cluster != nil}); err != nil {
		return hpBatchResult{}, err
	}
	if err := hpRecoverLimits(r.op, r.ids, r.logicalIDs); err != nil {
		return hpBatchResult{}, err
	}
	c, err := t.hpClusterToRecover(r.cluster, r.op, r.logicalIDs)
	if err != nil {
		return hpBatchResult{}, err
	}
	return hpEachNode(c, r.ids, r.logicalIDs, r.notFound, func(ref hpNodeRef) (string, string) {
		if code, msg := t.recoverable(ref, r.replace); code != "" {
			return code, msg
		}
		t.nodeEvent(ref.c, ref.g, ref.n, t.now, smtypes.ClusterEventLevelInfo, "%s of node %s requested through %s.", r.verb, ref.n.InstanceID, r.op)
		if r.replace {
			t.replace(ref.c, ref.g, ref.n, t.now)
		} else {
			t.reboot(ref.c, ref.g, ref.n, t.now)
		}
		return "", ""
	}), nil
}

// BatchRebootClusterNodes reboots nodes: Pending for a few minutes, then
// Running again with the same instance. A reboot fixes a node fault that
// needs one.
func (a *sageMakerAPI) BatchRebootClusterNodes(ctx context.Context, in *sagemaker.BatchRebootClusterNodesInput, _ ...func(*sagemaker.Options)) (*sagemaker.BatchRebootClusterNodesOutput, error) {
	const op = "BatchRebootClusterNodes"
	return hpCall(ctx, a, op, func(t *txn) (*sagemaker.BatchRebootClusterNodesOutput, error) {
		in := orZero(in)
		res, err := t.recoverNodes(hpRecovery{op: op, cluster: in.ClusterName, ids: in.NodeIds, logicalIDs: in.NodeLogicalIds,
			notFound: string(smtypes.BatchRebootClusterNodesErrorCodeInstanceIdNotFound), verb: "Reboot"})
		if err != nil {
			return nil, err
		}
		out := &sagemaker.BatchRebootClusterNodesOutput{Successful: res.ok, SuccessfulNodeLogicalIds: res.okLogical}
		for _, f := range res.failed {
			out.Failed = append(out.Failed, smtypes.BatchRebootClusterNodesError{ErrorCode: smtypes.BatchRebootClusterNodesErrorCode(f.code), Message: aws.String(f.message), NodeId: aws.String(f.id)})
		}
		for _, f := range res.failedLogical {
			out.FailedNodeLogicalIds = append(out.FailedNodeLogicalIds, smtypes.BatchRebootClusterNodeLogicalIdsError{
				ErrorCode: smtypes.BatchRebootClusterNodesErrorCode(f.code), Message: aws.String(f.message), NodeLogicalId: aws.String(f.id),
			})
		}
		return out, nil
	})
}

// BatchReplaceClusterNodes replaces nodes: each instance shuts down, and a
// new one, with a new instance id, launches on other hardware and goes
// through the group's deep health checks. A replacement fixes any node
// fault.
func (a *sageMakerAPI) BatchReplaceClusterNodes(ctx context.Context, in *sagemaker.BatchReplaceClusterNodesInput, _ ...func(*sagemaker.Options)) (*sagemaker.BatchReplaceClusterNodesOutput, error) {
	const op = "BatchReplaceClusterNodes"
	return hpCall(ctx, a, op, func(t *txn) (*sagemaker.BatchReplaceClusterNodesOutput, error) {
		in := orZero(in)
		res, err := t.recoverNodes(hpRecovery{op: op, cluster: in.ClusterName, ids: in.NodeIds, logicalIDs: in.NodeLogicalIds,
			notFound: string(smtypes.BatchReplaceClusterNodesErrorCodeInstanceIdNotFound), verb: "Replacement", replace: true})
		if err != nil {
			return nil, err
		}
		out := &sagemaker.BatchReplaceClusterNodesOutput{Successful: res.ok, SuccessfulNodeLogicalIds: res.okLogical}
		for _, f := range res.failed {
			out.Failed = append(out.Failed, smtypes.BatchReplaceClusterNodesError{ErrorCode: smtypes.BatchReplaceClusterNodesErrorCode(f.code), Message: aws.String(f.message), NodeId: aws.String(f.id)})
		}
		for _, f := range res.failedLogical {
			out.FailedNodeLogicalIds = append(out.FailedNodeLogicalIds, smtypes.BatchReplaceClusterNodeLogicalIdsError{
				ErrorCode: smtypes.BatchReplaceClusterNodesErrorCode(f.code), Message: aws.String(f.message), NodeLogicalId: aws.String(f.id),
			})
		}
		return out, nil
	})
}
