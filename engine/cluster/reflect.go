package cluster

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
)

// reflectOperation brings the cluster record in line with an operation on
// it, in the operation's own transaction.
func reflectOperation(tx *store.Tx, op *ops.Operation) error {
	var c Cluster
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

func statusFrom(c *Cluster, op *ops.Operation) (Status, string) {
	failed := ""
	if op.Error != nil {
		failed = op.Error.Message
	}
	switch op.Kind {
	case KindCreate, KindImport:
		switch op.Status {
		case ops.Succeeded:
			return StatusActive, ""
		case ops.Failed:
			return StatusFailed, failed + " (retry the operation, or delete the cluster)"
		case ops.Cancelled:
			return StatusFailed, "creation was cancelled; retry the operation or delete the cluster"
		}
		if op.Kind == KindImport {
			return StatusImporting, ""
		}
		return StatusCreating, runningPhases(op)
	case KindDelete:
		switch op.Status {
		case ops.Succeeded:
			return StatusDeleted, ""
		case ops.Failed:
			return StatusFailed, "deletion failed: " + failed + " (retry the operation)"
		case ops.Cancelled:
			return StatusFailed, "deletion was cancelled; some resources may be gone; delete again to finish"
		}
		return StatusDeleting, runningPhases(op)
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
func applyOutputs(c *Cluster, op *ops.Operation) {
	out := op.Output
	set := func(dst *string, phase, key string) {
		if v := out(phase, key); v != "" {
			*dst = v
		}
	}
	switch op.Kind {
	case KindCreate:
		set(&c.Roles.EKSClusterRoleArn, "iam-roles", "eksClusterRoleArn")
		set(&c.Roles.ExecutionRoleArn, "iam-roles", "executionRoleArn")
		set(&c.Network.VpcID, "vpc", "vpcId")
		set(&c.Network.CIDR, "vpc", "cidr")
		set(&c.Network.InternetGateway, "vpc", "internetGatewayId")
		set(&c.Network.SecurityGroupID, "subnets", "securityGroupId")
		set(&c.Network.NatGatewayID, "nat-gateway", "natGatewayId")
		var subnets, compute []Subnet
		_ = json.Unmarshal([]byte(out("subnets", "subnets")), &subnets)
		_ = json.Unmarshal([]byte(out("compute-subnet", "subnets")), &compute)
		if all := append(subnets, compute...); len(all) > 0 {
			c.Network.Subnets = all
		}
		eksOutputs(c, op, "eks-cluster")
		set(&c.EKS.OIDCProviderArn, "oidc-provider", "oidcProviderArn")
		if a := out("base-addons", "addons"); a != "" {
			c.EKS.Addons = strings.Split(a, ",")
		}
		hyperPodOutputs(c, op, "hyperpod-cluster")
	case KindImport:
		eksOutputs(c, op, "eks-cluster")
		set(&c.Network.VpcID, "eks-cluster", "vpcId")
		set(&c.Network.CIDR, "network", "cidr")
		var subnets []Subnet
		if json.Unmarshal([]byte(out("network", "subnets")), &subnets) == nil && len(subnets) > 0 {
			c.Network.Subnets = subnets
		}
		set(&c.EKS.OIDCProviderArn, "network", "oidcProviderArn")
		if a := out("network", "addons"); a != "" {
			c.EKS.Addons = strings.Split(a, ",")
		}
		if v := out("eks-cluster", "version"); v != "" {
			c.KubernetesVersion = v
		}
		if z := out("network", "zones"); z != "" {
			c.Zones = strings.Split(z, ",")
		}
		hyperPodOutputs(c, op, "hyperpod-cluster")
		if n := out("hyperpod-cluster", "name"); n != "" {
			c.HyperPod.Name = n
		}
	case KindDelete:
		if p := op.Phase("hyperpod-cluster"); p != nil && p.Status == ops.PhaseSucceeded {
			c.HyperPod.Status = "Deleted"
		}
		if p := op.Phase("eks-cluster"); p != nil && p.Status == ops.PhaseSucceeded {
			c.EKS.Status = "DELETED"
		}
	}
}

func eksOutputs(c *Cluster, op *ops.Operation, phase string) {
	for key, dst := range map[string]*string{"arn": &c.EKS.Arn, "status": &c.EKS.Status, "version": &c.EKS.Version,
		"endpoint": &c.EKS.Endpoint, "oidcIssuer": &c.EKS.OIDCIssuer, "authenticationMode": &c.EKS.AuthMode} {
		if v := op.Output(phase, key); v != "" {
			*dst = v
		}
	}
}

func hyperPodOutputs(c *Cluster, op *ops.Operation, phase string) {
	for key, dst := range map[string]*string{"arn": &c.HyperPod.Arn, "status": &c.HyperPod.Status, "failureMessage": &c.HyperPod.FailureMessage,
		"nodeRecovery": &c.HyperPod.NodeRecovery, "nodeProvisioningMode": &c.HyperPod.NodeProvisioning} {
		if v := op.Output(phase, key); v != "" {
			*dst = v
		}
	}
	if c.HyperPod.Status == "InService" {
		c.HyperPod.FailureMessage = ""
	}
}
