package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Operation kinds of this area.
const (
	KindCreate = "CreateCluster"
	KindDelete = "DeleteCluster"
	KindImport = "ImportCluster"
)

// statusQuery is the query that confirms every cluster operation.
const statusQuery = "cluster"

// indexName maps <region>/<name> to the id of the live cluster of that name.
const indexName = "cluster-name"

// TargetKind is the kind operations name as their target.
const TargetKind = "CLUSTER"

// Create checks the request against the region (zones, instance types,
// quotas, the name) and starts a CreateCluster operation. Nothing is made
// in AWS before every check passes.
func (s *Service) Create(ctx context.Context, caller string, in CreateInput, idempotencyKey string) (*ops.Operation, error) {
	asSent := in
	// Defaults are filled into a copy: the caller's request stays as sent.
	in.Zones, in.InstanceGroups = slices.Clone(in.Zones), slices.Clone(in.InstanceGroups)
	replay := ops.Request{Kind: KindCreate, Target: ops.Ref{Kind: TargetKind, Name: in.Name}, RequestedBy: caller, IdempotencyKey: idempotencyKey, Fingerprint: asSent}
	if op, err := s.runner.Replay(replay); op != nil || err != nil {
		return op, err
	}
	if bad := normalize(&in); len(bad) > 0 {
		return nil, bad
	}
	p, err := s.checkProvider(in.Region)
	if err != nil {
		return nil, err
	}
	in.Region = p.Region
	if err := checkAgainstRegion(ctx, p, &in); err != nil {
		return nil, err
	}
	if err := checkVpcCIDR(ctx, p, in.VpcCIDR); err != nil {
		return nil, err
	}
	if err := checkNameFreeInAWS(ctx, p, in.Name); err != nil {
		return nil, err
	}
	id := s.ids.NewID()
	return s.runner.Submit(ops.Request{
		Kind: KindCreate, Target: ops.Ref{Kind: TargetKind, ID: id, Name: in.Name}, RequestedBy: caller,
		IdempotencyKey: idempotencyKey, Input: in, Fingerprint: asSent,
		Prepare: func(tx *store.Tx, op *ops.Operation) error {
			if err := reserveName(tx, in.Region, in.Name, id); err != nil {
				return err
			}
			now := tx.Now()
			c := &hyperpod.Cluster{ID: id, Name: in.Name, Region: in.Region, KubernetesVersion: in.KubernetesVersion, Zones: in.Zones,
				Status: hyperpod.ClusterCreating, InstanceGroups: in.InstanceGroups, CreatedAt: now, UpdatedAt: now,
				Network: hyperpod.Network{Owned: true}, EKS: hyperpod.EKS{Name: in.Name, Owned: true}, HyperPod: hyperpod.HyperPod{Name: in.Name, Owned: true}, Roles: hyperpod.Roles{Owned: true}}
			return tx.Put(RecordKind, id, c)
		},
	})
}

func reserveName(tx *store.Tx, region, name, id string) error {
	holder, err := tx.GetIndex(indexName, region+"/"+name)
	if err == nil && holder != id {
		return errs.New(errs.Precondition, "a cluster named %q already exists in %s (id %s); choose another name or delete that cluster first", name, region, holder).WithField("input.name")
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return tx.PutIndex(indexName, region+"/"+name, id)
}

// checkNameFreeInAWS refuses a name an EKS or HyperPod cluster already has.
func checkNameFreeInAWS(ctx context.Context, p *cloud.Provider, name string) error {
	region := p.Region
	_, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
	if err == nil {
		return errs.New(errs.Precondition, "an EKS cluster named %q already exists in %s; adopt it with importCluster or choose another name", name, region).WithField("input.name")
	}
	if !errs.IsNotFound(err) {
		return errs.FromUpstream(err, "check the EKS cluster name")
	}
	_, err = p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(name)})
	if err == nil {
		return errs.New(errs.Precondition, "a HyperPod cluster named %q already exists in %s; choose another name", name, region).WithField("input.name")
	}
	if !errs.IsNotFound(err) {
		return errs.FromUpstream(err, "check the HyperPod cluster name")
	}
	return nil
}

// createSteps builds the DAG of a CreateCluster operation.
func (s *Service) createSteps(op *ops.Operation) ([]ops.Step, error) {
	var in CreateInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	p, err := s.provider(in.Region)
	if err != nil {
		return nil, err
	}
	tags := clusterTags(op.Target.ID, in.Name)
	net := &network{p: p, clusterID: op.Target.ID, name: in.Name, in: &in}
	iamRoles := &roles{p: p, specs: clusterRoles(in.Name)}
	cp := &controlPlane{p: p, name: in.Name, version: in.KubernetesVersion, tags: tags}
	hp := &hyperPod{p: p, name: in.Name, groups: in.InstanceGroups, tags: tags}
	deps := &dependencies{p: p, eksName: in.Name, instanceTypes: createInstanceTypes(&in)}
	sys := &systemNodes{p: p, eksName: in.Name, tags: tags, count: DefaultSystemNodeCount, instanceType: DefaultSystemInstanceType,
		subnets: func(run *ops.Run) ([]string, error) {
			net, err := outputOf[subnetsOutput](run, phaseSubnets)
			if err != nil {
				return nil, err
			}
			return privateSubnets(net.Subnets), nil
		}}
	if in.SystemNodes != nil {
		sys.instanceType, sys.count = in.SystemNodes.InstanceType, *in.SystemNodes.Count
	}
	return s.withRecord([]ops.Step{
		{Name: phaseIAMRoles, Title: "Create the IAM roles", Observe: iamRoles.observe, Apply: iamRoles.apply, Timeout: 10 * time.Minute},
		{Name: phaseVPC, Title: "Create the VPC and internet gateway", Observe: net.observeVPC, Apply: net.applyVPC, Timeout: 10 * time.Minute},
		{Name: phaseSubnets, Title: "Create the control plane's subnets and security group", DependsOn: []string{phaseVPC},
			Observe: net.observeSubnets, Apply: net.applySubnets, Timeout: 10 * time.Minute},
		{Name: phaseNAT, Title: "Create the NAT gateway", DependsOn: []string{phaseSubnets},
			Observe: net.observeNAT, Apply: net.applyNAT, Timeout: 15 * time.Minute},
		{Name: phaseEKS, Title: "Create the EKS control plane", DependsOn: []string{phaseIAMRoles, phaseSubnets},
			Observe: cp.observeCluster, Apply: cp.applyCluster, Timeout: 40 * time.Minute},
		{Name: phaseOIDC, Title: "Register the cluster's OIDC provider", DependsOn: []string{phaseEKS},
			Observe: cp.observeOIDC, Apply: cp.applyOIDC, Timeout: 5 * time.Minute},
		{Name: phaseAccess, Title: "Give the control plane cluster access", DependsOn: []string{phaseEKS},
			Observe: cp.observeAccess, Apply: cp.applyAccess, Timeout: 5 * time.Minute},
		{Name: phaseSystemNodes, Title: "Create the system node group (nodes for CoreDNS, the operators and controllers)", DependsOn: []string{phaseIAMRoles, phaseEKS, phaseNAT},
			Observe: sys.observeScaled, Apply: sys.applyScaled, Timeout: 30 * time.Minute},
		{Name: phaseAddons, Title: "Install the base add-ons", DependsOn: []string{phaseEKS, phaseSystemNodes},
			Observe: cp.observeAddons, Apply: cp.applyAddons, Timeout: 20 * time.Minute},
		{Name: phaseDependencies, Title: "Install HyperPod's cluster dependencies (health-monitoring agent, device plugins)", DependsOn: []string{phaseAccess, phaseAddons},
			Observe: deps.observe, Apply: deps.apply, Timeout: 20 * time.Minute, Recheck: true},
		{Name: phaseComputeSubnet, Title: "Create the compute subnet", DependsOn: []string{phaseNAT},
			Observe: net.observeCompute, Apply: net.applyCompute, Timeout: 10 * time.Minute},
		{Name: phaseReplaceHyperPod, Title: "Remove a failed HyperPod cluster of the same name",
			Observe: hp.observeReplaced, Apply: hp.deleteFailed, Timeout: 20 * time.Minute, Recheck: true},
		{Name: phaseHyperPod, Title: "Create the HyperPod cluster", DependsOn: []string{phaseIAMRoles, phaseEKS, phaseOIDC, phaseAccess, phaseAddons, phaseDependencies, phaseComputeSubnet, phaseReplaceHyperPod},
			Observe: hp.observe, Apply: hp.apply, Timeout: 4 * time.Hour},
	}, op.Target.ID, phaseHyperPod), nil
}

// A Recorder reads what a later call needs of a new cluster into its
// records (the instance groups and nodes): the last phase of createCluster
// and importCluster, so that SUCCEEDED means a call that needs them finds
// them.
type Recorder interface {
	RecordStep(clusterID string) ops.Step
}

// RecordWith makes createCluster and importCluster end with r's phase.
// engine/app calls it once, before the runner starts.
func (s *Service) RecordWith(r Recorder) { s.recorder = r }

// withRecord appends the recorder's phase, after phase after.
func (s *Service) withRecord(steps []ops.Step, clusterID, after string) []ops.Step {
	if s.recorder == nil {
		return steps
	}
	st := s.recorder.RecordStep(clusterID)
	st.DependsOn = []string{after}
	return append(steps, st)
}
