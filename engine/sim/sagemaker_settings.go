package sim

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// hpSettings is the cluster-wide settings CreateCluster and UpdateCluster
// take. Empty fields leave the cluster's setting as it is.
type hpSettings struct {
	NodeRecovery     smtypes.ClusterNodeRecovery
	ProvisioningMode smtypes.ClusterNodeProvisioningMode
	AutoScaling      *smtypes.ClusterAutoScalingConfig
	ClusterRole      *string
	TieredStorage    *smtypes.ClusterTieredStorageConfig
}

// hpApplySettings validates s against c and, only when all is valid,
// applies it. Managed Karpenter autoscaling needs Continuous provisioning,
// automatic node recovery and a cluster role, and the role cannot change
// while autoscaling is on.
func (t *txn) hpApplySettings(c *hpClusterRec, s hpSettings) error {
	recovery, mode, role := c.NodeRecovery, c.ProvisioningMode, c.ClusterRole
	switch s.NodeRecovery {
	case "":
	case smtypes.ClusterNodeRecoveryAutomatic, smtypes.ClusterNodeRecoveryNone:
		recovery = string(s.NodeRecovery)
	default:
		return sageMakerValidation("Value '%s' at 'nodeRecovery' failed to satisfy constraint: Member must satisfy enum value set: [Automatic, None]", s.NodeRecovery)
	}
	switch s.ProvisioningMode {
	case "":
	case smtypes.ClusterNodeProvisioningModeContinuous:
		mode = string(s.ProvisioningMode)
	default:
		return sageMakerValidation("Value '%s' at 'nodeProvisioningMode' failed to satisfy constraint: Member must satisfy enum value set: [Continuous]", s.ProvisioningMode)
	}
	wasOn := c.AutoScaling != nil && c.AutoScaling.Mode == string(smtypes.ClusterAutoScalingModeEnable)
	on := wasOn
	if a := s.AutoScaling; a != nil {
		if !validEnum(a.Mode) {
			return sageMakerValidation("Value '%s' at 'autoScaling.mode' failed to satisfy constraint: Member must satisfy enum value set: [Enable, Disable]", a.Mode)
		}
		if a.AutoScalerType != "" && a.AutoScalerType != smtypes.ClusterAutoScalerTypeKarpenter {
			return sageMakerValidation("Value '%s' at 'autoScaling.autoScalerType' failed to satisfy constraint: Member must satisfy enum value set: [Karpenter]", a.AutoScalerType)
		}
		on = a.Mode == smtypes.ClusterAutoScalingModeEnable
	}
	if s.ClusterRole != nil && *s.ClusterRole != role {
		if wasOn && on {
			return sageMakerValidation("ClusterRole of cluster %s cannot change while autoscaling is enabled. Disable AutoScaling first, or keep the role %s.", c.Name, role)
		}
		if t.roleUsable(*s.ClusterRole) == nil {
			return sageMakerValidation("The cluster role %s does not exist.", *s.ClusterRole)
		}
		role = *s.ClusterRole
	}
	if on {
		switch {
		case mode != string(smtypes.ClusterNodeProvisioningModeContinuous):
			return sageMakerValidation("Autoscaling needs NodeProvisioningMode Continuous; set it on cluster %s too.", c.Name)
		case recovery != string(smtypes.ClusterNodeRecoveryAutomatic):
			return sageMakerValidation("Autoscaling needs NodeRecovery Automatic; cluster %s has %s.", c.Name, recovery)
		case role == "":
			return sageMakerValidation("Autoscaling needs a ClusterRole that allows sagemaker:BatchAddClusterNodes and sagemaker:BatchDeleteClusterNodes; set ClusterRole.")
		}
	}
	var tiered *hpTieredStorageRec
	if ts := s.TieredStorage; ts != nil {
		if !validEnum(ts.Mode) {
			return sageMakerValidation("Value '%s' at 'tieredStorageConfig.mode' failed to satisfy constraint: Member must satisfy enum value set: [Enable, Disable]", ts.Mode)
		}
		if p := ts.InstanceMemoryAllocationPercentage; p != nil && (*p < 1 || *p > 100) {
			return sageMakerValidation("InstanceMemoryAllocationPercentage %d is out of range: use 1 to 100.", *p)
		}
		tiered = &hpTieredStorageRec{Mode: string(ts.Mode), Percentage: copyInt32(ts.InstanceMemoryAllocationPercentage)}
	}
	c.NodeRecovery, c.ProvisioningMode, c.ClusterRole = recovery, mode, role
	if tiered != nil {
		c.TieredStorage = tiered
	}
	if a := s.AutoScaling; a != nil && (on != wasOn || c.AutoScaling == nil) {
		c.AutoScaling = &hpAutoScalingRec{Mode: string(a.Mode), Type: string(smtypes.ClusterAutoScalerTypeKarpenter), Since: t.now}
	}
	return nil
}

// empty tells whether s asks for no change.
func (s hpSettings) empty() bool {
	return s.NodeRecovery == "" && s.ProvisioningMode == "" && s.AutoScaling == nil && aws.ToString(s.ClusterRole) == "" && s.TieredStorage == nil
}
