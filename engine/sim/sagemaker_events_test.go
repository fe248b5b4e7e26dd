package sim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

func (f *fixture) events(in *sagemaker.ListClusterEventsInput) []smtypes.ClusterEventSummary {
	f.t.Helper()
	var all []smtypes.ClusterEventSummary
	for {
		out := ok(f.p.SageMaker.ListClusterEvents(f.ctx, in)).must(f.t)
		all = append(all, out.Events...)
		if out.NextToken == nil {
			return all
		}
		in.NextToken = out.NextToken
	}
}

func TestListClusterEventsReportsNodesAndGroups(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(continuous(h.input("hp", "ml.g5.xlarge", 2, 0)))
	ids := instanceIDs(f.hpNodes("hp"))

	all := f.events(&sagemaker.ListClusterEventsInput{ClusterName: aws.String("hp"), SortOrder: smtypes.SortOrderAscending, MaxResults: aws.Int32(2)})
	byType := map[smtypes.ClusterEventResourceType]int{}
	for i, e := range all {
		byType[e.ResourceType]++
		if i > 0 && e.EventTime.Before(*all[i-1].EventTime) {
			t.Errorf("events out of order: %v before %v", all[i-1].EventTime, e.EventTime)
		}
	}
	if byType[smtypes.ClusterEventResourceTypeCluster] == 0 || byType[smtypes.ClusterEventResourceTypeInstanceGroup] == 0 || byType[smtypes.ClusterEventResourceTypeInstance] < 2 {
		t.Errorf("events by resource type: %v", byType)
	}

	node := f.events(&sagemaker.ListClusterEventsInput{ClusterName: aws.String("hp"), ResourceType: smtypes.ClusterEventResourceTypeInstance, NodeId: aws.String(ids[0])})
	if len(node) == 0 {
		t.Fatalf("no events of node %s", ids[0])
	}
	for _, e := range node {
		if *e.InstanceId != ids[0] || *e.InstanceGroupName != "workers" {
			t.Errorf("event of another node: %+v", e)
		}
	}
	d := ok(f.p.SageMaker.DescribeClusterEvent(f.ctx, &sagemaker.DescribeClusterEventInput{ClusterName: aws.String("hp"), EventId: node[0].EventId})).must(t).EventDetails
	meta, isInstance := d.EventDetails.EventMetadata.(*smtypes.EventMetadataMemberInstance)
	if *d.Description != *node[0].Description || !isInstance || meta.Value.NodeLogicalId == nil {
		t.Errorf("described event: %+v", d)
	}
	_, err := f.p.SageMaker.DescribeClusterEvent(f.ctx, &sagemaker.DescribeClusterEventInput{ClusterName: aws.String("hp"), EventId: aws.String("nope")})
	mustCode(t, err, "ResourceNotFound")

	// A node fault and its recovery are events too.
	before := len(f.events(&sagemaker.ListClusterEventsInput{ClusterName: aws.String("hp")}))
	ok(f.w.InjectFault(Fault{Kind: FaultNode, Cluster: "hp"})).must(t)
	f.kubeNodes() // a fault strikes when the world is next read
	f.advance(hpDetectTime + hpRecoveryDelay + hpNodeRebootTime)
	levels := map[smtypes.ClusterEventLevel]int{}
	all = f.events(&sagemaker.ListClusterEventsInput{ClusterName: aws.String("hp")})
	for _, e := range all {
		levels[e.EventLevel]++
	}
	// The strike, the label, the reboot and its end.
	if len(all) != before+4 || levels[smtypes.ClusterEventLevelError] != 1 || levels[smtypes.ClusterEventLevelWarn] != 1 {
		t.Errorf("the fault added %d events; levels %v", len(all)-before, levels)
	}

	f.createReady(h.input("classic", "ml.g5.xlarge", 1, 0))
	_, err = f.p.SageMaker.ListClusterEvents(f.ctx, &sagemaker.ListClusterEventsInput{ClusterName: aws.String("classic")})
	mustCode(t, err, "ValidationException")
}
