package cluster

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Refresh re-reads the actual EKS and HyperPod state of every live cluster
// that no operation is changing, and stores what differs (which publishes
// it as events). It returns how many clusters changed.
func (s *Service) Refresh(ctx context.Context) (int, error) {
	page, err := s.List(ListFilter{Statuses: []hyperpod.ClusterStatus{hyperpod.ClusterActive, hyperpod.ClusterFailed}}, 1<<20, "")
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, c := range page.Items {
		if c.LastOperationID != "" {
			if op, err := s.runner.Get(c.LastOperationID); err == nil && !op.Status.Terminal() {
				continue // its operation keeps the record current
			}
		}
		eksStatus, hpStatus, failure, types, err := s.readActual(ctx, c)
		var nodes hyperpod.NodeCounts
		if err == nil {
			nodes, err = s.countNodes(ctx, c, hpStatus)
		}
		deps := c.Dependencies
		if err == nil && c.Status == hyperpod.ClusterActive && eksStatus == "ACTIVE" {
			deps = s.readDependencies(ctx, c, types)
		}
		if err != nil {
			if ctx.Err() != nil {
				return changed, ctx.Err()
			}
			s.log.Warn("refresh cluster", "cluster", c.ID, "err", err)
			continue
		}
		var updated bool
		err = s.store.Update(func(tx *store.Tx) error {
			var cur hyperpod.Cluster
			if err := tx.Get(RecordKind, c.ID, &cur); err != nil {
				return err
			}
			if cur.LastOperationID != c.LastOperationID {
				return nil // an operation started meanwhile
			}
			before := cur
			cur.EKS.Status, cur.HyperPod.Status, cur.HyperPod.FailureMessage = eksStatus, hpStatus, failure
			cur.Nodes = &nodes
			cur.Dependencies = deps
			cur.StatusMessage = driftMessage(&cur)
			if before.EKS.Status == cur.EKS.Status && before.HyperPod.Status == cur.HyperPod.Status &&
				before.HyperPod.FailureMessage == cur.HyperPod.FailureMessage && before.StatusMessage == cur.StatusMessage &&
				before.Nodes != nil && *before.Nodes == nodes && slices.Equal(before.Dependencies, cur.Dependencies) {
				return nil
			}
			updated = true
			cur.UpdatedAt = tx.Now()
			return tx.Put(RecordKind, cur.ID, &cur)
		})
		if err != nil {
			return changed, err
		}
		if updated {
			changed++
		}
	}
	return changed, nil
}

// readActual describes the cluster's EKS and HyperPod clusters, and the
// instance types the HyperPod cluster's groups run; a cluster that no
// longer exists reads as "NOT_FOUND".
func (s *Service) readActual(ctx context.Context, c *hyperpod.Cluster) (eksStatus, hpStatus, failure string, instanceTypes []string, err error) {
	p, err := s.provider(c.Region)
	if err != nil {
		return "", "", "", nil, err
	}
	eksStatus, hpStatus = c.EKS.Status, c.HyperPod.Status
	out, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(c.EKS.Name)})
	switch {
	case errs.IsNotFound(err):
		eksStatus = notFound
	case err != nil:
		return "", "", "", nil, err
	default:
		eksStatus = string(out.Cluster.Status)
	}
	if c.HyperPod.Name == "" {
		return eksStatus, hpStatus, "", nil, nil
	}
	hp, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(c.HyperPod.Name)})
	switch {
	case errs.IsNotFound(err):
		return eksStatus, notFound, "", nil, nil
	case err != nil:
		return "", "", "", nil, err
	}
	for i := range hp.InstanceGroups {
		instanceTypes = append(instanceTypes, groupspec.Actual(&hp.InstanceGroups[i]).InstanceTypes...)
	}
	return eksStatus, string(hp.ClusterStatus), aws.ToString(hp.FailureMessage), instanceTypes, nil
}

// readDependencies reads the cluster dependencies that groups of
// instanceTypes need, so that one removed or failed outside InstantStart
// shows. When they cannot be read (Kubernetes unreachable), the record
// keeps what it last saw rather than a guess.
func (s *Service) readDependencies(ctx context.Context, c *hyperpod.Cluster, instanceTypes []string) []hyperpod.Dependency {
	p, err := s.provider(c.Region)
	if err != nil || p.Helm == nil {
		return c.Dependencies
	}
	d := &dependencies{p: p, eksName: c.EKS.Name, instanceTypes: func(context.Context, *ops.Run) ([]string, error) { return instanceTypes, nil }}
	seen, err := d.read(ctx, nil)
	if err != nil {
		s.log.Debug("read cluster dependencies", "cluster", c.ID, "err", err)
		return c.Dependencies
	}
	return seen
}

const notFound = "NOT_FOUND"

// countNodes counts the HyperPod cluster's nodes: Running ones, and all.
func (s *Service) countNodes(ctx context.Context, c *hyperpod.Cluster, hpStatus string) (hyperpod.NodeCounts, error) {
	var n hyperpod.NodeCounts
	if c.HyperPod.Name == "" || hpStatus == notFound || hpStatus == "Deleting" {
		return n, nil
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return n, err
	}
	var token *string
	for range cloud.MaxPages {
		out, err := p.SageMaker.ListClusterNodes(ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String(c.HyperPod.Name), NextToken: token})
		if errs.IsNotFound(err) {
			return hyperpod.NodeCounts{}, nil
		}
		if err != nil {
			return hyperpod.NodeCounts{}, err
		}
		for _, node := range out.ClusterNodeSummaries {
			n.Total++
			if node.InstanceStatus != nil && node.InstanceStatus.Status == smtypes.ClusterInstanceStatusRunning {
				n.Ready++
			}
		}
		if token = out.NextToken; token == nil || *token == "" {
			return n, nil
		}
	}
	return hyperpod.NodeCounts{}, cloud.TooManyPages("ListClusterNodes")
}

// driftMessage says what is wrong with an ACTIVE cluster whose parts changed
// outside InstantStart.
func driftMessage(c *hyperpod.Cluster) string {
	switch {
	case c.Status != hyperpod.ClusterActive:
		return c.StatusMessage
	case c.EKS.Status == notFound:
		return "the EKS cluster " + c.EKS.Name + " no longer exists (deleted outside InstantStart?); delete this cluster to clean up"
	case c.HyperPod.Status == notFound:
		return "the HyperPod cluster " + c.HyperPod.Name + " no longer exists (deleted outside InstantStart?)"
	case c.HyperPod.Status == "Failed" || c.HyperPod.Status == "RollingBack":
		return "the HyperPod cluster is " + c.HyperPod.Status + ": " + c.HyperPod.FailureMessage
	}
	var broken []string
	for _, d := range c.Dependencies {
		switch d.Status {
		case hyperpod.DependencyMissing, hyperpod.DependencyFailed, hyperpod.DependencyOutdated:
			broken = append(broken, d.Name+" is "+string(d.Status))
		}
	}
	if len(broken) > 0 {
		return "cluster dependencies need repair (" + strings.Join(broken, ", ") + "): run repairClusterDependencies"
	}
	return ""
}
