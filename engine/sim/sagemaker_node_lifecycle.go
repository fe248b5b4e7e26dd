package sim

import (
	"slices"
	"time"

	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// Real latencies of a node's life, divided by the world's speed.
const (
	hpNodeBootTime     = 5 * time.Minute // Pending: the instance boots and runs its lifecycle scripts
	hpNodeRebootTime   = 4 * time.Minute // Pending again after a reboot
	hpNodeShutdownTime = 2 * time.Minute // ShuttingDown, then gone
	hpDetectTime       = 2 * time.Minute // until the health-monitoring agent marks a faulty node for recovery
	hpRecoveryDelay    = 1 * time.Minute // from an UnschedulablePending* label to the reboot or replacement
)

// deepHealthCheckTimes is how long each deep health check runs; a node runs
// its checks one after the other.
var deepHealthCheckTimes = map[string]time.Duration{
	string(smtypes.DeepHealthCheckTypeInstanceStress):              20 * time.Minute,
	string(smtypes.DeepHealthCheckTypeInstanceConnectivity):        10 * time.Minute,
	string(smtypes.DeepHealthCheckTypeMultiNodeTrainingValidation): 15 * time.Minute,
}

func checksTime(checks []string) time.Duration {
	var d time.Duration
	for _, c := range checks {
		d += deepHealthCheckTimes[c]
	}
	return d
}

// Recoveries: what fixes a faulty node.
const (
	recoverReboot  = "reboot"
	recoverReplace = "replace"
)

// hpNodeRec is one node of an instance group. Its logical id stays while
// the instance behind it is rebooted or replaced; InstanceID is empty while
// the node waits for capacity. Its fields hold its state as of the last
// transition the world applied (see hpAction).
type hpNodeRec struct {
	LogicalID      string
	InstanceID     string `json:",omitempty"`
	InstanceType   string
	Zone           string
	SubnetID       string
	CapacityType   smtypes.ClusterCapacityType
	ThreadsPerCore int32
	PrivateIP      string `json:",omitempty"`
	// Addresses are the private addresses the instance holds in its
	// subnet, the primary one (PrivateIP) first: they go back to the
	// subnet with the instance.
	Addresses  []ipRange `json:",omitempty"`
	LaunchedAt time.Time
	Status     smtypes.ClusterInstanceStatus
	Message    string `json:",omitempty"` // the status message
	// Health is the node-health-status label; empty until the instance
	// joins Kubernetes.
	Health string `json:",omitempty"`
	// Check is the deep-health-check-status label: InProgress, Passed,
	// Failed or empty.
	Check string `json:",omitempty"`
	// CheckFailure, while checks run, is the message they will fail with.
	CheckFailure string `json:",omitempty"`
	// Fault is the recovery a node fault needs, until it gets it.
	Fault        string `json:",omitempty"`
	FaultMessage string `json:",omitempty"`
	Deleting     bool   `json:",omitempty"`
	// ImageVersion is the image release the node runs (empty: its
	// group's).
	ImageVersion string `json:",omitempty"`
	// Gen counts the node's transitions that void the ones scheduled
	// before them (a reboot voids the end of a deep health check).
	Gen int `json:",omitempty"`
}

// waiting tells whether the node waits for capacity to launch.
func (n *hpNodeRec) waiting() bool { return n.InstanceID == "" && !n.Deleting }

// healthy tells whether a node fault can strike the node.
func (n *hpNodeRec) healthy() bool {
	return n.Status == smtypes.ClusterInstanceStatusRunning && n.Health == HealthSchedulable && !n.Deleting
}

// hpAction is a transition due at At. Nothing runs in the background: the
// world applies due actions, oldest first, whenever it is read at or after
// their time (see advanceHyperPod), so a node's history does not depend on
// when clients look.
type hpAction struct {
	At    time.Time
	Seq   uint64
	Kind  string
	Group string `json:",omitempty"`
	Node  string `json:",omitempty"` // a logical id
	Gen   int    `json:",omitempty"` // the node's Gen when scheduled: the action is void once it changed
	Mode  string `json:",omitempty"` // the recovery, for actDetected; the boot's cause, for actBooted
}

// Kinds of hpAction.
const (
	actClusterReady = "clusterReady" // creation ends: InService or Failed
	actSettled      = "settled"      // an update of the cluster or of a group ends
	actGroupGone    = "groupGone"    // a deleted group's instances have terminated
	actBooted       = "booted"       // a node's instance booted
	actChecked      = "checked"      // a node's deep health checks ended
	actDetected     = "detected"     // the health agent marks a faulty node for recovery
	actReboot       = "reboot"       // a reboot starts
	actReplace      = "replace"      // a replacement starts: the instance shuts down
	actRelaunch     = "relaunch"     // the replacement instance launches
	actGone         = "gone"         // a deleted node's instance terminated
)

// at is the moment a real latency d after from ends.
func (t *txn) at(from time.Time, d time.Duration) time.Time { return from.Add(t.w.scale(d)) }

// schedule adds a to the cluster's agenda.
func (t *txn) schedule(c *hpClusterRec, a hpAction) {
	c.ActionSeq++
	a.Seq = c.ActionSeq
	c.Agenda = append(c.Agenda, a)
}

// scheduleNode schedules kind for node n at at.
func (t *txn) scheduleNode(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time, kind, mode string) {
	t.schedule(c, hpAction{At: at, Kind: kind, Group: g.Name, Node: n.LogicalID, Gen: n.Gen, Mode: mode})
}

// advanceHyperPod brings the region's HyperPod clusters up to now: it
// applies the due actions oldest first, after each gives nodes that wait
// for capacity what it freed and settles the Kubernetes side at that
// moment (pods land on a node when it joins, Karpenter reacts; see
// kube_sched.go), settles it too when a Karpenter-managed node's idle time
// is up, and lets pending node faults strike.
func (t *txn) advanceHyperPod() {
	if t.rs == nil {
		return
	}
	var woken time.Time
	for {
		c, i := t.nextAction()
		arn, wake, ok := t.nextKubeWake(woken)
		if ok && (c == nil || wake.Before(c.Agenda[i].At)) {
			t.settleKubeAt(arn, wake)
			woken = wake
			continue
		}
		if c == nil {
			break
		}
		a := c.Agenda[i]
		c.Agenda = slices.Delete(c.Agenda, i, i+1)
		t.apply(c, a)
		t.placeWaiting(a.At)
		t.settleKubeAt(c.EKSArn, a.At)
	}
	t.placeWaiting(t.now)
	t.strikeNodeFaults()
}

// nextAction finds the earliest due action of the region. A cluster being
// deleted has no future; one doomed to fail only its failure.
func (t *txn) nextAction() (*hpClusterRec, int) {
	var best *hpClusterRec
	bi := -1
	for _, name := range sortedKeys(t.rs.HyperPod) {
		c := t.rs.HyperPod[name]
		if c.Life.DeletingAt != nil {
			c.Agenda = nil
			continue
		}
		if c.Life.FailMessage != "" {
			c.Agenda = slices.DeleteFunc(c.Agenda, func(a hpAction) bool { return a.Kind != actClusterReady })
		}
		for i, a := range c.Agenda {
			if a.At.After(t.now) || (a.Kind == actClusterReady && c.Life.HeldBy != "") {
				continue // not due, or held in Creating by a hold fault
			}
			if best == nil {
				best, bi = c, i
				continue
			}
			b := best.Agenda[bi]
			if a.At.Before(b.At) || (a.At.Equal(b.At) && best == c && a.Seq < b.Seq) {
				best, bi = c, i
			}
		}
	}
	return best, bi
}

// apply applies one action at its time.
func (t *txn) apply(c *hpClusterRec, a hpAction) {
	if a.Kind == actClusterReady {
		t.clusterReady(c, a.At)
		return
	}
	if a.Group == "" {
		if a.Kind == actSettled && c.UpdatingUntil != nil && c.UpdatingUntil.Equal(a.At) {
			t.clusterEvent(c, a.At, smtypes.ClusterEventLevelInfo, "Cluster %s finished updating and is InService.", c.Name)
		}
		return
	}
	g := c.group(a.Group)
	if g == nil {
		return
	}
	switch a.Kind {
	case actSettled:
		t.groupSettled(c, g, a.At)
		return
	case actGroupGone:
		t.groupGone(c, g, a.At)
		return
	case actPatchBatch:
		t.patchBatch(c, g, a.At)
		return
	}
	n := g.node(a.Node)
	if n == nil || n.Gen != a.Gen {
		return // the node is gone, or something newer happened to it
	}
	switch a.Kind {
	case actBooted:
		t.booted(c, g, n, a.At, a.Mode == recoverReboot)
	case actChecked:
		t.checked(c, g, n, a.At)
	case actDetected:
		t.markForRecovery(c, g, n, a.At, a.Mode)
	case actReboot:
		t.reboot(c, g, n, a.At)
	case actReplace:
		t.replace(c, g, n, a.At)
	case actRelaunch:
		t.relaunch(c, g, n, a.At)
	case actGone:
		t.nodeGone(c, g, n, a.At)
	case actPatched:
		t.patched(c, g, n, a.At)
	case actRolledBack:
		t.rolledBack(c, g, n, a.At)
	}
}

// clusterReady ends a cluster's creation. A failed cluster rolls its nodes
// back.
func (t *txn) clusterReady(c *hpClusterRec, at time.Time) {
	if c.Life.FailMessage != "" {
		for _, g := range c.Groups {
			g.Nodes = nil
		}
		c.Agenda = nil
		t.clusterEvent(c, at, smtypes.ClusterEventLevelError, "Cluster %s failed: %s", c.Name, c.Life.FailMessage)
		return
	}
	t.clusterEvent(c, at, smtypes.ClusterEventLevelInfo, "Cluster %s is InService.", c.Name)
}

// groupSettled reports the end of a group's creation or update, unless a
// later change extended it.
func (t *txn) groupSettled(c *hpClusterRec, g *hpGroupRec, at time.Time) {
	if g.BusyUntil == nil || !g.BusyUntil.Equal(at) || g.Deleting {
		return
	}
	g.KubePrev = nil // the nodes carry the labels and taints asked for now
	if w := g.waiting(); w > 0 {
		t.groupEvent(c, g, at, smtypes.ClusterEventLevelWarn, "Instance group %s is Degraded: %d of its %d nodes wait for %s capacity in %s.",
			g.Name, w, g.Count, g.InstanceType, g.Zone)
		return
	}
	t.groupEvent(c, g, at, smtypes.ClusterEventLevelInfo, "Instance group %s is InService with %d nodes.", g.Name, g.current())
}

// newNode adds a node to g, not launched yet.
func (t *txn) newNode(g *hpGroupRec) *hpNodeRec {
	n := &hpNodeRec{
		LogicalID: "node-" + t.randString(lowerAlnum, 17), InstanceType: g.InstanceType, Zone: g.Zone, SubnetID: g.SubnetID,
		CapacityType: g.capacityType(), ThreadsPerCore: g.ThreadsPerCore, Status: smtypes.ClusterInstanceStatusPending,
	}
	g.Nodes = append(g.Nodes, n)
	return n
}

// wait leaves n without an instance until capacity frees up.
func (n *hpNodeRec) wait(message string) {
	n.Status, n.Message = smtypes.ClusterInstanceStatusPending, message
}

// launch gives n a new instance at at: Pending until ready. The instance
// takes the addresses its type takes on EKS in the node's subnet (those
// of an instance it replaces are free again by now). When the subnet has
// too few free, EC2 refuses the launch and the node waits, as for
// capacity; launch reports false.
func (t *txn) launch(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at, ready time.Time) bool {
	n.Addresses, n.PrivateIP = nil, ""
	if s := t.rs.Subnets[n.SubnetID]; s != nil {
		ips, ok := t.leaseAddresses(s.ID, nodeAddresses(n.InstanceType, g.NetworkInterface))
		if !ok {
			n.Gen++
			n.InstanceID = ""
			n.wait(t.addressesMessage(g))
			return false
		}
		n.Addresses, n.PrivateIP = ips, s.addr(ips[0].First)
	}
	n.InstanceID, n.LaunchedAt = t.newID("i"), at
	n.Status, n.Message, n.Health, n.Check, n.CheckFailure = smtypes.ClusterInstanceStatusPending, "", "", "", ""
	n.Fault, n.FaultMessage = "", ""
	n.Gen++
	t.scheduleNode(c, g, n, ready, actBooted, "")
	return true
}

// readyTime is when a node launched at at is up: booted, and through the
// group's deep health checks.
func (t *txn) readyTime(g *hpGroupRec, at time.Time) time.Time {
	return t.at(at, hpNodeBootTime+checksTime(g.DeepHealthChecks))
}

// booted ends a node's boot: a new instance goes through the group's deep
// health checks, if any; a rebooted one is back, healthy unless its fault
// needs a replacement.
func (t *txn) booted(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time, reboot bool) {
	switch {
	case reboot && n.Fault == recoverReplace:
		n.Status, n.Health = smtypes.ClusterInstanceStatusRunning, HealthUnschedulable
		t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelError, "Node %s is still unhealthy after a reboot: %s It needs a replacement.", n.InstanceID, n.FaultMessage)
		t.scheduleRecovery(c, g, n, at, recoverReplace)
	case reboot:
		n.Status, n.Health, n.Message, n.Fault, n.FaultMessage = smtypes.ClusterInstanceStatusRunning, HealthSchedulable, "", "", ""
		t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Node %s rebooted and is Running.", n.InstanceID)
	case len(g.DeepHealthChecks) > 0:
		t.startChecks(c, g, n, g.DeepHealthChecks, at)
	default:
		n.Status, n.Health = smtypes.ClusterInstanceStatusRunning, HealthSchedulable
		t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Node %s is Running.", n.InstanceID)
	}
}

// startChecks runs deep health checks on n. Their outcome is decided now:
// a healthcheck fault, or a node fault the node carries, fails them.
func (t *txn) startChecks(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, checks []string, at time.Time) {
	n.Gen++
	n.Status, n.Health, n.Check, n.Message = smtypes.ClusterInstanceStatusDeepHealthCheckInProgress, HealthUnschedulable, DeepHealthCheckInProgress, ""
	n.CheckFailure = n.FaultMessage
	if msg, failed := t.healthCheckFault(c, g, n, checks); failed && n.CheckFailure == "" {
		n.CheckFailure = msg
	}
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Deep health checks %v started on node %s.", checks, n.InstanceID)
	t.scheduleNode(c, g, n, t.at(at, checksTime(checks)), actChecked, "")
}

// checked ends a node's deep health checks. A node that failed them stays
// Unschedulable, and with automatic node recovery is replaced.
func (t *txn) checked(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	n.Status = smtypes.ClusterInstanceStatusRunning
	if n.CheckFailure == "" {
		n.Check, n.Health = DeepHealthCheckPassed, HealthSchedulable
		t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Node %s passed its deep health checks and is Running.", n.InstanceID)
		return
	}
	n.Check, n.Health, n.Message = DeepHealthCheckFailed, HealthUnschedulable, n.CheckFailure
	if n.Fault == "" {
		n.Fault, n.FaultMessage = recoverReplace, n.CheckFailure
	}
	n.CheckFailure = ""
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelError, "Node %s failed its deep health checks: %s", n.InstanceID, n.Message)
	t.scheduleRecovery(c, g, n, at, n.Fault)
}

// breakNode makes a healthy node faulty at at, as a node fault does.
func (t *txn) breakNode(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time, recovery, message string) {
	n.Gen++
	n.Health, n.Message, n.Fault, n.FaultMessage = HealthUnschedulable, message, recovery, message
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelError, "The health-monitoring agent found node %s unhealthy: %s", n.InstanceID, message)
	t.scheduleRecovery(c, g, n, at, recovery)
}

// scheduleRecovery has the health agent mark a faulty node for recovery
// after it detects the fault, if the cluster recovers nodes itself.
func (t *txn) scheduleRecovery(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time, recovery string) {
	if !c.automatic() {
		return
	}
	t.scheduleNode(c, g, n, t.at(at, hpDetectTime), actDetected, recovery)
}

// markForRecovery sets the UnschedulablePending* label of a recovery, as
// the health agent or a user does, and schedules the recovery.
func (t *txn) markForRecovery(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time, recovery string) {
	kind, label := actReboot, HealthUnschedulablePendingReboot
	if recovery == recoverReplace {
		kind, label = actReplace, HealthUnschedulablePendingReplacement
	}
	n.Gen++ // a detection still to come would only mark it again
	n.Health = label
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelWarn, "Node %s is labelled %s.", n.InstanceID, label)
	t.scheduleNode(c, g, n, t.at(at, hpRecoveryDelay), kind, "")
}

// reboot restarts n's instance: Pending, then Running with the same id.
// The deep-health-check label keeps its last outcome; checks the reboot
// interrupts leave none.
func (t *txn) reboot(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	n.Gen++
	if n.Check == DeepHealthCheckInProgress {
		n.Check = ""
	}
	n.Status, n.Health, n.CheckFailure = smtypes.ClusterInstanceStatusPending, HealthUnschedulablePendingReboot, ""
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Rebooting node %s.", n.InstanceID)
	t.scheduleNode(c, g, n, t.at(at, hpNodeRebootTime), actBooted, recoverReboot)
}

// replace shuts n's instance down; a new one launches once it is gone.
func (t *txn) replace(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	n.Gen++
	n.Status, n.Health, n.CheckFailure = smtypes.ClusterInstanceStatusShuttingDown, HealthUnschedulablePendingReplacement, ""
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Replacing node %s: its instance is shutting down.", n.InstanceID)
	t.scheduleNode(c, g, n, t.at(at, hpNodeShutdownTime), actRelaunch, "")
}

// relaunch launches the new instance of a replaced node, on new hardware:
// the fault is gone.
func (t *txn) relaunch(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	old := n.InstanceID
	n.InstanceType, n.ThreadsPerCore = g.InstanceType, g.ThreadsPerCore
	if !t.launch(c, g, n, at, t.at(at, hpNodeBootTime)) {
		t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelError, "Could not launch an instance to replace %s: %s", old, n.Message)
		return
	}
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Launched instance %s to replace %s.", n.InstanceID, old)
}

// deleteNode removes n from its group: at once if it waits for capacity,
// else ShuttingDown until its instance is gone.
func (t *txn) deleteNode(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	if n.InstanceID == "" {
		g.Nodes = slices.DeleteFunc(g.Nodes, func(o *hpNodeRec) bool { return o == n })
		return
	}
	n.Gen++
	n.Deleting, n.Status, n.CheckFailure = true, smtypes.ClusterInstanceStatusShuttingDown, ""
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Node %s is shutting down: it was removed from instance group %s.", n.InstanceID, g.Name)
	t.scheduleNode(c, g, n, t.at(at, hpNodeShutdownTime), actGone, "")
}

func (t *txn) nodeGone(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	g.Nodes = slices.DeleteFunc(g.Nodes, func(o *hpNodeRec) bool { return o == n })
	t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Node %s terminated.", n.InstanceID)
}

// groupGone removes a deleted group once its instances have terminated.
func (t *txn) groupGone(c *hpClusterRec, g *hpGroupRec, at time.Time) {
	c.Groups = slices.DeleteFunc(c.Groups, func(o *hpGroupRec) bool { return o == g })
	t.groupEvent(c, g, at, smtypes.ClusterEventLevelInfo, "Instance group %s was deleted.", g.Name)
}

// placeWaiting launches, at at, nodes that wait for capacity, as far as
// capacity then allows: HyperPod keeps retrying until a group reaches its
// target count.
func (t *txn) placeWaiting(at time.Time) {
	for _, name := range sortedKeys(t.rs.HyperPod) {
		c := t.rs.HyperPod[name]
		if !c.alive() || c.status(at) == smtypes.ClusterStatusCreating {
			continue
		}
		for _, g := range c.Groups {
			if g.Deleting {
				continue
			}
			for _, n := range g.Nodes {
				if !n.waiting() {
					continue
				}
				if !t.roomFor(g, false) || !t.launch(c, g, n, at, t.at(at, hpNodeBootTime)) {
					break
				}
				t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelInfo, "Node %s launched as %s after waiting for %s capacity in %s.",
					n.LogicalID, n.InstanceID, g.InstanceType, g.Zone)
				t.markBusy(c, g, smtypes.InstanceGroupStatusUpdating, t.readyTime(g, at))
			}
		}
	}
}

// markBusy shows g Creating or Updating until until, and schedules the
// event that reports its end.
func (t *txn) markBusy(c *hpClusterRec, g *hpGroupRec, status smtypes.InstanceGroupStatus, until time.Time) {
	g.busy(status, until)
	t.schedule(c, hpAction{At: *g.BusyUntil, Kind: actSettled, Group: g.Name})
}
