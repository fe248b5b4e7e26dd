package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// Import adopts an existing EKS cluster, and the HyperPod cluster it
// orchestrates, by reading their actual state. The only change it makes is
// to install the cluster dependencies that are missing.
func (s *Service) Import(ctx context.Context, caller string, in ImportInput, idempotencyKey string) (*ops.Operation, error) {
	asSent := in
	if op, err := s.runner.Replay(ops.Request{Kind: KindImport, Target: ops.Ref{Kind: TargetKind, Name: in.Name}, RequestedBy: caller,
		IdempotencyKey: idempotencyKey, Fingerprint: asSent}); op != nil || err != nil {
		return op, err
	}
	in.EKSClusterName = strings.TrimSpace(in.EKSClusterName)
	if in.EKSClusterName == "" {
		return nil, errs.Field("input.eksClusterName", "name the existing EKS cluster to import")
	}
	if in.Name == "" {
		in.Name = in.EKSClusterName
	}
	if !clusterNamePattern.MatchString(in.Name) {
		return nil, errs.Field("input.name", "name %q is not valid: use 1-40 letters, digits and single hyphens, starting with a letter; pass name to choose another", in.Name)
	}
	p, err := s.checkProvider(in.Region)
	if err != nil {
		return nil, err
	}
	in.Region = p.Region
	if _, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(in.EKSClusterName)}); err != nil {
		if errs.IsNotFound(err) {
			return nil, errs.New(errs.Precondition, "there is no EKS cluster named %q in %s; check the name and region", in.EKSClusterName, in.Region).WithField("input.eksClusterName")
		}
		return nil, errs.FromUpstream(err, "read the EKS cluster")
	}
	if in.HyperPodClusterName != "" {
		if _, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(in.HyperPodClusterName)}); err != nil {
			if errs.IsNotFound(err) {
				return nil, errs.New(errs.Precondition, "there is no HyperPod cluster named %q in %s; check the name, or leave it out to find the one that uses the EKS cluster", in.HyperPodClusterName, in.Region).WithField("input.hyperPodClusterName")
			}
			return nil, errs.FromUpstream(err, "read the HyperPod cluster")
		}
	}
	id := s.ids.NewID()
	return s.runner.Submit(ops.Request{
		Kind: KindImport, Target: ops.Ref{Kind: TargetKind, ID: id, Name: in.Name}, RequestedBy: caller,
		IdempotencyKey: idempotencyKey, Input: in, Fingerprint: asSent,
		Prepare: func(tx *store.Tx, op *ops.Operation) error {
			if err := reserveName(tx, in.Region, in.Name, id); err != nil {
				return err
			}
			now := tx.Now()
			return tx.Put(RecordKind, id, &hyperpod.Cluster{ID: id, Name: in.Name, Region: in.Region, Status: hyperpod.ClusterImporting, Imported: true,
				EKS: hyperpod.EKS{Name: in.EKSClusterName}, HyperPod: hyperpod.HyperPod{Name: in.HyperPodClusterName}, CreatedAt: now, UpdatedAt: now})
		},
	})
}

type discovery struct {
	p  *cloud.Provider
	in ImportInput
}

func (s *Service) importSteps(op *ops.Operation) ([]ops.Step, error) {
	var in ImportInput
	if err := json.Unmarshal(op.Input, &in); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "read the stored request of operation %s: %v", op.ID, err)
	}
	p, err := s.provider(in.Region)
	if err != nil {
		return nil, err
	}
	d := &discovery{p: p, in: in}
	deps := &dependencies{p: p, eksName: in.EKSClusterName, instanceTypes: importedInstanceTypes(p)}
	return s.withRecord([]ops.Step{
		{Name: phaseEKS, Title: "Read the EKS cluster", Observe: d.observeEKS, Timeout: 40 * time.Minute},
		{Name: phaseNetwork, Title: "Read the network, OIDC provider and add-ons", DependsOn: []string{phaseEKS}, Observe: d.observeNetwork, Timeout: 5 * time.Minute},
		{Name: phaseHyperPod, Title: "Find the HyperPod cluster", DependsOn: []string{phaseEKS}, Observe: d.observeHyperPod, Timeout: 60 * time.Minute},
		{Name: phaseDependencies, Title: "Install HyperPod's missing cluster dependencies", DependsOn: []string{phaseEKS, phaseHyperPod},
			Observe: deps.observe, Apply: deps.apply, Timeout: 20 * time.Minute, Recheck: true},
	}, op.Target.ID, phaseDependencies), nil
}

func (d *discovery) observeEKS(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	obs, err := observeEKS(ctx, d.p, d.in.EKSClusterName)
	if err == nil && obs.State == ops.Absent {
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition, "the EKS cluster %s no longer exists", d.in.EKSClusterName)}, nil
	}
	return obs, err
}

func (d *discovery) observeNetwork(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	cl, err := outputOf[eksOutput](run, phaseEKS)
	if err != nil {
		return ops.Observation{}, err
	}
	var o importedNetworkOutput
	ids := []string(cl.SubnetIDs)
	var subnets []hyperpod.Subnet
	var zones []string
	if len(ids) > 0 {
		all, err := cloud.AllSubnets(ctx, d.p.EC2, ec2.DescribeSubnetsInput{SubnetIds: ids})
		if err != nil {
			return ops.Observation{}, err
		}
		for _, sn := range all {
			role := hyperpod.SubnetPrivate
			if aws.ToBool(sn.MapPublicIpOnLaunch) {
				role = hyperpod.SubnetPublic
			}
			zone := aws.ToString(sn.AvailabilityZone)
			subnets = append(subnets, hyperpod.Subnet{ID: aws.ToString(sn.SubnetId), Zone: zone, CIDR: aws.ToString(sn.CidrBlock), Role: role})
			if !slices.Contains(zones, zone) {
				zones = append(zones, zone)
			}
		}
	}
	slices.Sort(zones)
	o.Subnets, o.Zones = subnets, zones
	if vpcID := cl.VpcID; vpcID != "" {
		if vs, err := regionVPCs(ctx, d.p); err == nil {
			for _, v := range vs {
				if v.id == vpcID && v.cidr.Addr().Is4() && v.cidr != (netip.Prefix{}) {
					o.CIDR = v.cidr.String()
					break
				}
			}
		}
	}
	if issuer := cl.OIDCIssuer; issuer != "" {
		if arn, err := findOIDCProvider(ctx, d.p, issuer); err == nil && arn != "" {
			o.OIDCProviderArn = arn
		}
	}
	addons, err := cloud.AllAddons(ctx, d.p.EKS, eks.ListAddonsInput{ClusterName: aws.String(d.in.EKSClusterName)})
	if err != nil {
		return ops.Observation{}, err
	}
	o.Addons = addons
	return ops.Observation{State: ops.Done, Output: o, Message: fmt.Sprintf("read %d subnets and %d add-ons", len(subnets), len(addons))}, nil
}

// observeHyperPod finds the named HyperPod cluster, or the one whose
// orchestrator is the imported EKS cluster.
func (d *discovery) observeHyperPod(ctx context.Context, run *ops.Run) (ops.Observation, error) {
	cl, err := outputOf[eksOutput](run, phaseEKS)
	if err != nil {
		return ops.Observation{}, err
	}
	eksArn := cl.Arn
	name := d.in.HyperPodClusterName
	if name == "" {
		byEKS, err := hyperPodsByEKS(ctx, d.p)
		if err != nil {
			return ops.Observation{}, err
		}
		if hp := byEKS[eksArn]; hp != nil {
			name = aws.ToString(hp.ClusterName)
		}
	}
	if name == "" {
		return ops.Observation{State: ops.NotNeeded, Message: "no HyperPod cluster uses this EKS cluster yet"}, nil
	}
	out, err := d.p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(name)})
	if err != nil {
		return ops.Observation{}, err
	}
	o := hyperPodOutput{Name: name, Arn: aws.ToString(out.ClusterArn), Status: string(out.ClusterStatus),
		FailureMessage: aws.ToString(out.FailureMessage), NodeRecovery: string(out.NodeRecovery), NodeProvisioningMode: string(out.NodeProvisioningMode)}
	return ops.Observation{State: ops.Done, Output: o, Message: "HyperPod cluster " + name + " is " + string(out.ClusterStatus)}, nil
}

// hyperPodsByEKS describes the region's HyperPod clusters, keyed by the ARN
// of the EKS cluster that orchestrates each.
func hyperPodsByEKS(ctx context.Context, p *cloud.Provider) (map[string]*sagemaker.DescribeClusterOutput, error) {
	out := map[string]*sagemaker.DescribeClusterOutput{}
	var token *string
	for range cloud.MaxPages {
		list, err := p.SageMaker.ListClusters(ctx, &sagemaker.ListClustersInput{NextToken: token})
		if err != nil {
			return nil, err
		}
		for _, sum := range list.ClusterSummaries {
			d, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: sum.ClusterName})
			if err != nil {
				continue // deleted meanwhile
			}
			if d.Orchestrator != nil && d.Orchestrator.Eks != nil {
				out[aws.ToString(d.Orchestrator.Eks.ClusterArn)] = d
			}
		}
		if token = list.NextToken; token == nil || *token == "" {
			return out, nil
		}
	}
	return nil, cloud.TooManyPages("ListClusters")
}

// Importable is an EKS cluster of the region that no live cluster record
// manages, with the HyperPod cluster it orchestrates, if any.
type Importable struct {
	Region, EKSName, EKSStatus, Version string
	HyperPodName, HyperPodStatus        string
}

// Importable lists the region's EKS clusters that this control plane does
// not manage yet: candidates for Import.
func (s *Service) Importable(ctx context.Context, region string) ([]Importable, error) {
	p, err := s.checkProvider(region)
	if err != nil {
		return nil, err
	}
	managed := map[string]bool{}
	page, err := s.List(ListFilter{}, 1<<20, "")
	if err != nil {
		return nil, err
	}
	for _, c := range page.Items {
		if c.Region == p.Region {
			managed[c.EKS.Name] = true
		}
	}
	byEKS, err := hyperPodsByEKS(ctx, p)
	if err != nil {
		return nil, errs.FromUpstream(err, "list HyperPod clusters")
	}
	var out []Importable
	var token *string
	for range cloud.MaxPages {
		list, err := p.EKS.ListClusters(ctx, &eks.ListClustersInput{NextToken: token})
		if err != nil {
			return nil, errs.FromUpstream(err, "list EKS clusters")
		}
		for _, name := range list.Clusters {
			if managed[name] {
				continue
			}
			d, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(name)})
			if errs.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, errs.FromUpstream(err, "describe EKS cluster "+name)
			}
			im := Importable{Region: p.Region, EKSName: name, EKSStatus: string(d.Cluster.Status), Version: aws.ToString(d.Cluster.Version)}
			if hp := byEKS[aws.ToString(d.Cluster.Arn)]; hp != nil {
				im.HyperPodName, im.HyperPodStatus = aws.ToString(hp.ClusterName), string(hp.ClusterStatus)
			}
			out = append(out, im)
		}
		if token = list.NextToken; token == nil || *token == "" {
			return out, nil
		}
	}
	return nil, cloud.TooManyPages("ListClusters")
}
