package sim

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// The HyperPod image release versions the simulator knows, in the
// MAJOR.MINOR.PATCH form the API documents: every group starts on
// ImageVersionCurrent, and ImageVersionAvailable is the newer release
// UpdateClusterSoftware moves it to.
const (
	ImageVersionCurrent   = "1.5.2"
	ImageVersionAvailable = "1.6.0"
)

// releaseVersionPattern is the form of an ImageReleaseVersion.
var releaseVersionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// hpPatchNodeTime is how long one node takes to be replaced with the new
// image: drained, re-imaged, booted and checked.
const hpPatchNodeTime = 6 * time.Minute

// Kinds of hpAction of a software update.
const (
	actPatchBatch   = "patchBatch"             // the next batch of a group's update starts
	actPatched      = "patched"                // a node of the batch is back on the new image
	actRolledBack   = "rolledBack"             // a node is back on the image it had
	defaultPatchPct = 20                       // the batch size, in percent of the group, when the request sets none
	imageIDDefault  = "default"                // ImageId meaning the latest HyperPod image
	patchFailedNote = "Software update failed" // how the status message of a node its update left unhealthy starts
)

// hpPatchRec is a group's software update: the batches of nodes (logical
// ids) it replaces one after the other, and how far it got.
type hpPatchRec struct {
	From, To string
	Batches  [][]string
	Batch    int           // the batch being replaced, or next
	Wait     time.Duration // between batches, real time
	Rollback bool
	Status   smtypes.SoftwareUpdateStatus
	Config   hpPatchConfig
}

// hpPatchConfig is the DeploymentConfig as asked for, shown back as the
// group's ActiveSoftwareUpdateConfig.
type hpPatchConfig struct {
	BatchType  string
	BatchValue int32
	WaitSec    int32
	Rollback   bool
}

// imageVersion is the image release version the group runs.
func (g *hpGroupRec) imageVersion() string {
	if g.ImageVersion == "" {
		return ImageVersionCurrent
	}
	return g.ImageVersion
}

// imageVersion is the image release version the node runs.
func (n *hpNodeRec) imageVersion(g *hpGroupRec) string {
	if n.ImageVersion == "" {
		return g.imageVersion()
	}
	return n.ImageVersion
}

// imageVersionStatus tells whether a newer image exists for a version.
func imageVersionStatus(version string) smtypes.ClusterImageVersionStatus {
	if version == ImageVersionAvailable {
		return smtypes.ClusterImageVersionStatusUpToDate
	}
	return smtypes.ClusterImageVersionStatusUpdateAvailable
}

// patching tells whether a software update of the group is under way.
func (g *hpGroupRec) patching() bool {
	return g.Patch != nil && (g.Patch.Status == smtypes.SoftwareUpdateStatusInProgress || g.Patch.Status == smtypes.SoftwareUpdateStatusRollbackInProgress)
}

// UpdateClusterSoftware moves instance groups (all of them, when the
// request names none) to the latest HyperPod image, a rolling update: the
// nodes are replaced in batches of DeploymentConfig.RollingUpdatePolicy.
// MaximumBatchSize (a count, or a percentage of the group rounded up; 20%
// when unset), WaitIntervalInSeconds apart. A batch with a node that comes
// back unhealthy (see FaultPatch) stops the update: the group's
// SoftwareUpdateStatus turns Failed, or, when AutoRollbackConfiguration is
// set, the replaced nodes go back to their image and it ends
// RollbackComplete. Each batch and the stop are cluster events.
func (a *sageMakerAPI) UpdateClusterSoftware(ctx context.Context, in *sagemaker.UpdateClusterSoftwareInput, _ ...func(*sagemaker.Options)) (*sagemaker.UpdateClusterSoftwareOutput, error) {
	return hpCall(ctx, a, "UpdateClusterSoftware", func(t *txn) (*sagemaker.UpdateClusterSoftwareOutput, error) {
		in := orZero(in)
		if err := need("UpdateClusterSoftwareInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, err := t.hpClusterToChange(in.ClusterName, "UpdateClusterSoftware")
		if err != nil {
			return nil, err
		}
		if id := aws.ToString(in.ImageId); id != "" && id != imageIDDefault && !strings.HasPrefix(id, "ami-") {
			return nil, sageMakerValidation("ImageId %q is neither an AMI id (ami-...) nor %q.", id, imageIDDefault)
		}
		cfg, err := patchConfig(in.DeploymentConfig)
		if err != nil {
			return nil, err
		}
		groups, err := patchGroups(c, in.InstanceGroups)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			t.startPatch(c, g, cfg)
		}
		t.clusterEvent(c, t.now, smtypes.ClusterEventLevelInfo, "UpdateClusterSoftware started on cluster %s.", c.Name)
		return &sagemaker.UpdateClusterSoftwareOutput{ClusterArn: aws.String(c.Arn)}, nil
	})
}

// patchConfig checks a DeploymentConfig.
func patchConfig(d *smtypes.DeploymentConfiguration) (hpPatchConfig, error) {
	cfg := hpPatchConfig{BatchType: string(smtypes.NodeUnavailabilityTypeCapacityPercentage), BatchValue: defaultPatchPct}
	if d == nil {
		return cfg, nil
	}
	if p := d.RollingUpdatePolicy; p != nil && p.MaximumBatchSize != nil {
		b := p.MaximumBatchSize
		v := aws.ToInt32(b.Value)
		switch b.Type {
		case smtypes.NodeUnavailabilityTypeCapacityPercentage:
			if v < 1 || v > 100 {
				return cfg, sageMakerValidation("MaximumBatchSize.Value must be 1 to 100 for %s, got %d.", b.Type, v)
			}
		case smtypes.NodeUnavailabilityTypeInstanceCount:
			if v < 1 {
				return cfg, sageMakerValidation("MaximumBatchSize.Value must be at least 1 for %s, got %d.", b.Type, v)
			}
		default:
			return cfg, sageMakerValidation("MaximumBatchSize.Type must be %s or %s, got %q.",
				smtypes.NodeUnavailabilityTypeInstanceCount, smtypes.NodeUnavailabilityTypeCapacityPercentage, b.Type)
		}
		cfg.BatchType, cfg.BatchValue = string(b.Type), v
	}
	cfg.WaitSec = aws.ToInt32(d.WaitIntervalInSeconds)
	if cfg.WaitSec < 0 || cfg.WaitSec > 3600 {
		return cfg, sageMakerValidation("WaitIntervalInSeconds must be 0 to 3600, got %d.", cfg.WaitSec)
	}
	cfg.Rollback = d.AutoRollbackConfiguration != nil
	return cfg, nil
}

// patchGroups finds the groups a request names, all when it names none.
func patchGroups(c *hpClusterRec, specs []smtypes.UpdateClusterSoftwareInstanceGroupSpecification) ([]*hpGroupRec, error) {
	var groups []*hpGroupRec
	if len(specs) == 0 {
		for _, g := range c.Groups {
			if !g.Deleting {
				groups = append(groups, g)
			}
		}
	}
	for i, s := range specs {
		name := aws.ToString(s.InstanceGroupName)
		g := c.group(name)
		switch {
		case g == nil || g.Deleting:
			return nil, sageMakerValidation("Instance group %s does not exist in cluster %s.", name, c.Name)
		case slices.Contains(groups, g):
			return nil, sageMakerValidation("InstanceGroups names %s twice.", name)
		case s.ImageReleaseVersion != nil && !releaseVersionPattern.MatchString(*s.ImageReleaseVersion):
			return nil, sageMakerValidation("Value '%s' at 'instanceGroups.%d.member.imageReleaseVersion' failed to satisfy constraint: Member must satisfy regular expression pattern: [0-9]+\\.[0-9]+\\.[0-9]+", *s.ImageReleaseVersion, i+1)
		case s.ImageReleaseVersion != nil && *s.ImageReleaseVersion != ImageVersionAvailable && *s.ImageReleaseVersion != ImageVersionCurrent:
			return nil, sageMakerValidation("Image release version %s does not exist; the releases are %s and %s.", *s.ImageReleaseVersion, ImageVersionCurrent, ImageVersionAvailable)
		}
		groups = append(groups, g)
	}
	for _, g := range groups {
		if g.patching() {
			return nil, &smtypes.ConflictException{Message: aws.String(fmt.Sprintf("A software update of instance group %s of cluster %s is in progress; wait until it ends.", g.Name, c.Name))}
		}
	}
	return groups, nil
}

// batchSize is how many of count nodes one batch replaces.
func (cfg hpPatchConfig) batchSize(count int) int {
	if cfg.BatchType == string(smtypes.NodeUnavailabilityTypeInstanceCount) {
		return max(1, min(count, int(cfg.BatchValue)))
	}
	return max(1, (count*int(cfg.BatchValue)+99)/100)
}

// startPatch starts a group's rolling update: its launched nodes, oldest
// first, cut into batches.
func (t *txn) startPatch(c *hpClusterRec, g *hpGroupRec, cfg hpPatchConfig) {
	var nodes []string
	for _, n := range g.Nodes {
		if n.InstanceID != "" && !n.Deleting {
			nodes = append(nodes, n.LogicalID)
		}
	}
	p := &hpPatchRec{From: g.imageVersion(), To: ImageVersionAvailable, Wait: time.Duration(cfg.WaitSec) * time.Second,
		Rollback: cfg.Rollback, Status: smtypes.SoftwareUpdateStatusInProgress, Config: cfg}
	for size := cfg.batchSize(len(nodes)); len(nodes) > 0; {
		k := min(size, len(nodes))
		p.Batches, nodes = append(p.Batches, nodes[:k]), nodes[k:]
	}
	g.Patch = p
	if len(p.Batches) == 0 {
		g.ImageVersion, p.Status = p.To, smtypes.SoftwareUpdateStatusSucceeded
		t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "Instance group %s has no nodes; it now runs image %s.", g.Name, p.To)
		return
	}
	t.groupEvent(c, g, t.now, smtypes.ClusterEventLevelInfo, "Software update of instance group %s from image %s to %s started: %d batches of at most %d nodes.",
		g.Name, p.From, p.To, len(p.Batches), len(p.Batches[0]))
	t.schedule(c, hpAction{At: t.now, Kind: actPatchBatch, Group: g.Name})
}

// patchBatch starts replacing the nodes of the group's current batch.
func (t *txn) patchBatch(c *hpClusterRec, g *hpGroupRec, at time.Time) {
	p := g.Patch
	if p == nil || p.Status != smtypes.SoftwareUpdateStatusInProgress || p.Batch >= len(p.Batches) {
		return
	}
	var ids []string
	for _, id := range p.Batches[p.Batch] {
		n := g.node(id)
		if n == nil || n.Deleting || n.InstanceID == "" {
			continue
		}
		n.Gen++
		n.Status, n.Message, n.Health = smtypes.ClusterInstanceStatusSystemUpdating, "Updating to image "+p.To, HealthUnschedulable
		t.scheduleNode(c, g, n, t.at(at, hpPatchNodeTime), actPatched, "")
		ids = append(ids, n.InstanceID)
	}
	t.groupEvent(c, g, at, smtypes.ClusterEventLevelInfo, "Software update of instance group %s: batch %d of %d (%s) is being replaced.",
		g.Name, p.Batch+1, len(p.Batches), strings.Join(ids, ", "))
	if len(ids) == 0 {
		t.batchDone(c, g, at)
	}
}

// patched brings a node of the current batch back on the new image,
// unhealthy if a patch fault selects it; the last of the batch decides.
func (t *txn) patched(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	p := g.Patch
	if p == nil {
		return
	}
	n.ImageVersion = p.To
	if msg, bad := t.patchFault(c, g, n, p.To); bad {
		n.Status, n.Health = smtypes.ClusterInstanceStatusFailure, HealthUnschedulable
		n.Message = fmt.Sprintf("%s in batch %d of %d: %s", patchFailedNote, p.Batch+1, len(p.Batches), msg)
		t.nodeEvent(c, g, n, at, smtypes.ClusterEventLevelError, "%s", msg)
	} else {
		n.Status, n.Message, n.Health = smtypes.ClusterInstanceStatusRunning, "", HealthSchedulable
	}
	for _, id := range p.Batches[p.Batch] {
		if m := g.node(id); m != nil && m.Status == smtypes.ClusterInstanceStatusSystemUpdating {
			return
		}
	}
	t.batchDone(c, g, at)
}

// batchDone ends the current batch: on to the next after the wait, or the
// end of the update, or its stop when a node of the batch is unhealthy.
func (t *txn) batchDone(c *hpClusterRec, g *hpGroupRec, at time.Time) {
	p := g.Patch
	var bad []string
	var why string
	for _, id := range p.Batches[p.Batch] {
		if n := g.node(id); n != nil && n.Status == smtypes.ClusterInstanceStatusFailure {
			bad = append(bad, n.InstanceID)
			_, why, _ = strings.Cut(n.Message, ": ")
		}
	}
	if len(bad) > 0 {
		p.Status = smtypes.SoftwareUpdateStatusFailed
		then := "It stopped; the nodes already updated keep image " + p.To + "."
		if p.Rollback {
			p.Status = smtypes.SoftwareUpdateStatusRollbackInProgress
			then = "It stopped and rolls the updated nodes back to image " + p.From + "."
		}
		t.groupEvent(c, g, at, smtypes.ClusterEventLevelError, "Software update of instance group %s failed: batch %d of %d is unhealthy (nodes %s): %s %s",
			g.Name, p.Batch+1, len(p.Batches), strings.Join(bad, ", "), why, then)
		if p.Rollback {
			t.rollBack(c, g, at)
		}
		return
	}
	p.Batch++
	if p.Batch < len(p.Batches) {
		t.schedule(c, hpAction{At: t.at(at, p.Wait), Kind: actPatchBatch, Group: g.Name})
		return
	}
	p.Status, g.ImageVersion = smtypes.SoftwareUpdateStatusSucceeded, p.To
	t.groupEvent(c, g, at, smtypes.ClusterEventLevelInfo, "Software update of instance group %s succeeded: all its nodes run image %s.", g.Name, p.To)
}

// rollBack puts every node the update replaced back on the old image.
func (t *txn) rollBack(c *hpClusterRec, g *hpGroupRec, at time.Time) {
	p := g.Patch
	started := false
	for _, batch := range p.Batches[:p.Batch+1] {
		for _, id := range batch {
			n := g.node(id)
			if n == nil || n.Deleting || n.ImageVersion != p.To {
				continue
			}
			n.Gen++
			n.Status, n.Health = smtypes.ClusterInstanceStatusSystemUpdating, HealthUnschedulable
			if !strings.HasPrefix(n.Message, patchFailedNote) {
				n.Message = "Rolling back to image " + p.From
			}
			t.scheduleNode(c, g, n, t.at(at, hpPatchNodeTime), actRolledBack, "")
			started = true
		}
	}
	if !started {
		t.rolledBackAll(c, g, at)
	}
}

// rolledBack brings a node back on the image it had; the last one ends the
// rollback.
func (t *txn) rolledBack(c *hpClusterRec, g *hpGroupRec, n *hpNodeRec, at time.Time) {
	p := g.Patch
	if p == nil {
		return
	}
	n.ImageVersion = p.From
	n.Status, n.Health = smtypes.ClusterInstanceStatusRunning, HealthSchedulable
	if strings.HasPrefix(n.Message, patchFailedNote) {
		// The node keeps saying why the update was rolled back.
		n.Message = "Rolled back to image " + p.From + ": " + n.Message
	} else {
		n.Message = ""
	}
	for _, m := range g.Nodes {
		if m.Status == smtypes.ClusterInstanceStatusSystemUpdating {
			return
		}
	}
	t.rolledBackAll(c, g, at)
}

func (t *txn) rolledBackAll(c *hpClusterRec, g *hpGroupRec, at time.Time) {
	g.Patch.Status = smtypes.SoftwareUpdateStatusRollbackComplete
	t.groupEvent(c, g, at, smtypes.ClusterEventLevelInfo, "Software update of instance group %s was rolled back: its nodes run image %s.", g.Name, g.Patch.From)
}

// patchConfigOut is the group's ActiveSoftwareUpdateConfig.
func (p *hpPatchRec) configOut() *smtypes.DeploymentConfiguration {
	d := &smtypes.DeploymentConfiguration{
		RollingUpdatePolicy: &smtypes.RollingDeploymentPolicy{MaximumBatchSize: &smtypes.CapacitySizeConfig{
			Type: smtypes.NodeUnavailabilityType(p.Config.BatchType), Value: aws.Int32(p.Config.BatchValue)}},
		WaitIntervalInSeconds: aws.Int32(p.Config.WaitSec),
	}
	if p.Config.Rollback {
		d.AutoRollbackConfiguration = []smtypes.AlarmDetails{}
	}
	return d
}
