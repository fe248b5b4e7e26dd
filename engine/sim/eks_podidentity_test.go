package sim

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

func TestPodIdentityAssociations(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	f.eksCluster("hp", n)
	role := f.role("app")
	create := func(ns, sa, role string) (*eks.CreatePodIdentityAssociationOutput, error) {
		return f.p.EKS.CreatePodIdentityAssociation(f.ctx, &eks.CreatePodIdentityAssociationInput{
			ClusterName: aws.String("hp"), Namespace: aws.String(ns), ServiceAccount: aws.String(sa), RoleArn: aws.String(role),
		})
	}
	a := ok(create("team-a", "trainer", role)).must(t).Association
	ok(create("team-b", "trainer", role)).must(t)
	var inUse *ekstypes.ResourceInUseException
	if _, err := create("team-a", "trainer", role); !errors.As(err, &inUse) {
		t.Errorf("duplicate service account: %v", err)
	}
	var badParam *ekstypes.InvalidParameterException
	if _, err := create("team-c", "x", "arn:aws:iam::123456789012:role/nope"); !errors.As(err, &badParam) {
		t.Errorf("unknown role: %v", err)
	}
	list := func(ns, sa *string) int {
		return len(ok(f.p.EKS.ListPodIdentityAssociations(f.ctx, &eks.ListPodIdentityAssociationsInput{
			ClusterName: aws.String("hp"), Namespace: ns, ServiceAccount: sa,
		})).must(t).Associations)
	}
	if list(nil, nil) != 2 || list(aws.String("team-a"), nil) != 1 || list(nil, aws.String("trainer")) != 2 || list(aws.String("x"), nil) != 0 {
		t.Errorf("filtered lists: %d %d %d %d", list(nil, nil), list(aws.String("team-a"), nil), list(nil, aws.String("trainer")), list(aws.String("x"), nil))
	}
	ok(f.p.EKS.DeletePodIdentityAssociation(f.ctx, &eks.DeletePodIdentityAssociationInput{ClusterName: aws.String("hp"), AssociationId: a.AssociationId})).must(t)
	if list(nil, nil) != 1 {
		t.Errorf("after delete: %d associations", list(nil, nil))
	}
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.EKS.DeletePodIdentityAssociation(f.ctx, &eks.DeletePodIdentityAssociationInput{ClusterName: aws.String("hp"), AssociationId: a.AssociationId}); !errors.As(err, &notFound) {
		t.Errorf("second delete: %v", err)
	}
}
