package sim

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/aws/smithy-go"
)

// fakeIDs returns n well-formed instance ids no cluster has.
func fakeIDs(n int) []string {
	var ids []string
	for i := 0; i < n; i++ {
		ids = append(ids, fmt.Sprintf("i-%017x", i+1))
	}
	return ids
}

// errOf is the error of a call's results.
func errOf[T any](_ T, err error) error { return err }

func TestBatchNodeCallLimits(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 1, 0))
	hp := aws.String("hp")
	sm := f.p.SageMaker
	cases := []struct {
		name string
		err  error
		code string // "" when the call is accepted (unknown ids fail one by one)
	}{
		{"delete 99 ids", errOf(sm.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: hp, NodeIds: fakeIDs(99)})), ""},
		{"delete 100 ids", errOf(sm.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: hp, NodeIds: fakeIDs(100)})), "ValidationException"},
		{"delete 51 ids with logical ids", errOf(sm.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: hp, NodeIds: fakeIDs(50), NodeLogicalIds: []string{"node-x"}})), "ValidationException"},
		{"delete nothing", errOf(sm.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: hp})), "ValidationException"},
		{"reboot 25 ids", errOf(sm.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: hp, NodeIds: fakeIDs(25)})), ""},
		{"reboot 26 ids", errOf(sm.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: hp, NodeIds: fakeIDs(26)})), "ValidationException"},
		{"reboot nothing", errOf(sm.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: hp})), "ValidationException"},
		{"reboot a malformed id", errOf(sm.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: hp, NodeIds: []string{"node-1"}})), "ValidationException"},
		{"reboot by logical id without Continuous provisioning", errOf(sm.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: hp, NodeLogicalIds: []string{"node-x"}})), "ValidationException"},
		{"replace 25 ids", errOf(sm.BatchReplaceClusterNodes(f.ctx, &sagemaker.BatchReplaceClusterNodesInput{ClusterName: hp, NodeIds: fakeIDs(25)})), ""},
		{"replace 26 ids", errOf(sm.BatchReplaceClusterNodes(f.ctx, &sagemaker.BatchReplaceClusterNodesInput{ClusterName: hp, NodeIds: fakeIDs(26)})), "ValidationException"},
		{"replace in an unknown cluster", errOf(sm.BatchReplaceClusterNodes(f.ctx, &sagemaker.BatchReplaceClusterNodesInput{ClusterName: aws.String("nope"), NodeIds: fakeIDs(1)})), "ResourceNotFound"},
	}
	for _, c := range cases {
		if c.code == "" {
			if c.err != nil {
				t.Errorf("%s: %v", c.name, c.err)
			}
			continue
		}
		if got := errorCode(t, c.err); got != c.code {
			t.Errorf("%s: code %q, want %q (%v)", c.name, got, c.code, c.err)
		}
	}
	var missing *smithy.InvalidParamsError
	if _, err := sm.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{NodeIds: fakeIDs(1)}); !errorsAs(err, &missing) {
		t.Errorf("without ClusterName: %v", err)
	}
	for _, op := range []string{"BatchDeleteClusterNodes", "BatchRebootClusterNodes", "BatchReplaceClusterNodes"} {
		if f.w.Calls()["sagemaker"][op] == 0 {
			t.Errorf("%s was not counted", op)
		}
	}
}

func TestBatchDeleteClusterNodes(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 3, 0))
	ids := instanceIDs(f.hpNodes("hp"))
	unknown := fakeIDs(1)[0]
	out := ok(f.p.SageMaker.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: []string{ids[0], unknown}})).must(t)
	if len(out.Successful) != 1 || out.Successful[0] != ids[0] || len(out.Failed) != 1 ||
		out.Failed[0].Code != smtypes.BatchDeleteClusterNodesErrorCodeNodeIdNotFound || *out.Failed[0].NodeId != unknown {
		t.Errorf("delete: %+v", out)
	}
	if g := f.group("hp", "workers"); *g.TargetCount != 2 {
		t.Errorf("target count %d after deleting a node", *g.TargetCount)
	}
	again := ok(f.p.SageMaker.BatchDeleteClusterNodes(f.ctx, &sagemaker.BatchDeleteClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: ids[:1]})).must(t)
	if len(again.Failed) != 1 || again.Failed[0].Code != smtypes.BatchDeleteClusterNodesErrorCodeInvalidNodeStatus {
		t.Errorf("deleting a node twice: %+v", again)
	}
	reboot := ok(f.p.SageMaker.BatchRebootClusterNodes(f.ctx, &sagemaker.BatchRebootClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: ids[:1]})).must(t)
	if len(reboot.Failed) != 1 || reboot.Failed[0].ErrorCode != smtypes.BatchRebootClusterNodesErrorCodeInvalidInstanceStatus {
		t.Errorf("rebooting a node that shuts down: %+v", reboot)
	}
	f.advance(hpNodeShutdownTime)
	if got := instanceIDs(f.hpNodes("hp")); len(got) != 2 || got[0] == ids[0] || got[1] == ids[0] {
		t.Errorf("nodes after the deletion: %v", got)
	}
}

func TestBatchRebootOfARebootingNode(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 1, 0))
	id := instanceIDs(f.hpNodes("hp"))[0]
	in := &sagemaker.BatchRebootClusterNodesInput{ClusterName: aws.String("hp"), NodeIds: []string{id}}
	ok(f.p.SageMaker.BatchRebootClusterNodes(f.ctx, in)).must(t)
	if out := ok(f.p.SageMaker.BatchRebootClusterNodes(f.ctx, in)).must(t); len(out.Failed) != 1 {
		t.Errorf("a second reboot: %+v", out)
	}
	f.advance(hpNodeRebootTime)
	if out := ok(f.p.SageMaker.BatchRebootClusterNodes(f.ctx, in)).must(t); len(out.Successful) != 1 {
		t.Errorf("a reboot once the node is back: %+v", out)
	}
}

func TestBatchAddClusterNodesIsIdempotent(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(continuous(h.input("hp", "ml.g5.xlarge", 1, 0)))
	add := func(token string, count int32, group string) (*sagemaker.BatchAddClusterNodesOutput, error) {
		return f.p.SageMaker.BatchAddClusterNodes(f.ctx, &sagemaker.BatchAddClusterNodesInput{
			ClusterName: aws.String("hp"), ClientToken: aws.String(token),
			NodesToAdd: []smtypes.AddClusterNodeSpecification{{InstanceGroupName: aws.String(group), IncrementTargetCountBy: aws.Int32(count)}},
		})
	}
	first := ok(add("tok-1", 2, "workers")).must(t)
	if len(first.Successful) != 2 || len(first.Failed) != 0 || first.Successful[0].Status != smtypes.ClusterInstanceStatusPending ||
		first.Successful[0].AvailabilityZones[0] != "us-west-2a" {
		t.Fatalf("first add: %+v", first)
	}
	f.advance(hpNodeBootTime)
	retry := ok(add("tok-1", 2, "workers")).must(t)
	if len(retry.Successful) != 2 || *retry.Successful[0].NodeLogicalId != *first.Successful[0].NodeLogicalId ||
		retry.Successful[0].Status != smtypes.ClusterInstanceStatusRunning {
		t.Errorf("retry: %+v", retry)
	}
	if g := f.group("hp", "workers"); *g.TargetCount != 3 || *g.CurrentCount != 3 {
		t.Errorf("after a retried add: %d/%d", *g.CurrentCount, *g.TargetCount)
	}
	if _, err := add("tok-1", 3, "workers"); errorCode(t, err) != "ValidationException" {
		t.Errorf("the token reused for another request: %v", err)
	}
	missing := ok(add("tok-2", 1, "nope")).must(t)
	if len(missing.Failed) != 1 || missing.Failed[0].ErrorCode != smtypes.BatchAddClusterNodesErrorCodeInstanceGroupNotFound || *missing.Failed[0].FailedCount != 1 {
		t.Errorf("unknown group: %+v", missing)
	}
	if _, err := add("tok-3", 51, "workers"); errorCode(t, err) != "ValidationException" {
		t.Errorf("51 nodes: %v", err)
	}
	var limit *smtypes.ResourceLimitExceeded
	if _, err := add("tok-4", 14, "workers"); !errorsAs(err, &limit) {
		t.Errorf("over the quota of 16: %v", err)
	}
	// A token lives 8 hours.
	f.advance(hpAddTokenLife)
	if again := ok(add("tok-1", 2, "workers")).must(t); *again.Successful[0].NodeLogicalId == *first.Successful[0].NodeLogicalId {
		t.Errorf("an expired token returned the old nodes")
	}
	if g := f.group("hp", "workers"); *g.TargetCount != 5 {
		t.Errorf("target count %d", *g.TargetCount)
	}

	f.createReady(h.input("classic", "ml.g5.xlarge", 1, 0))
	_, err := f.p.SageMaker.BatchAddClusterNodes(f.ctx, &sagemaker.BatchAddClusterNodesInput{ClusterName: aws.String("classic"),
		NodesToAdd: []smtypes.AddClusterNodeSpecification{{InstanceGroupName: aws.String("workers"), IncrementTargetCountBy: aws.Int32(1)}}})
	mustCode(t, err, "ValidationException")
}
