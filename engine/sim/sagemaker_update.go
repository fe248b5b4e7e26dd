package sim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// UpdateCluster changes a cluster: it adds the instance groups it does not
// have, updates those it has (InstanceCount scales them up or down; the
// execution role, lifecycle scripts, deep health checks, storage and
// Kubernetes labels and taints change; the instance type, training plan,
// capacity type, subnets and threads per core can not), deletes
// InstanceGroupsToDelete, and changes the cluster-wide settings. The whole
// request is checked before any of it applies. Without Continuous
// provisioning the cluster is Updating until the change is done; with it,
// the cluster stays InService and only the groups show the change.
func (a *sageMakerAPI) UpdateCluster(ctx context.Context, in *sagemaker.UpdateClusterInput, _ ...func(*sagemaker.Options)) (*sagemaker.UpdateClusterOutput, error) {
	return hpCall(ctx, a, "UpdateCluster", func(t *txn) (*sagemaker.UpdateClusterOutput, error) {
		in := orZero(in)
		if err := needUpdateCluster(in); err != nil {
			return nil, err
		}
		c, err := t.hpClusterToChange(in.ClusterName, "UpdateCluster")
		if err != nil {
			return nil, err
		}
		if err := hpUpdateUnsupported(c, in); err != nil {
			return nil, err
		}
		settings := hpSettings{NodeRecovery: in.NodeRecovery, ProvisioningMode: in.NodeProvisioningMode,
			AutoScaling: in.AutoScaling, ClusterRole: in.ClusterRole, TieredStorage: in.TieredStorageConfig}
		if len(in.InstanceGroups) == 0 && len(in.InstanceGroupsToDelete) == 0 && settings.empty() {
			return nil, sageMakerValidation("UpdateCluster asks for no change. Set InstanceGroups, InstanceGroupsToDelete, NodeRecovery, NodeProvisioningMode, AutoScaling, ClusterRole or TieredStorageConfig.")
		}
		plan, err := t.hpPlanUpdate(c, in)
		if err != nil {
			return nil, err
		}
		wasAutomatic := c.automatic()
		if err := t.hpApplySettings(c, settings); err != nil {
			return nil, err
		}
		if !wasAutomatic && c.automatic() {
			t.recoverFaultyNodes(c)
		}
		until := t.hpApplyUpdate(c, plan)
		if !c.continuous() {
			if c.UpdatingUntil != nil && c.UpdatingUntil.After(until) {
				until = *c.UpdatingUntil
			}
			c.UpdatingUntil = &until
			t.schedule(c, hpAction{At: until, Kind: actSettled})
		}
		t.clusterEvent(c, t.now, smtypes.ClusterEventLevelInfo, "UpdateCluster started on cluster %s.", c.Name)
		return &sagemaker.UpdateClusterOutput{ClusterArn: aws.String(c.Arn)}, nil
	})
}

// needUpdateCluster reports the missing required fields the SDK checks.
func needUpdateCluster(in *sagemaker.UpdateClusterInput) error {
	params := []param{{"ClusterName", in.ClusterName != nil}}
	for i, g := range in.InstanceGroups {
		prefix := fmt.Sprintf("InstanceGroups[%d].", i)
		params = append(params, param{prefix + "ExecutionRole", g.ExecutionRole != nil},
			param{prefix + "InstanceCount", g.InstanceCount != nil}, param{prefix + "InstanceGroupName", g.InstanceGroupName != nil})
	}
	if a := in.AutoScaling; a != nil {
		params = append(params, param{"AutoScaling.Mode", a.Mode != ""})
	}
	if ts := in.TieredStorageConfig; ts != nil {
		params = append(params, param{"TieredStorageConfig.Mode", ts.Mode != ""})
	}
	return need("UpdateClusterInput", params...)
}

// hpUpdateUnsupported refuses what UpdateCluster can not change here: the
// orchestrator, and restricted instance groups, which the simulator does
// not have.
func hpUpdateUnsupported(c *hpClusterRec, in *sagemaker.UpdateClusterInput) error {
	if o := in.Orchestrator; o != nil && (o.Eks == nil || aws.ToString(o.Eks.ClusterArn) != c.EKSArn) {
		return sageMakerValidation("The orchestrator of cluster %s can not change: it is the EKS cluster %s. Leave Orchestrator out, or create a new cluster.", c.Name, c.EKSArn)
	}
	if len(in.RestrictedInstanceGroups) > 0 || in.RestrictedInstanceGroupsConfig != nil {
		return sageMakerValidation("Cluster %s has no restricted instance groups, and the simulator does not create them: leave RestrictedInstanceGroups and RestrictedInstanceGroupsConfig out.", c.Name)
	}
	return nil
}

// hpUpdatePlan is an UpdateCluster request, checked: the groups to add
// (old nil) or update, and the groups to delete.
type hpUpdatePlan struct {
	updates []hpGroupUpdate
	deletes []*hpGroupRec
}

// hpGroupUpdate pairs a group's current record (nil for a new group) with
// the validated record of what the request asks for.
type hpGroupUpdate struct {
	old, new *hpGroupRec
}

// hpPlanUpdate checks the instance groups of an UpdateCluster request
// against the cluster, its training plans and quotas, changing nothing.
func (t *txn) hpPlanUpdate(c *hpClusterRec, in *sagemaker.UpdateClusterInput) (hpUpdatePlan, error) {
	var plan hpUpdatePlan
	deleting := map[string]bool{}
	delta := map[string]int{}
	for _, name := range in.InstanceGroupsToDelete {
		g := c.group(name)
		switch {
		case g == nil:
			return plan, sageMakerValidation("Instance group %s does not exist in cluster %s; InstanceGroupsToDelete names existing groups only.", name, c.Name)
		case g.Deleting:
			return plan, sageMakerValidation("Instance group %s is already being deleted.", name)
		case deleting[name]:
			return plan, sageMakerValidation("InstanceGroupsToDelete names %s twice.", name)
		}
		deleting[name] = true
		plan.deletes = append(plan.deletes, g)
		if g.TrainingPlanArn == "" {
			delta[g.InstanceType] -= int(g.Count)
		}
	}
	vpcID := t.hpClusterVPC(c)
	named := map[string]bool{}
	var replaced, siblings []*hpGroupRec
	for i, spec := range in.InstanceGroups {
		name := *spec.InstanceGroupName
		old := c.group(name)
		switch {
		case named[name]:
			return plan, sageMakerValidation("Instance group names must be unique; %s appears twice.", name)
		case deleting[name]:
			return plan, sageMakerValidation("Instance group %s is both in InstanceGroups and in InstanceGroupsToDelete; keep it in one of them.", name)
		case old != nil && old.Deleting:
			return plan, sageMakerValidation("Instance group %s is being deleted. Wait until DescribeCluster no longer lists it, then add it again.", name)
		}
		named[name] = true
		var ng *hpGroupRec
		var err error
		if old == nil {
			if ng, err = t.hpGroup(i, spec, c, vpcID); err != nil {
				return plan, err
			}
		} else {
			if err := hpImmutable(old, spec); err != nil {
				return plan, err
			}
			if ng, err = t.hpGroup(i, hpKeepImmutable(old, spec), c, vpcID); err != nil {
				return plan, err
			}
			ng.InstanceType, ng.SubnetID, ng.Zone = old.InstanceType, old.SubnetID, old.Zone
			replaced = append(replaced, old)
		}
		if err := t.hpPlanCount(ng, replaced, siblings); err != nil {
			return plan, err
		}
		siblings = append(siblings, ng)
		if ng.TrainingPlanArn == "" {
			delta[ng.InstanceType] += int(ng.Count)
			if old != nil {
				delta[old.InstanceType] -= int(old.Count)
			}
		}
		plan.updates = append(plan.updates, hpGroupUpdate{old, ng})
	}
	if err := t.hpQuota(delta); err != nil {
		return plan, err
	}
	return plan, nil
}

// hpClusterVPC is the VPC of a cluster: that of its subnets.
func (t *txn) hpClusterVPC(c *hpClusterRec) string {
	if len(c.Subnets) > 0 {
		if s := t.rs.Subnets[c.Subnets[0]]; s != nil {
			return s.VpcID
		}
	}
	return ""
}

// hpImmutable refuses a change of what an instance group keeps for life:
// its instance type (or flexible types), training plan, capacity type,
// subnets, network interface type and threads per core. A field left out keeps its value.
func hpImmutable(g *hpGroupRec, spec smtypes.ClusterInstanceGroupSpecification) error {
	const addInstead = "To change it, add a new instance group with the new value and delete this one."
	if typ := string(spec.InstanceType); typ != "" && (g.RequirementTypes != nil || typ != g.InstanceType) {
		if g.RequirementTypes != nil {
			return sageMakerValidation("Instance group %s is flexible (InstanceRequirements %v); it can not switch to InstanceType %s. %s", g.Name, g.RequirementTypes, typ, addInstead)
		}
		return sageMakerValidation("InstanceType of instance group %s is %s and can not change to %s. %s", g.Name, g.InstanceType, typ, addInstead)
	}
	if r := spec.InstanceRequirements; r != nil {
		var types []string
		for _, typ := range r.InstanceTypes {
			types = append(types, string(typ))
		}
		if !slices.Equal(types, g.RequirementTypes) {
			return sageMakerValidation("The instance types of instance group %s are %s and can not change to %v. %s", g.Name, hpTypesOf(g), types, addInstead)
		}
	}
	if p := spec.TrainingPlanArn; p != nil && *p != g.TrainingPlanArn {
		return sageMakerValidation("TrainingPlanArn of instance group %s is %q and can not change to %q. %s", g.Name, g.TrainingPlanArn, *p, addInstead)
	}
	if req := spec.CapacityRequirements; req != nil {
		asked := smtypes.ClusterCapacityTypeOnDemand
		if req.Spot != nil {
			asked = smtypes.ClusterCapacityTypeSpot
		}
		if asked != g.capacityType() {
			return sageMakerValidation("Instance group %s runs on %s capacity and can not move to %s. %s", g.Name, g.capacityType(), asked, addInstead)
		}
	}
	if v := spec.OverrideVpcConfig; v != nil && (!sameSet(v.Subnets, g.OverrideSubnets) || !sameSet(v.SecurityGroupIds, g.OverrideSGs)) {
		return sageMakerValidation("OverrideVpcConfig of instance group %s (subnets %v, security groups %v) can not change. %s", g.Name, g.OverrideSubnets, g.OverrideSGs, addInstead)
	}
	if ni := spec.NetworkInterface; ni != nil && string(ni.InterfaceType) != g.NetworkInterface {
		return sageMakerValidation("The network interface type of instance group %s is %s and can not change to %s: it is set when the group is created. %s",
			g.Name, orNone(g.NetworkInterface), ni.InterfaceType, addInstead)
	}
	if tpc := spec.ThreadsPerCore; tpc != nil && *tpc != g.ThreadsPerCore {
		return sageMakerValidation("ThreadsPerCore of instance group %s is %d and can not change to %d. %s", g.Name, g.ThreadsPerCore, *tpc, addInstead)
	}
	return nil
}

func hpTypesOf(g *hpGroupRec) []string {
	if g.RequirementTypes != nil {
		return g.RequirementTypes
	}
	return []string{g.InstanceType}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// hpKeepImmutable is spec with the group's lifelong fields filled in from
// its record, so it validates like a new group's.
func hpKeepImmutable(g *hpGroupRec, spec smtypes.ClusterInstanceGroupSpecification) smtypes.ClusterInstanceGroupSpecification {
	spec.InstanceType, spec.InstanceRequirements = "", nil
	if g.RequirementTypes == nil {
		spec.InstanceType = smtypes.ClusterInstanceType(g.InstanceType)
	} else {
		r := &smtypes.ClusterInstanceRequirements{}
		for _, typ := range g.RequirementTypes {
			r.InstanceTypes = append(r.InstanceTypes, smtypes.ClusterInstanceType(typ))
		}
		spec.InstanceRequirements = r
	}
	spec.TrainingPlanArn = optString(g.TrainingPlanArn)
	spec.CapacityRequirements = nil
	switch smtypes.ClusterCapacityType(g.Capacity) {
	case smtypes.ClusterCapacityTypeSpot:
		spec.CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
	case smtypes.ClusterCapacityTypeOnDemand:
		spec.CapacityRequirements = &smtypes.ClusterCapacityRequirements{OnDemand: &smtypes.ClusterOnDemandOptions{}}
	}
	spec.OverrideVpcConfig = nil
	if g.OverrideSubnets != nil {
		spec.OverrideVpcConfig = &smtypes.VpcConfig{Subnets: slices.Clone(g.OverrideSubnets), SecurityGroupIds: slices.Clone(g.OverrideSGs)}
	}
	spec.ThreadsPerCore = aws.Int32(g.ThreadsPerCore)
	spec.NetworkInterface = nil
	if g.NetworkInterface != "" {
		spec.NetworkInterface = &smtypes.ClusterNetworkInterface{InterfaceType: smtypes.ClusterInterfaceType(g.NetworkInterface)}
	}
	return spec
}

// orNone names an unset value in a message.
func orNone(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}

// hpApplyUpdate applies a checked update and returns when it is done:
// nodes launched and through their checks, removed nodes gone.
func (t *txn) hpApplyUpdate(c *hpClusterRec, plan hpUpdatePlan) time.Time {
	until := t.after(hpUpdateTime)
	later := func(at time.Time) {
		if at.After(until) {
			until = at
		}
	}
	for _, g := range plan.deletes {
		later(t.deleteGroup(c, g))
	}
	for _, u := range plan.updates {
		if u.old == nil {
			later(t.addGroup(c, u.new))
			continue
		}
		later(t.updateGroup(c, u.old, u.new))
	}
	return until
}

// addGroup adds a new group to a cluster and launches its nodes.
func (t *txn) addGroup(c *hpClusterRec, g *hpGroupRec) time.Time {
	c.Groups = append(c.Groups, g)
	count := int(g.Count)
	t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "Instance group %s is Creating with %d %s nodes in %s.", g.Name, count, g.InstanceType, g.Zone)
	until := t.after(hpUpdateTime)
	if count > 0 {
		t.addNodes(c, g, count, t.room(g, count, true), t.after(hpNodeBootTime))
		until = t.readyTime(g, t.now)
	}
	t.markBusy(c, g, smtypes.InstanceGroupStatusCreating, until)
	return until
}

// deleteGroup starts deleting a group: its nodes shut down, then it is
// gone.
func (t *txn) deleteGroup(c *hpClusterRec, g *hpGroupRec) time.Time {
	g.Deleting = true
	for _, n := range slices.Clone(g.Nodes) {
		if !n.Deleting {
			t.deleteNode(c, g, n, t.now)
		}
	}
	t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "Instance group %s is Deleting.", g.Name)
	gone := t.after(hpNodeShutdownTime)
	t.schedule(c, hpAction{At: gone, Kind: actGroupGone, Group: g.Name})
	return gone
}

// updateGroup applies an update to an existing group g: ng holds what the
// request asks for. New settings apply to the nodes launched from now on;
// labels and taints change on every node once the update is done.
func (t *txn) updateGroup(c *hpClusterRec, g, ng *hpGroupRec) time.Time {
	until := t.after(hpUpdateTime)
	changed := g.ExecutionRole != ng.ExecutionRole || !equalPtr(g.MinCount, ng.MinCount) || !equalLifeCycle(g.LifeCycle, ng.LifeCycle) ||
		!slices.Equal(g.DeepHealthChecks, ng.DeepHealthChecks) || !equalStorage(g.Storage, ng.Storage) || !g.Kube.equal(ng.Kube)
	g.ExecutionRole, g.MinCount, g.LifeCycle, g.DeepHealthChecks, g.Storage = ng.ExecutionRole, ng.MinCount, ng.LifeCycle, ng.DeepHealthChecks, ng.Storage
	if !g.Kube.equal(ng.Kube) {
		if g.KubePrev == nil {
			prev := g.kubeAt(t.now)
			g.KubePrev = &prev
		}
		g.Kube = ng.Kube
	}
	switch diff := int(ng.Count - g.Count); {
	case diff > 0:
		t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "Instance group %s is scaling up from %d to %d nodes.", g.Name, g.Count, ng.Count)
		g.Count = ng.Count
		t.addNodes(c, g, diff, t.room(g, diff, true), t.after(hpNodeBootTime))
		until = t.readyTime(g, t.now)
	case diff < 0:
		t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "Instance group %s is scaling down from %d to %d nodes.", g.Name, g.Count, ng.Count)
		g.Count = ng.Count
		victims := scaleDownOrder(g)
		for _, n := range victims[:min(-diff, len(victims))] {
			t.deleteNode(c, g, n, t.now)
		}
		if shut := t.after(hpNodeShutdownTime); shut.After(until) {
			until = shut
		}
	default:
		if !changed {
			return t.now
		}
		t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "Instance group %s is Updating.", g.Name)
	}
	t.markBusy(c, g, smtypes.InstanceGroupStatusUpdating, until)
	return until
}

// scaleDownOrder lists a group's nodes in the order a scale-down removes
// them: those waiting for capacity, then unhealthy or unfinished ones, then
// healthy ones, newest first within each.
func scaleDownOrder(g *hpGroupRec) []*hpNodeRec {
	var nodes []*hpNodeRec
	for _, n := range g.Nodes {
		if !n.Deleting {
			nodes = append(nodes, n)
		}
	}
	rank := func(n *hpNodeRec) int {
		switch {
		case n.waiting():
			return 0
		case !n.healthy():
			return 1
		}
		return 2
	}
	slices.SortStableFunc(nodes, func(a, b *hpNodeRec) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return b.LaunchedAt.Compare(a.LaunchedAt)
	})
	return nodes
}

// recoverFaultyNodes has HyperPod recover the faulty nodes of a cluster
// whose NodeRecovery just became Automatic.
func (t *txn) recoverFaultyNodes(c *hpClusterRec) {
	for _, g := range c.Groups {
		for _, n := range g.Nodes {
			if n.Fault != "" && n.Health == HealthUnschedulable && n.Status == smtypes.ClusterInstanceStatusRunning && !n.Deleting {
				t.scheduleRecovery(c, g, n, t.now, n.Fault)
			}
		}
	}
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func equalLifeCycle(a, b *lifeCycleRec) bool {
	if a == nil || b == nil {
		return a == b
	}
	return equalPtr(a.SourceS3Uri, b.SourceS3Uri) && equalPtr(a.OnCreate, b.OnCreate) && equalPtr(a.OnInitComplete, b.OnInitComplete)
}

func equalStorage(a, b []hpStorageRec) bool {
	return slices.EqualFunc(a, b, func(x, y hpStorageRec) bool {
		return x.Kind == y.Kind && equalPtr(x.SizeGB, y.SizeGB) && equalPtr(x.KmsKeyID, y.KmsKeyID) && equalPtr(x.RootVolume, y.RootVolume) &&
			equalPtr(x.DNSName, y.DNSName) && equalPtr(x.MountName, y.MountName) && equalPtr(x.MountPath, y.MountPath)
	})
}
