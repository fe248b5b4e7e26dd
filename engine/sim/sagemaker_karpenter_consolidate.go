package sim

import (
	"slices"
	"time"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// karpenterIdleRec is a node Karpenter may remove: empty since Since, to be
// removed at Until (zero with consolidateAfter Never). The world settles
// the cluster at Until (see advanceHyperPod), whoever looks then.
type karpenterIdleRec struct {
	Since time.Time
	Until time.Time `json:",omitzero"`
}

// karpenterConsolidate removes the nodes of the pools' groups that have
// been empty (DaemonSet pods aside) for their pool's consolidateAfter, and
// tells whether it removed any. A group in several pools follows the first.
// It forgets the nodes that are not empty, or no longer in a pool.
func (s *kubeSession) karpenterConsolidate(c *hpClusterRec, sc *kubeScheduler, pools []*karpenterPool) bool {
	t := s.t
	if s.rec.KarpenterIdle == nil {
		s.rec.KarpenterIdle = map[string]karpenterIdleRec{}
	}
	idle := s.rec.KarpenterIdle
	empty := map[string]bool{}
	seen := map[*hpGroupRec]bool{}
	changed := false
	for _, pool := range pools {
		if !pool.ready() {
			continue
		}
		for _, g := range pool.groups {
			if seen[g] {
				continue
			}
			seen[g] = true
			for _, n := range slices.Clone(g.Nodes) {
				if n.Deleting || n.InstanceID == "" {
					continue
				}
				name := kubeNodeName(n.InstanceID)
				kn := sc.node[name]
				if kn == nil || !kn.ready || kn.labels[hpHealthLabel] != HealthSchedulable || kn.workloads > 0 {
					continue
				}
				rec, ok := idle[name]
				if !ok {
					rec.Since = t.now
				}
				rec.Until = time.Time{}
				if !pool.never {
					rec.Until = rec.Since.Add(t.w.scale(pool.consolidateAfter))
				}
				if pool.never || t.now.Before(rec.Until) {
					idle[name] = rec
					empty[name] = true
					continue
				}
				t.clusterEvent(c, t.now, smtypes.ClusterEventLevelInfo,
					"Karpenter (NodePool %s) is removing node %s of instance group %s through BatchDeleteClusterNodes as %s: it has run no pods for %s.",
					pool.name, n.InstanceID, g.Name, c.ClusterRole, karpenterDuration(pool))
				t.removeNode(hpNodeRef{c, g, n})
				changed = true
			}
		}
	}
	for name := range idle {
		if !empty[name] {
			delete(idle, name)
		}
	}
	if len(idle) == 0 {
		s.rec.KarpenterIdle = nil
	}
	return changed
}

// karpenterDuration is the pool's consolidateAfter as it was written.
func karpenterDuration(p *karpenterPool) string {
	if p.never {
		return "Never"
	}
	return p.consolidateAfter.String()
}
