package sim

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// CreateCluster starts creating a HyperPod cluster on an ACTIVE EKS
// cluster: Creating for about eight minutes (divided by the speed), then
// InService, or Failed when a capacity or fail fault hit it.
func (a *sageMakerAPI) CreateCluster(ctx context.Context, in *sagemaker.CreateClusterInput, _ ...func(*sagemaker.Options)) (*sagemaker.CreateClusterOutput, error) {
	return call(ctx, a.w, svcSageMaker, a.region, "CreateCluster", func(t *txn) (*sagemaker.CreateClusterOutput, error) {
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
		if err := t.hpModes(in, c); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for i, spec := range in.InstanceGroups {
			g, err := t.hpGroup(i, spec, c, vpcID)
			if err != nil {
				return nil, err
			}
			if seen[g.Name] {
				return nil, sageMakerValidation("Instance group names must be unique; %s appears twice.", g.Name)
			}
			seen[g.Name] = true
			c.Groups = append(c.Groups, g)
		}
		if err := t.hpQuota(c.Groups); err != nil {
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

func (t *txn) hpModes(in *sagemaker.CreateClusterInput, c *hpClusterRec) error {
	switch in.NodeRecovery {
	case "":
		c.NodeRecovery = string(smtypes.ClusterNodeRecoveryAutomatic)
	case smtypes.ClusterNodeRecoveryAutomatic, smtypes.ClusterNodeRecoveryNone:
		c.NodeRecovery = string(in.NodeRecovery)
	default:
		return sageMakerValidation("Value '%s' at 'nodeRecovery' failed to satisfy constraint: Member must satisfy enum value set: [Automatic, None]", in.NodeRecovery)
	}
	switch in.NodeProvisioningMode {
	case "", smtypes.ClusterNodeProvisioningModeContinuous:
		c.ProvisioningMode = string(in.NodeProvisioningMode)
	default:
		return sageMakerValidation("Value '%s' at 'nodeProvisioningMode' failed to satisfy constraint: Member must satisfy enum value set: [Continuous]", in.NodeProvisioningMode)
	}
	return nil
}

// hpGroup validates instance group i and places it in a zone that offers
// its instance type.
func (t *txn) hpGroup(i int, spec smtypes.ClusterInstanceGroupSpecification, c *hpClusterRec, vpcID string) (*hpGroupRec, error) {
	field := fmt.Sprintf("instanceGroups.%d.member", i+1)
	g := &hpGroupRec{
		Name: *spec.InstanceGroupName, Count: *spec.InstanceCount, MinCount: spec.MinInstanceCount,
		ExecutionRole: *spec.ExecutionRole, ThreadsPerCore: 2,
	}
	if !hpNamePattern.MatchString(g.Name) {
		return nil, sageMakerValidation("Value '%s' at '%s.instanceGroupName' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", g.Name, field, hpNamePattern)
	}
	if g.Count < 0 {
		return nil, sageMakerValidation("Value '%d' at '%s.instanceCount' failed to satisfy constraint: Member must have value greater than or equal to 0", g.Count, field)
	}
	if g.MinCount != nil && (*g.MinCount < 0 || *g.MinCount > g.Count) {
		return nil, sageMakerValidation("MinInstanceCount of instance group %s must be between 0 and its InstanceCount %d.", g.Name, g.Count)
	}
	if t.roleByArn(g.ExecutionRole) == nil {
		return nil, sageMakerValidation("The execution role %s of instance group %s does not exist.", g.ExecutionRole, g.Name)
	}
	if spec.ThreadsPerCore != nil {
		if *spec.ThreadsPerCore != 1 && *spec.ThreadsPerCore != 2 {
			return nil, sageMakerValidation("Value '%d' at '%s.threadsPerCore' failed to satisfy constraint: Member must be 1 or 2", *spec.ThreadsPerCore, field)
		}
		g.ThreadsPerCore = *spec.ThreadsPerCore
	}
	if lc := spec.LifeCycleConfig; lc != nil && lc.SourceS3Uri != nil && !strings.HasPrefix(*lc.SourceS3Uri, "s3://sagemaker-") {
		return nil, sageMakerValidation("LifeCycleConfig.SourceS3Uri of instance group %s must start with s3://sagemaker-, got %s.", g.Name, *lc.SourceS3Uri)
	}
	if lc := spec.LifeCycleConfig; lc != nil {
		g.LifeCycle = &lifeCycleRec{SourceS3Uri: copyString(lc.SourceS3Uri), OnCreate: copyString(lc.OnCreate), OnInitComplete: copyString(lc.OnInitComplete)}
	}
	if g.MinCount != nil {
		g.MinCount = aws.Int32(*g.MinCount)
	}
	subnets := c.Subnets
	if v := spec.OverrideVpcConfig; v != nil {
		if err := t.hpNetwork(v, vpcID, field+".overrideVpcConfig"); err != nil {
			return nil, err
		}
		g.OverrideSubnets, g.OverrideSGs = append([]string(nil), v.Subnets...), append([]string(nil), v.SecurityGroupIds...)
		subnets = g.OverrideSubnets
	}
	var candidates []string
	switch {
	case spec.InstanceType != "" && spec.InstanceRequirements != nil:
		return nil, sageMakerValidation("Instance group %s sets both InstanceType and InstanceRequirements; set one.", g.Name)
	case spec.InstanceType != "":
		candidates = []string{string(spec.InstanceType)}
	case spec.InstanceRequirements != nil && len(spec.InstanceRequirements.InstanceTypes) > 0:
		for _, typ := range spec.InstanceRequirements.InstanceTypes {
			candidates = append(candidates, string(typ))
		}
		g.RequirementTypes = candidates
	default:
		return nil, sageMakerValidation("Instance group %s needs an InstanceType or InstanceRequirements.InstanceTypes.", g.Name)
	}
	for _, typ := range candidates {
		if !strings.HasPrefix(typ, "ml.") || !t.w.catalog.knownType(typ) {
			return nil, sageMakerValidation("Value '%s' at '%s.instanceType' failed to satisfy constraint: Member must satisfy enum value set of ml.* cluster instance types", typ, field)
		}
	}
	for _, typ := range candidates {
		for _, id := range subnets {
			if s := t.rs.Subnets[id]; t.w.catalog.offered(t.region, s.Zone, typ) {
				g.InstanceType, g.SubnetID, g.Zone = typ, s.ID, s.Zone
				return g, nil
			}
		}
	}
	var zones []string
	for _, id := range subnets {
		zones = append(zones, t.rs.Subnets[id].Zone)
	}
	return nil, sageMakerValidation("Instance type %s of instance group %s is not supported in the Availability Zone(s) %v of its subnets. Choose subnets in a zone that offers it.",
		strings.Join(candidates, " or "), g.Name, zones)
}

// hpQuota checks the "<type> for cluster usage" quotas against what the
// region's clusters already use plus what the new cluster asks for.
func (t *txn) hpQuota(groups []*hpGroupRec) error {
	asked, used := map[string]int{}, map[string]int{}
	for _, g := range groups {
		asked[g.InstanceType] += int(g.Count)
	}
	for _, c := range t.rs.HyperPod {
		if st := c.status(t.now); st == smtypes.ClusterStatusDeleting || st == smtypes.ClusterStatusFailed {
			continue
		}
		for _, g := range c.Groups {
			used[g.InstanceType] += int(g.Count)
		}
	}
	for _, typ := range sortedKeys(asked) {
		limit := t.quota(typ)
		if float64(used[typ]+asked[typ]) <= limit {
			continue
		}
		if i := t.quotaFault(typ); i >= 0 {
			t.st.fire(i)
		}
		return &smtypes.ResourceLimitExceeded{Message: aws.String(fmt.Sprintf(
			"The account-level service limit '%s' is %g Instances, with current utilization of %d Instances and a request delta of %d Instances. Please use AWS Service Quotas to request an increase for this quota.",
			quotaName(typ), limit, used[typ], asked[typ]))}
	}
	return nil
}

// hpProvision records a validated cluster, its nodes, and how its
// creation will end.
func (t *txn) hpProvision(c *hpClusterRec) {
	c.Arn = fmt.Sprintf("arn:aws:sagemaker:%s:%s:cluster/%s", t.region, t.account(), t.randString(lowerAlnum, 12))
	ready := hpCreateEmptyTime
	for _, g := range c.Groups {
		if g.Count > 0 {
			ready = hpCreateTime
		}
	}
	c.Life = newLifecycle(t.now, t.after(ready))
	for _, g := range c.Groups {
		if g.Count > 0 && c.Life.FailMessage == "" {
			if zone, _ := t.w.catalog.zone(t.region, g.Zone); t.capacityFault(zone, g.InstanceType) {
				c.Life.FailMessage = t.capacityMessage(g)
			}
		}
		for n := int32(0); n < g.Count; n++ {
			g.Nodes = append(g.Nodes, hpNodeRec{
				InstanceID: t.newID("i"), LogicalID: "node-" + t.randString(lowerAlnum, 17), PrivateIP: t.rs.Subnets[g.SubnetID].nextIP(),
			})
		}
	}
	if msg, failed := t.failFault(svcSageMaker, "CreateCluster", "Simulated cluster creation failure"); failed && c.Life.FailMessage == "" {
		c.Life.FailMessage = msg
	}
	t.rs.HyperPod[c.Name] = c
}

// capacityMessage is HyperPod's failure message for a group whose zone has
// no capacity for its instance type; it suggests zones that offer the type.
func (t *txn) capacityMessage(g *hpGroupRec) string {
	var others []string
	region, _ := t.w.catalog.region(t.region)
	for _, z := range region.Zones {
		if z.Name != g.Zone && t.w.catalog.offered(t.region, z.Name, g.InstanceType) {
			others = append(others, z.Name)
		}
	}
	msg := fmt.Sprintf("InsufficientInstanceCapacity: We currently do not have sufficient %s capacity in the Availability Zone you requested (%s). "+
		"Our system will be working on provisioning additional capacity.", g.InstanceType, g.Zone)
	if len(others) > 0 {
		msg += fmt.Sprintf(" You can currently get %s capacity by choosing %s.", g.InstanceType, strings.Join(others, ", "))
	}
	return msg + fmt.Sprintf(" (instance group %s)", g.Name)
}
