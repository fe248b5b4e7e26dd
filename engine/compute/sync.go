package compute

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/groupspec"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// Kubernetes node labels that HyperPod sets.
const (
	labelHealth      = "sagemaker.amazonaws.com/node-health-status"
	labelDeepHealth  = "sagemaker.amazonaws.com/deep-health-check-status"
	labelComputeType = "sagemaker.amazonaws.com/compute-type"
)

// Refresh re-reads the instance groups and nodes of every live cluster from
// HyperPod (and the nodes' health labels from Kubernetes) and stores what
// differs, which publishes it as events. It reports whether anything
// changed or is still changing (nodes booting, groups updating), so that
// the refresher knows to look again soon.
func (s *Service) Refresh(ctx context.Context) (busy bool, err error) {
	clusters, err := s.clusters.Active()
	if err != nil {
		return false, err
	}
	if err := s.retire(clusters); err != nil {
		return false, err
	}
	for _, c := range clusters {
		if c.HyperPod.Name == "" {
			continue
		}
		b, err := s.Sync(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return busy, ctx.Err()
			}
			s.log.Warn("refresh compute", "cluster", c.ID, "err", err)
			continue
		}
		busy = busy || b
	}
	return busy, nil
}

// placement is where a group's instances run, when its subnets say so.
type placement struct{ zone, subnet string }

// placements finds the zone (and subnet) of the groups whose records do not
// have one yet: groups made with the cluster use the cluster's subnets
// rather than a subnet of their own, and groups found in HyperPod are new.
// A group whose subnets span zones has none; its nodes' zones come from
// Kubernetes. It reads EC2 only when a group needs it.
func (s *Service) placements(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster, hp *sagemaker.DescribeClusterOutput) (map[string]placement, error) {
	known, err := s.Groups(c.ID, false)
	if err != nil {
		return nil, err
	}
	subnetsOf := map[string][]string{}
	var ask []string
	for _, d := range hp.InstanceGroups {
		name := aws.ToString(d.InstanceGroupName)
		if slices.ContainsFunc(known, func(g *hyperpod.InstanceGroup) bool { return g.Name == name && g.Zone != "" && g.SubnetID != "" }) {
			continue
		}
		var subnets []string
		if hp.VpcConfig != nil {
			subnets = hp.VpcConfig.Subnets
		}
		if d.OverrideVpcConfig != nil && len(d.OverrideVpcConfig.Subnets) > 0 {
			subnets = d.OverrideVpcConfig.Subnets
		}
		subnetsOf[name] = subnets
		ask = append(ask, subnets...)
	}
	if len(ask) == 0 {
		return nil, nil
	}
	slices.Sort(ask)
	all, err := cloud.AllSubnets(ctx, p.EC2, ec2.DescribeSubnetsInput{SubnetIds: slices.Compact(ask)})
	if err != nil {
		return nil, errs.FromUpstream(err, "read the zones of the cluster's subnets")
	}
	zoneOf := map[string]string{}
	for _, sn := range all {
		zoneOf[aws.ToString(sn.SubnetId)] = aws.ToString(sn.AvailabilityZone)
	}
	placed := map[string]placement{}
	for name, subnets := range subnetsOf {
		zones := map[string]bool{}
		for _, sn := range subnets {
			zones[zoneOf[sn]] = true
		}
		if len(zones) == 1 && !zones[""] {
			placed[name] = placement{zone: zoneOf[subnets[0]], subnet: subnets[0]}
		}
	}
	return placed, nil
}

// retire marks DELETED the groups of clusters that were deleted (or are
// gone from the store) and drops their node records, so that nothing
// shows instances of a cluster that no longer exists. Clusters that are
// merely not ACTIVE (creating, deleting, failed) keep their records.
func (s *Service) retire(live []*hyperpod.Cluster) error {
	isLive := map[string]bool{}
	for _, c := range live {
		isLive[c.ID] = true
	}
	groups, err := s.allGroups()
	if err != nil {
		return err
	}
	gone := map[string]string{} // cluster id -> why
	for _, g := range groups {
		if isLive[g.ClusterID] {
			continue
		}
		if _, seen := gone[g.ClusterID]; seen {
			continue
		}
		c, err := s.clusters.Get(g.ClusterID)
		switch {
		case errs.CodeOf(err) == errs.NotFound:
			gone[g.ClusterID] = "its cluster no longer exists"
		case err != nil:
			return err
		case c.Status == hyperpod.ClusterDeleted:
			gone[g.ClusterID] = "its cluster " + c.Name + " was deleted"
		default:
			isLive[g.ClusterID] = true // not ACTIVE, but still there
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return s.store.Update(func(tx *store.Tx) error {
		for _, g := range groups {
			why, ok := gone[g.ClusterID]
			if !ok {
				continue
			}
			now := tx.Now()
			g.Status, g.StatusMessage, g.CurrentCount, g.DeletedAt, g.UpdatedAt = hyperpod.GroupDeleted, "deleted: "+why, 0, &now, now
			if err := tx.Put(GroupKind, g.ID, g); err != nil {
				return err
			}
			if err := tx.DeleteIndex(groupIndex, g.ClusterID+"/"+g.Name); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if err := deleteGroupNodes(tx, g); err != nil {
				return err
			}
		}
		return nil
	})
}

// allGroups returns every group record that is not DELETED.
func (s *Service) allGroups() ([]*hyperpod.InstanceGroup, error) {
	return s.groupsWhere(func(g *hyperpod.InstanceGroup) bool { return g.Status != hyperpod.GroupDeleted })
}

// Sync brings the records of one cluster's groups and nodes in line with
// HyperPod and Kubernetes.
func (s *Service) Sync(ctx context.Context, c *hyperpod.Cluster) (busy bool, err error) {
	p, err := s.provider(c.Region)
	if err != nil {
		return false, err
	}
	// A record written after this moment (an operation ending) is newer
	// than what is read below, and is left for the next round.
	readAt := time.Now()
	hp, err := describe(ctx, p, c.HyperPod.Name)
	if err != nil {
		return false, err
	}
	summaries, err := listNodes(ctx, p, c.HyperPod.Name)
	if err != nil {
		return false, err
	}
	kube := s.kubeNodes(ctx, p, c)
	placed, err := s.placements(ctx, p, c, hp)
	if err != nil {
		return false, err
	}
	changed := false
	err = s.store.Update(func(tx *store.Tx) error {
		groups, stale, err := s.syncGroups(tx, c, hp.InstanceGroups, placed, readAt)
		busy = busy || stale
		if err != nil {
			return err
		}
		for _, g := range groups {
			if g.Status != hyperpod.GroupInService && g.Status != hyperpod.GroupDeleted && g.Status != hyperpod.GroupFailed {
				busy = true
			}
		}
		ch, b, err := syncNodes(tx, c, groups, summaries, kube)
		changed, busy = changed || ch, busy || b
		return err
	})
	return busy || changed, err
}

// syncGroups updates the group records from HyperPod's details, making
// records for groups found there, and returns the records by name.
func (s *Service) syncGroups(tx *store.Tx, c *hyperpod.Cluster, details []smtypes.ClusterInstanceGroupDetails, placed map[string]placement, readAt time.Time) (_ map[string]*hyperpod.InstanceGroup, stale bool, _ error) {
	byName := map[string]*hyperpod.InstanceGroup{}
	err := tx.List(GroupKind, "", func(_ string, raw []byte) (bool, error) {
		var g hyperpod.InstanceGroup
		if err := json.Unmarshal(raw, &g); err != nil {
			return false, err
		}
		if g.ClusterID == c.ID && g.Status != hyperpod.GroupDeleted {
			byName[g.Name] = &g
		}
		return true, nil
	})
	if err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	for i := range details {
		d := &details[i]
		name := aws.ToString(d.InstanceGroupName)
		seen[name] = true
		g, known := byName[name]
		if known && g.UpdatedAt.After(readAt) {
			stale = true // changed since HyperPod was read: next round
			continue
		}
		if !known {
			g = &hyperpod.InstanceGroup{ID: s.ids.NewID(), ClusterID: c.ID, Managed: !c.Imported, CreatedAt: tx.Now()}
			if err := tx.PutIndex(groupIndex, c.ID+"/"+name, g.ID); err != nil {
				return nil, false, err
			}
			byName[name] = g
		}
		before := *g
		actual := groupspec.Actual(d)
		if !known {
			g.GroupSpec = actual
		}
		g.Count, g.MinCount, g.InstanceTypes = actual.Count, actual.MinCount, actual.InstanceTypes
		if actual.VolumeSizeGB > 0 {
			g.VolumeSizeGB = actual.VolumeSizeGB
		}
		g.DeepHealthChecks, g.Labels, g.Taints = actual.DeepHealthChecks, actual.Labels, actual.Taints
		if d.OverrideVpcConfig != nil && len(d.OverrideVpcConfig.Subnets) > 0 {
			g.SubnetID = d.OverrideVpcConfig.Subnets[0]
		}
		if pl, ok := placed[name]; ok {
			g.Zone = cmp.Or(g.Zone, pl.zone)
			g.SubnetID = cmp.Or(g.SubnetID, pl.subnet)
		}
		g.CurrentCount = int(aws.ToInt32(d.CurrentCount))
		g.Software = softwareOf(d)
		if !s.operationRunning(g.LastOperationID) {
			g.Status = groupStatus(d.Status)
			if g.Status == hyperpod.GroupInService {
				g.StatusMessage = ""
			}
		}
		if known && sameGroup(&before, g) {
			continue
		}
		g.UpdatedAt = tx.Now()
		if err := tx.Put(GroupKind, g.ID, g); err != nil {
			return nil, false, err
		}
	}
	for name, g := range byName {
		if seen[name] || g.Status == hyperpod.GroupPending || s.operationRunning(g.LastOperationID) {
			continue // being added
		}
		now := tx.Now()
		g.Status, g.CurrentCount, g.DeletedAt, g.UpdatedAt = hyperpod.GroupDeleted, 0, &now, now
		g.StatusMessage = "the group no longer exists in HyperPod (deleted outside InstantStart?)"
		if err := tx.Put(GroupKind, g.ID, g); err != nil {
			return nil, false, err
		}
		if err := tx.DeleteIndex(groupIndex, c.ID+"/"+name); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, false, err
		}
		delete(byName, name)
	}
	return byName, stale, nil
}

// softwareOf reads the image a group runs and its software update.
func softwareOf(d *smtypes.ClusterInstanceGroupDetails) hyperpod.Software {
	return hyperpod.Software{
		ImageVersion:       aws.ToString(d.CurrentImageReleaseVersion),
		TargetImageVersion: aws.ToString(d.DesiredImageReleaseVersion),
		ImageVersionStatus: schemaEnum(d.ImageVersionStatus),
		UpdateStatus:       schemaEnum(d.SoftwareUpdateStatus),
	}
}

func sameGroup(a, b *hyperpod.InstanceGroup) bool {
	x, y := *a, *b
	x.UpdatedAt, y.UpdatedAt = time.Time{}, time.Time{}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func (s *Service) operationRunning(id string) bool {
	if id == "" {
		return false
	}
	op, err := s.runner.Get(id)
	return err == nil && !op.Status.Terminal()
}

// kubeNode is what the Kubernetes node of an instance says about it.
type kubeNode struct {
	name, health, deepHealth, zone string
}

// kubeNodes reads the HyperPod nodes of the cluster's Kubernetes API, by
// instance id. It returns nil when the API cannot be reached: health is then
// UNKNOWN rather than guessed.
func (s *Service) kubeNodes(ctx context.Context, p *cloud.Provider, c *hyperpod.Cluster) map[string]kubeNode {
	if p.Kubernetes == nil || c.EKS.Name == "" {
		return nil
	}
	kc, err := p.Kubernetes.Clients(ctx, c.EKS.Name)
	if err != nil {
		s.log.Debug("kubernetes unreachable", "cluster", c.ID, "err", err)
		return nil
	}
	list, err := kc.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labelComputeType + "=HyperPod"})
	if err != nil {
		s.log.Debug("list kubernetes nodes", "cluster", c.ID, "err", err)
		return nil
	}
	out := map[string]kubeNode{}
	for _, n := range list.Items {
		id := instanceIDOf(n.Name, n.Spec.ProviderID)
		if id == "" {
			continue
		}
		out[id] = kubeNode{name: n.Name, health: n.Labels[labelHealth], deepHealth: n.Labels[labelDeepHealth], zone: n.Labels[corev1.LabelTopologyZone]}
	}
	return out
}

// instanceIDOf reads the EC2 instance id of a HyperPod node from its name
// (hyperpod-i-0123...) or provider id (aws:///us-west-2a/i-0123...).
func instanceIDOf(name, providerID string) string {
	if i := strings.LastIndex(providerID, "/"); i >= 0 && strings.HasPrefix(providerID[i+1:], "i-") {
		return providerID[i+1:]
	}
	if id, ok := strings.CutPrefix(name, "hyperpod-"); ok && strings.HasPrefix(id, "i-") {
		return id
	}
	return ""
}

// healthOf maps the node-health-status label to the schema's form.
func healthOf(label string) string {
	switch label {
	case "Schedulable":
		return HealthSchedulable
	case "Unschedulable":
		return HealthUnschedulable
	case "UnschedulablePendingReboot":
		return HealthPendingReboot
	case "UnschedulablePendingReplacement":
		return HealthPendingReplacement
	}
	return HealthUnknown
}

// schemaEnum maps a SageMaker enum value to the schema's form
// (DeepHealthCheckInProgress -> DEEP_HEALTH_CHECK_IN_PROGRESS,
// UpdateAvailable -> UPDATE_AVAILABLE).
func schemaEnum[E ~string](s E) string {
	var b strings.Builder
	for i, r := range string(s) {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// syncNodes updates the node records of a cluster: new instances get a
// record, changed ones are rewritten, and those gone are deleted.
func syncNodes(tx *store.Tx, c *hyperpod.Cluster, groups map[string]*hyperpod.InstanceGroup, summaries map[string]smtypes.ClusterNodeSummary, kube map[string]kubeNode) (changed, busy bool, err error) {
	existing := map[string]*Node{}
	err = eachNode(tx, c.ID, "", func(n *Node) (bool, error) {
		existing[n.ID] = n
		return true, nil
	})
	if err != nil {
		return false, false, err
	}
	for id, sum := range summaries {
		g := groups[aws.ToString(sum.InstanceGroupName)]
		if g == nil {
			continue
		}
		n := &Node{ID: id, ClusterID: c.ID, GroupID: g.ID, GroupName: g.Name, LogicalID: aws.ToString(sum.NodeLogicalId),
			InstanceType: string(sum.InstanceType), CapacityType: g.CapacityType, Zone: g.Zone, LaunchTime: sum.LaunchTime,
			Health: HealthUnknown, DeepHealthCheck: DeepCheckNone, PrivateDNS: aws.ToString(sum.PrivateDnsHostname)}
		if st := sum.InstanceStatus; st != nil {
			n.Status, n.StatusMessage = schemaEnum(st.Status), aws.ToString(st.Message)
		}
		n.ImageVersion, n.ImageStatus = aws.ToString(sum.CurrentImageReleaseVersion), schemaEnum(sum.ImageVersionStatus)
		if k, ok := kube[id]; ok {
			n.KubeNodeName, n.Health, n.Zone = k.name, healthOf(k.health), cmp.Or(k.zone, n.Zone)
			switch k.deepHealth {
			case "Passed":
				n.DeepHealthCheck = DeepCheckPassed
			case "Failed":
				n.DeepHealthCheck = DeepCheckFailed
			}
		}
		if n.Status == nodeStatusDeepHealthChecks {
			n.DeepHealthCheck = DeepCheckInProgress
		}
		if n.Status != nodeStatusRunning {
			busy = true // booting, checking, rebooting or going away
		}
		old := existing[id]
		delete(existing, id)
		if old != nil {
			n.UpdatedAt = old.UpdatedAt
			if sameNode(old, n) {
				continue
			}
		}
		n.UpdatedAt = tx.Now()
		if err := putNode(tx, old, n); err != nil {
			return changed, busy, err
		}
		changed = true
	}
	for _, n := range existing {
		if err := deleteNode(tx, n); err != nil {
			return changed, busy, err
		}
		changed = true
	}
	return changed, busy, nil
}

func sameNode(a, b *Node) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
