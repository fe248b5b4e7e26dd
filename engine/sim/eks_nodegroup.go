package sim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// EKS managed node groups: EC2 instances in an Auto Scaling group that EKS
// keeps at the group's desired size, each joining the cluster as a
// Kubernetes node labelled with its group. Like the other resources,
// nothing runs in the background: a group's status and its nodes are
// computed from the times of its creation, its last update and its
// deletion.

// Real managed node group latencies, divided by the world's speed.
const (
	nodegroupCreateTime = 4 * time.Minute
	nodegroupUpdateTime = 3 * time.Minute
	nodegroupDeleteTime = 5 * time.Minute
)

// EKS's bounds of a node group (its default quota of nodes per group) and
// its defaults.
const (
	nodegroupMaxNodes        = 450
	nodegroupDefaultType     = "t3.medium"
	nodegroupDefaultDiskSize = 20
)

// Kubernetes labels EKS puts on the nodes of a managed node group.
const (
	kubeLabelNodegroup    = "eks.amazonaws.com/nodegroup"
	kubeLabelCapacityType = "eks.amazonaws.com/capacityType"
)

// nodegroupRec is a managed node group of an EKS cluster.
type nodegroupRec struct {
	Name          string
	Arn           string
	NodeRole      string
	Subnets       []string
	InstanceTypes []string
	AmiType       string
	CapacityType  string
	DiskSize      int32
	Min, Max      int32
	Desired       int32
	Labels        map[string]string `json:",omitempty"`
	Taints        []NodeTaint       `json:",omitempty"`
	Tags          map[string]string `json:",omitempty"`
	Token         string            `json:",omitempty"`
	Version       string
	Life          lifecycle
	// UpdatingUntil is when the newest UpdateNodegroupConfig ends
	// (UPDATING until then).
	UpdatingUntil *time.Time `json:",omitempty"`
	ModifiedAt    time.Time  `json:",omitzero"`
	Nodes         []nodegroupNode
}

// nodegroupNode is an instance of a node group: it joins the cluster at
// ReadyAt and leaves at GoneAt.
type nodegroupNode struct {
	InstanceID string
	SubnetID   string
	Zone       string
	PrivateIP  string
	LaunchedAt time.Time
	ReadyAt    time.Time
	GoneAt     *time.Time `json:",omitempty"`
}

func (n *nodegroupNode) live(now time.Time) bool { return n.GoneAt == nil || now.Before(*n.GoneAt) }

func (g *nodegroupRec) status(t *txn) ekstypes.NodegroupStatus {
	st := g.lifeStatus(t.now)
	if st == ekstypes.NodegroupStatusActive && len(g.issues(t)) > 0 {
		return ekstypes.NodegroupStatusDegraded
	}
	return st
}

// lifeStatus is the group's status from its times alone.
func (g *nodegroupRec) lifeStatus(now time.Time) ekstypes.NodegroupStatus {
	switch g.Life.phase(now) {
	case phaseCreating:
		return ekstypes.NodegroupStatusCreating
	case phaseFailed:
		return ekstypes.NodegroupStatusCreateFailed
	case phaseDeleting, phaseGone:
		return ekstypes.NodegroupStatusDeleting
	}
	if g.UpdatingUntil != nil && now.Before(*g.UpdatingUntil) {
		return ekstypes.NodegroupStatusUpdating
	}
	return ekstypes.NodegroupStatusActive
}

// issues are what keeps an ACTIVE group DEGRADED: a node role that is
// gone, as EKS reports when it can no longer launch or join instances.
func (g *nodegroupRec) issues(t *txn) []ekstypes.Issue {
	if t.roleByArn(g.NodeRole) == nil {
		return []ekstypes.Issue{{Code: ekstypes.NodegroupIssueCodeAccessDenied, ResourceIds: []string{g.NodeRole},
			Message: aws.String("The node role " + g.NodeRole + " does not exist; EKS cannot launch or join instances with it.")}}
	}
	return nil
}

// joined tells whether node n is a Kubernetes node now: it has booted and
// is not gone, and its group's creation did not fail or is not held.
func (g *nodegroupRec) joined(n *nodegroupNode, now time.Time) bool {
	return g.Life.FailMessage == "" && g.Life.HeldBy == "" && !now.Before(n.ReadyAt) && n.live(now)
}

func nodegroupNotFound(cluster, name string) error {
	return &ekstypes.ResourceNotFoundException{
		Message:     aws.String(fmt.Sprintf("No node group found for name: %s.", name)),
		ClusterName: aws.String(cluster), NodegroupName: aws.String(name),
	}
}

func (t *txn) nodegroup(c *eksClusterRec, name *string) (*nodegroupRec, error) {
	g := c.Nodegroups[aws.ToString(name)]
	if g == nil || g.Life.phase(t.now) == phaseGone {
		return nil, nodegroupNotFound(c.Name, aws.ToString(name))
	}
	return g, nil
}

// checkScaling checks a scaling configuration as EKS does.
func checkScaling(min, max, desired int32) error {
	switch {
	case min < 0:
		return eksInvalidParameter("Minimum capacity %d can't be less than 0", min)
	case max < 1:
		return eksInvalidParameter("Maximum capacity %d can't be less than 1", max)
	case max > nodegroupMaxNodes:
		return eksInvalidParameter("Maximum capacity %d can't be greater than %d", max, nodegroupMaxNodes)
	case min > max:
		return eksInvalidParameter("Minimum capacity %d can't be greater than maximum capacity %d", min, max)
	case desired < min || desired > max:
		return eksInvalidParameter("Desired capacity %d can't be less than minimum capacity %d or greater than maximum capacity %d", desired, min, max)
	}
	return nil
}

// CreateNodegroup starts a managed node group on an ACTIVE cluster:
// CREATING for about four minutes (divided by the speed), then ACTIVE with
// its desired number of nodes joined. A repeat with the same
// ClientRequestToken returns the group instead of ResourceInUseException.
func (a *eksAPI) CreateNodegroup(ctx context.Context, in *eks.CreateNodegroupInput, _ ...func(*eks.Options)) (*eks.CreateNodegroupOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "CreateNodegroup", func(t *txn) (*eks.CreateNodegroupOutput, error) {
		in := orZero(in)
		if err := need("CreateNodegroupInput", param{"ClusterName", in.ClusterName != nil}, param{"NodegroupName", in.NodegroupName != nil},
			param{"NodeRole", in.NodeRole != nil}, param{"Subnets", in.Subnets != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		name := *in.NodegroupName
		if !eksNamePattern.MatchString(name) || len(name) > 63 {
			return nil, eksInvalidParameter("The node group name %q is invalid: it must start with a letter or digit and contain only letters, digits, hyphens and underscores (at most 63).", name)
		}
		if old := c.Nodegroups[name]; old != nil && old.Life.phase(t.now) != phaseGone {
			if token := aws.ToString(in.ClientRequestToken); token != "" && token == old.Token {
				return &eks.CreateNodegroupOutput{Nodegroup: t.nodegroupOut(c, old)}, nil
			}
			return nil, &ekstypes.ResourceInUseException{Message: aws.String("NodeGroup already exists with name " + name + " and cluster name " + c.Name),
				ClusterName: aws.String(c.Name), NodegroupName: aws.String(name)}
		}
		if st := c.status(t.now); st != ekstypes.ClusterStatusActive {
			return nil, eksInvalidRequest("Cluster %s is %s; node groups can be created once it is ACTIVE.", c.Name, st)
		}
		role := t.roleUsable(*in.NodeRole)
		if role == nil || !strings.Contains(role.AssumeDoc, "ec2.amazonaws.com") {
			return nil, eksInvalidParameter("The provided role %s doesn't exist or can't be assumed by ec2.amazonaws.com", *in.NodeRole)
		}
		if len(in.Subnets) == 0 {
			return nil, eksInvalidParameter("Subnets are required")
		}
		for _, id := range in.Subnets {
			s := t.rs.Subnets[id]
			if s == nil || s.VpcID != c.VpcID {
				return nil, eksInvalidParameter("Subnet %s is not in the VPC %s of cluster %s", id, c.VpcID, c.Name)
			}
		}
		types := slices.Clone(in.InstanceTypes)
		if len(types) == 0 {
			types = []string{nodegroupDefaultType}
		}
		for _, typ := range types {
			if _, ok := instanceSpecs[typ]; !ok {
				return nil, eksInvalidParameter("Instance type %s is not supported", typ)
			}
		}
		min, max, desired := int32(1), int32(2), int32(2)
		if sc := in.ScalingConfig; sc != nil {
			min, max = aws.ToInt32(sc.MinSize), aws.ToInt32(sc.MaxSize)
			desired = cmpOrInt32(sc.DesiredSize, min)
		}
		if err := checkScaling(min, max, desired); err != nil {
			return nil, err
		}
		g := &nodegroupRec{
			Name: name, Arn: fmt.Sprintf("arn:aws:eks:%s:%s:nodegroup/%s/%s/%s", t.region, t.account(), c.Name, name, t.uuid()),
			NodeRole: *in.NodeRole, Subnets: slices.Clone(in.Subnets), InstanceTypes: types,
			AmiType: string(in.AmiType), CapacityType: string(in.CapacityType), DiskSize: cmpOrInt32(in.DiskSize, nodegroupDefaultDiskSize),
			Min: min, Max: max, Desired: desired, Labels: maps.Clone(in.Labels), Tags: maps.Clone(in.Tags),
			Token: aws.ToString(in.ClientRequestToken), Version: cmpOrString(aws.ToString(in.Version), c.Version),
			Life: newLifecycle(t.now, t.after(nodegroupCreateTime)),
		}
		if g.AmiType == "" {
			g.AmiType = string(ekstypes.AMITypesAl2023X8664Standard)
		}
		if g.CapacityType == "" {
			g.CapacityType = string(ekstypes.CapacityTypesOnDemand)
		}
		for _, tn := range in.Taints {
			g.Taints = append(g.Taints, NodeTaint{Key: aws.ToString(tn.Key), Value: aws.ToString(tn.Value), Effect: kubeTaintEffect(tn.Effect)})
		}
		if msg, failed := t.failFault(svcEKS, "CreateNodegroup", "Simulated node group failure: instances failed to join the kubernetes cluster"); failed {
			g.Life.FailMessage = msg
		}
		g.Life.HeldBy = t.holdFault(svcEKS, "CreateNodegroup")
		if err := t.scaleNodegroup(g, g.Life.ReadyAt); err != nil {
			return nil, err
		}
		c.Nodegroups[name] = g
		return &eks.CreateNodegroupOutput{Nodegroup: t.nodegroupOut(c, g)}, nil
	})
}

func cmpOrInt32(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func cmpOrString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// kubeTaintEffect is the Kubernetes name of an EKS taint effect.
func kubeTaintEffect(e ekstypes.TaintEffect) string {
	switch e {
	case ekstypes.TaintEffectNoExecute:
		return "NoExecute"
	case ekstypes.TaintEffectPreferNoSchedule:
		return "PreferNoSchedule"
	}
	return "NoSchedule"
}

func eksTaintEffect(kube string) ekstypes.TaintEffect {
	switch kube {
	case "NoExecute":
		return ekstypes.TaintEffectNoExecute
	case "PreferNoSchedule":
		return ekstypes.TaintEffectPreferNoSchedule
	}
	return ekstypes.TaintEffectNoSchedule
}

// scaleNodegroup brings g's live nodes to its desired size at: new
// instances, spread over its subnets, join then; surplus ones (the newest
// first) leave then.
func (t *txn) scaleNodegroup(g *nodegroupRec, at time.Time) error {
	var live []int
	for i := range g.Nodes {
		if g.Nodes[i].GoneAt == nil {
			live = append(live, i)
		}
	}
	for n := len(live); n > int(g.Desired); n-- {
		g.Nodes[live[n-1]].GoneAt = &at
	}
	for n := len(live); n < int(g.Desired); n++ {
		subnet := t.rs.Subnets[g.Subnets[n%len(g.Subnets)]]
		ips, ok := t.leaseAddresses(subnet.ID, 1)
		if !ok {
			return eksInvalidRequest("Subnet %s has no free IP address for a node of node group %s", subnet.ID, g.Name)
		}
		g.Nodes = append(g.Nodes, nodegroupNode{
			InstanceID: "i-" + t.randString("0123456789abcdef", 17), SubnetID: subnet.ID, Zone: subnet.Zone,
			PrivateIP: subnet.addr(ips[0].First), LaunchedAt: t.now, ReadyAt: at,
		})
	}
	return nil
}

func (t *txn) nodegroupOut(c *eksClusterRec, g *nodegroupRec) *ekstypes.Nodegroup {
	status := g.status(t)
	modified := g.Life.CreatedAt
	if g.ModifiedAt.After(modified) {
		modified = g.ModifiedAt
	}
	out := &ekstypes.Nodegroup{
		NodegroupName: aws.String(g.Name), NodegroupArn: aws.String(g.Arn), ClusterName: aws.String(c.Name),
		Version: aws.String(g.Version), ReleaseVersion: aws.String(g.Version + ".0-20251201"),
		CreatedAt: aws.Time(g.Life.CreatedAt), ModifiedAt: aws.Time(modified), Status: status,
		CapacityType: ekstypes.CapacityTypes(g.CapacityType), AmiType: ekstypes.AMITypes(g.AmiType),
		InstanceTypes: slices.Clone(g.InstanceTypes), Subnets: slices.Clone(g.Subnets), NodeRole: aws.String(g.NodeRole),
		DiskSize: aws.Int32(g.DiskSize), Labels: maps.Clone(g.Labels), Tags: maps.Clone(g.Tags),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(g.Min), MaxSize: aws.Int32(g.Max), DesiredSize: aws.Int32(g.Desired)},
		Resources:     &ekstypes.NodegroupResources{AutoScalingGroups: []ekstypes.AutoScalingGroup{{Name: aws.String("eks-" + g.Name + "-" + g.Arn[strings.LastIndex(g.Arn, "/")+1:])}}},
		Health:        &ekstypes.NodegroupHealth{},
	}
	for _, tn := range g.Taints {
		out.Taints = append(out.Taints, ekstypes.Taint{Key: aws.String(tn.Key), Value: optionalString(tn.Value), Effect: eksTaintEffect(tn.Effect)})
	}
	switch status {
	case ekstypes.NodegroupStatusCreateFailed:
		out.Health.Issues = []ekstypes.Issue{{Code: ekstypes.NodegroupIssueCodeNodeCreationFailure, Message: aws.String(g.Life.FailMessage)}}
	case ekstypes.NodegroupStatusDegraded:
		out.Health.Issues = g.issues(t)
	}
	return out
}

// DescribeNodegroup describes a managed node group.
func (a *eksAPI) DescribeNodegroup(ctx context.Context, in *eks.DescribeNodegroupInput, _ ...func(*eks.Options)) (*eks.DescribeNodegroupOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DescribeNodegroup", func(t *txn) (*eks.DescribeNodegroupOutput, error) {
		in := orZero(in)
		if err := need("DescribeNodegroupInput", param{"ClusterName", in.ClusterName != nil}, param{"NodegroupName", in.NodegroupName != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		g, err := t.nodegroup(c, in.NodegroupName)
		if err != nil {
			return nil, err
		}
		return &eks.DescribeNodegroupOutput{Nodegroup: t.nodegroupOut(c, g)}, nil
	})
}

// ListNodegroups lists the names of a cluster's managed node groups.
func (a *eksAPI) ListNodegroups(ctx context.Context, in *eks.ListNodegroupsInput, _ ...func(*eks.Options)) (*eks.ListNodegroupsOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "ListNodegroups", func(t *txn) (*eks.ListNodegroupsOutput, error) {
		in := orZero(in)
		if err := need("ListNodegroupsInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		if err := eksMaxResults(in.MaxResults); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, name := range sortedKeys(c.Nodegroups) {
			if c.Nodegroups[name].Life.phase(t.now) != phaseGone {
				names = append(names, name)
			}
		}
		names, next, err := page(names, in.NextToken, t.pageSize(svcEKS, "ListNodegroups", in.MaxResults), 100)
		if err != nil {
			return nil, eksInvalidParameter("The pagination token is invalid.")
		}
		return &eks.ListNodegroupsOutput{Nodegroups: names, NextToken: next}, nil
	})
}

// UpdateNodegroupConfig changes a group's scaling, labels or taints:
// UPDATING for about three minutes, at the end of which new nodes have
// joined and surplus ones have left. A group that is not ACTIVE or
// DEGRADED refuses it with ResourceInUseException.
func (a *eksAPI) UpdateNodegroupConfig(ctx context.Context, in *eks.UpdateNodegroupConfigInput, _ ...func(*eks.Options)) (*eks.UpdateNodegroupConfigOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "UpdateNodegroupConfig", func(t *txn) (*eks.UpdateNodegroupConfigOutput, error) {
		in := orZero(in)
		if err := need("UpdateNodegroupConfigInput", param{"ClusterName", in.ClusterName != nil}, param{"NodegroupName", in.NodegroupName != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		g, err := t.nodegroup(c, in.NodegroupName)
		if err != nil {
			return nil, err
		}
		if st := g.status(t); st != ekstypes.NodegroupStatusActive && st != ekstypes.NodegroupStatusDegraded {
			return nil, &ekstypes.ResourceInUseException{Message: aws.String(fmt.Sprintf("Nodegroup %s is %s; it can be updated once it is ACTIVE.", g.Name, st)),
				ClusterName: aws.String(c.Name), NodegroupName: aws.String(g.Name)}
		}
		if in.ScalingConfig == nil && in.Labels == nil && in.Taints == nil {
			return nil, eksInvalidParameter("No changes needed: give a scaling configuration, labels or taints to update")
		}
		min, max, desired := g.Min, g.Max, g.Desired
		var params []ekstypes.UpdateParam
		if sc := in.ScalingConfig; sc != nil {
			min, max, desired = cmpOrInt32(sc.MinSize, min), cmpOrInt32(sc.MaxSize, max), cmpOrInt32(sc.DesiredSize, desired)
			if err := checkScaling(min, max, desired); err != nil {
				return nil, err
			}
			params = append(params,
				ekstypes.UpdateParam{Type: ekstypes.UpdateParamTypeMinSize, Value: aws.String(fmt.Sprint(min))},
				ekstypes.UpdateParam{Type: ekstypes.UpdateParamTypeMaxSize, Value: aws.String(fmt.Sprint(max))},
				ekstypes.UpdateParam{Type: ekstypes.UpdateParamTypeDesiredSize, Value: aws.String(fmt.Sprint(desired))})
		}
		if l := in.Labels; l != nil {
			if g.Labels == nil {
				g.Labels = map[string]string{}
			}
			maps.Copy(g.Labels, l.AddOrUpdateLabels)
			for _, k := range l.RemoveLabels {
				delete(g.Labels, k)
			}
			params = append(params, ekstypes.UpdateParam{Type: ekstypes.UpdateParamTypeLabelsToAdd, Value: aws.String(fmt.Sprint(l.AddOrUpdateLabels))})
		}
		if tn := in.Taints; tn != nil {
			for _, r := range tn.RemoveTaints {
				g.Taints = slices.DeleteFunc(g.Taints, func(x NodeTaint) bool { return x.Key == aws.ToString(r.Key) && x.Effect == kubeTaintEffect(r.Effect) })
			}
			for _, add := range tn.AddOrUpdateTaints {
				k, e := aws.ToString(add.Key), kubeTaintEffect(add.Effect)
				g.Taints = slices.DeleteFunc(g.Taints, func(x NodeTaint) bool { return x.Key == k && x.Effect == e })
				g.Taints = append(g.Taints, NodeTaint{Key: k, Value: aws.ToString(add.Value), Effect: e})
			}
			params = append(params, ekstypes.UpdateParam{Type: ekstypes.UpdateParamTypeTaintsToAdd, Value: aws.String(fmt.Sprint(len(tn.AddOrUpdateTaints)))})
		}
		until := t.after(nodegroupUpdateTime)
		g.Min, g.Max, g.Desired = min, max, desired
		if err := t.scaleNodegroup(g, until); err != nil {
			return nil, err
		}
		g.UpdatingUntil, g.ModifiedAt = &until, t.now
		return &eks.UpdateNodegroupConfigOutput{Update: &ekstypes.Update{
			Id: aws.String(t.uuid()), Status: ekstypes.UpdateStatusInProgress, Type: ekstypes.UpdateTypeConfigUpdate,
			Params: params, CreatedAt: aws.Time(t.now),
		}}, nil
	})
}

// DeleteNodegroup starts removing a group and its instances: DELETING for
// about five minutes, then gone. A group still CREATING cannot be deleted.
func (a *eksAPI) DeleteNodegroup(ctx context.Context, in *eks.DeleteNodegroupInput, _ ...func(*eks.Options)) (*eks.DeleteNodegroupOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DeleteNodegroup", func(t *txn) (*eks.DeleteNodegroupOutput, error) {
		in := orZero(in)
		if err := need("DeleteNodegroupInput", param{"ClusterName", in.ClusterName != nil}, param{"NodegroupName", in.NodegroupName != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		g, err := t.nodegroup(c, in.NodegroupName)
		if err != nil {
			return nil, err
		}
		switch g.status(t) {
		case ekstypes.NodegroupStatusCreating:
			return nil, &ekstypes.ResourceInUseException{Message: aws.String(fmt.Sprintf("Nodegroup %s is still CREATING; it can be deleted once it is ACTIVE or CREATE_FAILED.", g.Name)),
				ClusterName: aws.String(c.Name), NodegroupName: aws.String(g.Name)}
		case ekstypes.NodegroupStatusDeleting:
			return &eks.DeleteNodegroupOutput{Nodegroup: t.nodegroupOut(c, g)}, nil
		}
		goneAt := t.after(nodegroupDeleteTime)
		g.Life.startDeleting(t.now, goneAt)
		drained := t.after(nodegroupDeleteTime / 2)
		for i := range g.Nodes {
			if n := &g.Nodes[i]; n.GoneAt == nil || n.GoneAt.After(drained) {
				n.GoneAt = &drained
			}
		}
		return &eks.DeleteNodegroupOutput{Nodegroup: t.nodegroupOut(c, g)}, nil
	})
}

// nodegroupViews are the nodes of the managed node groups of c that have
// joined its Kubernetes cluster, as the Kubernetes API shows them.
func (t *txn) nodegroupViews(c *eksClusterRec) []NodeView {
	var out []NodeView
	for _, name := range sortedKeys(c.Nodegroups) {
		g := c.Nodegroups[name]
		for i := range g.Nodes {
			n := &g.Nodes[i]
			if !g.joined(n, t.now) {
				continue
			}
			out = append(out, NodeView{
				Nodegroup: g.Name, InstanceID: n.InstanceID, InstanceType: g.InstanceTypes[0], Zone: n.Zone,
				PrivateIP: n.PrivateIP, PrivateDNS: t.hpPrivateDNS(n.PrivateIP), CapacityType: g.CapacityType,
				Status: "Running", Labels: maps.Clone(g.Labels), Taints: slices.Clone(g.Taints), LaunchTime: n.ReadyAt,
			})
		}
	}
	return out
}

// pruneNodegroups drops the groups and instances of c that are gone.
func (c *eksClusterRec) pruneNodegroups(now time.Time) {
	for name, g := range c.Nodegroups {
		if g.Life.phase(now) == phaseGone {
			delete(c.Nodegroups, name)
			continue
		}
		g.Nodes = slices.DeleteFunc(g.Nodes, func(n nodegroupNode) bool { return !n.live(now) })
	}
}
