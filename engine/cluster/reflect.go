package cluster

import (
	"fmt"
	"strings"

	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// reflectOperation brings the cluster record in line with an operation on
// it, in the operation's own transaction.
func reflectOperation(tx *store.Tx, op *ops.Operation) error {
	var c hyperpod.Cluster
	if err := tx.Get(RecordKind, op.Target.ID, &c); err != nil {
		return fmt.Errorf("load cluster %s: %w", op.Target.ID, err)
	}
	c.LastOperationID = op.ID
	applyOutputs(&c, op)
	c.Status, c.StatusMessage = statusFrom(&c, op)
	if op.Kind == KindDelete && op.Status == ops.Succeeded {
		now := tx.Now()
		c.DeletedAt = &now
		if holder, err := tx.GetIndex(indexName, c.Region+"/"+c.Name); err == nil && holder == c.ID {
			if err := tx.DeleteIndex(indexName, c.Region+"/"+c.Name); err != nil {
				return err
			}
		}
	}
	c.UpdatedAt = tx.Now()
	return tx.Put(RecordKind, c.ID, &c)
}

func statusFrom(c *hyperpod.Cluster, op *ops.Operation) (hyperpod.ClusterStatus, string) {
	failed := ""
	if op.Error != nil {
		failed = op.Error.Message
	}
	switch op.Kind {
	case KindCreate, KindImport:
		switch op.Status {
		case ops.Succeeded:
			return hyperpod.ClusterActive, ""
		case ops.Failed:
			return hyperpod.ClusterFailed, failed + " (retry the operation, or delete the cluster)"
		case ops.Cancelled:
			return hyperpod.ClusterFailed, "creation was cancelled; retry the operation or delete the cluster"
		}
		if op.Kind == KindImport {
			return hyperpod.ClusterImporting, ""
		}
		return hyperpod.ClusterCreating, runningPhases(op)
	case KindDelete:
		switch op.Status {
		case ops.Succeeded:
			return hyperpod.ClusterDeleted, ""
		case ops.Failed:
			return hyperpod.ClusterFailed, "deletion failed: " + failed + " (retry the operation)"
		case ops.Cancelled:
			return hyperpod.ClusterFailed, "deletion was cancelled; some resources may be gone; delete again to finish"
		}
		return hyperpod.ClusterDeleting, runningPhases(op)
	}
	return c.Status, c.StatusMessage
}

func runningPhases(op *ops.Operation) string {
	var names []string
	for _, p := range op.Phases {
		if p.Status == ops.PhaseRunning || p.Status == ops.PhaseWaiting {
			names = append(names, p.Title)
		}
	}
	return strings.Join(names, "; ")
}

// applyOutputs copies what the phases created or found into the record.
// An output that does not decode leaves the record's fields as they were:
// the phase that reads it fails the operation with the cause, and storing
// the operation must not fail on it.
func applyOutputs(c *hyperpod.Cluster, op *ops.Operation) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	setList := func(dst *[]string, v []string) {
		if len(v) > 0 {
			*dst = v
		}
	}
	switch op.Kind {
	case KindCreate:
		if roles, ok := outputIn[iamOutput](op, phaseIAMRoles); ok {
			set(&c.Roles.EKSClusterRoleArn, roles.EKSClusterRoleArn)
			set(&c.Roles.ExecutionRoleArn, roles.ExecutionRoleArn)
		}
		if vpc, ok := outputIn[vpcOutput](op, phaseVPC); ok {
			set(&c.Network.VpcID, vpc.VpcID)
			set(&c.Network.CIDR, vpc.CIDR)
			set(&c.Network.InternetGateway, vpc.InternetGatewayID)
		}
		subnets, okSubnets := outputIn[subnetsOutput](op, phaseSubnets)
		compute, okCompute := outputIn[subnetsOutput](op, phaseComputeSubnet)
		if okSubnets {
			set(&c.Network.SecurityGroupID, subnets.SecurityGroupID)
		}
		if all := append(subnets.Subnets, compute.Subnets...); okSubnets && okCompute && len(all) > 0 {
			c.Network.Subnets = all
		}
		if nat, ok := outputIn[natOutput](op, phaseNAT); ok {
			set(&c.Network.NatGatewayID, nat.NatGatewayID)
		}
		eksOutputs(c, op)
		if oidc, ok := outputIn[oidcOutput](op, phaseOIDC); ok {
			set(&c.EKS.OIDCProviderArn, oidc.OIDCProviderArn)
		}
		if addons, ok := outputIn[addonsOutput](op, phaseAddons); ok {
			setList(&c.EKS.Addons, addons.Addons)
		}
		hyperPodOutputs(c, op)
		dependencyOutputs(c, op)
	case KindImport:
		if cl, ok := eksOutputs(c, op); ok {
			set(&c.Network.VpcID, cl.VpcID)
			set(&c.KubernetesVersion, cl.Version)
		}
		if net, ok := outputIn[importedNetworkOutput](op, phaseNetwork); ok {
			set(&c.Network.CIDR, net.CIDR)
			if len(net.Subnets) > 0 {
				c.Network.Subnets = net.Subnets
			}
			set(&c.EKS.OIDCProviderArn, net.OIDCProviderArn)
			setList(&c.EKS.Addons, net.Addons)
			setList(&c.Zones, net.Zones)
		}
		if hp, ok := hyperPodOutputs(c, op); ok {
			set(&c.HyperPod.Name, hp.Name)
		}
		dependencyOutputs(c, op)
	case KindRepairDependencies:
		dependencyOutputs(c, op)
	case KindDelete:
		if p := op.Phase(phaseHyperPod); p != nil && p.Status == ops.PhaseSucceeded {
			c.HyperPod.Status = "Deleted"
		}
		if p := op.Phase(phaseEKS); p != nil && p.Status == ops.PhaseSucceeded {
			c.EKS.Status = "DELETED"
		}
	}
}

// outputIn reads the output of phase of op; false when it does not decode.
func outputIn[T any](op *ops.Operation, phase string) (T, bool) {
	v, err := ops.OutputOf[T](op, phase)
	return v, err == nil
}

func eksOutputs(c *hyperpod.Cluster, op *ops.Operation) (eksOutput, bool) {
	cl, ok := outputIn[eksOutput](op, phaseEKS)
	if !ok {
		return cl, false
	}
	for dst, v := range map[*string]string{&c.EKS.Arn: cl.Arn, &c.EKS.Status: cl.Status, &c.EKS.Version: cl.Version,
		&c.EKS.Endpoint: cl.Endpoint, &c.EKS.OIDCIssuer: cl.OIDCIssuer, &c.EKS.AuthMode: cl.AuthenticationMode} {
		if v != "" {
			*dst = v
		}
	}
	return cl, true
}

func hyperPodOutputs(c *hyperpod.Cluster, op *ops.Operation) (hyperPodOutput, bool) {
	hp, ok := outputIn[hyperPodOutput](op, phaseHyperPod)
	if !ok {
		return hp, false
	}
	for dst, v := range map[*string]string{&c.HyperPod.Arn: hp.Arn, &c.HyperPod.Status: hp.Status, &c.HyperPod.FailureMessage: hp.FailureMessage,
		&c.HyperPod.NodeRecovery: hp.NodeRecovery, &c.HyperPod.NodeProvisioning: hp.NodeProvisioningMode} {
		if v != "" {
			*dst = v
		}
	}
	if c.HyperPod.Status == "InService" {
		c.HyperPod.FailureMessage = ""
	}
	return hp, true
}

func dependencyOutputs(c *hyperpod.Cluster, op *ops.Operation) {
	if deps, ok := outputIn[dependenciesOutput](op, phaseDependencies); ok && len(deps.Dependencies) > 0 {
		c.Dependencies = deps.Dependencies
	}
}
