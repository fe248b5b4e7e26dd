package sim

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// zoneCapacity is how many instances of typ (a SageMaker name) one zone
// can run for the simulated account's clusters: a handful of the scarce
// accelerators, plenty of the common ones. Training plans reserve their
// capacity apart from it.
func zoneCapacity(typ string) int {
	switch family := instanceFamily(typ); {
	case strings.HasPrefix(family, "p5"), strings.HasPrefix(family, "p6"), family == "trn2":
		return 4
	case strings.HasPrefix(family, "p4"), family == "trn1":
		return 8
	case family == "g6", family == "g6e":
		return 32
	case family == "g5":
		return 64
	}
	return 128
}

// capacityLeft is how many more instances of typ fit in zone: its
// capacity less the instances the region's live clusters run there
// outside training plans (shutting-down ones still hold theirs).
func (t *txn) capacityLeft(zone, typ string) int {
	used := 0
	for _, c := range t.rs.HyperPod {
		if !c.alive() {
			continue
		}
		for _, g := range c.Groups {
			if g.TrainingPlanArn != "" {
				continue
			}
			for _, n := range g.Nodes {
				if n.InstanceID != "" && n.Zone == zone && n.InstanceType == typ {
					used++
				}
			}
		}
	}
	return zoneCapacity(typ) - used
}

// roomFor tells whether one more node of g can launch now. A group on a
// training plan draws on the plan, which was checked when the node was
// asked for; other groups on their zone's capacity, which a capacity fault
// empties. fire says whether a matching capacity fault fires (a first
// attempt) or is only looked at (a retry).
func (t *txn) roomFor(g *hpGroupRec, fire bool) bool {
	return t.room(g, 1, fire) == 1
}

// room is how many of want new nodes of g can launch now (see roomFor):
// no more than its subnet has free addresses for, either.
func (t *txn) room(g *hpGroupRec, want int, fire bool) int {
	if want <= 0 {
		return want
	}
	if g.TrainingPlanArn == "" {
		zone, _ := t.w.catalog.zone(t.region, g.Zone)
		if i := t.capacityFaultIndex(zone, g.InstanceType); i >= 0 {
			if fire {
				t.st.fire(i)
			}
			return 0
		}
		want = min(want, t.capacityLeft(g.Zone, g.InstanceType))
	}
	return max(0, min(want, t.addressRoom(g)))
}

// addressRoom is how many more nodes of g the free addresses of its
// subnet can take.
func (t *txn) addressRoom(g *hpGroupRec) int {
	if t.rs.Subnets[g.SubnetID] == nil {
		return math.MaxInt
	}
	return t.freeAddresses(g.SubnetID) / nodeAddresses(g.InstanceType, g.NetworkInterface)
}

// waitMessage tells why want more nodes of g can not launch: their subnet
// has too few free addresses, or their zone too little capacity.
func (t *txn) waitMessage(g *hpGroupRec, want int) string {
	if t.addressRoom(g) < want {
		return t.addressesMessage(g)
	}
	return t.capacityMessage(g)
}

// addressesMessage is how HyperPod reports EC2's refusal to launch a node
// of g in a subnet without enough free addresses.
func (t *txn) addressesMessage(g *hpGroupRec) string {
	per := nodeAddresses(g.InstanceType, g.NetworkInterface)
	return fmt.Sprintf("InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '%s' to satisfy the requested number of instances: "+
		"it has %d free, and each %s node takes %d on EKS. Use a larger subnet (a /20 has 4091 usable addresses) or fewer nodes. (instance group %s)",
		g.SubnetID, t.freeAddresses(g.SubnetID), g.InstanceType, per, g.Name)
}

// addNodes adds count nodes to g: the first launched of them launch now,
// Pending until bootAt; the others wait for capacity.
func (t *txn) addNodes(c *hpClusterRec, g *hpGroupRec, count, launched int, bootAt time.Time) []*hpNodeRec {
	var nodes []*hpNodeRec
	for i := 0; i < count; i++ {
		n := t.newNode(g)
		if i < launched {
			if !t.launch(c, g, n, t.now, bootAt) {
				launched = i
			}
		} else {
			n.wait(t.waitMessage(g, 1))
		}
		nodes = append(nodes, n)
	}
	if launched < count {
		t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelWarn, "%d of %d new nodes of instance group %s wait to launch: %s",
			count-launched, count, g.Name, t.waitMessage(g, 1))
	}
	return nodes
}

// capacityMessage is HyperPod's failure message for a group whose zone has
// no capacity for its instance type; it suggests zones that offer the type.
func (t *txn) capacityMessage(g *hpGroupRec) string {
	var others []string
	region, _ := t.w.catalog.region(t.region)
	for _, z := range region.Zones {
		if z.Name != g.Zone && t.w.catalog.offered(t.region, z.Name, g.InstanceType) {
			others = append(others, z.Name)
		}
	}
	msg := fmt.Sprintf("InsufficientInstanceCapacity: We currently do not have sufficient %s capacity in the Availability Zone you requested (%s). "+
		"Our system will be working on provisioning additional capacity.", g.InstanceType, g.Zone)
	if len(others) > 0 {
		msg += fmt.Sprintf(" You can currently get %s capacity by choosing %s.", g.InstanceType, strings.Join(others, ", "))
	}
	return msg + fmt.Sprintf(" (instance group %s)", g.Name)
}

// hpQuota checks the "<type> for cluster usage" quotas: the target counts
// of the region's clusters plus delta (instances by type) must stay within
// them. Groups on training plans do not count: plans bring their own
// capacity.
func (t *txn) hpQuota(delta map[string]int) error {
	used := t.quotaUsage()
	for _, typ := range sortedKeys(delta) {
		limit := t.quota(typ)
		if delta[typ] <= 0 || float64(used[typ]+delta[typ]) <= limit {
			continue
		}
		if i := t.quotaFault(typ); i >= 0 {
			t.st.fire(i)
		}
		return &smtypes.ResourceLimitExceeded{Message: aws.String(fmt.Sprintf(
			"The account-level service limit '%s' is %g Instances, with current utilization of %d Instances and a request delta of %d Instances. Please use AWS Service Quotas to request an increase for this quota.",
			quotaName(typ), limit, used[typ], delta[typ]))}
	}
	return nil
}

// quotaUsage is what counts against the "<type> for cluster usage"
// quotas: the target counts of the region's live groups outside training
// plans, by instance type.
func (t *txn) quotaUsage() map[string]int {
	used := map[string]int{}
	for _, c := range t.rs.HyperPod {
		if st := c.status(t.now); st == smtypes.ClusterStatusDeleting || st == smtypes.ClusterStatusFailed {
			continue
		}
		for _, g := range c.Groups {
			if g.TrainingPlanArn == "" && !g.Deleting {
				used[g.InstanceType] += int(g.Count)
			}
		}
	}
	return used
}

// quotaDelta adds the instances groups ask for, outside training plans,
// to delta by type.
func quotaDelta(delta map[string]int, groups ...*hpGroupRec) map[string]int {
	if delta == nil {
		delta = map[string]int{}
	}
	for _, g := range groups {
		if g.TrainingPlanArn == "" {
			delta[g.InstanceType] += int(g.Count)
		}
	}
	return delta
}
