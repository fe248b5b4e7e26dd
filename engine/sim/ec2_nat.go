package sim

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Real NAT gateway latencies, divided by the world's speed.
const (
	natCreateTime = 90 * time.Second
	natDeleteTime = 60 * time.Second
)

// natRec is a NAT gateway: pending, then available (or failed); deleting,
// then deleted, and visible as deleted for an hour.
type natRec struct {
	ID           string
	SubnetID     string
	VpcID        string
	Connectivity string
	AllocationID string `json:",omitempty"`
	AssocID      string `json:",omitempty"`
	ClientToken  string `json:",omitempty"`
	PrivateIP    string
	ENI          string
	FailureCode  string `json:",omitempty"`
	Life         lifecycle
}

func (n *natRec) state(now time.Time) ec2types.NatGatewayState {
	switch n.Life.phase(now) {
	case phaseCreating:
		return ec2types.NatGatewayStatePending
	case phaseFailed:
		return ec2types.NatGatewayStateFailed
	case phaseDeleting:
		return ec2types.NatGatewayStateDeleting
	case phaseGone:
		return ec2types.NatGatewayStateDeleted
	}
	return ec2types.NatGatewayStateAvailable
}

// holdsENI tells whether the gateway still has its network interface (and
// Elastic IP): a failed or deleted gateway has released them.
func (n *natRec) holdsENI(now time.Time) bool {
	switch n.state(now) {
	case ec2types.NatGatewayStateFailed, ec2types.NatGatewayStateDeleted:
		return false
	}
	return true
}

// CreateNatGateway creates a NAT gateway in a subnet. A public gateway
// needs an Elastic IP no other gateway holds, and ends failed when its VPC
// has no internet gateway, as in EC2. ClientToken makes retries idempotent.
func (a *ec2API) CreateNatGateway(ctx context.Context, in *ec2.CreateNatGatewayInput, _ ...func(*ec2.Options)) (*ec2.CreateNatGatewayOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "CreateNatGateway", func(t *txn) (*ec2.CreateNatGatewayOutput, error) {
		in := orZero(in)
		if in.SubnetId == nil {
			return nil, ec2Error("MissingParameter", "The request must contain the parameter SubnetId")
		}
		if token := aws.ToString(in.ClientToken); token != "" {
			for _, id := range sortedKeys(t.rs.NATs) {
				if n := t.rs.NATs[id]; n.ClientToken == token {
					if n.SubnetID != *in.SubnetId || n.AllocationID != aws.ToString(in.AllocationId) {
						return nil, ec2Error("IdempotentParameterMismatch", "Client token %s was already used with different parameters.", token)
					}
					return &ec2.CreateNatGatewayOutput{ClientToken: in.ClientToken, NatGateway: t.natOut(n)}, nil
				}
			}
		}
		s, err := t.subnet(in.SubnetId)
		if err != nil {
			return nil, err
		}
		connectivity := in.ConnectivityType
		if connectivity == "" {
			connectivity = ec2types.ConnectivityTypePublic
		}
		n := &natRec{
			ID: t.newID("nat"), SubnetID: s.ID, VpcID: s.VpcID, Connectivity: string(connectivity),
			ClientToken: aws.ToString(in.ClientToken), ENI: t.newID("eni"),
			Life: newLifecycle(t.now, t.after(natCreateTime)),
		}
		if connectivity == ec2types.ConnectivityTypePublic {
			if in.AllocationId == nil {
				return nil, ec2Error("MissingParameter", "A public NAT gateway needs the parameter AllocationId")
			}
			if t.rs.Addresses[*in.AllocationId] == nil {
				return nil, ec2Error("InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist", *in.AllocationId)
			}
			if holder := t.addressHolder(*in.AllocationId); holder != nil {
				return nil, ec2Error("Resource.AlreadyAssociated", "Elastic IP address [%s] is already associated with %s", *in.AllocationId, holder.ID)
			}
			n.AllocationID, n.AssocID = *in.AllocationId, t.newID("eipassoc")
			if t.attachedIGW(s.VpcID) == nil {
				n.FailureCode, n.Life.FailMessage = "Gateway.NotAttached", "Network "+s.VpcID+" has no Internet gateway attached"
			}
		}
		tags, err := tagsFromSpecs(ec2types.ResourceTypeNatgateway, in.TagSpecifications)
		if err != nil {
			return nil, err
		}
		if msg, failed := t.failFault(svcEC2, "CreateNatGateway", "Simulated NAT gateway failure"); failed && n.FailureCode == "" {
			n.FailureCode, n.Life.FailMessage = "InternalError", msg
		}
		n.Life.HeldBy = t.holdFault(svcEC2, "CreateNatGateway")
		if ip, ok := t.leaseAddress(s.ID); ok {
			n.PrivateIP = ip
		} else if n.FailureCode == "" {
			n.FailureCode, n.Life.FailMessage = "InsufficientFreeAddressesInSubnet", "Subnet has insufficient free addresses to create this NAT gateway"
		}
		t.rs.NATs[n.ID] = n
		t.setTags(n.ID, tags)
		return &ec2.CreateNatGatewayOutput{ClientToken: in.ClientToken, NatGateway: t.natOut(n)}, nil
	})
}

func (t *txn) natOut(n *natRec) *ec2types.NatGateway {
	state := n.state(t.now)
	out := &ec2types.NatGateway{
		NatGatewayId:     aws.String(n.ID),
		SubnetId:         aws.String(n.SubnetID),
		VpcId:            aws.String(n.VpcID),
		ConnectivityType: ec2types.ConnectivityType(n.Connectivity),
		CreateTime:       aws.Time(n.Life.CreatedAt),
		State:            state,
		Tags:             t.ec2Tags(n.ID),
	}
	if state == ec2types.NatGatewayStateFailed {
		out.FailureCode, out.FailureMessage = aws.String(n.FailureCode), aws.String(n.Life.FailMessage)
	}
	if state == ec2types.NatGatewayStateDeleted && n.Life.GoneAt != nil {
		out.DeleteTime = aws.Time(*n.Life.GoneAt)
	}
	addr := ec2types.NatGatewayAddress{
		NetworkInterfaceId: aws.String(n.ENI),
		PrivateIp:          aws.String(n.PrivateIP),
		IsPrimary:          aws.Bool(true),
		Status:             ec2types.NatGatewayAddressStatusSucceeded,
	}
	switch state {
	case ec2types.NatGatewayStatePending:
		addr.Status = ec2types.NatGatewayAddressStatusAssociating
	case ec2types.NatGatewayStateDeleting:
		addr.Status = ec2types.NatGatewayAddressStatusDisassociating
	}
	if n.AllocationID != "" {
		addr.AllocationId, addr.AssociationId = aws.String(n.AllocationID), aws.String(n.AssocID)
		if e := t.rs.Addresses[n.AllocationID]; e != nil {
			addr.PublicIp = aws.String(e.PublicIP)
		}
	}
	out.NatGatewayAddresses = []ec2types.NatGatewayAddress{addr}
	return out
}

// DescribeNatGateways lists NAT gateways by id and filters (nat-gateway-id,
// state, subnet-id, vpc-id, tag:<key>, tag-key).
func (a *ec2API) DescribeNatGateways(ctx context.Context, in *ec2.DescribeNatGatewaysInput, _ ...func(*ec2.Options)) (*ec2.DescribeNatGatewaysOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DescribeNatGateways", func(t *txn) (*ec2.DescribeNatGatewaysOutput, error) {
		in := orZero(in)
		fs, err := t.ec2Filters("DescribeNatGateways", in.Filter, "nat-gateway-id", "state", "subnet-id", "vpc-id")
		if err != nil {
			return nil, err
		}
		ids := newIDSet(in.NatGatewayIds)
		if id, ok := ids.missing(func(id string) bool { return t.rs.NATs[id] != nil }); ok {
			return nil, ec2Error("InvalidNatGatewayID.NotFound", "The NAT gateway ID '%s' does not exist", id)
		}
		var all []ec2types.NatGateway
		for _, id := range sortedKeys(t.rs.NATs) {
			n := t.rs.NATs[id]
			fields := map[string][]string{
				"nat-gateway-id": {n.ID}, "state": {string(n.state(t.now))}, "subnet-id": {n.SubnetID}, "vpc-id": {n.VpcID},
			}
			if ids.has(id) && fs.match(t.rs.Tags[id], fields) {
				all = append(all, *t.natOut(n))
			}
		}
		items, next, err := page(all, in.NextToken, t.pageSize(svcEC2, "DescribeNatGateways", in.MaxResults), 1000)
		if err != nil {
			return nil, ec2Error("InvalidNextToken", "The token '%s' is invalid.", aws.ToString(in.NextToken))
		}
		return &ec2.DescribeNatGatewaysOutput{NatGateways: items, NextToken: next}, nil
	})
}

// DeleteNatGateway starts deleting a NAT gateway; deleting one already
// deleting or deleted is a no-op, as in EC2.
func (a *ec2API) DeleteNatGateway(ctx context.Context, in *ec2.DeleteNatGatewayInput, _ ...func(*ec2.Options)) (*ec2.DeleteNatGatewayOutput, error) {
	return call(ctx, a.w, svcEC2, a.region, "DeleteNatGateway", func(t *txn) (*ec2.DeleteNatGatewayOutput, error) {
		in := orZero(in)
		if err := need("DeleteNatGatewayInput", param{"NatGatewayId", in.NatGatewayId != nil}); err != nil {
			return nil, err
		}
		n := t.rs.NATs[*in.NatGatewayId]
		if n == nil {
			return nil, ec2Error("InvalidNatGatewayID.NotFound", "The NAT gateway ID '%s' does not exist", *in.NatGatewayId)
		}
		if n.Life.DeletingAt == nil {
			n.Life.startDeleting(t.now, t.after(natDeleteTime))
		}
		return &ec2.DeleteNatGatewayOutput{NatGatewayId: aws.String(n.ID)}, nil
	})
}
