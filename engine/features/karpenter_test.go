package features_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/testwait"
)

// groupCounts reads an instance group's target and current counts.
func (f *fixture) groupCounts(t *testing.T, name string) (target, current int32) {
	t.Helper()
	p, _ := f.world.Provider("us-west-2")
	out, err := p.SageMaker.DescribeCluster(context.Background(), &sagemaker.DescribeClusterInput{ClusterName: aws.String(f.cluster.HyperPod.Name)})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range out.InstanceGroups {
		if aws.ToString(g.InstanceGroupName) == name {
			return aws.ToInt32(g.TargetCount), aws.ToInt32(g.CurrentCount)
		}
	}
	t.Fatalf("no instance group %s", name)
	return 0, 0
}

func TestKarpenterScalesAGroupFromZeroAndBack(t *testing.T) {
	f := newFixtureWith(t, []hyperpod.GroupSpec{{Name: "burst", InstanceTypes: []string{"ml.g5.xlarge"}, Count: 0, Zone: "us-west-2a"}})
	ctx := context.Background()

	// Refusals first: no groups, an unknown group; nothing is made.
	before := f.mutations()
	_, err := f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.KarpenterAutoscaling, Enable: true, Settings: &features.Settings{}}}, "")
	if !strings.Contains(fieldsOf(err), "input.karpenter.instanceGroups") {
		t.Fatalf("no groups: %v", err)
	}
	_, err = f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.KarpenterAutoscaling, Enable: true, Settings: &features.Settings{InstanceGroups: []string{"nope"}}}}, "")
	if !strings.Contains(codesOf(err), string(errs.Precondition)) {
		t.Fatalf("unknown group: %v", err)
	}
	if got := f.made(before); len(got) != 0 {
		t.Fatalf("refusals made %v", got)
	}

	on := features.Toggle{Name: hyperpod.KarpenterAutoscaling, Enable: true, Settings: &features.Settings{InstanceGroups: []string{"burst"}}}
	f.update(t, on)
	got := f.feature(t, hyperpod.KarpenterAutoscaling)
	if got.Status != features.Enabled || got.Settings == nil || len(got.Settings.InstanceGroups) != 1 {
		t.Fatalf("after enabling: %+v", got)
	}
	if op := f.update(t, on); !op.Noop {
		t.Fatal("enabling twice was not a no-op")
	}
	// Auto-recovery cannot go while Karpenter needs it.
	_, err = f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.NodeAutoRecovery}}, "")
	if !strings.Contains(err.Error(), "turn Managed Karpenter autoscaling off first") {
		t.Fatalf("turning auto-recovery off under Karpenter: %v", err)
	}

	// A pending GPU pod grows the group from zero; it runs there.
	p, _ := f.world.Provider("us-west-2")
	kc, err := p.Kubernetes.Clients(ctx, f.cluster.EKS.Name)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "main", Image: "pytorch", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}},
	}}}}
	if _, err := kc.Core.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the pod running on a new node", func() bool {
		p, err := kc.Core.CoreV1().Pods("default").Get(ctx, "train", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != ""
	})
	if target, current := f.groupCounts(t, "burst"); target != 1 || current != 1 {
		t.Fatalf("burst group %d/%d, want 1/1", current, target)
	}

	// Idle again, it goes back to zero.
	if err := kc.Core.CoreV1().Pods("default").Delete(ctx, "train", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the group back at zero", func() bool {
		target, current := f.groupCounts(t, "burst")
		return target == 0 && current == 0
	})

	// Off removes the objects, the setting, the role and the policy, and
	// leaves auto-recovery on.
	f.update(t, features.Toggle{Name: hyperpod.KarpenterAutoscaling})
	if got := f.feature(t, hyperpod.KarpenterAutoscaling); got.Status != features.Disabled {
		t.Fatalf("after disabling: %+v", got)
	}
	if got := f.feature(t, hyperpod.NodeAutoRecovery); got.Status != features.Enabled {
		t.Fatalf("auto-recovery after Karpenter went: %+v", got)
	}
}
