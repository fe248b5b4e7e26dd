package sim

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// igwRec is an internet gateway, attached to at most one VPC.
type igwRec struct {
	ID    string
	VpcID string `json:",omitempty"`
}

// CreateInternetGateway creates a detached internet gateway.
func (a *ec2API) CreateInternetGateway(ctx context.Context, in *ec2.CreateInternetGatewayInput, _ ...func(*ec2.Options)) (*ec2.CreateInternetGatewayOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateInternetGateway", func(t *txn) (*ec2.CreateInternetGatewayOutput, error) {
		in := orZero(in)
		tags, err := tagsFromSpecs(ec2types.ResourceTypeInternetGateway, in.TagSpecifications)
		if err != nil {
			return nil, err
		}
		g := &igwRec{ID: t.newID("igw")}
		t.rs.IGWs[g.ID] = g
		t.setTags(g.ID, tags)
		return &ec2.CreateInternetGatewayOutput{InternetGateway: t.igwOut(g)}, nil
	})
}

func (t *txn) igwOut(g *igwRec) *ec2types.InternetGateway {
	out := &ec2types.InternetGateway{
		InternetGatewayId: aws.String(g.ID),
		OwnerId:           aws.String(t.account()),
		Tags:              t.ec2Tags(g.ID),
	}
	if g.VpcID != "" {
		out.Attachments = []ec2types.InternetGatewayAttachment{{State: "available", VpcId: aws.String(g.VpcID)}}
	}
	return out
}

func (t *txn) igw(id *string) (*igwRec, error) {
	g := t.rs.IGWs[aws.ToString(id)]
	if g == nil {
		return nil, ec2Error("InvalidInternetGatewayID.NotFound", "The internetGateway ID '%s' does not exist", aws.ToString(id))
	}
	return g, nil
}

// attachedIGW returns the internet gateway attached to VPC vpcID, or nil.
func (t *txn) attachedIGW(vpcID string) *igwRec {
	for _, id := range sortedKeys(t.rs.IGWs) {
		if g := t.rs.IGWs[id]; g.VpcID == vpcID {
			return g
		}
	}
	return nil
}

// AttachInternetGateway attaches a gateway to a VPC; each has at most one.
func (a *ec2API) AttachInternetGateway(ctx context.Context, in *ec2.AttachInternetGatewayInput, _ ...func(*ec2.Options)) (*ec2.AttachInternetGatewayOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "AttachInternetGateway", func(t *txn) (*ec2.AttachInternetGatewayOutput, error) {
		in := orZero(in)
		if err := need("AttachInternetGatewayInput", param{"InternetGatewayId", in.InternetGatewayId != nil}, param{"VpcId", in.VpcId != nil}); err != nil {
			return nil, err
		}
		g, err := t.igw(in.InternetGatewayId)
		if err != nil {
			return nil, err
		}
		v, err := t.vpc(in.VpcId)
		if err != nil {
			return nil, err
		}
		if g.VpcID != "" {
			return nil, ec2Error("Resource.AlreadyAssociated", "resource %s is already attached to network %s", g.ID, g.VpcID)
		}
		if other := t.attachedIGW(v.ID); other != nil {
			return nil, ec2Error("Resource.AlreadyAssociated", "Network %s already has an internet gateway attached (%s)", v.ID, other.ID)
		}
		g.VpcID = v.ID
		return &ec2.AttachInternetGatewayOutput{}, nil
	})
}

// DetachInternetGateway detaches a gateway from the VPC it is attached to.
func (a *ec2API) DetachInternetGateway(ctx context.Context, in *ec2.DetachInternetGatewayInput, _ ...func(*ec2.Options)) (*ec2.DetachInternetGatewayOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DetachInternetGateway", func(t *txn) (*ec2.DetachInternetGatewayOutput, error) {
		in := orZero(in)
		if err := need("DetachInternetGatewayInput", param{"InternetGatewayId", in.InternetGatewayId != nil}, param{"VpcId", in.VpcId != nil}); err != nil {
			return nil, err
		}
		g, err := t.igw(in.InternetGatewayId)
		if err != nil {
			return nil, err
		}
		if _, err := t.vpc(in.VpcId); err != nil {
			return nil, err
		}
		if g.VpcID != aws.ToString(in.VpcId) {
			return nil, ec2Error("Gateway.NotAttached", "resource %s is not attached to network %s", g.ID, aws.ToString(in.VpcId))
		}
		g.VpcID = ""
		return &ec2.DetachInternetGatewayOutput{}, nil
	})
}

// DescribeInternetGateways lists gateways by id and filters
// (attachment.vpc-id, attachment.state, internet-gateway-id, tag:<key>,
// tag-key).
func (a *ec2API) DescribeInternetGateways(ctx context.Context, in *ec2.DescribeInternetGatewaysInput, _ ...func(*ec2.Options)) (*ec2.DescribeInternetGatewaysOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeInternetGateways", func(t *txn) (*ec2.DescribeInternetGatewaysOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeInternetGateways", in.Filters, "attachment.vpc-id", "attachment.state", "internet-gateway-id", "owner-id")
		if err != nil {
			return nil, err
		}
		ids := newIDSet(in.InternetGatewayIds)
		if id, ok := ids.missing(func(id string) bool { return t.rs.IGWs[id] != nil }); ok {
			return nil, ec2Error("InvalidInternetGatewayID.NotFound", "The internetGateway ID '%s' does not exist", id)
		}
		out := &ec2.DescribeInternetGatewaysOutput{}
		for _, id := range sortedKeys(t.rs.IGWs) {
			g := t.rs.IGWs[id]
			fields := map[string][]string{"internet-gateway-id": {g.ID}, "owner-id": {t.account()}}
			if g.VpcID != "" {
				fields["attachment.vpc-id"] = []string{g.VpcID}
				fields["attachment.state"] = []string{"available"}
			}
			if ids.has(id) && fs.match(t.rs.Tags[id], fields) {
				out.InternetGateways = append(out.InternetGateways, *t.igwOut(g))
			}
		}
		items, next, err := page(out.InternetGateways, in.NextToken, t.pageSize(svcEC2, "DescribeInternetGateways", in.MaxResults), 1000)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		out.InternetGateways, out.NextToken = items, next
		return out, nil
	})
}

// DeleteInternetGateway deletes a detached gateway.
func (a *ec2API) DeleteInternetGateway(ctx context.Context, in *ec2.DeleteInternetGatewayInput, _ ...func(*ec2.Options)) (*ec2.DeleteInternetGatewayOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DeleteInternetGateway", func(t *txn) (*ec2.DeleteInternetGatewayOutput, error) {
		in := orZero(in)
		if err := need("DeleteInternetGatewayInput", param{"InternetGatewayId", in.InternetGatewayId != nil}); err != nil {
			return nil, err
		}
		g, err := t.igw(in.InternetGatewayId)
		if err != nil {
			return nil, err
		}
		if g.VpcID != "" {
			return nil, ec2Error("DependencyViolation", "The internetGateway '%s' has dependencies and cannot be deleted (attached to %s).", g.ID, g.VpcID)
		}
		delete(t.rs.Tags, g.ID)
		delete(t.rs.IGWs, g.ID)
		return &ec2.DeleteInternetGatewayOutput{}, nil
	})
}
