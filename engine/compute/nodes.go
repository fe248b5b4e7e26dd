package compute

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/ops"
)

// Operation kinds of nodes.
const (
	KindRebootNodes  = "RebootNodes"
	KindReplaceNodes = "ReplaceNodes"
	KindDeleteNodes  = "DeleteNodes"

	nodesStatusQuery = "nodes"
)

// Batch limits of the SageMaker node APIs.
const (
	rebootBatch = 25 // BatchRebootClusterNodes and BatchReplaceClusterNodes
	deleteBatch = 50 // BatchDeleteClusterNodes
	maxNodesAsk = 500
)

type nodesInput struct {
	ClusterID string   `json:"clusterId"`
	NodeIDs   []string `json:"nodeIds"`
}

// RebootNodes reboots nodes of a cluster.
func (s *Service) RebootNodes(ctx context.Context, caller, clusterID string, nodeIDs []string, key string) (*ops.Operation, error) {
	return s.nodeAction(caller, KindRebootNodes, clusterID, nodeIDs, key)
}

// ReplaceNodes replaces nodes of a cluster with new instances.
func (s *Service) ReplaceNodes(ctx context.Context, caller, clusterID string, nodeIDs []string, key string) (*ops.Operation, error) {
	return s.nodeAction(caller, KindReplaceNodes, clusterID, nodeIDs, key)
}

// DeleteNodes deletes nodes of a cluster, lowering their groups' counts.
func (s *Service) DeleteNodes(ctx context.Context, caller, clusterID string, nodeIDs []string, key string) (*ops.Operation, error) {
	return s.nodeAction(caller, KindDeleteNodes, clusterID, nodeIDs, key)
}

func (s *Service) nodeAction(caller, kind, clusterID string, nodeIDs []string, key string) (*ops.Operation, error) {
	c, err := s.clusters.Get(clusterID)
	if err != nil {
		return nil, err
	}
	target := ops.Ref{Kind: NodesTarget, ID: c.ID, Name: c.Name}
	in := nodesInput{ClusterID: c.ID, NodeIDs: nodeIDs}
	if op, err := s.runner.Replay(ops.Request{Kind: kind, Target: target, RequestedBy: caller, IdempotencyKey: key, Input: in}); op != nil || err != nil {
		return op, err
	}
	if _, err := s.activeCluster(clusterID, "clusterId"); err != nil {
		return nil, err
	}
	if len(nodeIDs) == 0 || len(nodeIDs) > maxNodesAsk {
		return nil, errs.Field("nodeIds", "give 1 to %d node ids, not %d; larger sets go in several requests", maxNodesAsk, len(nodeIDs))
	}
	nodes, err := s.Nodes(c.ID, "")
	if err != nil {
		return nil, err
	}
	var unknown, dup []string
	for i, id := range nodeIDs {
		if slices.Index(nodeIDs, id) != i {
			dup = append(dup, id)
		} else if !slices.ContainsFunc(nodes, func(n *Node) bool { return n.ID == id }) {
			unknown = append(unknown, id)
		}
	}
	if len(dup) > 0 {
		return nil, errs.Field("nodeIds", "node ids %s are listed twice: list each once", strings.Join(dup, ", "))
	}
	if len(unknown) > 0 {
		return nil, errs.New(errs.NotFound, "cluster %s has no nodes %s: list its nodes to find their ids", c.Name, strings.Join(unknown, ", ")).WithField("nodeIds")
	}
	return s.runner.Submit(ops.Request{Kind: kind, Target: target, RequestedBy: caller, IdempotencyKey: key, Input: in})
}

// nodeSteps builds one phase per batch, each after the one before.
func (s *Service) nodeSteps(op *ops.Operation) ([]ops.Step, error) {
	var in nodesInput
	c, p, err := s.stepStart(op, &in, func() string { return in.ClusterID })
	if err != nil {
		return nil, err
	}
	size, verb := rebootBatch, map[string]string{KindRebootNodes: "Reboot", KindReplaceNodes: "Replace", KindDeleteNodes: "Delete"}[op.Kind]
	if op.Kind == KindDeleteNodes {
		size = deleteBatch
	}
	var steps []ops.Step
	for i, batch := range chunks(in.NodeIDs, size) {
		b := &nodeBatch{p: p, hyperPod: c.HyperPod.Name, kind: op.Kind, ids: batch}
		st := ops.Step{Name: batchPhase(i + 1), Title: fmt.Sprintf("%s %s", verb, plural(len(batch), "node")),
			Observe: b.observe, Apply: b.apply, Timeout: time.Hour}
		if i > 0 {
			st.DependsOn = []string{batchPhase(i)}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// batchPhase names the phase of the nth batch (from 1) of a node operation.
func batchPhase(n int) string { return fmt.Sprintf("batch-%d", n) }

// batchOutput is the output of a batch: the nodes HyperPod refused, and why.
type batchOutput struct {
	Failed   ops.Names `json:"failed,omitempty"`
	Failures string    `json:"failures,omitempty"`
}

func chunks(ids []string, size int) [][]string {
	var out [][]string
	for len(ids) > 0 {
		n := min(size, len(ids))
		out = append(out, ids[:n])
		ids = ids[n:]
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// nodeBatch is one batch of a node operation.
type nodeBatch struct {
	p        *cloud.Provider
	hyperPod string
	kind     string
	ids      []string
}

// observe: a batch has nothing to see before it is applied (a reboot leaves
// no trace once done); afterwards it waits until the nodes are back
// (reboot) or gone (replace, delete).
func (b *nodeBatch) observe(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	if !run.Applied {
		return ops.Observation{State: ops.Absent}, nil
	}
	out, err := ops.OutputOf[batchOutput](run.Op, run.Phase)
	if err != nil {
		return ops.Observation{}, err
	}
	present, err := listNodes(ctx, b.p, b.hyperPod)
	if err != nil {
		return ops.Observation{}, err
	}
	waiting := 0
	for _, id := range b.ids {
		if slices.Contains(out.Failed, id) {
			continue
		}
		n, ok := present[id]
		switch b.kind {
		case KindRebootNodes:
			if ok && n.InstanceStatus != nil && n.InstanceStatus.Status != smtypes.ClusterInstanceStatusRunning {
				waiting++
			}
		default:
			if ok {
				waiting++
			}
		}
	}
	if waiting > 0 {
		return ops.Observation{State: ops.Pending, Message: fmt.Sprintf("%s of %d not done yet", plural(waiting, "node"), len(b.ids))}, nil
	}
	msg := "done"
	if len(out.Failed) > 0 {
		msg = "done, except " + strings.Join(out.Failed, ",") + ": " + out.Failures
	}
	return ops.Observation{State: ops.Done, Message: msg}, nil
}

func (b *nodeBatch) apply(ctx context.Context, _ *ops.Run) (any, error) {
	name := aws.String(b.hyperPod)
	var other []string
	var err error
	switch b.kind {
	case KindRebootNodes:
		var out *sagemaker.BatchRebootClusterNodesOutput
		out, err = b.p.SageMaker.BatchRebootClusterNodes(ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: name, NodeIds: b.ids})
		if err == nil {
			for _, f := range out.Failed {
				other = append(other, aws.ToString(f.NodeId)+" ("+aws.ToString(f.Message)+")")
			}
		}
	case KindReplaceNodes:
		var out *sagemaker.BatchReplaceClusterNodesOutput
		out, err = b.p.SageMaker.BatchReplaceClusterNodes(ctx, &sagemaker.BatchReplaceClusterNodesInput{ClusterName: name, NodeIds: b.ids})
		if err == nil {
			for _, f := range out.Failed {
				other = append(other, aws.ToString(f.NodeId)+" ("+aws.ToString(f.Message)+")")
			}
		}
	case KindDeleteNodes:
		var out *sagemaker.BatchDeleteClusterNodesOutput
		out, err = b.p.SageMaker.BatchDeleteClusterNodes(ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: name, NodeIds: b.ids})
		if err == nil {
			for _, f := range out.Failed {
				other = append(other, aws.ToString(f.NodeId)+" ("+aws.ToString(f.Message)+")")
			}
		}
	}
	if err != nil {
		return nil, errs.FromUpstream(err, strings.ToLower(strings.TrimSuffix(b.kind, "Nodes"))+" nodes of "+b.hyperPod)
	}
	if len(other) == len(b.ids) {
		return nil, errs.New(errs.Upstream, "HyperPod refused every node of the batch: %s", strings.Join(other, "; "))
	}
	var failedIDs []string
	for _, o := range other {
		failedIDs = append(failedIDs, strings.SplitN(o, " ", 2)[0])
	}
	return batchOutput{Failed: failedIDs, Failures: strings.Join(other, "; ")}, nil
}

// listNodes reads every node of a HyperPod cluster, by instance id.
func listNodes(ctx context.Context, p *cloud.Provider, hyperPod string) (map[string]smtypes.ClusterNodeSummary, error) {
	out := map[string]smtypes.ClusterNodeSummary{}
	var token *string
	for range cloud.MaxPages {
		page, err := p.SageMaker.ListClusterNodes(ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String(hyperPod), NextToken: token})
		if err != nil {
			return nil, errs.FromUpstream(err, "list the nodes of "+hyperPod)
		}
		for _, n := range page.ClusterNodeSummaries {
			out[aws.ToString(n.InstanceId)] = n
		}
		if token = page.NextToken; token == nil || *token == "" {
			return out, nil
		}
	}
	return nil, cloud.TooManyPages("ListClusterNodes")
}
