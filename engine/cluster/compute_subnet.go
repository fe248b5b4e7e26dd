package cluster

import (
	"context"
	"net/netip"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// ComputeSubnet returns the id of the cluster's compute subnet in zone, for
// an instance group placed there. With create, a missing one is made the
// way cluster creation makes them (a /20 from netplan.ComputeSubnet, routed
// through the NAT gateway) and recorded in the cluster's network. Without
// it, "" means there is none ready. An imported cluster's network is not
// changed: its groups use the subnets it already has in the zone.
func (s *Service) ComputeSubnet(ctx context.Context, clusterID, zone string, create bool) (string, error) {
	c, err := s.Get(clusterID)
	if err != nil {
		return "", err
	}
	if !c.Network.Owned {
		for _, role := range []hyperpod.SubnetRole{hyperpod.SubnetCompute, hyperpod.SubnetPrivate} {
			for _, sn := range c.Network.Subnets {
				if sn.Zone == zone && sn.Role == role {
					return sn.ID, nil
				}
			}
		}
		return "", errs.New(errs.Precondition, "imported cluster %s has no private subnet in %s and InstantStart does not change an imported network: choose a zone where it has one", c.Name, zone).WithField("input.zone")
	}
	vpc, err := netip.ParsePrefix(c.Network.CIDR)
	if err != nil || c.Network.VpcID == "" {
		return "", errs.New(errs.Precondition, "cluster %s has no VPC on record; it was not fully created", c.Name)
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return "", err
	}
	n := &network{p: p, clusterID: c.ID, name: c.Name}
	sub, err := n.computeSubnet(ctx, c.Network.VpcID, vpc, zone, create)
	if err != nil || sub == nil {
		return "", err
	}
	id := aws.ToString(sub.SubnetId)
	if !create {
		rt, err := clusterRouteTable(ctx, p, c.ID, "private")
		if err != nil || rt == nil || !associated(rt, id) {
			return "", err
		}
		return id, nil
	}
	if err := n.ensureRouteTable(ctx, c.Network.VpcID, "private", []string{id}, &ec2.CreateRouteInput{NatGatewayId: aws.String(c.Network.NatGatewayID)}); err != nil {
		return "", err
	}
	return id, s.recordSubnet(clusterID, hyperpod.Subnet{ID: id, Zone: zone, CIDR: aws.ToString(sub.CidrBlock), Role: hyperpod.SubnetCompute})
}

// recordSubnet adds a subnet to the cluster's network record.
func (s *Service) recordSubnet(clusterID string, sn hyperpod.Subnet) error {
	return s.store.Update(func(tx *store.Tx) error {
		var c hyperpod.Cluster
		if err := tx.Get(RecordKind, clusterID, &c); err != nil {
			return err
		}
		if slices.ContainsFunc(c.Network.Subnets, func(have hyperpod.Subnet) bool { return have.ID == sn.ID }) {
			return nil
		}
		c.Network.Subnets = append(c.Network.Subnets, sn)
		c.UpdatedAt = tx.Now()
		return tx.Put(RecordKind, c.ID, &c)
	})
}
