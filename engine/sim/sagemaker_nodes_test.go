package sim

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

func TestListClusterNodesFiltersAndPages(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	ok(f.p.SageMaker.CreateCluster(f.ctx, h.input("beta", "ml.g5.xlarge", 3, 1))).must(t)
	nodesIn := &sagemaker.ListClusterNodesInput{ClusterName: aws.String("beta"), MaxResults: aws.Int32(2)}
	first := ok(f.p.SageMaker.ListClusterNodes(f.ctx, nodesIn)).must(t)
	if len(first.ClusterNodeSummaries) != 2 || first.NextToken == nil {
		t.Fatalf("first page = %d nodes", len(first.ClusterNodeSummaries))
	}
	nodesIn.NextToken = first.NextToken
	if rest := ok(f.p.SageMaker.ListClusterNodes(f.ctx, nodesIn)).must(t); len(rest.ClusterNodeSummaries) != 1 || rest.NextToken != nil {
		t.Errorf("second page = %d nodes", len(rest.ClusterNodeSummaries))
	}
	none := ok(f.p.SageMaker.ListClusterNodes(f.ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String("beta"), InstanceGroupNameContains: aws.String("gpu")})).must(t)
	if len(none.ClusterNodeSummaries) != 0 {
		t.Errorf("group filter returned %d nodes", len(none.ClusterNodeSummaries))
	}
	var notFound *smtypes.ResourceNotFound
	if _, err := f.p.SageMaker.ListClusterNodes(f.ctx, &sagemaker.ListClusterNodesInput{ClusterName: aws.String("nope")}); !errors.As(err, &notFound) {
		t.Errorf("nodes of an unknown cluster: %v", err)
	}
}
