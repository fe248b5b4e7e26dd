package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// hpHealthLabel is the label (and taint key) that carries a HyperPod
// node's health.
const hpHealthLabel = "sagemaker.amazonaws.com/node-health-status"

// Values of the node-health-status label.
const (
	HealthSchedulable                     = "Schedulable"
	HealthUnschedulable                   = "Unschedulable"
	HealthUnschedulablePendingReboot      = "UnschedulablePendingReboot"
	HealthUnschedulablePendingReplacement = "UnschedulablePendingReplacement"
)

// Values of the deep-health-check-status label.
const (
	DeepHealthCheckInProgress = "InProgress"
	DeepHealthCheckPassed     = "Passed"
	DeepHealthCheckFailed     = "Failed"
)

// NodeView is a HyperPod node as its Kubernetes Node object shows it.
type NodeView struct {
	HyperPodCluster string
	// Nodegroup names the EKS managed node group of a node that is not
	// HyperPod's ("" for HyperPod's nodes).
	Nodegroup     string
	InstanceGroup string
	InstanceID    string
	InstanceType  string // SageMaker name, e.g. ml.g5.8xlarge
	Zone          string
	PrivateIP     string
	PrivateDNS    string            // ip-10-1-2-3.us-west-2.compute.internal
	CapacityType  string            // ON_DEMAND or SPOT
	Status        string            // the ClusterInstanceStatus
	Health        string            // node-health-status label value
	DeepHealth    string            // deep-health-check-status label value, "" when the group runs none
	Labels        map[string]string // the group's Kubernetes labels
	Taints        []NodeTaint       // the group's taints plus HyperPod's own while not Schedulable
	LaunchTime    time.Time
}

// NodeTaint is a Kubernetes taint.
type NodeTaint struct{ Key, Value, Effect string }

// HyperPodNodes returns the nodes that have joined the Kubernetes cluster
// of the EKS cluster eksCluster (its name) in region: instances past
// Pending that are not gone, of every HyperPod cluster orchestrated by it,
// sorted by instance id. A node that reboots stays joined; a replaced one
// leaves, and its new instance joins once it has booted. Applies due
// transitions first.
func (w *World) HyperPodNodes(region, eksCluster string) ([]NodeView, error) {
	var out []NodeView
	err := w.inHyperPod(region, func(t *txn) error {
		eks, err := t.hpEKSByName(eksCluster)
		if err != nil {
			return err
		}
		out = t.hpNodeViews(eks.Arn)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// hpNodeViews is what HyperPodNodes returns for the EKS cluster eksArn, as
// of the call's transaction.
func (t *txn) hpNodeViews(eksArn string) []NodeView {
	var out []NodeView
	t.hpJoinedNodes(eksArn, func(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec) {
		out = append(out, t.hpNodeView(c, g, n))
	})
	slices.SortFunc(out, func(a, b NodeView) int { return strings.Compare(a.InstanceID, b.InstanceID) })
	return out
}

// SetNodeHealthLabel sets a node's health label as a user or agent would
// with kubectl: UnschedulablePendingReboot or
// UnschedulablePendingReplacement make HyperPod reboot or replace it (as the
// real service does, whatever the cluster's NodeRecovery); other values
// are refused with a clear error. Setting the value the node already has
// changes nothing.
func (w *World) SetNodeHealthLabel(region, eksCluster, instanceID, label string) error {
	var recovery string
	switch label {
	case HealthUnschedulablePendingReboot:
		recovery = recoverReboot
	case HealthUnschedulablePendingReplacement:
		recovery = recoverReplace
	default:
		return fmt.Errorf("sim: HyperPod owns the %s label; set it to %s or %s to have the node rebooted or replaced, not to %q",
			hpHealthLabel, HealthUnschedulablePendingReboot, HealthUnschedulablePendingReplacement, label)
	}
	return w.inHyperPod(region, func(t *txn) error {
		eks, err := t.hpEKSByName(eksCluster)
		if err != nil {
			return err
		}
		var found bool
		var c *hpClusterRec
		var g *hpGroupRec
		var n *hpNodeRec
		t.hpJoinedNodes(eks.Arn, func(jc *hpClusterRec, jg *hpGroupRec, jn *hpNodeRec) {
			if jn.InstanceID == instanceID {
				found, c, g, n = true, jc, jg, jn
			}
		})
		switch {
		case !found:
			return fmt.Errorf("sim: no HyperPod node %s in the Kubernetes cluster of EKS cluster %s", instanceID, eksCluster)
		case n.Health == label:
			return nil
		case c.status(t.now) == smtypes.ClusterStatusDeleting || n.Deleting:
			return fmt.Errorf("sim: node %s is shutting down; there is nothing to recover", instanceID)
		case n.Status != smtypes.ClusterInstanceStatusRunning && n.Status != smtypes.ClusterInstanceStatusDeepHealthCheckInProgress:
			return fmt.Errorf("sim: node %s is %s (%s) and already on its way back; label it once it is Running again", instanceID, n.Status, n.Health)
		}
		t.nodeEvent(c, g, n, t.now, smtypes.ClusterEventLevelInfo, "Node %s was labelled %s by hand.", n.InstanceID, label)
		t.markForRecovery(c, g, n, t.now, recovery)
		return nil
	})
}

// inHyperPod runs fn on region's world, brought up to now (HyperPod, then
// the Kubernetes side, see settleKube), under the world's lock, and saves
// the world as an API call does.
func (w *World) inHyperPod(region string, fn func(t *txn) error) error {
	if _, ok := w.catalog.region(region); !ok {
		return w.unknownRegion(region)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.begin(region)
	t.advanceHyperPod()
	t.settleKube()
	err := fn(t)
	if err == nil {
		t.placeWaiting(t.now)
		t.settleKube()
	}
	if serr := w.save(); serr != nil {
		w.rollback()
		return serr
	}
	t.saved()
	return err
}

// hpEKSByName finds an EKS cluster of the call's region for the Kubernetes
// view.
func (t *txn) hpEKSByName(name string) (*eksClusterRec, error) {
	c := t.rs.EKS[name]
	if c == nil {
		return nil, fmt.Errorf("sim: no EKS cluster %q in %s", name, t.region)
	}
	return c, nil
}

// hpJoinedNodes calls fn for each node of the HyperPod clusters orchestrated
// by the EKS cluster eksArn that has joined Kubernetes: its instance has
// booted (it has a health label) and is not gone.
func (t *txn) hpJoinedNodes(eksArn string, fn func(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec)) {
	for _, name := range sortedKeys(t.rs.HyperPod) {
		c := t.rs.HyperPod[name]
		if c.EKSArn != eksArn {
			continue
		}
		for _, g := range c.Groups {
			for _, n := range g.Nodes {
				if n.InstanceID != "" && n.Health != "" {
					fn(c, g, n)
				}
			}
		}
	}
}

func (t *txn) hpNodeView(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec) NodeView {
	kube := g.kubeAt(t.now)
	v := NodeView{
		HyperPodCluster: c.Name, InstanceGroup: g.Name, InstanceID: n.InstanceID, InstanceType: n.InstanceType, Zone: n.Zone,
		PrivateIP: n.PrivateIP, PrivateDNS: t.hpPrivateDNS(n.PrivateIP), CapacityType: "ON_DEMAND",
		Status: string(t.hpInstanceStatus(c, n)), Health: n.Health, DeepHealth: n.Check,
		Labels: maps.Clone(kube.Labels), LaunchTime: n.LaunchedAt,
	}
	if n.CapacityType == smtypes.ClusterCapacityTypeSpot {
		v.CapacityType = "SPOT"
	}
	for _, tn := range kube.Taints {
		v.Taints = append(v.Taints, NodeTaint{Key: tn.Key, Value: tn.Value, Effect: tn.Effect})
	}
	v.Taints = append(v.Taints, hyperPodTaints(n)...)
	return v
}

// hyperPodTaints are the taints HyperPod keeps on a node that is not
// Schedulable: NoSchedule while it is unhealthy or under deep health
// checks, NoExecute once it is marked for a reboot or a replacement, so its
// pods leave before the instance goes.
func hyperPodTaints(n *hpNodeRec) []NodeTaint {
	switch n.Health {
	case HealthSchedulable, "":
		return nil
	case HealthUnschedulablePendingReboot, HealthUnschedulablePendingReplacement:
		return []NodeTaint{{Key: hpHealthLabel, Value: n.Health, Effect: "NoExecute"}}
	}
	return []NodeTaint{{Key: hpHealthLabel, Value: n.Health, Effect: "NoSchedule"}}
}

// hpPrivateDNS is the EC2 private DNS name of an address in the call's
// region.
func (t *txn) hpPrivateDNS(ip string) string {
	if ip == "" {
		return ""
	}
	return fmt.Sprintf("ip-%s.%s.compute.internal", strings.ReplaceAll(ip, ".", "-"), t.region)
}

// instanceStatus is a node's status as clients see it: its own, or
// ShuttingDown while its cluster is deleted.
func (t *txn) hpInstanceStatus(c *hpClusterRec, n *hpNodeRec) smtypes.ClusterInstanceStatus {
	if c.Life.DeletingAt != nil {
		return smtypes.ClusterInstanceStatusShuttingDown
	}
	return n.Status
}
