package sim

import (
	"fmt"
	"slices"

	"github.com/aws/smithy-go"
)

// The firing side of the call, capacity, quota and node faults, and what
// every kind's firing shares (fire, inRegion): the simulated services ask
// here, at the moment such a fault would strike, which active fault
// matches the call, the resource or the node, and it fires, spending its
// count. The other kinds are looked up where they
// strike: hold faults in faults_hold.go, nofilters and smallpages in
// ec2_filters.go and pagination.go, training faults in kube_training.go,
// serving faults in kube_serving.go and kube_keda.go; the call faults of
// the Kubernetes APIs answer as an API server in kube.go (kubeCallFault).

// fire records that the fault at index i fired: a counted fault that has
// fired its last time is removed.
func (st *state) fire(i int) {
	f := &st.Faults[i]
	if f.Count == 0 {
		return
	}
	f.Count--
	if f.Count == 0 {
		st.Faults = append(st.Faults[:i:i], st.Faults[i+1:]...)
	}
}

// inRegion tells whether fault f applies to a call in region ("" for the
// global services, which every regional fault applies to).
func (f Fault) inRegion(region string) bool {
	return f.Region == "" || region == "" || f.Region == region
}

// callFault fires the first throttle or error fault that matches a call.
func (t *txn) callFault(service, op string) error {
	f, ok := t.firingCallFault(service, op)
	if !ok {
		return nil
	}
	if f.Kind == FaultError {
		return &smithy.GenericAPIError{Code: f.Code, Message: f.errorMessage(), Fault: smithy.FaultServer}
	}
	code := "ThrottlingException"
	switch service {
	case svcEC2:
		code = "RequestLimitExceeded"
	case svcS3:
		code = "SlowDown"
	}
	return &smithy.GenericAPIError{Code: code, Message: "Rate exceeded", Fault: smithy.FaultClient}
}

// firingCallFault fires the first throttle or error fault that matches a
// call of service and returns it. A fault with a probability matches only
// when its draw says so; one the draw spares leaves the call to the next.
func (t *txn) firingCallFault(service, op string) (Fault, bool) {
	for i, f := range t.st.Faults {
		if (f.Kind != FaultThrottle && f.Kind != FaultError) || f.Service != service ||
			(f.Operation != "" && f.Operation != op) || !f.inRegion(t.region) {
			continue
		}
		if f.Probability > 0 && f.Probability < 1 && !t.chance(f.Probability) {
			continue
		}
		t.st.fire(i)
		return f, true
	}
	return Fault{}, false
}

// errorMessage is what an error fault's failed call says.
func (f Fault) errorMessage() string {
	if f.Message == "" {
		return "Injected fault"
	}
	return f.Message
}

// roleUsable returns the role arn names as the service of the call sees
// it: nil when there is none, or when an iamlag fault makes the call's
// service not see it yet (the fault fires then).
func (t *txn) roleUsable(arn string) *roleRec {
	r := t.roleByArn(arn)
	if r == nil {
		return nil
	}
	for i, f := range t.st.Faults {
		if f.Kind != FaultIAMLag || (f.Service != "" && f.Service != t.service) ||
			(f.Operation != "" && f.Operation != t.op) || !f.inRegion(t.region) {
			continue
		}
		t.st.fire(i)
		return nil
	}
	return r
}

// failFault fires the first fail fault for a resource of service created by
// op, and returns its failure message.
func (t *txn) failFault(service, op, defaultMessage string) (string, bool) {
	for i, f := range t.st.Faults {
		if f.Kind != FaultFail || f.Service != service || (f.Operation != "" && f.Operation != op) || !f.inRegion(t.region) {
			continue
		}
		t.st.fire(i)
		if f.Message != "" {
			return f.Message, true
		}
		return defaultMessage, true
	}
	return "", false
}

// capacityFault fires the first capacity fault for instances of typ (a
// SageMaker name) in zone.
func (t *txn) capacityFault(zone Zone, typ string) bool {
	i := t.capacityFaultIndex(zone, typ)
	if i >= 0 {
		t.st.fire(i)
	}
	return i >= 0
}

// capacityFaultIndex returns the index of the first capacity fault for
// instances of typ in zone, or -1.
func (t *txn) capacityFaultIndex(zone Zone, typ string) int {
	for i, f := range t.st.Faults {
		if f.Kind == FaultCapacity && f.inRegion(t.region) && (f.Zone == zone.Name || f.Zone == zone.ID) &&
			(f.InstanceType == "" || f.InstanceType == typ) {
			return i
		}
	}
	return -1
}

// quotaFault returns the index of the quota fault that overrides the quota
// of typ (a SageMaker name) in the call's region, or -1.
func (t *txn) quotaFault(typ string) int {
	for i, f := range t.st.Faults {
		if f.Kind == FaultQuota && f.InstanceType == typ && f.inRegion(t.region) {
			return i
		}
	}
	return -1
}

// nodeFaultMatches tells whether node fault or healthcheck fault f selects
// node n of group g of cluster c.
func (t *txn) nodeFaultMatches(f Fault, c *hpClusterRec, g *hpGroupRec, n *hpNodeRec) bool {
	if !f.inRegion(t.region) || (f.Cluster != "" && f.Cluster != c.Name) || (f.Group != "" && f.Group != g.Name) ||
		(f.Instance != "" && f.Instance != n.InstanceID) || (f.InstanceType != "" && f.InstanceType != n.InstanceType) {
		return false
	}
	if f.Zone != "" {
		zone, _ := t.w.catalog.zone(t.region, n.Zone)
		return f.Zone == zone.Name || f.Zone == zone.ID
	}
	return true
}

// strikeNodeFaults lets the node faults strike the healthy nodes they
// select, one node per firing, in the order of cluster names, groups and
// nodes. A fault that selects no healthy node now waits for one.
func (t *txn) strikeNodeFaults() {
	var ids []string
	for _, f := range t.st.Faults {
		if f.Kind == FaultNode && f.inRegion(t.region) {
			ids = append(ids, f.ID)
		}
	}
	for _, id := range ids {
		for {
			i := slices.IndexFunc(t.st.Faults, func(f Fault) bool { return f.ID == id })
			if i < 0 {
				break
			}
			f := t.st.Faults[i]
			c, g, n := t.nodeFaultTarget(f)
			if n == nil {
				break
			}
			msg := f.Message
			if msg == "" {
				msg = defaultNodeFaultMessage(f.Recovery)
			}
			t.breakNode(c, g, n, t.now, f.Recovery, msg)
			t.st.fire(i)
		}
	}
}

// nodeFaultTarget finds the first healthy node fault f selects.
func (t *txn) nodeFaultTarget(f Fault) (*hpClusterRec, *hpGroupRec, *hpNodeRec) {
	for _, name := range sortedKeys(t.rs.HyperPod) {
		c := t.rs.HyperPod[name]
		if !c.alive() {
			continue
		}
		for _, g := range c.Groups {
			for _, n := range g.Nodes {
				if n.healthy() && t.nodeFaultMatches(f, c, g, n) {
					return c, g, n
				}
			}
		}
	}
	return nil, nil, nil
}

// defaultNodeFaultMessage is what the health-monitoring agent reports for
// a simulated fault that needs recovery.
func defaultNodeFaultMessage(recovery string) string {
	if recovery == recoverReplace {
		return "GPU hardware failure: NVIDIA XID 79, the GPU has fallen off the bus (simulated fault)."
	}
	return "The node stopped responding: kernel soft lockup detected (simulated fault)."
}

// patchFault fires the first patch fault that selects node n and returns
// the message its failed update reports.
func (t *txn) patchFault(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, version string) (string, bool) {
	for i, f := range t.st.Faults {
		if f.Kind != FaultPatch || !t.nodeFaultMatches(f, c, g, n) {
			continue
		}
		t.st.fire(i)
		if f.Message != "" {
			return f.Message, true
		}
		return fmt.Sprintf("Node %s failed its health checks after the update to image %s: the GPU driver did not load (simulated fault).", n.InstanceID, version), true
	}
	return "", false
}

// healthCheckFault fires the first healthcheck fault that selects node n,
// which starts the deep health checks checks, and returns the message
// they fail with.
func (t *txn) healthCheckFault(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, checks []string) (string, bool) {
	for i, f := range t.st.Faults {
		if f.Kind != FaultHealthCheck || !t.nodeFaultMatches(f, c, g, n) {
			continue
		}
		t.st.fire(i)
		if f.Message != "" {
			return f.Message, true
		}
		return fmt.Sprintf("Deep health check %s failed on %s: GPU stress test found uncorrectable ECC errors (simulated fault).", checks[0], n.InstanceID), true
	}
	return "", false
}
