package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

func TestNodeStatusSequence(t *testing.T) {
	type step struct {
		after  time.Duration // real time since the previous step
		status smtypes.ClusterInstanceStatus
		health string // "" when the node has not joined Kubernetes
		deep   string
	}
	stress := smtypes.DeepHealthCheckTypeInstanceStress
	cases := []struct {
		name   string
		checks []smtypes.DeepHealthCheckType
		steps  []step
	}{
		{"without deep health checks", nil, []step{
			{0, smtypes.ClusterInstanceStatusPending, "", ""},
			{hpCreateTime - time.Minute, smtypes.ClusterInstanceStatusPending, "", ""},
			{time.Minute, smtypes.ClusterInstanceStatusRunning, HealthSchedulable, ""},
		}},
		{"with deep health checks", []smtypes.DeepHealthCheckType{stress}, []step{
			{0, smtypes.ClusterInstanceStatusPending, "", ""},
			{hpCreateTime, smtypes.ClusterInstanceStatusDeepHealthCheckInProgress, HealthUnschedulable, DeepHealthCheckInProgress},
			{deepHealthCheckTimes[string(stress)] - time.Minute, smtypes.ClusterInstanceStatusDeepHealthCheckInProgress, HealthUnschedulable, DeepHealthCheckInProgress},
			{time.Minute, smtypes.ClusterInstanceStatusRunning, HealthSchedulable, DeepHealthCheckPassed},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			in := h.input("hp", "ml.g5.xlarge", 2, 0)
			in.InstanceGroups[0].OnStartDeepHealthChecks = c.checks
			ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(t)
			for i, s := range c.steps {
				f.advance(s.after)
				nodes := f.hpNodes("hp")
				if len(nodes) != 2 {
					t.Fatalf("step %d: %d nodes", i, len(nodes))
				}
				for _, n := range nodes {
					if n.InstanceStatus.Status != s.status {
						t.Errorf("step %d: node %s is %s, want %s", i, *n.InstanceId, n.InstanceStatus.Status, s.status)
					}
					v, joined := f.kubeNode(*n.InstanceId)
					if joined != (s.health != "") || v.Health != s.health || v.DeepHealth != s.deep {
						t.Errorf("step %d: node %s joined %v, health %q, deep %q; want %q, %q", i, *n.InstanceId, joined, v.Health, v.DeepHealth, s.health, s.deep)
					}
				}
			}
			if st := f.hpStatus("hp").ClusterStatus; st != smtypes.ClusterStatusInservice {
				t.Errorf("cluster is %s once its nodes are Running", st)
			}
		})
	}
}

// strikeOne injects a node fault into cluster hp and returns the logical
// and instance ids of the node it struck.
func (f *fixture) strikeOne(spec string) (string, string) {
	f.t.Helper()
	ok(f.w.InjectFault(ok(ParseFault(spec)).must(f.t))).must(f.t)
	var struck []NodeView
	for _, v := range f.kubeNodes() {
		if v.Health == HealthUnschedulable {
			struck = append(struck, v)
		}
	}
	if len(struck) != 1 {
		f.t.Fatalf("fault %q struck %d nodes: %+v", spec, len(struck), struck)
	}
	if got := f.w.Faults(); len(got) != 0 {
		f.t.Errorf("the node fault is still active after striking its one node: %+v", got)
	}
	for _, n := range f.hpNodes("hp") {
		if aws.ToString(n.InstanceId) == struck[0].InstanceID {
			return *n.NodeLogicalId, struck[0].InstanceID
		}
	}
	f.t.Fatalf("struck node %s is not listed", struck[0].InstanceID)
	return "", ""
}

func TestNodeFaultWithAutomaticRecovery(t *testing.T) {
	cases := []struct {
		recovery string
		pending  string                        // the label once the agent noticed
		during   smtypes.ClusterInstanceStatus // once the recovery starts
		takes    time.Duration                 // from the start of the recovery to Running
		newID    bool
	}{
		{"reboot", HealthUnschedulablePendingReboot, smtypes.ClusterInstanceStatusPending, hpNodeRebootTime, false},
		{"replace", HealthUnschedulablePendingReplacement, smtypes.ClusterInstanceStatusShuttingDown, hpNodeShutdownTime + hpNodeBootTime, true},
	}
	for _, c := range cases {
		t.Run(c.recovery, func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			f.createReady(h.input("hp", "ml.g5.xlarge", 2, 0))
			logical, id := f.strikeOne("node:cluster=hp,group=workers,recovery=" + c.recovery)
			v, _ := f.kubeNode(id)
			if v.Status != string(smtypes.ClusterInstanceStatusRunning) || len(v.Taints) != 1 || v.Taints[0].Effect != "NoSchedule" {
				t.Errorf("struck node: %+v", v)
			}
			if msg := aws.ToString(f.hpNode("hp", logical).InstanceStatus.Message); msg == "" {
				t.Errorf("the struck node's status has no message")
			}

			f.advance(hpDetectTime)
			if v, _ := f.kubeNode(id); v.Health != c.pending || v.Taints[0].Effect != "NoExecute" {
				t.Errorf("after detection: %+v, want %s", v, c.pending)
			}
			f.advance(hpRecoveryDelay)
			if d := f.hpNode("hp", logical); d.InstanceStatus.Status != c.during {
				t.Errorf("recovering node is %s, want %s", d.InstanceStatus.Status, c.during)
			}
			f.advance(c.takes)
			d := f.hpNode("hp", logical)
			if d.InstanceStatus.Status != smtypes.ClusterInstanceStatusRunning || (*d.InstanceId != id) != c.newID {
				t.Fatalf("after recovery: %s %s (was %s)", d.InstanceStatus.Status, *d.InstanceId, id)
			}
			if v, joined := f.kubeNode(*d.InstanceId); !joined || v.Health != HealthSchedulable || len(v.Taints) != 0 {
				t.Errorf("recovered node: %+v", v)
			}
			if _, joined := f.kubeNode(id); c.newID && joined {
				t.Errorf("the replaced instance %s is still in Kubernetes", id)
			}
			if n := len(f.kubeNodes()); n != 2 {
				t.Errorf("%d nodes in Kubernetes after recovery", n)
			}
		})
	}
}

func TestNodeFaultWithoutAutomaticRecovery(t *testing.T) {
	cases := []struct {
		recovery string
		fix      func(f *fixture, id string)
	}{
		{"reboot", func(f *fixture, id string) {
			out := ok(f.p.SageMaker.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: []string{id}})).must(f.t)
			if len(out.Successful) != 1 || len(out.Failed) != 0 {
				f.t.Fatalf("reboot: %+v", out)
			}
			f.advance(hpNodeRebootTime)
		}},
		{"replace", func(f *fixture, id string) {
			// A reboot does not fix what needs new hardware.
			ok(f.p.SageMaker.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: []string{id}})).must(f.t)
			f.advance(hpNodeRebootTime)
			if v, _ := f.kubeNode(id); v.Health != HealthUnschedulable {
				f.t.Errorf("after a reboot, a node that needs a replacement is %s", v.Health)
			}
			out := ok(f.p.SageMaker.BatchReplaceClusterNodes(f.ctx, &sagemaker.BatchReplaceClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: []string{id}})).must(f.t)
			if len(out.Successful) != 1 || len(out.Failed) != 0 {
				f.t.Fatalf("replace: %+v", out)
			}
			f.advance(hpNodeShutdownTime + hpNodeBootTime)
		}},
	}
	for _, c := range cases {
		t.Run(c.recovery, func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			in := h.input("hp", "ml.g5.xlarge", 2, 0)
			in.NodeRecovery = smtypes.ClusterNodeRecoveryNone
			f.createReady(in)
			logical, id := f.strikeOne("node:cluster=hp,recovery=" + c.recovery)
			f.advance(time.Hour)
			if v, _ := f.kubeNode(id); v.Health != HealthUnschedulable || v.Status != string(smtypes.ClusterInstanceStatusRunning) {
				t.Fatalf("an hour later without automatic recovery: %+v", v)
			}
			c.fix(f, id)
			d := f.hpNode("hp", logical)
			v, joined := f.kubeNode(*d.InstanceId)
			if d.InstanceStatus.Status != smtypes.ClusterInstanceStatusRunning || !joined || v.Health != HealthSchedulable {
				t.Errorf("after the client's %s: %s, %+v", c.recovery, d.InstanceStatus.Status, v)
			}
		})
	}
}

func TestHealthCheckFault(t *testing.T) {
	cases := []struct {
		recovery smtypes.ClusterNodeRecovery
		replaced bool
	}{
		{smtypes.ClusterNodeRecoveryAutomatic, true},
		{smtypes.ClusterNodeRecoveryNone, false},
	}
	for _, c := range cases {
		t.Run(string(c.recovery), func(t *testing.T) {
			f := newFixture(t)
			h := f.hyperPod()
			ok(f.w.InjectFault(ok(ParseFault("healthcheck:cluster=hp,instanceType=ml.g5.xlarge")).must(t))).must(t)
			in := h.input("hp", "ml.g5.xlarge", 2, 0)
			in.NodeRecovery = c.recovery
			in.InstanceGroups[0].OnStartDeepHealthChecks = []smtypes.DeepHealthCheckType{smtypes.DeepHealthCheckTypeInstanceConnectivity}
			ok(f.p.SageMaker.CreateCluster(f.ctx, in)).must(t)
			f.advance(hpCreateTime + deepHealthCheckTimes[string(smtypes.DeepHealthCheckTypeInstanceConnectivity)])
			var failed []NodeView
			for _, v := range f.kubeNodes() {
				switch v.DeepHealth {
				case DeepHealthCheckFailed:
					failed = append(failed, v)
				case DeepHealthCheckPassed:
				default:
					t.Errorf("node %s deep health %q", v.InstanceID, v.DeepHealth)
				}
			}
			if len(failed) != 1 || failed[0].Health != HealthUnschedulable {
				t.Fatalf("failed checks: %+v", failed)
			}
			if len(f.w.Faults()) != 0 {
				t.Errorf("the healthcheck fault was not used up")
			}
			var logical string
			for _, n := range f.hpNodes("hp") {
				if *n.InstanceId == failed[0].InstanceID {
					logical = *n.NodeLogicalId
					if !strings.Contains(aws.ToString(n.InstanceStatus.Message), "simulated fault") {
						t.Errorf("status message %q", aws.ToString(n.InstanceStatus.Message))
					}
				}
			}
			// Replacing takes the detection, the shutdown, a boot and the
			// new instance's checks.
			f.advance(hpDetectTime + hpRecoveryDelay + hpNodeShutdownTime + hpNodeBootTime + deepHealthCheckTimes[string(smtypes.DeepHealthCheckTypeInstanceConnectivity)])
			d := f.hpNode("hp", logical)
			if (*d.InstanceId != failed[0].InstanceID) != c.replaced {
				t.Fatalf("instance %s, was %s; replaced should be %v", *d.InstanceId, failed[0].InstanceID, c.replaced)
			}
			v, _ := f.kubeNode(*d.InstanceId)
			want := DeepHealthCheckFailed
			if c.replaced {
				want = DeepHealthCheckPassed
			}
			if v.DeepHealth != want {
				t.Errorf("deep health %q, want %q", v.DeepHealth, want)
			}
		})
	}
}

func TestStartClusterHealthCheck(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 2, 0))
	id := instanceIDs(f.hpNodes("hp"))[0]
	checks := []smtypes.DeepHealthCheckType{smtypes.DeepHealthCheckTypeInstanceStress}
	start := func(group string, ids []string, checks []smtypes.DeepHealthCheckType) error {
		_, err := f.p.SageMaker.StartClusterHealthCheck(f.ctx, &sagemaker.StartClusterHealthCheckInput{
			ClusterName:                   aws.String("hp"),
			DeepHealthCheckConfigurations: []smtypes.InstanceGroupHealthCheckConfiguration{{InstanceGroupName: aws.String(group), DeepHealthChecks: checks, InstanceIds: ids}},
		})
		return err
	}
	mustCode(t, start("nope", nil, checks), "ValidationException")
	mustCode(t, start("workers", []string{"i-00000000000000000"}, checks), "ValidationException")
	mustCode(t, start("workers", nil, []smtypes.DeepHealthCheckType{"Vibes"}), "ValidationException")
	if err := start("workers", []string{id}, checks); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.kubeNode(id); v.DeepHealth != DeepHealthCheckInProgress || v.Status != string(smtypes.ClusterInstanceStatusDeepHealthCheckInProgress) {
		t.Errorf("node under checks: %+v", v)
	}
	mustCode(t, start("workers", []string{id}, checks), "ValidationException") // already under checks
	f.advance(deepHealthCheckTimes[string(smtypes.DeepHealthCheckTypeInstanceStress)])
	if v, _ := f.kubeNode(id); v.DeepHealth != DeepHealthCheckPassed || v.Health != HealthSchedulable {
		t.Errorf("node after checks: %+v", v)
	}
}
