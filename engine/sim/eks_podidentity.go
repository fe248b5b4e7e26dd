package sim

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// podIdentityRec lets the pods of one service account assume an IAM role.
type podIdentityRec struct {
	ID                 string
	Arn                string
	Namespace          string
	ServiceAccount     string
	RoleArn            string
	TargetRoleArn      string            `json:",omitempty"`
	OwnerArn           string            `json:",omitempty"` // the add-on that made it, if any
	DisableSessionTags bool              `json:",omitempty"`
	Tags               map[string]string `json:",omitempty"`
	CreatedAt          time.Time
}

// newPodIdentity validates and records an association; ownerArn is the
// add-on that makes it, or "".
func (t *txn) newPodIdentity(c *eksClusterRec, namespace, serviceAccount, roleArn, ownerArn string, tags map[string]string) (*podIdentityRec, error) {
	if namespace == "" || serviceAccount == "" {
		return nil, eksInvalidParameter("A pod identity association needs a namespace and a service account.")
	}
	if t.roleUsable(roleArn) == nil {
		return nil, eksInvalidParameter("Role %s does not exist or is not in account %s.", roleArn, t.account())
	}
	for _, id := range sortedKeys(c.PodIdentities) {
		if p := c.PodIdentities[id]; p.Namespace == namespace && p.ServiceAccount == serviceAccount {
			return nil, &ekstypes.ResourceInUseException{
				Message:     aws.String(fmt.Sprintf("Association already exists: %s", p.ID)),
				ClusterName: aws.String(c.Name),
			}
		}
	}
	id := "a-" + t.randString(lowerAlnum, 17)
	p := &podIdentityRec{
		ID: id, Arn: fmt.Sprintf("arn:aws:eks:%s:%s:podidentityassociation/%s/%s", t.region, t.account(), c.Name, id),
		Namespace: namespace, ServiceAccount: serviceAccount, RoleArn: roleArn, OwnerArn: ownerArn, Tags: tags, CreatedAt: t.now,
	}
	c.PodIdentities[id] = p
	return p, nil
}

func (t *txn) podIdentityOut(c *eksClusterRec, p *podIdentityRec) *ekstypes.PodIdentityAssociation {
	return &ekstypes.PodIdentityAssociation{
		AssociationId: aws.String(p.ID), AssociationArn: aws.String(p.Arn), ClusterName: aws.String(c.Name),
		Namespace: aws.String(p.Namespace), ServiceAccount: aws.String(p.ServiceAccount), RoleArn: aws.String(p.RoleArn),
		TargetRoleArn: optionalString(p.TargetRoleArn), OwnerArn: optionalString(p.OwnerArn),
		DisableSessionTags: aws.Bool(p.DisableSessionTags), Tags: maps.Clone(p.Tags),
		CreatedAt: aws.Time(p.CreatedAt), ModifiedAt: aws.Time(p.CreatedAt),
	}
}

// CreatePodIdentityAssociation lets a service account's pods assume a role.
// There is at most one association per namespace and service account.
func (a *eksAPI) CreatePodIdentityAssociation(ctx context.Context, in *eks.CreatePodIdentityAssociationInput, _ ...func(*eks.Options)) (*eks.CreatePodIdentityAssociationOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "CreatePodIdentityAssociation", func(t *txn) (*eks.CreatePodIdentityAssociationOutput, error) {
		in := orZero(in)
		if err := need("CreatePodIdentityAssociationInput", param{"ClusterName", in.ClusterName != nil}, param{"Namespace", in.Namespace != nil},
			param{"RoleArn", in.RoleArn != nil}, param{"ServiceAccount", in.ServiceAccount != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		if c.status(t.now) == ekstypes.ClusterStatusDeleting {
			return nil, eksInvalidRequest("Cluster %s is being deleted.", c.Name)
		}
		if arn := aws.ToString(in.TargetRoleArn); arn != "" && !principalPattern.MatchString(arn) {
			return nil, eksInvalidParameter("TargetRoleArn %s is not an IAM role ARN.", arn)
		}
		p, err := t.newPodIdentity(c, *in.Namespace, *in.ServiceAccount, *in.RoleArn, "", maps.Clone(in.Tags))
		if err != nil {
			return nil, err
		}
		p.TargetRoleArn, p.DisableSessionTags = aws.ToString(in.TargetRoleArn), aws.ToBool(in.DisableSessionTags)
		return &eks.CreatePodIdentityAssociationOutput{Association: t.podIdentityOut(c, p)}, nil
	})
}

// ListPodIdentityAssociations lists a cluster's associations, optionally
// only those of a namespace and/or service account.
func (a *eksAPI) ListPodIdentityAssociations(ctx context.Context, in *eks.ListPodIdentityAssociationsInput, _ ...func(*eks.Options)) (*eks.ListPodIdentityAssociationsOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "ListPodIdentityAssociations", func(t *txn) (*eks.ListPodIdentityAssociationsOutput, error) {
		in := orZero(in)
		if err := need("ListPodIdentityAssociationsInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		if err := eksMaxResults(in.MaxResults); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		var all []ekstypes.PodIdentityAssociationSummary
		for _, id := range sortedKeys(c.PodIdentities) {
			p := c.PodIdentities[id]
			if (in.Namespace != nil && *in.Namespace != p.Namespace) || (in.ServiceAccount != nil && *in.ServiceAccount != p.ServiceAccount) {
				continue
			}
			all = append(all, ekstypes.PodIdentityAssociationSummary{
				AssociationId: aws.String(p.ID), AssociationArn: aws.String(p.Arn), ClusterName: aws.String(c.Name),
				Namespace: aws.String(p.Namespace), ServiceAccount: aws.String(p.ServiceAccount), OwnerArn: optionalString(p.OwnerArn),
			})
		}
		items, next, err := page(all, in.NextToken, t.pageSize(svcEKS, "ListPodIdentityAssociations", in.MaxResults), 100)
		if err != nil {
			return nil, eksInvalidParameter("The pagination token is invalid.")
		}
		return &eks.ListPodIdentityAssociationsOutput{Associations: items, NextToken: next}, nil
	})
}

// DeletePodIdentityAssociation deletes an association that no add-on owns.
func (a *eksAPI) DeletePodIdentityAssociation(ctx context.Context, in *eks.DeletePodIdentityAssociationInput, _ ...func(*eks.Options)) (*eks.DeletePodIdentityAssociationOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DeletePodIdentityAssociation", func(t *txn) (*eks.DeletePodIdentityAssociationOutput, error) {
		in := orZero(in)
		if err := need("DeletePodIdentityAssociationInput", param{"AssociationId", in.AssociationId != nil}, param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		p := c.PodIdentities[*in.AssociationId]
		if p == nil {
			return nil, &ekstypes.ResourceNotFoundException{
				Message:     aws.String(fmt.Sprintf("Association %s not found in cluster %s.", *in.AssociationId, c.Name)),
				ClusterName: aws.String(c.Name),
			}
		}
		if p.OwnerArn != "" {
			return nil, eksInvalidRequest("Association %s is owned by add-on %s; delete or update the add-on instead.", p.ID, p.OwnerArn)
		}
		out := t.podIdentityOut(c, p)
		delete(c.PodIdentities, p.ID)
		return &eks.DeletePodIdentityAssociationOutput{Association: out}, nil
	})
}
