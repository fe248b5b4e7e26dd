package sim

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// CreateCluster starts creating a HyperPod cluster on an ACTIVE EKS
// cluster: Creating for about eight minutes (divided by the speed; longer
// with deep health checks, four minutes without nodes), then InService, or
// Failed when a capacity or fail fault hit it, or its nodes found less
// capacity than a group's MinInstanceCount.
func (a *sageMakerAPI) CreateCluster(ctx context.Context, in *sagemaker.CreateClusterInput, _ ...func(*sagemaker.Options)) (*sagemaker.CreateClusterOutput, error) {
	return hpCall(ctx, a, "CreateCluster", func(t *txn) (*sagemaker.CreateClusterOutput, error) {
		in := orZero(in)
		if err := needCreateCluster(in); err != nil {
			return nil, err
		}
		name := *in.ClusterName
		if !hpNamePattern.MatchString(name) {
			return nil, sageMakerValidation("1 validation error detected: Value '%s' at 'clusterName' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", name, hpNamePattern)
		}
		if t.rs.HyperPod[name] != nil {
			return nil, &smtypes.ResourceInUse{Message: aws.String(fmt.Sprintf("Cluster with name %s already exists. Choose a different name.", name))}
		}
		c := &hpClusterRec{Name: name, Tags: smTagMap(in.Tags)}
		vpcID, err := t.hpOrchestrator(in, c)
		if err != nil {
			return nil, err
		}
		c.NodeRecovery = string(smtypes.ClusterNodeRecoveryAutomatic)
		settings := hpSettings{NodeRecovery: in.NodeRecovery, ProvisioningMode: in.NodeProvisioningMode,
			AutoScaling: in.AutoScaling, ClusterRole: in.ClusterRole, TieredStorage: in.TieredStorageConfig}
		if err := t.hpApplySettings(c, settings); err != nil {
			return nil, err
		}
		for i, spec := range in.InstanceGroups {
			g, err := t.hpGroup(i, spec, c, vpcID)
			if err != nil {
				return nil, err
			}
			if c.group(g.Name) != nil {
				return nil, sageMakerValidation("Instance group names must be unique; %s appears twice.", g.Name)
			}
			if err := t.hpPlanCount(g, nil, c.Groups); err != nil {
				return nil, err
			}
			c.Groups = append(c.Groups, g)
		}
		if err := t.hpQuota(quotaDelta(nil, c.Groups...)); err != nil {
			return nil, err
		}
		t.hpProvision(c)
		return &sagemaker.CreateClusterOutput{ClusterArn: aws.String(c.Arn)}, nil
	})
}

// needCreateCluster reports the missing required fields the SDK checks.
func needCreateCluster(in *sagemaker.CreateClusterInput) error {
	params := []param{{"ClusterName", in.ClusterName != nil}}
	for i, g := range in.InstanceGroups {
		prefix := fmt.Sprintf("InstanceGroups[%d].", i)
		params = append(params, param{prefix + "ExecutionRole", g.ExecutionRole != nil},
			param{prefix + "InstanceCount", g.InstanceCount != nil}, param{prefix + "InstanceGroupName", g.InstanceGroupName != nil})
	}
	if o := in.Orchestrator; o != nil && o.Eks != nil {
		params = append(params, param{"Orchestrator.Eks.ClusterArn", o.Eks.ClusterArn != nil})
	}
	if v := in.VpcConfig; v != nil {
		params = append(params, param{"VpcConfig.SecurityGroupIds", v.SecurityGroupIds != nil}, param{"VpcConfig.Subnets", v.Subnets != nil})
	}
	return need("CreateClusterInput", params...)
}

func smTagMap(tags []smtypes.Tag) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, tag := range tags {
		m[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	return m
}

// hpOrchestrator checks the EKS cluster and the VPC configuration, and
// returns the VPC the cluster will live in.
func (t *txn) hpOrchestrator(in *sagemaker.CreateClusterInput, c *hpClusterRec) (string, error) {
	if in.Orchestrator == nil || in.Orchestrator.Eks == nil {
		return "", sageMakerValidation("The simulator supports only clusters orchestrated by EKS: set Orchestrator.Eks.ClusterArn.")
	}
	arn := *in.Orchestrator.Eks.ClusterArn
	var eksc *eksClusterRec
	for _, e := range t.rs.EKS {
		if e.Arn == arn {
			eksc = e
		}
	}
	switch {
	case eksc == nil:
		return "", sageMakerValidation("The EKS cluster %s was not found in %s.", arn, t.region)
	case eksc.status(t.now) != ekstypes.ClusterStatusActive:
		return "", sageMakerValidation("The EKS cluster %s is %s; it must be ACTIVE.", arn, eksc.status(t.now))
	case eksc.AuthMode == string(ekstypes.AuthenticationModeConfigMap):
		return "", sageMakerValidation("The EKS cluster %s uses authentication mode CONFIG_MAP; HyperPod needs API or API_AND_CONFIG_MAP.", arn)
	}
	c.EKSArn = arn
	if in.VpcConfig == nil {
		return "", sageMakerValidation("VpcConfig is required for clusters orchestrated by EKS.")
	}
	if err := t.hpNetwork(in.VpcConfig, eksc.VpcID, "VpcConfig"); err != nil {
		return "", err
	}
	c.Subnets = append([]string(nil), in.VpcConfig.Subnets...)
	c.SecurityGroups = append([]string(nil), in.VpcConfig.SecurityGroupIds...)
	return eksc.VpcID, nil
}

// hpNetwork checks that a VpcConfig names existing subnets and security
// groups of vpcID.
func (t *txn) hpNetwork(v *smtypes.VpcConfig, vpcID, field string) error {
	if len(v.Subnets) == 0 || len(v.SecurityGroupIds) == 0 {
		return sageMakerValidation("%s needs at least one subnet and one security group.", field)
	}
	for _, id := range v.Subnets {
		s := t.rs.Subnets[id]
		if s == nil {
			return sageMakerValidation("%s: subnet %s does not exist.", field, id)
		}
		if s.VpcID != vpcID {
			return sageMakerValidation("%s: subnet %s is in %s, not in the EKS cluster's VPC %s.", field, id, s.VpcID, vpcID)
		}
	}
	for _, id := range v.SecurityGroupIds {
		g := t.rs.SecurityGroups[id]
		if g == nil {
			return sageMakerValidation("%s: security group %s does not exist.", field, id)
		}
		if g.VpcID != vpcID {
			return sageMakerValidation("%s: security group %s is in %s, not in the EKS cluster's VPC %s.", field, id, g.VpcID, vpcID)
		}
	}
	return nil
}

// hpProvision records a validated cluster, launches its nodes, and decides
// how its creation will end. Nodes boot once the cluster-level resources
// are up, and the cluster is InService once the nodes that found capacity
// are through their deep health checks. Nodes that do not fit in their
// zone wait for capacity (see hpCreateRoom).
func (t *txn) hpProvision(c *hpClusterRec) {
	c.Arn = fmt.Sprintf("arn:aws:sagemaker:%s:%s:cluster/%s", t.region, t.account(), t.randString(lowerAlnum, 12))
	ready := hpCreateEmptyTime
	for _, g := range c.Groups {
		if g.Count > 0 {
			ready = max(ready, hpCreateTime+checksTime(g.DeepHealthChecks))
		}
	}
	c.Life = newLifecycle(t.now, t.after(ready))
	t.rs.HyperPod[c.Name] = c
	t.clusterEvent(c, t.now, smtypes.ClusterEventLevelInfo, "Cluster %s is Creating.", c.Name)
	bootAt := t.after(hpCreateTime)
	for _, g := range c.Groups {
		count := int(g.Count)
		launched := count
		if count > 0 && c.Life.FailMessage == "" {
			launched = t.hpCreateRoom(c, g, count)
		}
		t.addNodes(c, g, count, launched, bootAt)
		if count > 0 {
			t.markBusy(c, g, smtypes.InstanceGroupStatusCreating, t.at(bootAt, checksTime(g.DeepHealthChecks)))
		}
	}
	if msg, failed := t.failFault(svcSageMaker, "CreateCluster", "Simulated cluster creation failure"); failed && c.Life.FailMessage == "" {
		c.Life.FailMessage = msg
	}
	c.Life.HeldBy = t.holdFault(svcSageMaker, "CreateCluster")
	t.schedule(c, hpAction{At: c.Life.ReadyAt, Kind: actClusterReady})
}

// hpCreateRoom is how many of the count nodes of a new cluster's group
// launch; the others wait for capacity. A capacity fault dooms the cluster
// instead, as does, without Continuous provisioning, less room than the
// group's MinInstanceCount: all its nodes launch, to be rolled back when
// it fails.
func (t *txn) hpCreateRoom(c *hpClusterRec, g *hpGroupRec, count int) int {
	if zone, _ := t.w.catalog.zone(t.region, g.Zone); g.TrainingPlanArn == "" && t.capacityFault(zone, g.InstanceType) {
		c.Life.FailMessage = t.capacityMessage(g)
		return count
	}
	launched := t.room(g, count, false)
	if !c.continuous() && g.MinCount != nil && launched < int(*g.MinCount) {
		c.Life.FailMessage = t.waitMessage(g, int(*g.MinCount))
		return count
	}
	return launched
}
