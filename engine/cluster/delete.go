package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// DeleteOptions say what deleting a cluster also deletes.
type DeleteOptions struct {
	// Cascade deletes what the other areas keep on the cluster (endpoints,
	// jobs, model downloads, storage) first, each as a phase; without it a
	// cluster that has any is refused.
	Cascade bool
	// DeleteBucket, with Cascade, also empties and deletes the shared
	// bucket, as removeStorage's deleteBucket does; without it the bucket
	// and its objects stay.
	DeleteBucket bool
}

// A Dependent is an area that keeps records on a cluster: a cluster with
// any is deleted only with DeleteOptions.Cascade, whose operation runs the
// area's teardown phases before the HyperPod cluster goes.
type Dependent interface {
	// Workloads lists the area's records on the cluster that are not
	// deleted.
	Workloads(clusterID string) ([]ops.Child, error)
	// TeardownSteps returns the phases that delete them, each after the
	// one before; deleteBucket is DeleteOptions.DeleteBucket.
	TeardownSteps(clusterID string, deleteBucket bool) ([]ops.Step, error)
}

// A Leftover is what another area made for a cluster outside its
// Kubernetes API (IAM roles and policies), which must go once the EKS
// cluster is gone: the phase Step returns runs after it.
type Leftover interface {
	LeftoverStep(c *hyperpod.Cluster) (ops.Step, error)
}

// DeleteFirst makes DeleteCluster end what the dependents keep on a
// cluster, in the order given, and remove what the leftovers made once
// the EKS cluster is gone. engine/app calls it once, before the runner
// starts.
func (s *Service) DeleteFirst(leftovers []Leftover, dependents ...Dependent) {
	s.leftovers, s.dependents = leftovers, dependents
}

// maxListedWorkloads bounds the workloads a refused deleteCluster names.
const maxListedWorkloads = 20

// Delete starts a DeleteCluster operation: the reverse of creation,
// tolerant of pieces already gone. An imported cluster's network and roles
// were not made here and are left in place. A cluster with workloads is
// refused unless o.Cascade.
func (s *Service) Delete(ctx context.Context, caller, id string, o DeleteOptions, idempotencyKey string) (*ops.Operation, error) {
	in := deleteInput{ClusterID: id, Cascade: o.Cascade, DeleteBucket: o.DeleteBucket}
	req := ops.Request{Kind: KindDelete, Target: ops.Ref{Kind: TargetKind, ID: id}, RequestedBy: caller, IdempotencyKey: idempotencyKey,
		Input: in, Fingerprint: in}
	if op, err := s.runner.Replay(req); op != nil || err != nil {
		return op, err
	}
	if o.DeleteBucket && !o.Cascade {
		return nil, errs.Field("deleteBucket", "deleteBucket deletes the shared bucket with the cluster's storage, which only a cascade delete removes; set cascade: true as well, or remove the storage first with removeStorage")
	}
	c, err := s.Get(id)
	if err != nil {
		return nil, errs.NotFoundOn(err, "id")
	}
	if c.Status == hyperpod.ClusterDeleted {
		return nil, errs.New(errs.Precondition, "cluster %s (%s) is already deleted", c.Name, id)
	}
	if !o.Cascade {
		if err := s.refuseWorkloads(c); err != nil {
			return nil, err
		}
	}
	req.Target.Name = c.Name
	return s.runner.Submit(req)
}

// refuseWorkloads is a PRECONDITION naming what the other areas keep on
// c, when they keep anything.
func (s *Service) refuseWorkloads(c *hyperpod.Cluster) error {
	var all []ops.Child
	for _, d := range s.dependents {
		w, err := d.Workloads(c.ID)
		if err != nil {
			return err
		}
		all = append(all, w...)
	}
	if len(all) == 0 {
		return nil
	}
	var names []string
	for _, w := range all[:min(len(all), maxListedWorkloads)] {
		names = append(names, fmt.Sprintf("%s %s (%s, %s)", strings.ToLower(w.TargetKind), w.Name, w.ID, w.Status))
	}
	more := ""
	if len(all) > maxListedWorkloads {
		more = fmt.Sprintf(" and %d more", len(all)-maxListedWorkloads)
	}
	return errs.New(errs.Precondition, "cluster %s (%s) still has %d workloads: %s%s. Delete them first, or delete the cluster with cascade: true to delete them with it (the shared bucket and its objects stay unless deleteBucket is true as well)",
		c.Name, c.ID, len(all), strings.Join(names, "; "), more).WithField("cascade").WithDetail("workloads", strconv.Itoa(len(all)))
}

type deleteInput struct {
	ClusterID    string `json:"clusterId"`
	Cascade      bool   `json:"cascade,omitempty"`
	DeleteBucket bool   `json:"deleteBucket,omitempty"`
}

// teardown holds what a DeleteCluster operation removes.
type teardown struct {
	p *cloud.Provider
	c *hyperpod.Cluster
}

func (s *Service) deleteSteps(op *ops.Operation) ([]ops.Step, error) {
	c, err := s.Get(op.Target.ID)
	if err != nil {
		return nil, err
	}
	p, err := s.provider(c.Region)
	if err != nil {
		return nil, err
	}
	var in deleteInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	t := &teardown{p: p, c: c}
	var first []ops.Step
	if in.Cascade {
		for _, d := range s.dependents {
			steps, err := d.TeardownSteps(c.ID, in.DeleteBucket)
			if err != nil {
				return nil, err
			}
			first = append(first, steps...)
		}
		for i := 1; i < len(first); i++ {
			first[i].DependsOn = []string{first[i-1].Name}
		}
	}
	hp := ops.Step{Name: phaseHyperPod, Title: "Delete the HyperPod cluster", Observe: t.observeHyperPod, Apply: t.deleteHyperPod, Timeout: 60 * time.Minute}
	// The system nodes go once the workloads are gone (the load balancer
	// controller they run removes the endpoints' load balancers), and
	// before the EKS cluster, which EKS refuses to delete while it has a
	// node group.
	sys := &systemNodes{p: p, eksName: c.EKS.Name}
	sysStep := ops.Step{Name: phaseSystemNodes, Title: "Delete the system node group", Observe: t.observeSystemNodes(sys), Apply: sys.applyDeleted, Timeout: 30 * time.Minute}
	if n := len(first); n > 0 {
		hp.DependsOn = []string{first[n-1].Name}
		sysStep.DependsOn = []string{first[n-1].Name}
	}
	last := []ops.Step{}
	for _, l := range s.leftovers {
		st, err := l.LeftoverStep(c)
		if err != nil {
			return nil, err
		}
		st.DependsOn = []string{phaseEKS}
		last = append(last, st)
	}
	steps := append(first, hp, sysStep)
	steps = append(steps, []ops.Step{
		{Name: phaseEKS, Title: "Delete the EKS control plane", DependsOn: []string{phaseHyperPod, phaseSystemNodes},
			Observe: t.observeEKS, Apply: t.deleteEKS, Timeout: 40 * time.Minute},
		{Name: phaseOIDC, Title: "Delete the OIDC provider", DependsOn: []string{phaseEKS},
			Observe: t.observeOIDC, Apply: t.deleteOIDC, Timeout: 5 * time.Minute},
		{Name: phaseNAT, Title: "Delete the NAT gateway", DependsOn: []string{phaseEKS},
			Observe: t.observeNAT, Apply: t.deleteNAT, Timeout: 15 * time.Minute},
		{Name: phaseElasticIP, Title: "Release the NAT gateway's Elastic IP", DependsOn: []string{phaseNAT},
			Observe: t.observeAddress, Apply: t.releaseAddress, Timeout: 5 * time.Minute},
		{Name: phaseNetwork, Title: "Delete the subnets, route tables, security group and VPC", DependsOn: []string{phaseNAT},
			Observe: t.observeNetwork, Apply: t.deleteNetwork, Timeout: 20 * time.Minute},
		{Name: phaseIAMRoles, Title: "Delete the IAM roles", DependsOn: []string{phaseEKS},
			Observe: t.observeRoles, Apply: t.deleteRoles, Timeout: 5 * time.Minute},
	}...)
	return append(steps, last...), nil
}

// observeSystemNodes: the system node group is gone; an imported
// cluster's node groups were not made here and stay.
func (t *teardown) observeSystemNodes(sys *systemNodes) func(context.Context, *ops.Run) (ops.Observation, error) {
	return func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
		if t.c.Imported || !t.c.EKS.Owned {
			return notOwned("the EKS cluster's node groups"), nil
		}
		return sys.observeDeleted(ctx, run)
	}
}

func notOwned(what string) ops.Observation {
	return ops.Observation{State: ops.NotNeeded, Message: what + " was not made by InstantStart (imported); left in place"}
}

func (t *teardown) observeHyperPod(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	if t.c.HyperPod.Name == "" {
		return ops.Observation{State: ops.NotNeeded, Message: "the cluster has no HyperPod cluster"}, nil
	}
	out, err := t.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(t.c.HyperPod.Name)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Done, Message: "HyperPod cluster " + t.c.HyperPod.Name + " is gone"}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	if out.ClusterStatus == smtypes.ClusterStatusDeleting {
		return ops.Observation{State: ops.Pending, Message: "HyperPod cluster " + t.c.HyperPod.Name + " is Deleting"}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (t *teardown) deleteHyperPod(ctx context.Context, _ *ops.Run) (any, error) {
	_, err := t.p.SageMaker.DeleteCluster(ctx, &sagemaker.DeleteClusterInput{ClusterName: aws.String(t.c.HyperPod.Name)})
	return nil, ignoreGone(err)
}

func (t *teardown) observeEKS(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	out, err := t.p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(t.c.EKS.Name)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Done, Message: "EKS cluster " + t.c.EKS.Name + " is gone"}, nil
	}
	if err != nil {
		return ops.Observation{}, err
	}
	if out.Cluster.Status == ekstypes.ClusterStatusDeleting {
		return ops.Observation{State: ops.Pending, Message: "EKS cluster " + t.c.EKS.Name + " is DELETING"}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (t *teardown) deleteEKS(ctx context.Context, _ *ops.Run) (any, error) {
	_, err := t.p.EKS.DeleteCluster(ctx, &eks.DeleteClusterInput{Name: aws.String(t.c.EKS.Name)})
	return nil, ignoreGone(err)
}

func (t *teardown) observeOIDC(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	if !t.c.EKS.Owned {
		return notOwned("the OIDC provider"), nil
	}
	if t.c.EKS.OIDCProviderArn == "" {
		return ops.Observation{State: ops.NotNeeded, Message: "no OIDC provider was registered"}, nil
	}
	_, err := t.p.IAM.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(t.c.EKS.OIDCProviderArn)})
	if errs.IsNotFound(err) {
		return ops.Observation{State: ops.Done, Message: "OIDC provider is gone"}, nil
	}
	return ops.Observation{State: ops.Absent}, err
}

func (t *teardown) deleteOIDC(ctx context.Context, _ *ops.Run) (any, error) {
	_, err := t.p.IAM.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(t.c.EKS.OIDCProviderArn)})
	return nil, ignoreGone(err)
}

func (t *teardown) observeNAT(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	if !t.c.Network.Owned {
		return notOwned("the NAT gateway"), nil
	}
	gws, err := cloud.AllNatGateways(ctx, t.p.EC2, ec2.DescribeNatGatewaysInput{Filter: []ec2types.Filter{byCluster(t.c.ID)}})
	if err != nil {
		return ops.Observation{}, err
	}
	for _, n := range gws {
		if !ownedBy(n.Tags, t.c.ID) {
			continue
		}
		switch n.State {
		case ec2types.NatGatewayStateDeleted:
		case ec2types.NatGatewayStateDeleting:
			return ops.Observation{State: ops.Pending, Message: "NAT gateway " + aws.ToString(n.NatGatewayId) + " is deleting"}, nil
		default:
			return ops.Observation{State: ops.Absent}, nil
		}
	}
	return ops.Observation{State: ops.Done, Message: "the NAT gateway is gone"}, nil
}

func (t *teardown) deleteNAT(ctx context.Context, _ *ops.Run) (any, error) {
	gws, err := cloud.AllNatGateways(ctx, t.p.EC2, ec2.DescribeNatGatewaysInput{Filter: []ec2types.Filter{byCluster(t.c.ID)}})
	if err != nil {
		return nil, err
	}
	for _, n := range gws {
		if !ownedBy(n.Tags, t.c.ID) || n.State == ec2types.NatGatewayStateDeleted || n.State == ec2types.NatGatewayStateDeleting {
			continue
		}
		if _, err := t.p.EC2.DeleteNatGateway(ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: n.NatGatewayId}); ignoreGone(err) != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (t *teardown) observeAddress(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	if !t.c.Network.Owned {
		return notOwned("the Elastic IP"), nil
	}
	addrs, err := t.p.EC2.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{Filters: []ec2types.Filter{byCluster(t.c.ID)}})
	if err != nil {
		return ops.Observation{}, err
	}
	for _, a := range addrs.Addresses {
		if ownedBy(a.Tags, t.c.ID) {
			return ops.Observation{State: ops.Absent}, nil
		}
	}
	return ops.Observation{State: ops.Done, Message: "the Elastic IP is released"}, nil
}

func (t *teardown) releaseAddress(ctx context.Context, _ *ops.Run) (any, error) {
	addrs, err := t.p.EC2.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{Filters: []ec2types.Filter{byCluster(t.c.ID)}})
	if err != nil {
		return nil, err
	}
	for _, a := range addrs.Addresses {
		if !ownedBy(a.Tags, t.c.ID) {
			continue
		}
		if _, err := t.p.EC2.ReleaseAddress(ctx, &ec2.ReleaseAddressInput{AllocationId: a.AllocationId}); ignoreGone(err) != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (t *teardown) observeNetwork(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	if !t.c.Network.Owned {
		return notOwned("the network"), nil
	}
	v, err := clusterVPC(ctx, t.p, t.c.ID)
	if err != nil {
		return ops.Observation{}, err
	}
	if v == nil {
		return ops.Observation{State: ops.Done, Message: "the VPC is gone"}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

// deleteNetwork removes subnets, route tables, the security group, the
// internet gateway and the VPC. Dependencies AWS is still releasing (network
// interfaces of a deleted cluster) make it retry with backoff.
func (t *teardown) deleteNetwork(ctx context.Context, _ *ops.Run) (any, error) {
	v, err := clusterVPC(ctx, t.p, t.c.ID)
	if err != nil || v == nil {
		return nil, err
	}
	vpcID := aws.ToString(v.VpcId)
	rts, err := cloud.AllRouteTables(ctx, t.p.EC2, ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{byCluster(t.c.ID)}})
	if err != nil {
		return nil, err
	}
	for _, rt := range rts {
		if !ownedBy(rt.Tags, t.c.ID) || aws.ToString(rt.VpcId) != vpcID {
			continue
		}
		for _, a := range rt.Associations {
			if a.SubnetId != nil {
				if _, err := t.p.EC2.DisassociateRouteTable(ctx, &ec2.DisassociateRouteTableInput{AssociationId: a.RouteTableAssociationId}); ignoreGone(err) != nil {
					return nil, dependency(err)
				}
			}
		}
		if _, err := t.p.EC2.DeleteRouteTable(ctx, &ec2.DeleteRouteTableInput{RouteTableId: rt.RouteTableId}); ignoreGone(err) != nil {
			return nil, dependency(err)
		}
	}
	subnets, err := vpcSubnets(ctx, t.p, vpcID)
	if err != nil {
		return nil, err
	}
	var foreign []string
	for _, s := range subnets {
		if !ownedBy(s.Tags, t.c.ID) {
			foreign = append(foreign, aws.ToString(s.SubnetId)) // made outside InstantStart: left alone
			continue
		}
		if _, err := t.p.EC2.DeleteSubnet(ctx, &ec2.DeleteSubnetInput{SubnetId: s.SubnetId}); ignoreGone(err) != nil {
			return nil, dependency(err)
		}
	}
	sgs, err := cloud.AllSecurityGroups(ctx, t.p.EC2, ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{byCluster(t.c.ID)}})
	if err != nil {
		return nil, err
	}
	for _, g := range sgs {
		if !ownedBy(g.Tags, t.c.ID) || aws.ToString(g.VpcId) != vpcID {
			continue
		}
		if _, err := t.p.EC2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: g.GroupId}); ignoreGone(err) != nil {
			return nil, dependency(err)
		}
	}
	igws, err := cloud.AllInternetGateways(ctx, t.p.EC2, ec2.DescribeInternetGatewaysInput{Filters: []ec2types.Filter{byCluster(t.c.ID)}})
	if err != nil {
		return nil, err
	}
	for _, g := range igws {
		if !ownedBy(g.Tags, t.c.ID) {
			continue
		}
		for _, a := range g.Attachments {
			if _, err := t.p.EC2.DetachInternetGateway(ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: g.InternetGatewayId, VpcId: a.VpcId}); ignoreGone(err) != nil {
				return nil, dependency(err)
			}
		}
		if _, err := t.p.EC2.DeleteInternetGateway(ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: g.InternetGatewayId}); ignoreGone(err) != nil {
			return nil, dependency(err)
		}
	}
	_, err = t.p.EC2.DeleteVpc(ctx, &ec2.DeleteVpcInput{VpcId: v.VpcId})
	if len(foreign) > 0 && errs.IsAPICode(err, "DependencyViolation") {
		// Waiting would not help: the subnets stay until their owner
		// removes them.
		return nil, errs.New(errs.Precondition,
			"the VPC %s holds subnets this cluster did not make (%s): InstantStart leaves them alone, so the VPC cannot be deleted; delete them (and what runs in them) or move that elsewhere, then delete the cluster again",
			vpcID, strings.Join(foreign, ", ")).WithDetail("vpcId", vpcID).WithDetail("foreignSubnets", strings.Join(foreign, ","))
	}
	return nil, dependency(ignoreGone(err))
}

func (t *teardown) observeRoles(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	if !t.c.Roles.Owned {
		return notOwned("the IAM roles"), nil
	}
	for _, spec := range clusterRoles(t.c.Name) {
		_, err := t.p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(spec.name)})
		if err == nil {
			return ops.Observation{State: ops.Absent}, nil
		}
		if !errs.IsNotFound(err) {
			return ops.Observation{}, err
		}
	}
	return ops.Observation{State: ops.Done, Message: "the IAM roles are gone"}, nil
}

func (t *teardown) deleteRoles(ctx context.Context, _ *ops.Run) (any, error) {
	return nil, deleteRoles(ctx, t.p, clusterRoles(t.c.Name))
}

func ignoreGone(err error) error {
	if err == nil || errs.IsNotFound(err) {
		return nil
	}
	return err
}

// dependency marks DependencyViolation as retryable: AWS releases network
// interfaces of deleted clusters some minutes after they are gone.
func dependency(err error) error {
	if err != nil && errs.IsAPICode(err, "DependencyViolation", "InvalidRouteTableID.NotFound") {
		e := errs.FromUpstream(err, "delete the network")
		e.Retryable = true
		return e
	}
	return err
}
