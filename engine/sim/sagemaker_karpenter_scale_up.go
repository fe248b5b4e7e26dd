package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	corev1 "k8s.io/api/core/v1"
)

// karpenterGrowth is a scale-up in the making: the nodes planned so far,
// by group, and what they take of zone capacity and quotas.
type karpenterGrowth struct {
	t       *txn
	quota   map[string]int // the quota usage by instance type, planned nodes included
	waiting map[string]int // nodes waiting for capacity, by zone and type
	planned map[*hpGroupRec]int
	nodes   []*karpenterNewNode
	order   []*hpGroupRec // groups in the order they got their first node
}

// karpenterNewNode is a node Karpenter plans to ask for.
type karpenterNewNode struct {
	node *kubeSchedNode
	pool *karpenterPool
	g    *hpGroupRec
	pods []*kubeSchedPod
}

// newKarpenterGrowth starts a scale-up from what the region's clusters use
// and wait for now.
func newKarpenterGrowth(t *txn) *karpenterGrowth {
	k := &karpenterGrowth{t: t, quota: t.quotaUsage(), waiting: map[string]int{}, planned: map[*hpGroupRec]int{}}
	for _, c := range t.rs.HyperPod {
		if !c.alive() {
			continue
		}
		for _, g := range c.Groups {
			for _, n := range g.Nodes {
				if g.TrainingPlanArn == "" && n.waiting() {
					k.waiting[n.Zone+"/"+n.InstanceType]++
				}
			}
		}
	}
	return k
}

// room tells whether pool may have one more node of group g.
func (k *karpenterGrowth) room(pool *karpenterPool, g *hpGroupRec) bool {
	next := karpenterNodeResources(g.InstanceType)
	for name, limit := range pool.limits {
		sum := pool.usage[name].DeepCopy()
		sum.Add(next[name])
		if sum.Cmp(limit) > 0 {
			return false
		}
	}
	if g.TrainingPlanArn != "" {
		grown := *g
		grown.Count += int32(k.planned[g] + 1)
		return k.t.hpPlanCount(&grown, []*hpGroupRec{g}, nil) == nil
	}
	taken := 0
	for other, n := range k.planned {
		if other.TrainingPlanArn == "" && other.Zone == g.Zone && other.InstanceType == g.InstanceType {
			taken += n
		}
	}
	if k.t.capacityLeft(g.Zone, g.InstanceType)-k.waiting[g.Zone+"/"+g.InstanceType]-taken < 1 {
		return false
	}
	return float64(k.quota[g.InstanceType]+1) <= k.t.quota(g.InstanceType)
}

// add plans a new node of group g for pool, with pod p on it.
func (k *karpenterGrowth) add(pool *karpenterPool, g *hpGroupRec, n *kubeSchedNode, p *kubeSchedPod) {
	n.add(p)
	k.nodes = append(k.nodes, &karpenterNewNode{node: n, pool: pool, g: g, pods: []*kubeSchedPod{p}})
	if k.planned[g] == 0 {
		k.order = append(k.order, g)
	}
	k.planned[g]++
	kubeAddResources(pool.usage, karpenterNodeResources(g.InstanceType))
	if g.TrainingPlanArn == "" {
		k.quota[g.InstanceType]++
	}
}

// karpenterScaleUp asks HyperPod for the nodes the unschedulable pods need,
// and tells whether it asked for any.
func (s *kubeSession) karpenterScaleUp(c *hpClusterRec, sc *kubeScheduler, pools []*karpenterPool, unschedulable []*kubeSchedPod) bool {
	var pods []*kubeSchedPod
	for _, p := range unschedulable {
		if !p.daemon() {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return false
	}
	slices.SortStableFunc(pods, func(a, b *kubeSchedPod) int { return karpenterSize(b.req).compare(karpenterSize(a.req)) })
	coming := s.karpenterComing(c, sc, pools)
	k := newKarpenterGrowth(s.t)
	for _, p := range pods {
		if karpenterFirstFit(p, coming) {
			continue
		}
		placed := false
		for _, nn := range k.nodes {
			if len(kubeFit(p, nn.node)) == 0 {
				nn.node.add(p)
				nn.pods = append(nn.pods, p)
				placed = true
				break
			}
		}
		for _, pool := range pools {
			if placed || !pool.ready() {
				continue
			}
			for _, g := range pool.groups {
				n := s.karpenterTemplate(c, g)
				if len(kubeFit(p, n)) == 0 && k.room(pool, g) {
					k.add(pool, g, n, p)
					placed = true
					break
				}
			}
		}
	}
	for _, g := range k.order {
		var pool string
		var podNames []string
		for _, nn := range k.nodes {
			if nn.g != g {
				continue
			}
			pool = nn.pool.name
			for _, p := range nn.pods {
				podNames = append(podNames, p.key())
			}
		}
		s.t.karpenterAdd(c, g, pool, k.planned[g], podNames)
	}
	return len(k.order) > 0
}

// karpenterComing is the nodes of the pools' groups that are on their way:
// launching or waiting for capacity, booting, under deep health checks or
// recovery. Karpenter counts on them for pending pods before it asks for
// more; each is its group's next node less the pods already bound to it.
func (s *kubeSession) karpenterComing(c *hpClusterRec, sc *kubeScheduler, pools []*karpenterPool) []*kubeSchedNode {
	var out []*kubeSchedNode
	seen := map[*hpGroupRec]bool{}
	for _, pool := range pools {
		if !pool.ready() {
			continue
		}
		for _, g := range pool.groups {
			if seen[g] {
				continue
			}
			seen[g] = true
			for _, n := range g.Nodes {
				if n.Deleting {
					continue
				}
				var kn *kubeSchedNode
				if n.InstanceID != "" {
					kn = sc.node[kubeNodeName(n.InstanceID)]
				}
				if kn != nil && kn.ready && kn.labels[hpHealthLabel] == HealthSchedulable {
					continue // in service: the scheduler had it
				}
				next := s.karpenterTemplate(c, g)
				if kn != nil {
					next.requested = kn.requested.DeepCopy()
				}
				out = append(out, next)
			}
		}
	}
	return out
}

// karpenterFirstFit puts p on the first of nodes it fits, and tells
// whether there was one.
func karpenterFirstFit(p *kubeSchedPod, nodes []*kubeSchedNode) bool {
	for _, n := range nodes {
		if len(kubeFit(p, n)) == 0 {
			n.add(p)
			return true
		}
	}
	return false
}

// karpenterSizeKey is how big a pod is, as Karpenter packs pods largest
// first: its accelerators, then cpu, then memory.
type karpenterSizeKey [3]float64

// karpenterSize is the size of a pod that requests req.
func karpenterSize(req corev1.ResourceList) karpenterSizeKey {
	gpu, neuron := req["nvidia.com/gpu"], req["aws.amazon.com/neuron"]
	cpu, mem := req[corev1.ResourceCPU], req[corev1.ResourceMemory]
	return karpenterSizeKey{gpu.AsApproximateFloat64() + neuron.AsApproximateFloat64(), cpu.AsApproximateFloat64(), mem.AsApproximateFloat64()}
}

func (a karpenterSizeKey) compare(b karpenterSizeKey) int {
	for i := range a {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
	return 0
}

// karpenterAdd raises group g's target count by count, as Karpenter does
// through BatchAddClusterNodes with the cluster role, at most
// hpMaxAddNodes nodes a call.
func (t *txn) karpenterAdd(c *hpClusterRec, g *hpGroupRec, pool string, count int, pods []string) {
	t.clusterEvent(c, t.now, smtypes.ClusterEventLevelInfo,
		"Karpenter (NodePool %s) is adding %d node(s) to instance group %s through BatchAddClusterNodes as %s, for pending pod(s) %s.",
		pool, count, g.Name, c.ClusterRole, karpenterList(pods))
	for count > 0 {
		n := min(count, hpMaxAddNodes)
		rec, err := t.hpAddNodes(c, []smtypes.AddClusterNodeSpecification{{InstanceGroupName: aws.String(g.Name), IncrementTargetCountBy: aws.Int32(int32(n))}})
		if err == nil && len(rec.Failed) > 0 {
			err = fmt.Errorf("%s: %s", rec.Failed[0].Code, rec.Failed[0].Message)
		}
		if err != nil {
			t.clusterEvent(c, t.now, smtypes.ClusterEventLevelWarn, "Karpenter (NodePool %s) could not add nodes to instance group %s: %v", pool, g.Name, err)
			return
		}
		count -= n
	}
}

// karpenterList names at most five items, and how many more there are.
func karpenterList(items []string) string {
	if len(items) <= 5 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:5], ", "), len(items)-5)
}
