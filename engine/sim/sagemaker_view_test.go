package sim

import (
	"maps"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

func TestHyperPodNodesView(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	in := h.input("hp", "ml.g5.xlarge", 2, 0)
	in.InstanceGroups[0].CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
	in.InstanceGroups[0].KubernetesConfig = &smtypes.ClusterKubernetesConfig{
		Labels: map[string]string{"pool": "spot"},
		Taints: []smtypes.ClusterKubernetesTaint{{Key: aws.String("spot"), Value: aws.String("true"), Effect: smtypes.ClusterKubernetesTaintEffectPreferNoSchedule}},
	}
	created := f.clock.Now()
	ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(t)
	if got := f.kubeNodes(); len(got) != 0 {
		t.Errorf("Pending nodes joined Kubernetes: %+v", got)
	}
	f.advance(hpCreateTime)
	got := f.kubeNodes()
	if len(got) != 2 || got[0].InstanceID > got[1].InstanceID {
		t.Fatalf("nodes = %+v", got)
	}
	subnet := netip.MustParsePrefix("10.0.0.0/24")
	dns := regexp.MustCompile(`^ip-10-0-0-\d+\.us-west-2\.compute\.internal$`)
	for _, v := range got {
		ip, err := netip.ParseAddr(v.PrivateIP)
		if err != nil || !subnet.Contains(ip) || !dns.MatchString(v.PrivateDNS) || v.HyperPodCluster != "hp" || v.InstanceGroup != "workers" ||
			v.InstanceType != "ml.g5.xlarge" || v.Zone != "us-west-2a" || v.CapacityType != "SPOT" || v.Status != "Running" ||
			v.Health != HealthSchedulable || v.DeepHealth != "" || !v.LaunchTime.Equal(created) ||
			!maps.Equal(v.Labels, map[string]string{"pool": "spot"}) ||
			!slices.Equal(v.Taints, []NodeTaint{{Key: "spot", Value: "true", Effect: "PreferNoSchedule"}}) {
			t.Errorf("node = %+v", v)
		}
	}

	// Nodes of a HyperPod cluster on another EKS cluster are elsewhere.
	other := h.input("hp2", "ml.g5.xlarge", 1, 1)
	other.Orchestrator.Eks.ClusterArn = f.eksCluster("other", h.net).Arn
	f.createReady(other)
	if n := len(f.kubeNodes()); n != 2 {
		t.Errorf("eks shows %d nodes", n)
	}
	if got := ok(f.w.HyperPodNodes("us-west-2", "other")).must(t); len(got) != 1 || got[0].HyperPodCluster != "hp2" || got[0].Zone != "us-west-2d" {
		t.Errorf("other shows %+v", got)
	}
	if _, err := f.w.HyperPodNodes("us-west-2", "nope"); err == nil {
		t.Errorf("an unknown EKS cluster has nodes")
	}
	if _, err := f.w.HyperPodNodes("mars-north-1", "eks"); err == nil {
		t.Errorf("an unknown region has nodes")
	}
}

func TestSetNodeHealthLabel(t *testing.T) {
	cases := []struct {
		label  string
		during smtypes.ClusterInstanceStatus
		takes  time.Duration
		newID  bool
	}{
		{HealthUnschedulablePendingReboot, smtypes.ClusterInstanceStatusPending, hpNodeRebootTime, false},
		{HealthUnschedulablePendingReplacement, smtypes.ClusterInstanceStatusShuttingDown, hpNodeShutdownTime + hpNodeBootTime, true},
	}
	for _, c := range cases {
		t.Run(c.label, func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			in := h.input("hp", "ml.g5.xlarge", 1, 0)
			in.NodeRecovery = smtypes.ClusterNodeRecoveryNone // a label works whatever the setting
			f.createReady(in)
			n := f.hpNodes("hp")[0]
			id := *n.InstanceId
			for _, bad := range []string{HealthSchedulable, HealthUnschedulable, "Broken"} {
				if err := f.w.SetNodeHealthLabel("us-west-2", "eks", id, bad); err == nil {
					t.Errorf("label %q was accepted", bad)
				}
			}
			if err := f.w.SetNodeHealthLabel("us-west-2", "eks", "i-00000000000000000", c.label); err == nil {
				t.Errorf("an unknown node was labelled")
			}
			if err := f.w.SetNodeHealthLabel("us-west-2", "eks", id, c.label); err != nil {
				t.Fatal(err)
			}
			if err := f.w.SetNodeHealthLabel("us-west-2", "eks", id, c.label); err != nil {
				t.Errorf("setting the same label again: %v", err)
			}
			if v, _ := f.kubeNode(id); v.Health != c.label {
				t.Errorf("label now %q", v.Health)
			}
			f.advance(hpRecoveryDelay)
			if d := f.hpNode("hp", *n.NodeLogicalId); d.InstanceStatus.Status != c.during {
				t.Errorf("during the recovery: %s", d.InstanceStatus.Status)
			}
			f.advance(c.takes)
			d := f.hpNode("hp", *n.NodeLogicalId)
			v, _ := f.kubeNode(*d.InstanceId)
			if d.InstanceStatus.Status != smtypes.ClusterInstanceStatusRunning || v.Health != HealthSchedulable || (*d.InstanceId != id) != c.newID {
				t.Errorf("after the recovery: %s %s, %+v", d.InstanceStatus.Status, *d.InstanceId, v)
			}
		})
	}
}

// TestHyperPodViewIsSafeForConcurrentUse runs the view next to API calls
// and the clock; go test -race checks it.
func TestHyperPodViewIsSafeForConcurrentUse(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 2, 0))
	ids := instanceIDs(f.hpNodes("hp"))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				var err error
				switch (i + j) % 4 {
				case 0:
					_, err = f.w.HyperPodNodes("us-west-2", "eks")
				case 1:
					_, err = f.p.SageMaker.ListClusterNodes(f.ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String("hp")})
				case 2:
					err = f.w.SetNodeHealthLabel("us-west-2", "eks", ids[0], HealthUnschedulablePendingReboot)
					if err != nil {
						err = nil // the node may be rebooting already
					}
				case 3:
					f.advance(time.Minute)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHyperPodStateSurvivesAReload(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(continuous(h.input("hp", "ml.g5.xlarge", 2, 0)))
	logical, id := f.strikeOne("node:cluster=hp,recovery=replace")
	add := &sagemaker.BatchAddClusterNodesInput{ClusterName: aws.String("hp"), ClientToken: aws.String("tok"),
		NodesToAdd: []smtypes.AddClusterNodeSpecification{{InstanceGroupName: aws.String("workers"), IncrementTargetCountBy: aws.Int32(1)}}}
	added := ok(f.p.SageMaker.BatchAddClusterNodes(f.ctx, add)).must(t)
	f.advance(hpDetectTime)
	before := f.kubeNodes()
	events := len(f.events(&sagemaker.ListClusterEventsInput{ClusterName: aws.String("hp")}))

	f.w = f.world() // a restarted process on the same storage
	if after := f.kubeNodes(); !reflect.DeepEqual(before, after) {
		t.Errorf("the reloaded world shows\n%+v\nnot\n%+v", after, before)
	}
	if n := len(f.events(&sagemaker.ListClusterEventsInput{ClusterName: aws.String("hp")})); n != events {
		t.Errorf("%d events after the reload, %d before", n, events)
	}
	if again := ok(f.p.SageMaker.BatchAddClusterNodes(f.ctx, add)).must(t); *again.Successful[0].NodeLogicalId != *added.Successful[0].NodeLogicalId {
		t.Errorf("the client token was forgotten")
	}
	// The scheduled replacement survived the restart.
	f.advance(hpRecoveryDelay + hpNodeShutdownTime + hpNodeBootTime)
	d := f.hpNode("hp", logical)
	if v, _ := f.kubeNode(*d.InstanceId); *d.InstanceId == id || v.Health != HealthSchedulable {
		t.Errorf("after the reload, the node was not replaced: %s %+v", *d.InstanceId, v)
	}
	if g := f.group("hp", "workers"); *g.CurrentCount != 3 || g.Status != smtypes.InstanceGroupStatusInservice {
		t.Errorf("group: %s %d", g.Status, *g.CurrentCount)
	}
}
