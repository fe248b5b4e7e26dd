package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// hpGroupRec is an instance group, placed in the zone of one of its
// subnets. A flexible group (InstanceRequirements) lists its types in
// priority order and runs the first one its zone offers.
type hpGroupRec struct {
	Name             string
	InstanceType     string   // the type it runs, e.g. "ml.p5.48xlarge"
	RequirementTypes []string `json:",omitempty"`
	Count            int32    // the target count
	MinCount         *int32   `json:",omitempty"`
	ExecutionRole    string
	ThreadsPerCore   int32
	OverrideSubnets  []string      `json:",omitempty"`
	OverrideSGs      []string      `json:",omitempty"`
	LifeCycle        *lifeCycleRec `json:",omitempty"`
	SubnetID         string
	Zone             string
	// Capacity is the CapacityRequirements asked for: Spot, OnDemand, or
	// empty (On-Demand, or the training plan's reserved capacity).
	Capacity        string `json:",omitempty"`
	TrainingPlanArn string `json:",omitempty"`
	// NetworkInterface is the interface type of the group's EFA
	// interfaces, "efa" or "efa-only", as asked for (empty if not): it is
	// fixed for the group's life.
	NetworkInterface string         `json:",omitempty"`
	DeepHealthChecks []string       `json:",omitempty"`
	Kube             hpKubeRec      // the labels and taints asked for
	KubePrev         *hpKubeRec     `json:",omitempty"` // what nodes carry until BusyUntil
	Storage          []hpStorageRec `json:",omitempty"`
	// Busy is Creating or Updating until BusyUntil, while the group's nodes
	// come and go.
	Busy      string       `json:",omitempty"`
	BusyUntil *time.Time   `json:",omitempty"`
	Deleting  bool         `json:",omitempty"`
	Nodes     []*hpNodeRec `json:",omitempty"`
	// ImageVersion is the image release the group runs (empty:
	// ImageVersionCurrent); Patch its latest software update.
	ImageVersion string      `json:",omitempty"`
	Patch        *hpPatchRec `json:",omitempty"`
}

// lifeCycleRec is an instance group's lifecycle configuration: the
// scripts its nodes run when they are created.
type lifeCycleRec struct {
	SourceS3Uri    *string `json:",omitempty"`
	OnCreate       *string `json:",omitempty"`
	OnInitComplete *string `json:",omitempty"`
}

// hpKubeRec is the Kubernetes labels and taints of a group's nodes.
type hpKubeRec struct {
	Labels map[string]string `json:",omitempty"`
	Taints []hpTaintRec      `json:",omitempty"`
}

type hpTaintRec struct {
	Key, Value, Effect string
}

// hpStorageRec is one of a group's instance storage configurations: an EBS
// volume, or an FSx for Lustre or OpenZFS file system.
type hpStorageRec struct {
	Kind       string // Ebs, FsxLustre or FsxOpenZfs
	SizeGB     *int32 `json:",omitempty"`
	KmsKeyID   *string
	RootVolume *bool   `json:",omitempty"`
	DNSName    *string `json:",omitempty"`
	MountName  *string `json:",omitempty"`
	MountPath  *string `json:",omitempty"`
}

// capacityType is what the group's nodes report: Spot or On-Demand
// (training-plan capacity reports On-Demand).
func (g *hpGroupRec) capacityType() smtypes.ClusterCapacityType {
	if g.Capacity == string(smtypes.ClusterCapacityTypeSpot) {
		return smtypes.ClusterCapacityTypeSpot
	}
	return smtypes.ClusterCapacityTypeOnDemand
}

// capacityKind names the kind of capacity the group runs on, for messages
// and for comparing an update with the group.
func (g *hpGroupRec) capacityKind() string {
	if g.TrainingPlanArn != "" {
		return "training plan " + g.TrainingPlanArn
	}
	return string(g.capacityType())
}

// busy marks the group Creating or Updating until until, unless it
// already is for longer.
func (g *hpGroupRec) busy(status smtypes.InstanceGroupStatus, until time.Time) {
	if g.BusyUntil != nil && g.BusyUntil.After(until) {
		until = *g.BusyUntil
	}
	g.Busy, g.BusyUntil = string(status), &until
}

// kubeAt is the labels and taints the group's nodes carry at now.
func (g *hpGroupRec) kubeAt(now time.Time) hpKubeRec {
	if g.KubePrev != nil && g.BusyUntil != nil && now.Before(*g.BusyUntil) {
		return *g.KubePrev
	}
	return g.Kube
}

// node finds a node of the group by logical id.
func (g *hpGroupRec) node(logicalID string) *hpNodeRec {
	for _, n := range g.Nodes {
		if n.LogicalID == logicalID {
			return n
		}
	}
	return nil
}

// waiting counts the nodes that wait for capacity.
func (g *hpGroupRec) waiting() int {
	n := 0
	for _, node := range g.Nodes {
		if node.waiting() {
			n++
		}
	}
	return n
}

// current counts the nodes that are Running.
func (g *hpGroupRec) current() int32 {
	var n int32
	for _, node := range g.Nodes {
		if node.Status == smtypes.ClusterInstanceStatusRunning && !node.Deleting {
			n++
		}
	}
	return n
}

// groupStatus derives an instance group's status from its cluster's and
// its own: Degraded while some nodes wait for capacity.
func (t *txn) groupStatus(g *hpGroupRec, cluster smtypes.ClusterStatus) smtypes.InstanceGroupStatus {
	switch {
	case cluster == smtypes.ClusterStatusCreating:
		return smtypes.InstanceGroupStatusCreating
	case cluster == smtypes.ClusterStatusFailed:
		return smtypes.InstanceGroupStatusFailed
	case cluster == smtypes.ClusterStatusDeleting, g.Deleting:
		return smtypes.InstanceGroupStatusDeleting
	case g.waiting() > 0:
		return smtypes.InstanceGroupStatusDegraded
	case g.patching():
		return smtypes.InstanceGroupStatusSystemupdating
	case g.BusyUntil != nil && t.now.Before(*g.BusyUntil):
		return smtypes.InstanceGroupStatus(g.Busy)
	}
	return smtypes.InstanceGroupStatusInservice
}

func (t *txn) hpGroupOut(g *hpGroupRec, cluster smtypes.ClusterStatus) smtypes.ClusterInstanceGroupDetails {
	current := int32(0)
	if cluster != smtypes.ClusterStatusFailed && cluster != smtypes.ClusterStatusDeleting {
		current = g.current()
	}
	out := smtypes.ClusterInstanceGroupDetails{
		InstanceGroupName: aws.String(g.Name), Status: t.groupStatus(g, cluster), CurrentCount: aws.Int32(current), TargetCount: aws.Int32(g.Count),
		MinCount: copyInt32(g.MinCount), ExecutionRole: aws.String(g.ExecutionRole), ThreadsPerCore: aws.Int32(g.ThreadsPerCore),
		InstanceStorageConfigs: storageOut(g.Storage), KubernetesConfig: kubeDetailsOut(g.kubeAt(t.now), g.Kube),
	}
	for _, c := range g.DeepHealthChecks {
		out.OnStartDeepHealthChecks = append(out.OnStartDeepHealthChecks, smtypes.DeepHealthCheckType(c))
	}
	switch smtypes.ClusterCapacityType(g.Capacity) {
	case smtypes.ClusterCapacityTypeSpot:
		out.CapacityRequirements = &smtypes.ClusterCapacityRequirements{Spot: &smtypes.ClusterSpotOptions{}}
	case smtypes.ClusterCapacityTypeOnDemand:
		out.CapacityRequirements = &smtypes.ClusterCapacityRequirements{OnDemand: &smtypes.ClusterOnDemandOptions{}}
	}
	if g.TrainingPlanArn != "" {
		out.TrainingPlanArn = aws.String(g.TrainingPlanArn)
		if p, ok := t.trainingPlanByArn(g.TrainingPlanArn); ok {
			out.TrainingPlanStatus = aws.String(string(t.planStatus(p)))
		}
	}
	if lc := g.LifeCycle; lc != nil {
		out.LifeCycleConfig = &smtypes.ClusterLifeCycleConfig{
			SourceS3Uri: copyString(lc.SourceS3Uri), OnCreate: copyString(lc.OnCreate), OnInitComplete: copyString(lc.OnInitComplete),
		}
	}
	out.NetworkInterface = g.networkInterfaceOut()
	out.CurrentImageReleaseVersion = aws.String(g.imageVersion())
	out.DesiredImageReleaseVersion = aws.String(g.imageVersion())
	out.ImageVersionStatus = imageVersionStatus(g.imageVersion())
	if p := g.Patch; p != nil {
		out.SoftwareUpdateStatus = p.Status
		if g.patching() {
			out.DesiredImageReleaseVersion = aws.String(p.To)
			out.ActiveSoftwareUpdateConfig = p.configOut()
		}
	}
	if g.RequirementTypes == nil {
		out.InstanceType = smtypes.ClusterInstanceType(g.InstanceType)
	} else {
		var types []smtypes.ClusterInstanceType
		for _, typ := range g.RequirementTypes {
			types = append(types, smtypes.ClusterInstanceType(typ))
		}
		out.InstanceRequirements = &smtypes.ClusterInstanceRequirementDetails{CurrentInstanceTypes: types, DesiredInstanceTypes: types}
		out.InstanceTypeDetails = []smtypes.ClusterInstanceTypeDetail{{
			InstanceType: smtypes.ClusterInstanceType(g.InstanceType), CurrentCount: aws.Int32(current), ThreadsPerCore: aws.Int32(g.ThreadsPerCore),
		}}
	}
	if g.OverrideSubnets != nil {
		out.OverrideVpcConfig = &smtypes.VpcConfig{Subnets: slices.Clone(g.OverrideSubnets), SecurityGroupIds: slices.Clone(g.OverrideSGs)}
	}
	return out
}

// networkInterfaceOut is the group's network interface configuration as
// DescribeCluster and DescribeClusterNode show it.
func (g *hpGroupRec) networkInterfaceOut() *smtypes.ClusterNetworkInterfaceDetails {
	if g.NetworkInterface == "" {
		return nil
	}
	return &smtypes.ClusterNetworkInterfaceDetails{InterfaceType: smtypes.ClusterInterfaceType(g.NetworkInterface)}
}

func kubeDetailsOut(current, desired hpKubeRec) *smtypes.ClusterKubernetesConfigDetails {
	if current.empty() && desired.empty() {
		return nil
	}
	return &smtypes.ClusterKubernetesConfigDetails{
		CurrentLabels: maps.Clone(current.Labels), CurrentTaints: taintsOut(current.Taints),
		DesiredLabels: maps.Clone(desired.Labels), DesiredTaints: taintsOut(desired.Taints),
	}
}

func (k hpKubeRec) empty() bool { return len(k.Labels) == 0 && len(k.Taints) == 0 }

func (k hpKubeRec) equal(o hpKubeRec) bool {
	return maps.Equal(k.Labels, o.Labels) && slices.Equal(k.Taints, o.Taints)
}

func taintsOut(taints []hpTaintRec) []smtypes.ClusterKubernetesTaint {
	var out []smtypes.ClusterKubernetesTaint
	for _, tn := range taints {
		taint := smtypes.ClusterKubernetesTaint{Key: aws.String(tn.Key), Effect: smtypes.ClusterKubernetesTaintEffect(tn.Effect)}
		if tn.Value != "" {
			taint.Value = aws.String(tn.Value)
		}
		out = append(out, taint)
	}
	return out
}

func storageOut(recs []hpStorageRec) []smtypes.ClusterInstanceStorageConfig {
	var out []smtypes.ClusterInstanceStorageConfig
	for _, s := range recs {
		switch s.Kind {
		case "Ebs":
			out = append(out, &smtypes.ClusterInstanceStorageConfigMemberEbsVolumeConfig{Value: smtypes.ClusterEbsVolumeConfig{
				VolumeSizeInGB: copyInt32(s.SizeGB), VolumeKmsKeyId: copyString(s.KmsKeyID), RootVolume: copyBool(s.RootVolume),
			}})
		case "FsxLustre":
			out = append(out, &smtypes.ClusterInstanceStorageConfigMemberFsxLustreConfig{Value: smtypes.ClusterFsxLustreConfig{
				DnsName: copyString(s.DNSName), MountName: copyString(s.MountName), MountPath: copyString(s.MountPath),
			}})
		case "FsxOpenZfs":
			out = append(out, &smtypes.ClusterInstanceStorageConfigMemberFsxOpenZfsConfig{Value: smtypes.ClusterFsxOpenZfsConfig{
				DnsName: copyString(s.DNSName), MountPath: copyString(s.MountPath),
			}})
		}
	}
	return out
}

// hpGroup validates instance group spec i and places the group in a zone
// that offers its instance type (a training plan's zone, for a group on a
// plan). It does not check counts against quotas, capacity or plans.
func (t *txn) hpGroup(i int, spec smtypes.ClusterInstanceGroupSpecification, c *hpClusterRec, vpcID string) (*hpGroupRec, error) {
	field := fmt.Sprintf("instanceGroups.%d.member", i+1)
	g := &hpGroupRec{
		Name: *spec.InstanceGroupName, Count: *spec.InstanceCount, MinCount: copyInt32(spec.MinInstanceCount),
		ExecutionRole: *spec.ExecutionRole, ThreadsPerCore: 2, TrainingPlanArn: aws.ToString(spec.TrainingPlanArn),
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
	if t.roleUsable(g.ExecutionRole) == nil {
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
	if err := hpCapacityRequirements(g, spec.CapacityRequirements); err != nil {
		return nil, err
	}
	if ni := spec.NetworkInterface; ni != nil {
		if !slices.Contains(ni.InterfaceType.Values(), ni.InterfaceType) {
			return nil, sageMakerValidation("Value '%s' at '%s.networkInterface.interfaceType' failed to satisfy constraint: Member must satisfy enum value set: %v",
				ni.InterfaceType, field, ni.InterfaceType.Values())
		}
		g.NetworkInterface = string(ni.InterfaceType)
	}
	var err error
	if g.Kube, err = hpKube(g.Name, spec.KubernetesConfig); err != nil {
		return nil, err
	}
	if g.Storage, err = hpStorage(g.Name, spec.InstanceStorageConfigs); err != nil {
		return nil, err
	}
	subnets := c.Subnets
	if v := spec.OverrideVpcConfig; v != nil {
		if err := t.hpNetwork(v, vpcID, field+".overrideVpcConfig"); err != nil {
			return nil, err
		}
		g.OverrideSubnets, g.OverrideSGs = append([]string(nil), v.Subnets...), append([]string(nil), v.SecurityGroupIds...)
		subnets = g.OverrideSubnets
	}
	candidates, err := t.hpInstanceTypes(g, spec, field)
	if err != nil {
		return nil, err
	}
	if err := hpDeepHealthChecks(g, spec.OnStartDeepHealthChecks, candidates); err != nil {
		return nil, err
	}
	if err := hpNetworkInterface(g, candidates); err != nil {
		return nil, err
	}
	if g.TrainingPlanArn != "" {
		g.InstanceType = candidates[0]
		if err := t.hpPlanPlacement(g, subnets); err != nil {
			return nil, err
		}
		return g, nil
	}
	for _, typ := range candidates {
		for _, id := range subnets {
			if s := t.rs.Subnets[id]; t.w.catalog.offered(t.region, s.Zone, typ) {
				g.InstanceType, g.SubnetID, g.Zone = typ, s.ID, s.Zone
				return g, nil
			}
		}
	}
	return nil, sageMakerValidation("Instance type %s of instance group %s is not supported in the Availability Zone(s) %v of its subnets. Choose subnets in a zone that offers it.",
		strings.Join(candidates, " or "), g.Name, t.subnetZones(subnets))
}

func (t *txn) subnetZones(subnets []string) []string {
	var zones []string
	for _, id := range subnets {
		zones = append(zones, t.rs.Subnets[id].Zone)
	}
	return zones
}

// hpInstanceTypes returns the types a group may run, in priority order.
func (t *txn) hpInstanceTypes(g *hpGroupRec, spec smtypes.ClusterInstanceGroupSpecification, field string) ([]string, error) {
	var candidates []string
	switch {
	case spec.InstanceType != "" && spec.InstanceRequirements != nil:
		return nil, sageMakerValidation("Instance group %s sets both InstanceType and InstanceRequirements; set one.", g.Name)
	case spec.InstanceType != "":
		candidates = []string{string(spec.InstanceType)}
	case spec.InstanceRequirements != nil && len(spec.InstanceRequirements.InstanceTypes) > 0:
		if g.TrainingPlanArn != "" {
			return nil, sageMakerValidation("Instance group %s uses a training plan, which reserves one instance type: set InstanceType, not InstanceRequirements.", g.Name)
		}
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
	return candidates, nil
}

// hpCapacityRequirements records whether the group asked for Spot or
// On-Demand capacity; a training plan brings its own.
func hpCapacityRequirements(g *hpGroupRec, req *smtypes.ClusterCapacityRequirements) error {
	if req == nil {
		return nil
	}
	switch {
	case req.Spot != nil && req.OnDemand != nil:
		return sageMakerValidation("CapacityRequirements of instance group %s sets both Spot and OnDemand; set one.", g.Name)
	case req.Spot != nil && g.TrainingPlanArn != "":
		return sageMakerValidation("Instance group %s uses a training plan, which is reserved capacity: remove CapacityRequirements.Spot.", g.Name)
	case req.Spot != nil:
		g.Capacity = string(smtypes.ClusterCapacityTypeSpot)
	case req.OnDemand != nil:
		g.Capacity = string(smtypes.ClusterCapacityTypeOnDemand)
	}
	return nil
}

// hpDeepHealthChecks validates the checks a group runs on new nodes: only
// GPU and Trainium instances have them, and MultiNodeTrainingValidation
// needs NVIDIA GPUs.
func hpDeepHealthChecks(g *hpGroupRec, checks []smtypes.DeepHealthCheckType, types []string) error {
	for _, c := range checks {
		if !slices.Contains(smtypes.DeepHealthCheckType("").Values(), c) {
			return sageMakerValidation("Value '%s' at 'onStartDeepHealthChecks' of instance group %s failed to satisfy constraint: Member must satisfy enum value set: %v",
				c, g.Name, smtypes.DeepHealthCheckType("").Values())
		}
		if slices.Contains(g.DeepHealthChecks, string(c)) {
			continue
		}
		for _, typ := range types {
			family := instanceFamily(typ)
			if !accelerated(family) {
				return sageMakerValidation("Deep health checks run only on GPU and Trainium instances; instance group %s runs %s. Remove OnStartDeepHealthChecks.", g.Name, typ)
			}
			if c == smtypes.DeepHealthCheckTypeMultiNodeTrainingValidation && !strings.HasPrefix(family, "p") && !strings.HasPrefix(family, "g") {
				return sageMakerValidation("MultiNodeTrainingValidation needs NVIDIA GPU instances; instance group %s runs %s.", g.Name, typ)
			}
		}
		g.DeepHealthChecks = append(g.DeepHealthChecks, string(c))
	}
	return nil
}

// hpNetworkInterface refuses an EFA interface type on a group whose
// instance types have no EFA.
func hpNetworkInterface(g *hpGroupRec, types []string) error {
	if g.NetworkInterface == "" {
		return nil
	}
	for _, typ := range types {
		if networkOf(typ).efas == 0 {
			return sageMakerValidation("NetworkInterface %s of instance group %s needs instances with EFA, and %s has none. Remove NetworkInterface or choose an EFA instance type.",
				g.NetworkInterface, g.Name, typ)
		}
	}
	return nil
}

// hpKube validates a group's Kubernetes labels and taints. HyperPod owns
// the sagemaker.amazonaws.com/ prefix.
func hpKube(group string, k *smtypes.ClusterKubernetesConfig) (hpKubeRec, error) {
	var out hpKubeRec
	if k == nil {
		return out, nil
	}
	for key, value := range k.Labels {
		if strings.HasPrefix(key, "sagemaker.amazonaws.com/") {
			return out, sageMakerValidation("Label %s of instance group %s uses the prefix sagemaker.amazonaws.com/, which HyperPod reserves. Choose another key.", key, group)
		}
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
		out.Labels[key] = value
	}
	for _, tn := range k.Taints {
		if !slices.Contains(smtypes.ClusterKubernetesTaintEffect("").Values(), tn.Effect) {
			return out, sageMakerValidation("Taint %s of instance group %s has effect %q; use NoSchedule, PreferNoSchedule or NoExecute.", aws.ToString(tn.Key), group, tn.Effect)
		}
		out.Taints = append(out.Taints, hpTaintRec{Key: aws.ToString(tn.Key), Value: aws.ToString(tn.Value), Effect: string(tn.Effect)})
	}
	return out, nil
}

// hpStorage validates a group's instance storage: EBS volumes of 1 to
// 16384 GiB, FSx file systems with a DNS name.
func hpStorage(group string, configs []smtypes.ClusterInstanceStorageConfig) ([]hpStorageRec, error) {
	var out []hpStorageRec
	for _, cfg := range configs {
		switch v := cfg.(type) {
		case *smtypes.ClusterInstanceStorageConfigMemberEbsVolumeConfig:
			if size := v.Value.VolumeSizeInGB; size != nil && (*size < 1 || *size > 16384) {
				return nil, sageMakerValidation("VolumeSizeInGB %d of instance group %s is out of range: use 1 to 16384.", *size, group)
			}
			out = append(out, hpStorageRec{Kind: "Ebs", SizeGB: copyInt32(v.Value.VolumeSizeInGB), KmsKeyID: copyString(v.Value.VolumeKmsKeyId), RootVolume: copyBool(v.Value.RootVolume)})
		case *smtypes.ClusterInstanceStorageConfigMemberFsxLustreConfig:
			if v.Value.DnsName == nil {
				return nil, sageMakerValidation("The FSx for Lustre storage of instance group %s needs a DnsName.", group)
			}
			out = append(out, hpStorageRec{Kind: "FsxLustre", DNSName: copyString(v.Value.DnsName), MountName: copyString(v.Value.MountName), MountPath: copyString(v.Value.MountPath)})
		case *smtypes.ClusterInstanceStorageConfigMemberFsxOpenZfsConfig:
			if v.Value.DnsName == nil {
				return nil, sageMakerValidation("The FSx for OpenZFS storage of instance group %s needs a DnsName.", group)
			}
			out = append(out, hpStorageRec{Kind: "FsxOpenZfs", DNSName: copyString(v.Value.DnsName), MountPath: copyString(v.Value.MountPath)})
		default:
			return nil, sageMakerValidation("Instance group %s has an instance storage configuration the simulator does not know; use EbsVolumeConfig, FsxLustreConfig or FsxOpenZfsConfig.", group)
		}
	}
	return out, nil
}

// instanceFamily is the family of a SageMaker or EC2 type: "p5" for
// "ml.p5.48xlarge".
func instanceFamily(typ string) string {
	family, _, _ := strings.Cut(strings.TrimPrefix(typ, "ml."), ".")
	return family
}

// accelerated tells whether a family has GPUs or Trainium chips.
func accelerated(family string) bool {
	return strings.HasPrefix(family, "p") || strings.HasPrefix(family, "g") || strings.HasPrefix(family, "trn")
}

func copyBool(p *bool) *bool {
	if p == nil {
		return nil
	}
	return aws.Bool(*p)
}
