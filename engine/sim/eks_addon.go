package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// Real add-on latencies, divided by the world's speed.
const (
	addonCreateTime = 90 * time.Second
	addonDeleteTime = 30 * time.Second
	addonUpdateTime = 45 * time.Second
)

// addonRec is an EKS add-on of a cluster.
type addonRec struct {
	Name                  string
	Arn                   string
	Version               string
	ServiceAccountRoleArn string            `json:",omitempty"`
	ConfigurationValues   string            `json:",omitempty"`
	Associations          []string          `json:",omitempty"` // ids of the pod identity associations it owns
	Tags                  map[string]string `json:",omitempty"`
	Life                  lifecycle
	// UpdatingUntil is when the newest UpdateAddon ends (UPDATING until then).
	UpdatingUntil *time.Time `json:",omitempty"`
	ModifiedAt    time.Time  `json:",omitzero"`
}

// addonCatalog returns the add-ons EKS offers here, with the version it
// installs when none is asked and the namespace it runs in.
func addonCatalog(name string) (version, namespace string, ok bool) {
	switch name {
	case "vpc-cni":
		return "v1.19.2-eksbuild.1", "kube-system", true
	case "coredns":
		return "v1.11.4-eksbuild.2", "kube-system", true
	case "kube-proxy":
		return "v1.33.0-eksbuild.2", "kube-system", true
	case "eks-pod-identity-agent":
		return "v1.3.4-eksbuild.1", "kube-system", true
	case "cert-manager":
		return "v1.17.2-eksbuild.1", "cert-manager", true
	case "aws-mountpoint-s3-csi-driver":
		return "v1.15.0-eksbuild.1", "kube-system", true
	case "aws-fsx-csi-driver":
		return "v1.5.0-eksbuild.1", "kube-system", true
	case "amazon-sagemaker-hyperpod-training-operator":
		return "v1.0.0-eksbuild.1", "aws-hyperpod", true
	case "amazon-sagemaker-hyperpod-inference":
		return "v1.0.0-eksbuild.1", "hyperpod-inference-system", true
	case "amazon-sagemaker-hyperpod-observability":
		return "v1.0.0-eksbuild.1", "hyperpod-observability", true
	case "amazon-sagemaker-hyperpod-taskgovernance":
		return "v1.3.0-eksbuild.1", "kueue-system", true
	}
	return "", "", false
}

func (a *addonRec) status(now time.Time) ekstypes.AddonStatus {
	switch a.Life.phase(now) {
	case phaseCreating:
		return ekstypes.AddonStatusCreating
	case phaseFailed:
		return ekstypes.AddonStatusCreateFailed
	case phaseDeleting, phaseGone:
		return ekstypes.AddonStatusDeleting
	}
	if a.UpdatingUntil != nil && now.Before(*a.UpdatingUntil) {
		return ekstypes.AddonStatusUpdating
	}
	return ekstypes.AddonStatusActive
}

func (t *txn) addonOut(c *eksClusterRec, ad *addonRec) *ekstypes.Addon {
	status := ad.status(t.now)
	homeless := status == ekstypes.AddonStatusActive && ad.Name == "coredns" && !t.eksHasReadyNode(c)
	if homeless {
		status = ekstypes.AddonStatusDegraded
	}
	modified := ad.Life.CreatedAt
	if ad.ModifiedAt.After(modified) {
		modified = ad.ModifiedAt
	}
	out := &ekstypes.Addon{
		AddonName: aws.String(ad.Name), AddonArn: aws.String(ad.Arn), AddonVersion: aws.String(ad.Version),
		ClusterName: aws.String(c.Name), Status: status, CreatedAt: aws.Time(ad.Life.CreatedAt),
		ModifiedAt: aws.Time(modified), Health: &ekstypes.AddonHealth{}, Tags: maps.Clone(ad.Tags),
		ServiceAccountRoleArn: optionalString(ad.ServiceAccountRoleArn), ConfigurationValues: optionalString(ad.ConfigurationValues),
	}
	for _, id := range ad.Associations {
		if p := c.PodIdentities[id]; p != nil {
			out.PodIdentityAssociations = append(out.PodIdentityAssociations, p.Arn)
		}
	}
	if status == ekstypes.AddonStatusCreateFailed {
		out.Health.Issues = []ekstypes.AddonIssue{{Code: ekstypes.AddonIssueCodeInternalFailure, Message: aws.String(ad.Life.FailMessage)}}
	}
	if homeless {
		out.Health.Issues = []ekstypes.AddonIssue{{Code: ekstypes.AddonIssueCodeInsufficientNumberOfReplicas,
			Message: aws.String("The add-on is unhealthy because it doesn't have the desired number of replicas: the cluster has no Ready node to run them on.")}}
	}
	return out
}

// eksHasReadyNode tells whether any node of cluster c is Ready: a running
// HyperPod instance that joined it, or a managed node group's instance.
// CoreDNS is DEGRADED without one, as its pods have nowhere to run.
func (t *txn) eksHasReadyNode(c *eksClusterRec) bool {
	for _, v := range t.nodegroupViews(c) {
		if v.Status == "Running" {
			return true
		}
	}
	ready := false
	t.hpJoinedNodes(c.Arn, func(hc *hpClusterRec, _ *hpGroupRec, n *hpNodeRec) {
		ready = ready || t.hpInstanceStatus(hc, n) == smtypes.ClusterInstanceStatusRunning
	})
	return ready
}

func addonNotFound(cluster, name string) error {
	return &ekstypes.ResourceNotFoundException{
		Message:     aws.String(fmt.Sprintf("No addon: %s found in cluster: %s", name, cluster)),
		ClusterName: aws.String(cluster), AddonName: aws.String(name),
	}
}

// CreateAddon installs an add-on on an ACTIVE cluster: CREATING for about
// ninety seconds (divided by the speed), then ACTIVE.
func (a *eksAPI) CreateAddon(ctx context.Context, in *eks.CreateAddonInput, _ ...func(*eks.Options)) (*eks.CreateAddonOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "CreateAddon", func(t *txn) (*eks.CreateAddonOutput, error) {
		in := orZero(in)
		if err := need("CreateAddonInput", param{"AddonName", in.AddonName != nil}, param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		name := *in.AddonName
		version, namespace, ok := addonCatalog(name)
		if !ok {
			return nil, &ekstypes.InvalidParameterException{Message: aws.String(fmt.Sprintf("Addon %s specified is not supported", name)), AddonName: aws.String(name)}
		}
		if st := c.status(t.now); st != ekstypes.ClusterStatusActive {
			return nil, eksInvalidRequest("Cluster %s is %s; add-ons can be created once it is ACTIVE.", c.Name, st)
		}
		if c.Addons[name] != nil {
			return nil, &ekstypes.ResourceInUseException{Message: aws.String("Addon already exists."), ClusterName: aws.String(c.Name), AddonName: aws.String(name)}
		}
		if err := t.addonSettings(name, in.AddonVersion, in.ConfigurationValues, in.ServiceAccountRoleArn); err != nil {
			return nil, err
		}
		version = cmp.Or(aws.ToString(in.AddonVersion), version)
		ad := &addonRec{
			Name: name, Arn: fmt.Sprintf("arn:aws:eks:%s:%s:addon/%s/%s/%s", t.region, t.account(), c.Name, name, t.uuid()),
			Version: version, ServiceAccountRoleArn: aws.ToString(in.ServiceAccountRoleArn),
			ConfigurationValues: aws.ToString(in.ConfigurationValues), Tags: maps.Clone(in.Tags),
			Life: newLifecycle(t.now, t.after(addonCreateTime)),
		}
		for _, pia := range in.PodIdentityAssociations {
			p, err := t.newPodIdentity(c, namespace, aws.ToString(pia.ServiceAccount), aws.ToString(pia.RoleArn), ad.Arn, nil)
			if err != nil {
				return nil, err
			}
			ad.Associations = append(ad.Associations, p.ID)
		}
		if msg, failed := t.failFault(svcEKS, "CreateAddon", "Simulated add-on failure"); failed {
			ad.Life.FailMessage = msg
		}
		ad.Life.HeldBy = t.holdFault(svcEKS, "CreateAddon")
		c.Addons[name] = ad
		return &eks.CreateAddonOutput{Addon: t.addonOut(c, ad)}, nil
	})
}

func (t *txn) addon(cluster, name *string) (*eksClusterRec, *addonRec, error) {
	c, err := t.eksCluster(cluster)
	if err != nil {
		return nil, nil, err
	}
	ad := c.Addons[aws.ToString(name)]
	if ad == nil {
		return nil, nil, addonNotFound(c.Name, aws.ToString(name))
	}
	return c, ad, nil
}

// DescribeAddon describes an add-on of a cluster.
func (a *eksAPI) DescribeAddon(ctx context.Context, in *eks.DescribeAddonInput, _ ...func(*eks.Options)) (*eks.DescribeAddonOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DescribeAddon", func(t *txn) (*eks.DescribeAddonOutput, error) {
		in := orZero(in)
		if err := need("DescribeAddonInput", param{"AddonName", in.AddonName != nil}, param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, ad, err := t.addon(in.ClusterName, in.AddonName)
		if err != nil {
			return nil, err
		}
		return &eks.DescribeAddonOutput{Addon: t.addonOut(c, ad)}, nil
	})
}

// ListAddons lists the names of a cluster's add-ons.
func (a *eksAPI) ListAddons(ctx context.Context, in *eks.ListAddonsInput, _ ...func(*eks.Options)) (*eks.ListAddonsOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "ListAddons", func(t *txn) (*eks.ListAddonsOutput, error) {
		in := orZero(in)
		if err := need("ListAddonsInput", param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		if err := eksMaxResults(in.MaxResults); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.ClusterName)
		if err != nil {
			return nil, err
		}
		names, next, err := page(sortedKeys(c.Addons), in.NextToken, t.pageSize(svcEKS, "ListAddons", in.MaxResults), 100)
		if err != nil {
			return nil, eksInvalidParameter("The pagination token is invalid.")
		}
		return &eks.ListAddonsOutput{Addons: names, NextToken: next}, nil
	})
}

// DeleteAddon starts removing an add-on (DELETING for about thirty seconds,
// then gone) and, unless Preserve is set, the pod identity associations it
// owns.
func (a *eksAPI) DeleteAddon(ctx context.Context, in *eks.DeleteAddonInput, _ ...func(*eks.Options)) (*eks.DeleteAddonOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DeleteAddon", func(t *txn) (*eks.DeleteAddonOutput, error) {
		in := orZero(in)
		if err := need("DeleteAddonInput", param{"AddonName", in.AddonName != nil}, param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, ad, err := t.addon(in.ClusterName, in.AddonName)
		if err != nil {
			return nil, err
		}
		if ad.Life.DeletingAt == nil {
			ad.Life.startDeleting(t.now, t.after(addonDeleteTime))
			if !in.Preserve {
				for _, id := range ad.Associations {
					delete(c.PodIdentities, id)
				}
				ad.Associations = nil
			}
		}
		return &eks.DeleteAddonOutput{Addon: t.addonOut(c, ad)}, nil
	})
}

// addonSettings validates the version, configuration values and service
// account role asked of add-on name.
func (t *txn) addonSettings(name string, version, values, role *string) error {
	if v := aws.ToString(version); v != "" && (!strings.HasPrefix(v, "v") || !strings.Contains(v, "-eksbuild.")) {
		return eksInvalidParameter("Addon version %s specified is not supported for %s", v, name)
	}
	if cv := strings.TrimSpace(aws.ToString(values)); strings.HasPrefix(cv, "{") && !json.Valid([]byte(cv)) {
		return eksInvalidParameter("ConfigurationValue provided in request is not supported: the JSON does not parse")
	}
	if arn := aws.ToString(role); arn != "" && t.roleUsable(arn) == nil {
		return eksInvalidParameter("Role %s does not exist", arn)
	}
	return nil
}

// UpdateAddon changes an ACTIVE add-on's version, configuration values or
// service account role: UPDATING for about forty-five seconds (divided by
// the speed), then ACTIVE. Fields left out keep their values; an empty
// string clears the configuration or the role.
func (a *eksAPI) UpdateAddon(ctx context.Context, in *eks.UpdateAddonInput, _ ...func(*eks.Options)) (*eks.UpdateAddonOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "UpdateAddon", func(t *txn) (*eks.UpdateAddonOutput, error) {
		in := orZero(in)
		if err := need("UpdateAddonInput", param{"AddonName", in.AddonName != nil}, param{"ClusterName", in.ClusterName != nil}); err != nil {
			return nil, err
		}
		c, ad, err := t.addon(in.ClusterName, in.AddonName)
		if err != nil {
			return nil, err
		}
		if st := ad.status(t.now); st != ekstypes.AddonStatusActive && st != ekstypes.AddonStatusDegraded {
			return nil, &ekstypes.ResourceInUseException{Message: aws.String(fmt.Sprintf("Addon %s is %s; it can be updated once it is ACTIVE.", ad.Name, st)),
				ClusterName: aws.String(c.Name), AddonName: aws.String(ad.Name)}
		}
		if err := t.addonSettings(ad.Name, in.AddonVersion, in.ConfigurationValues, in.ServiceAccountRoleArn); err != nil {
			return nil, err
		}
		ad.Version = cmp.Or(aws.ToString(in.AddonVersion), ad.Version)
		if in.ConfigurationValues != nil {
			ad.ConfigurationValues = *in.ConfigurationValues
		}
		if in.ServiceAccountRoleArn != nil {
			ad.ServiceAccountRoleArn = *in.ServiceAccountRoleArn
		}
		until := t.after(addonUpdateTime)
		ad.UpdatingUntil, ad.ModifiedAt = &until, t.now
		id := t.uuid()
		return &eks.UpdateAddonOutput{Update: &ekstypes.Update{Id: aws.String(id), Status: ekstypes.UpdateStatusInProgress,
			Type: ekstypes.UpdateTypeAddonUpdate, CreatedAt: aws.Time(t.now)}}, nil
	})
}
