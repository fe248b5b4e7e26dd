package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// patchInput asks for a rolling update of the cluster hp in batches of pct
// percent, wait seconds apart.
func patchInput(pct, wait int32, rollback bool) *sagemaker.UpdateClusterSoftwareInput {
	d := &smtypes.DeploymentConfiguration{
		RollingUpdatePolicy: &smtypes.RollingDeploymentPolicy{MaximumBatchSize: &smtypes.CapacitySizeConfig{
			Type: smtypes.NodeUnavailabilityTypeCapacityPercentage, Value: aws.Int32(pct)}},
		WaitIntervalInSeconds: aws.Int32(wait),
	}
	if rollback {
		d.AutoRollbackConfiguration = []smtypes.AlarmDetails{}
	}
	return &sagemaker.UpdateClusterSoftwareInput{ClusterName: aws.String("hp"), DeploymentConfig: d}
}

// updating counts the nodes of hp in SystemUpdating.
func (f *fixture) updating() int {
	return statusCount(f.hpNodes("hp"))[smtypes.ClusterInstanceStatusSystemUpdating]
}

// versions counts the nodes of hp on each image release version.
func (f *fixture) versions() map[string]int {
	m := map[string]int{}
	for _, n := range f.hpNodes("hp") {
		m[aws.ToString(n.CurrentImageReleaseVersion)]++
	}
	return m
}

func TestUpdateClusterSoftwareRollsInBatches(t *testing.T) {
	for _, tc := range []struct {
		pct     int32
		batches []int
	}{
		{40, []int{2, 2, 1}},
		{20, []int{1, 1, 1, 1, 1}},
		{100, []int{5}},
		{50, []int{3, 2}},
	} {
		f := newFixture(t)
		f.createReady(f.hyperPod().input("hp", "ml.g5.xlarge", 5, 0))
		if g := f.group("hp", "workers"); aws.ToString(g.CurrentImageReleaseVersion) != ImageVersionCurrent || g.ImageVersionStatus != smtypes.ClusterImageVersionStatusUpdateAvailable {
			t.Fatalf("a new group runs %s (%s), want %s with an update available", aws.ToString(g.CurrentImageReleaseVersion), g.ImageVersionStatus, ImageVersionCurrent)
		}
		ok(f.p.SageMaker.UpdateClusterSoftware(f.ctx, patchInput(tc.pct, 60, false))).must(t)
		var seen []int
		for range tc.batches {
			n := f.updating()
			seen = append(seen, n)
			if g := f.group("hp", "workers"); g.Status != smtypes.InstanceGroupStatusSystemupdating || g.SoftwareUpdateStatus != smtypes.SoftwareUpdateStatusInProgress {
				t.Errorf("%d%%: group %s, update %s while a batch is replaced", tc.pct, g.Status, g.SoftwareUpdateStatus)
			}
			f.advance(hpPatchNodeTime)
			if n := f.updating(); n != 0 {
				t.Errorf("%d%%: %d nodes still updating after the batch's time", tc.pct, n)
			}
			f.advance(60 * time.Second)
		}
		if !slices.Equal(seen, tc.batches) {
			t.Errorf("%d%% of 5 nodes: batches %v, want %v", tc.pct, seen, tc.batches)
		}
		g := f.group("hp", "workers")
		if g.SoftwareUpdateStatus != smtypes.SoftwareUpdateStatusSucceeded || aws.ToString(g.CurrentImageReleaseVersion) != ImageVersionAvailable ||
			g.ImageVersionStatus != smtypes.ClusterImageVersionStatusUpToDate || g.Status != smtypes.InstanceGroupStatusInservice {
			t.Errorf("%d%%: after the update the group is %s on %s (%s), update %s", tc.pct, g.Status, aws.ToString(g.CurrentImageReleaseVersion), g.ImageVersionStatus, g.SoftwareUpdateStatus)
		}
		if v := f.versions(); v[ImageVersionAvailable] != 5 {
			t.Errorf("%d%%: node versions %v", tc.pct, v)
		}
	}
}

func TestUpdateClusterSoftwareWaitsBetweenBatches(t *testing.T) {
	f := newFixture(t)
	f.createReady(f.hyperPod().input("hp", "ml.g5.xlarge", 2, 0))
	ok(f.p.SageMaker.UpdateClusterSoftware(f.ctx, patchInput(50, 600, false))).must(t)
	f.advance(hpPatchNodeTime)
	f.advance(599 * time.Second)
	if n := f.updating(); n != 0 {
		t.Fatalf("the second batch started %d nodes before the wait interval ended", n)
	}
	f.advance(time.Second)
	if n := f.updating(); n != 1 {
		t.Fatalf("%d nodes updating once the wait ended, want 1", n)
	}
}

func TestUpdateClusterSoftwareStopsOnAnUnhealthyBatch(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		f := newFixture(t)
		f.createReady(f.hyperPod().input("hp", "ml.g5.xlarge", 4, 0))
		ok(f.p.SageMaker.UpdateClusterSoftware(f.ctx, patchInput(50, 0, rollback))).must(t)
		// The first batch is being replaced; strike a node of the second.
		var second string
		for _, n := range f.hpNodes("hp") {
			if n.InstanceStatus.Status != smtypes.ClusterInstanceStatusSystemUpdating {
				second = aws.ToString(n.InstanceId)
				break
			}
		}
		ok(f.w.InjectFault(Fault{Kind: FaultPatch, Cluster: "hp", Instance: second})).must(t)
		f.advance(hpPatchNodeTime) // batch 1 passes
		f.advance(hpPatchNodeTime) // batch 2 fails
		g := f.group("hp", "workers")
		want := smtypes.SoftwareUpdateStatusFailed
		if rollback {
			want = smtypes.SoftwareUpdateStatusRollbackInProgress
		}
		if g.SoftwareUpdateStatus != want {
			t.Fatalf("rollback %v: update %s, want %s", rollback, g.SoftwareUpdateStatus, want)
		}
		found := slices.ContainsFunc(f.hpNodes("hp"), func(n smtypes.ClusterNodeSummary) bool {
			return aws.ToString(n.InstanceId) == second && strings.Contains(aws.ToString(n.InstanceStatus.Message), "batch 2 of 2")
		})
		if !found {
			t.Errorf("rollback %v: node %s does not say it failed in batch 2 of 2", rollback, second)
		}
		if rollback {
			f.advance(hpPatchNodeTime)
			g = f.group("hp", "workers")
			if g.SoftwareUpdateStatus != smtypes.SoftwareUpdateStatusRollbackComplete || aws.ToString(g.CurrentImageReleaseVersion) != ImageVersionCurrent {
				t.Errorf("after the rollback: update %s, group on %s", g.SoftwareUpdateStatus, aws.ToString(g.CurrentImageReleaseVersion))
			}
			if v := f.versions(); v[ImageVersionCurrent] != 4 {
				t.Errorf("after the rollback the nodes run %v", v)
			}
			continue
		}
		if v := f.versions(); v[ImageVersionAvailable] != 4 {
			t.Errorf("without rollback the updated nodes keep the new image: %v", v)
		}
		var conflict *smtypes.ConflictException
		if _, err := f.p.SageMaker.UpdateClusterSoftware(f.ctx, patchInput(50, 0, false)); errors.As(err, &conflict) {
			t.Errorf("a failed update blocks the next one: %v", err)
		}
	}
}

func TestUpdateClusterSoftwareRefusesBadRequests(t *testing.T) {
	f := newFixture(t)
	f.createReady(f.hyperPod().input("hp", "ml.g5.xlarge", 2, 0))
	bad := patchInput(0, 0, false)
	_, err := f.p.SageMaker.UpdateClusterSoftware(f.ctx, bad)
	mustCode(t, err, "ValidationException")
	missing := patchInput(50, 0, false)
	missing.InstanceGroups = []smtypes.UpdateClusterSoftwareInstanceGroupSpecification{{InstanceGroupName: aws.String("nope")}}
	_, err = f.p.SageMaker.UpdateClusterSoftware(f.ctx, missing)
	mustCode(t, err, "ValidationException")
	for _, v := range []string{"2026.11.20-1", "1.6", "9.9.9"} { // not MAJOR.MINOR.PATCH; no such release
		version := patchInput(50, 0, false)
		version.InstanceGroups = []smtypes.UpdateClusterSoftwareInstanceGroupSpecification{{InstanceGroupName: aws.String("workers"), ImageReleaseVersion: aws.String(v)}}
		_, err = f.p.SageMaker.UpdateClusterSoftware(f.ctx, version)
		mustCode(t, err, "ValidationException")
	}
	ok(f.p.SageMaker.UpdateClusterSoftware(f.ctx, patchInput(50, 0, false))).must(t)
	var conflict *smtypes.ConflictException
	if _, err := f.p.SageMaker.UpdateClusterSoftware(f.ctx, patchInput(50, 0, false)); !errors.As(err, &conflict) {
		t.Errorf("a second update while one runs: %v", err)
	}
}
