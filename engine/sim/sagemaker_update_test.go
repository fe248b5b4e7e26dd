package sim

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// spec is an instance group specification like the one input makes.
func (h hyperPod) spec(name, typ string, count int32) smtypes.ClusterInstanceGroupSpecification {
	return smtypes.ClusterInstanceGroupSpecification{
		InstanceGroupName: aws.String(name), InstanceCount: aws.Int32(count), ExecutionRole: aws.String(h.role),
		InstanceType:    smtypes.ClusterInstanceType(typ),
		LifeCycleConfig: &smtypes.ClusterLifeCycleConfig{SourceS3Uri: aws.String("s3://sagemaker-lifecycle/eks"), OnCreate: aws.String("on_create.sh")},
	}
}

func (f *fixture) update(in *sagemaker.UpdateClusterInput) error {
	_, err := f.p.SageMaker.UpdateCluster(f.ctx, in)
	return err
}

func TestUpdateClusterScalesAGroup(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 2, 0))
	scale := func(count int32) error {
		return f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"),
			InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{h.spec("workers", "ml.g5.xlarge", count)}})
	}

	if err := scale(4); err != nil {
		t.Fatal(err)
	}
	d := f.hpStatus("hp")
	g := d.InstanceGroups[0]
	if d.ClusterStatus != smtypes.ClusterStatusUpdating || g.Status != smtypes.InstanceGroupStatusUpdating || *g.TargetCount != 4 || *g.CurrentCount != 2 {
		t.Errorf("scaling up: cluster %s, group %s %d/%d", d.ClusterStatus, g.Status, *g.CurrentCount, *g.TargetCount)
	}
	if got := statusCount(f.hpNodes("hp")); got[smtypes.ClusterInstanceStatusRunning] != 2 || got[smtypes.ClusterInstanceStatusPending] != 2 {
		t.Errorf("nodes while scaling up: %v", got)
	}
	var conflict *smtypes.ConflictException
	if err := scale(5); !errors.As(err, &conflict) {
		t.Errorf("an update of an Updating cluster: %v", err)
	}
	f.advance(hpNodeBootTime)
	d = f.hpStatus("hp")
	if g := d.InstanceGroups[0]; d.ClusterStatus != smtypes.ClusterStatusInservice || g.Status != smtypes.InstanceGroupStatusInservice || *g.CurrentCount != 4 {
		t.Errorf("after scaling up: cluster %s, group %s %d", d.ClusterStatus, g.Status, *g.CurrentCount)
	}

	if err := scale(1); err != nil {
		t.Fatal(err)
	}
	if got := statusCount(f.hpNodes("hp")); got[smtypes.ClusterInstanceStatusRunning] != 1 || got[smtypes.ClusterInstanceStatusShuttingDown] != 3 {
		t.Errorf("nodes while scaling down: %v", got)
	}
	if g := f.group("hp", "workers"); *g.TargetCount != 1 || *g.CurrentCount != 1 {
		t.Errorf("scaling down: %d/%d", *g.CurrentCount, *g.TargetCount)
	}
	f.advance(max(hpNodeShutdownTime, hpUpdateTime))
	if nodes := f.hpNodes("hp"); len(nodes) != 1 || f.hpStatus("hp").ClusterStatus != smtypes.ClusterStatusInservice {
		t.Errorf("after scaling down: %d nodes, cluster %s", len(nodes), f.hpStatus("hp").ClusterStatus)
	}
	if n := len(f.kubeNodes()); n != 1 {
		t.Errorf("Kubernetes shows %d nodes", n)
	}
}

func TestUpdateClusterAddsChangesAndDeletesGroups(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(continuous(h.input("hp", "ml.g5.xlarge", 1, 0)))
	gpu := h.spec("gpu", "ml.g6.12xlarge", 2)
	gpu.KubernetesConfig = &smtypes.ClusterKubernetesConfig{
		Labels: map[string]string{"team": "research"},
		Taints: []smtypes.ClusterKubernetesTaint{{Key: aws.String("nvidia.com/gpu"), Effect: smtypes.ClusterKubernetesTaintEffectNoSchedule}},
	}
	if err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{gpu}}); err != nil {
		t.Fatal(err)
	}
	if d := f.hpStatus("hp"); d.ClusterStatus != smtypes.ClusterStatusInservice || len(d.InstanceGroups) != 2 || d.InstanceGroups[1].Status != smtypes.InstanceGroupStatusCreating {
		t.Fatalf("with Continuous provisioning the cluster stays InService and the new group is Creating: %s %+v", d.ClusterStatus, d.InstanceGroups)
	}
	f.advance(hpNodeBootTime)
	if g := f.group("hp", "gpu"); g.Status != smtypes.InstanceGroupStatusInservice || *g.CurrentCount != 2 {
		t.Errorf("new group: %s %d", g.Status, *g.CurrentCount)
	}
	gpuNodes := 0
	for _, v := range f.kubeNodes() {
		if v.InstanceGroup == "gpu" {
			gpuNodes++
			if v.Labels["team"] != "research" || len(v.Taints) != 1 || v.Taints[0].Key != "nvidia.com/gpu" || v.InstanceType != "ml.g6.12xlarge" {
				t.Errorf("gpu node: %+v", v)
			}
		}
	}
	if gpuNodes != 2 {
		t.Errorf("%d gpu nodes in Kubernetes", gpuNodes)
	}

	// New labels reach the nodes when the update is done.
	gpu.KubernetesConfig.Labels = map[string]string{"team": "inference"}
	if err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{gpu}}); err != nil {
		t.Fatal(err)
	}
	labels := func() map[string]string {
		for _, v := range f.kubeNodes() {
			if v.InstanceGroup == "gpu" {
				return v.Labels
			}
		}
		return nil
	}
	if got := labels(); !maps.Equal(got, map[string]string{"team": "research"}) {
		t.Errorf("labels during the update: %v", got)
	}
	f.advance(hpUpdateTime)
	if got := labels(); !maps.Equal(got, map[string]string{"team": "inference"}) {
		t.Errorf("labels after the update: %v", got)
	}

	for _, bad := range []*sagemaker.UpdateClusterInput{
		{ClusterName: aws.String("hp"), InstanceGroupsToDelete: []string{"nope"}},
		{ClusterName: aws.String("hp"), InstanceGroupsToDelete: []string{"gpu"}, InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{gpu}},
		{ClusterName: aws.String("hp")},
	} {
		mustCode(t, f.update(bad), "ValidationException")
	}
	if err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), InstanceGroupsToDelete: []string{"workers"}}); err != nil {
		t.Fatal(err)
	}
	if g := f.group("hp", "workers"); g.Status != smtypes.InstanceGroupStatusDeleting {
		t.Errorf("deleted group is %s", g.Status)
	}
	mustCode(t, f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"),
		InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{h.spec("workers", "ml.g5.xlarge", 1)}}), "ValidationException")
	f.advance(hpNodeShutdownTime)
	if d := f.hpStatus("hp"); len(d.InstanceGroups) != 1 || *d.InstanceGroups[0].InstanceGroupName != "gpu" {
		t.Errorf("groups after the deletion: %+v", d.InstanceGroups)
	}
	if n := len(f.hpNodes("hp")); n != 2 {
		t.Errorf("%d nodes after the deletion", n)
	}
}

func TestUpdateClusterRefusesImmutableChanges(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	in := h.input("hp", "ml.p5.48xlarge", 2, 0)
	in.VpcConfig.Subnets = h.net.subnets // us-west-2a, where p5 lives, first
	f.createReady(in)
	plan := ok(f.p.SageMaker.ListTrainingPlans(f.ctx, nil)).must(t).TrainingPlanSummaries[0].TrainingPlanArn
	cases := []struct {
		name string
		edit func(s *smtypes.ClusterInstanceGroupSpecification)
		ok   bool
	}{
		{"instance type", func(s *smtypes.ClusterInstanceGroupSpecification) { s.InstanceType = "ml.p4d.24xlarge" }, false},
		{"flexible types", func(s *smtypes.ClusterInstanceGroupSpecification) {
			s.InstanceType = ""
			s.InstanceRequirements = &smtypes.ClusterInstanceRequirements{InstanceTypes: []smtypes.ClusterInstanceType{"ml.p5.48xlarge", "ml.p4d.24xlarge"}}
		}, false},
		{"training plan", func(s *smtypes.ClusterInstanceGroupSpecification) { s.TrainingPlanArn = plan }, false},
		{"spot capacity", func(s *smtypes.ClusterInstanceGroupSpecification) {
			s.CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
		}, false},
		{"subnet override", func(s *smtypes.ClusterInstanceGroupSpecification) {
			s.OverrideVpcConfig = &smtypes.VpcConfig{Subnets: h.net.subnets[:1], SecurityGroupIds: []string{h.net.sg}}
		}, false},
		{"threads per core", func(s *smtypes.ClusterInstanceGroupSpecification) { s.ThreadsPerCore = aws.Int32(1) }, false},
		{"on-demand, as it is", func(s *smtypes.ClusterInstanceGroupSpecification) {
			s.CapacityRequirements = &smtypes.ClusterCapacityRequirements{OnDemand: &smtypes.ClusterOnDemandOptions{}}
		}, true},
		{"lifecycle script", func(s *smtypes.ClusterInstanceGroupSpecification) { s.LifeCycleConfig.OnCreate = aws.String("v2.sh") }, true},
	}
	for _, c := range cases {
		s := h.spec("workers", "ml.p5.48xlarge", 3)
		c.edit(&s)
		err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{s}})
		if c.ok {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			f.advance(hpNodeBootTime)
			continue
		}
		mustCode(t, err, "ValidationException")
		if g := f.group("hp", "workers"); *g.TargetCount != 2 || g.InstanceType != "ml.p5.48xlarge" || f.hpStatus("hp").ClusterStatus != smtypes.ClusterStatusInservice {
			t.Errorf("%s: a refused update changed the group: %d %s", c.name, *g.TargetCount, g.InstanceType)
		}
	}
}

func TestUpdateClusterQuota(t *testing.T) {
	cases := []struct {
		name  string
		fault string
		count int32 // the new count of the group, which runs 2 ml.g5.xlarge
		want  bool  // accepted
	}{
		{"within the default quota", "", 16, true},
		{"over the default quota", "", 17, false},
		{"over a lowered quota", "quota:instanceType=ml.g5.xlarge,value=3", 4, false},
		{"scaling down under a lowered quota", "quota:instanceType=ml.g5.xlarge,value=1", 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			f.createReady(h.input("hp", "ml.g5.xlarge", 2, 0))
			if c.fault != "" {
				ok(f.w.InjectFault(ok(ParseFault(c.fault)).must(t))).must(t)
			}
			err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"),
				InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{h.spec("workers", "ml.g5.xlarge", c.count)}})
			var limit *smtypes.ResourceLimitExceeded
			switch {
			case c.want && err != nil:
				t.Errorf("refused: %v", err)
			case !c.want && !errors.As(err, &limit):
				t.Errorf("err = %v, want ResourceLimitExceeded", err)
			case !c.want && *f.group("hp", "workers").TargetCount != 2:
				t.Errorf("a refused update changed the target count")
			}
		})
	}
}

func TestUpdateClusterSettings(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 1, 0))
	role := f.role("HyperPodAutoscaler")
	if err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), AutoScaling: &smtypes.ClusterAutoScalingConfig{Mode: smtypes.ClusterAutoScalingModeEnable}, ClusterRole: aws.String(role)}); err == nil {
		t.Errorf("autoscaling without Continuous provisioning was accepted")
	}
	err := f.update(&sagemaker.UpdateClusterInput{
		ClusterName: aws.String("hp"), NodeRecovery: smtypes.ClusterNodeRecoveryNone,
		TieredStorageConfig: &smtypes.ClusterTieredStorageConfig{Mode: smtypes.ClusterConfigModeEnable, InstanceMemoryAllocationPercentage: aws.Int32(20)},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := f.hpStatus("hp")
	if d.ClusterStatus != smtypes.ClusterStatusUpdating || d.NodeRecovery != smtypes.ClusterNodeRecoveryNone || *d.TieredStorageConfig.InstanceMemoryAllocationPercentage != 20 {
		t.Errorf("after the update: %s %s %+v", d.ClusterStatus, d.NodeRecovery, d.TieredStorageConfig)
	}
	f.advance(hpUpdateTime)
	if s := f.hpStatus("hp").ClusterStatus; s != smtypes.ClusterStatusInservice {
		t.Errorf("after %v: %s", hpUpdateTime, s)
	}
	// A cluster that provisions continuously stays InService while it changes.
	if err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), NodeProvisioningMode: smtypes.ClusterNodeProvisioningModeContinuous}); err != nil {
		t.Fatal(err)
	}
	if d := f.hpStatus("hp"); d.ClusterStatus != smtypes.ClusterStatusInservice || d.NodeProvisioningMode != smtypes.ClusterNodeProvisioningModeContinuous {
		t.Errorf("after switching to Continuous: %s %s", d.ClusterStatus, d.NodeProvisioningMode)
	}
}

func TestNetworkInterfaceIsFixedForTheGroupsLife(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	in := h.input("hp", "ml.p5.48xlarge", 1, 0)
	in.InstanceGroups[0].NetworkInterface = &smtypes.ClusterNetworkInterface{InterfaceType: smtypes.ClusterInterfaceTypeEfa}
	f.createReady(in)
	g := f.group("hp", "workers")
	if g.NetworkInterface == nil || g.NetworkInterface.InterfaceType != smtypes.ClusterInterfaceTypeEfa {
		t.Fatalf("DescribeCluster shows network interface %+v, want efa", g.NetworkInterface)
	}
	node := f.hpNode("hp", *f.hpNodes("hp")[0].NodeLogicalId)
	if node.NetworkInterface == nil || node.NetworkInterface.InterfaceType != smtypes.ClusterInterfaceTypeEfa {
		t.Errorf("DescribeClusterNode shows network interface %+v, want efa", node.NetworkInterface)
	}

	withMode := func(mode smtypes.ClusterInterfaceType) error {
		spec := h.spec("workers", "ml.p5.48xlarge", 1)
		if mode != "" {
			spec.NetworkInterface = &smtypes.ClusterNetworkInterface{InterfaceType: mode}
		}
		return f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{spec}})
	}
	err := withMode(smtypes.ClusterInterfaceTypeEfaOnly)
	if code := errorCode(t, err); code != "ValidationException" || !strings.Contains(err.Error(), "network interface type of instance group workers is efa and can not change to efa-only") {
		t.Errorf("changing the mode: %v", err)
	}
	f.advance(hpUpdateTime)
	// The same mode, or none, keeps it.
	for _, mode := range []smtypes.ClusterInterfaceType{smtypes.ClusterInterfaceTypeEfa, ""} {
		if err := withMode(mode); err != nil {
			t.Errorf("update with mode %q: %v", mode, err)
		}
		f.advance(hpUpdateTime)
	}
	if g := f.group("hp", "workers"); g.NetworkInterface == nil || g.NetworkInterface.InterfaceType != smtypes.ClusterInterfaceTypeEfa {
		t.Errorf("after updates the group shows %+v, want efa", g.NetworkInterface)
	}

	// A new group states its mode; types without EFA and unknown modes are
	// refused.
	for _, tc := range []struct {
		typ  string
		mode smtypes.ClusterInterfaceType
	}{{"ml.m5.xlarge", smtypes.ClusterInterfaceTypeEfaOnly}, {"ml.p5.48xlarge", "ena"}} {
		spec := h.spec("more", tc.typ, 1)
		spec.NetworkInterface = &smtypes.ClusterNetworkInterface{InterfaceType: tc.mode}
		err := f.update(&sagemaker.UpdateClusterInput{ClusterName: aws.String("hp"), InstanceGroups: []smtypes.ClusterInstanceGroupSpecification{spec}})
		if code := errorCode(t, err); code != "ValidationException" {
			t.Errorf("new group of %s with mode %q: %v", tc.typ, tc.mode, err)
		}
	}
}
