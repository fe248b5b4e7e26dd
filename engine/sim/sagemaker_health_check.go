package sim

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// StartClusterHealthCheck runs deep health checks on Running nodes: those
// named by InstanceIds, or every Running node of the group. The nodes are
// DeepHealthCheckInProgress and Unschedulable while the checks run, then
// Running again: Schedulable if they passed; if they failed, Unschedulable
// and, with automatic node recovery, replaced.
func (a *sageMakerAPI) StartClusterHealthCheck(ctx context.Context, in *sagemaker.StartClusterHealthCheckInput, _ ...func(*sagemaker.Options)) (*sagemaker.StartClusterHealthCheckOutput, error) {
	const op = "StartClusterHealthCheck"
	return hpCall(ctx, a, op, func(t *txn) (*sagemaker.StartClusterHealthCheckOutput, error) {
		in := orZero(in)
		params := []param{{"ClusterName", in.ClusterName != nil}, {"DeepHealthCheckConfigurations", in.DeepHealthCheckConfigurations != nil}}
		for i, cfg := range in.DeepHealthCheckConfigurations {
			params = append(params, param{fmt.Sprintf("DeepHealthCheckConfigurations[%d].DeepHealthChecks", i), cfg.DeepHealthChecks != nil},
				param{fmt.Sprintf("DeepHealthCheckConfigurations[%d].InstanceGroupName", i), cfg.InstanceGroupName != nil})
		}
		if err := need("StartClusterHealthCheckInput", params...); err != nil {
			return nil, err
		}
		c, err := t.hpClusterForNodes(in.ClusterName, op)
		if err != nil {
			return nil, err
		}
		type run struct {
			r      hpNodeRef
			checks []string
		}
		var runs []run
		seen := map[*hpNodeRec]bool{}
		for _, cfg := range in.DeepHealthCheckConfigurations {
			g, err := t.hpGroupToCheck(c, *cfg.InstanceGroupName)
			if err != nil {
				return nil, err
			}
			probe := &hpGroupRec{Name: g.Name}
			if len(cfg.DeepHealthChecks) == 0 {
				return nil, sageMakerValidation("DeepHealthChecks of instance group %s is empty; name at least one of %v.", g.Name, smtypes.DeepHealthCheckType("").Values())
			}
			if err := hpDeepHealthChecks(probe, cfg.DeepHealthChecks, []string{g.InstanceType}); err != nil {
				return nil, err
			}
			nodes, err := hpNodesToCheck(c, g, cfg.InstanceIds)
			if err != nil {
				return nil, err
			}
			for _, n := range nodes {
				if seen[n] {
					return nil, sageMakerValidation("Node %s is named twice; check each node once per call.", n.InstanceID)
				}
				seen[n] = true
				runs = append(runs, run{hpNodeRef{c, g, n}, probe.DeepHealthChecks})
			}
		}
		for _, r := range runs {
			t.startChecks(r.r.c, r.r.g, r.r.n, r.checks, t.now)
		}
		return &sagemaker.StartClusterHealthCheckOutput{ClusterArn: aws.String(c.Arn)}, nil
	})
}

func (t *txn) hpGroupToCheck(c *hpClusterRec, name string) (*hpGroupRec, error) {
	g := c.group(name)
	switch {
	case g == nil:
		return nil, sageMakerValidation("Instance group %s does not exist in cluster %s.", name, c.Name)
	case g.Deleting:
		return nil, sageMakerValidation("Instance group %s is being deleted; there is nothing to check.", name)
	}
	return g, nil
}

// hpNodesToCheck returns the nodes of g named by ids (all Running ones when
// ids is empty), refusing nodes that are not Running or are being
// recovered.
func hpNodesToCheck(c *hpClusterRec, g *hpGroupRec, ids []string) ([]*hpNodeRec, error) {
	checkable := func(n *hpNodeRec) bool {
		return n.Status == smtypes.ClusterInstanceStatusRunning && !n.Deleting &&
			n.Health != HealthUnschedulablePendingReboot && n.Health != HealthUnschedulablePendingReplacement
	}
	var nodes []*hpNodeRec
	if len(ids) == 0 {
		for _, n := range g.Nodes {
			if checkable(n) {
				nodes = append(nodes, n)
			}
		}
		if len(nodes) == 0 {
			return nil, sageMakerValidation("Instance group %s has no Running node to check. Retry once its nodes are Running.", g.Name)
		}
		return nodes, nil
	}
	for _, id := range ids {
		r, ok := c.nodeByInstance(id)
		switch {
		case !ok || r.g != g:
			return nil, sageMakerValidation("Instance %s is not a node of instance group %s of cluster %s.", id, g.Name, c.Name)
		case !checkable(r.n):
			return nil, sageMakerValidation("Node %s is %s (%s); deep health checks run on Running nodes that are not being recovered. Retry once it is Running.",
				id, r.n.Status, r.n.Health)
		}
		nodes = append(nodes, r.n)
	}
	return nodes, nil
}
