package sim

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/instantstart/instantstart/engine/cloud"
)

// eksAPI is one region's view of the simulated EKS.
type eksAPI struct {
	w      *World
	region string
}

var _ cloud.EKS = (*eksAPI)(nil)

// Real EKS control plane latencies, divided by the world's speed. Creation
// takes from eksCreateMin to eksCreateMax, drawn for each cluster.
const (
	eksCreateMin  = 8 * time.Minute
	eksCreateMax  = 12 * time.Minute
	eksDeleteTime = 6 * time.Minute
)

// Kubernetes versions EKS accepts, and the one it picks when none is asked.
const (
	eksMinMinor       = 28
	eksMaxMinor       = 34
	eksDefaultVersion = "1.33"
)

var eksNamePattern = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$`)

// eksClusterRec is an EKS control plane with what lives and dies with it:
// its add-ons, access entries and pod identity associations.
type eksClusterRec struct {
	Name               string
	Arn                string
	ID                 string
	RoleArn            string
	Version            string
	VpcID              string
	ClusterSGID        string
	SubnetIDs          []string
	SecurityGroupIDs   []string `json:",omitempty"`
	EndpointPublic     bool
	EndpointPrivate    bool
	PublicAccessCidrs  []string
	AuthMode           string
	BootstrapAdmin     bool
	Token              string `json:",omitempty"`
	Endpoint           string
	Issuer             string
	CAData             string
	ServiceCIDR        string
	DeletionProtection bool              `json:",omitempty"`
	Tags               map[string]string `json:",omitempty"`
	Life               lifecycle
	Addons             map[string]*addonRec
	AccessEntries      map[string]*accessEntryRec // by principal ARN
	PodIdentities      map[string]*podIdentityRec // by association id
	Nodegroups         map[string]*nodegroupRec   `json:",omitempty"` // by name
}

func (c *eksClusterRec) init() {
	if c.Addons == nil {
		c.Addons = map[string]*addonRec{}
	}
	if c.AccessEntries == nil {
		c.AccessEntries = map[string]*accessEntryRec{}
	}
	if c.PodIdentities == nil {
		c.PodIdentities = map[string]*podIdentityRec{}
	}
	if c.Nodegroups == nil {
		c.Nodegroups = map[string]*nodegroupRec{}
	}
}

func (c *eksClusterRec) status(now time.Time) ekstypes.ClusterStatus {
	switch c.Life.phase(now) {
	case phaseCreating:
		return ekstypes.ClusterStatusCreating
	case phaseFailed:
		return ekstypes.ClusterStatusFailed
	case phaseDeleting, phaseGone:
		return ekstypes.ClusterStatusDeleting
	}
	return ekstypes.ClusterStatusActive
}

func eksNotFound(name string) error {
	return &ekstypes.ResourceNotFoundException{Message: aws.String(fmt.Sprintf("No cluster found for name: %s.", name)), ClusterName: aws.String(name)}
}

func eksInvalidParameter(format string, args ...any) error {
	return &ekstypes.InvalidParameterException{Message: aws.String(fmt.Sprintf(format, args...))}
}

func eksInvalidRequest(format string, args ...any) error {
	return &ekstypes.InvalidRequestException{Message: aws.String(fmt.Sprintf(format, args...))}
}

func (t *txn) eksCluster(name *string) (*eksClusterRec, error) {
	c := t.rs.EKS[aws.ToString(name)]
	if c == nil {
		return nil, eksNotFound(aws.ToString(name))
	}
	return c, nil
}

// uuid returns a deterministic, UUID-shaped string.
func (t *txn) uuid() string {
	a, b := t.nextRand(), t.nextRand()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, 0x4000|a&0x0fff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}

// CreateCluster starts creating a control plane: CREATING for eight to
// twelve minutes (drawn from the world's seed, divided by the speed), then
// ACTIVE. A repeat with the same
// ClientRequestToken returns the cluster instead of ResourceInUseException.
func (a *eksAPI) CreateCluster(ctx context.Context, in *eks.CreateClusterInput, _ ...func(*eks.Options)) (*eks.CreateClusterOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "CreateCluster", func(t *txn) (*eks.CreateClusterOutput, error) {
		in := orZero(in)
		if err := need("CreateClusterInput", param{"Name", in.Name != nil}, param{"ResourcesVpcConfig", in.ResourcesVpcConfig != nil},
			param{"RoleArn", in.RoleArn != nil}); err != nil {
			return nil, err
		}
		name := *in.Name
		if !eksNamePattern.MatchString(name) {
			return nil, eksInvalidParameter("The cluster name %q is invalid: it must start with a letter or digit and contain only letters, digits, hyphens and underscores (at most 100).", name)
		}
		if old := t.rs.EKS[name]; old != nil {
			if token := aws.ToString(in.ClientRequestToken); token != "" && token == old.Token {
				return &eks.CreateClusterOutput{Cluster: t.eksClusterOut(old)}, nil
			}
			return nil, &ekstypes.ResourceInUseException{Message: aws.String("Cluster already exists with name: " + name), ClusterName: aws.String(name)}
		}
		if t.roleUsable(*in.RoleArn) == nil {
			return nil, eksInvalidParameter("Role with arn: %s, could not be assumed because it does not exist or the trusted entity is not correct", *in.RoleArn)
		}
		version := aws.ToString(in.Version)
		if version == "" {
			version = eksDefaultVersion
		}
		var minor int
		if _, err := fmt.Sscanf(version, "1.%d", &minor); err != nil || fmt.Sprintf("1.%d", minor) != version || minor < eksMinMinor || minor > eksMaxMinor {
			return nil, eksInvalidParameter("unsupported Kubernetes version %s: supported versions are 1.%d to 1.%d", version, eksMinMinor, eksMaxMinor)
		}
		vpcID, err := t.eksNetwork(in.ResourcesVpcConfig)
		if err != nil {
			return nil, err
		}
		mode, admin := ekstypes.AuthenticationModeConfigMap, true
		if ac := in.AccessConfig; ac != nil {
			if ac.AuthenticationMode != "" {
				mode = ac.AuthenticationMode
			}
			if ac.BootstrapClusterCreatorAdminPermissions != nil {
				admin = *ac.BootstrapClusterCreatorAdminPermissions
			}
		}
		switch mode {
		case ekstypes.AuthenticationModeApi, ekstypes.AuthenticationModeApiAndConfigMap, ekstypes.AuthenticationModeConfigMap:
		default:
			return nil, eksInvalidParameter("Unsupported authentication mode %s: use API, API_AND_CONFIG_MAP or CONFIG_MAP.", mode)
		}
		c := t.newEKSCluster(name, in, vpcID, version, mode, admin)
		return &eks.CreateClusterOutput{Cluster: t.eksClusterOut(c)}, nil
	})
}

// eksNetwork checks the VPC configuration of a new cluster: existing
// subnets of one VPC in at least two zones, security groups of that VPC.
func (t *txn) eksNetwork(cfg *ekstypes.VpcConfigRequest) (string, error) {
	zones, vpcID := map[string]bool{}, ""
	for _, id := range cfg.SubnetIds {
		s := t.rs.Subnets[id]
		if s == nil {
			return "", eksInvalidParameter("The subnet ID '%s' does not exist (Service: AmazonEC2; Status Code: 400; Error Code: InvalidSubnetID.NotFound)", id)
		}
		if vpcID != "" && s.VpcID != vpcID {
			return "", eksInvalidParameter("Subnets specified must belong to the same VPC: %s is in %s, not %s.", id, s.VpcID, vpcID)
		}
		vpcID = s.VpcID
		zones[s.Zone] = true
	}
	if len(zones) < 2 {
		return "", eksInvalidParameter("Subnets specified must be in at least two different AZs")
	}
	for _, id := range cfg.SecurityGroupIds {
		if g := t.rs.SecurityGroups[id]; g == nil || g.VpcID != vpcID {
			return "", eksInvalidParameter("The security group '%s' does not exist in VPC %s", id, vpcID)
		}
	}
	return vpcID, nil
}

func (t *txn) newEKSCluster(name string, in *eks.CreateClusterInput, vpcID, version string, mode ekstypes.AuthenticationMode, admin bool) *eksClusterRec {
	cfg := in.ResourcesVpcConfig
	oidcID := t.randString(upperHex, 32)
	c := &eksClusterRec{
		Name: name, Arn: fmt.Sprintf("arn:aws:eks:%s:%s:cluster/%s", t.region, t.account(), name), ID: t.uuid(),
		RoleArn: *in.RoleArn, Version: version, VpcID: vpcID,
		SubnetIDs: append([]string(nil), cfg.SubnetIds...), SecurityGroupIDs: append([]string(nil), cfg.SecurityGroupIds...),
		EndpointPublic: aws.ToBool(cfg.EndpointPublicAccess) || cfg.EndpointPublicAccess == nil, EndpointPrivate: aws.ToBool(cfg.EndpointPrivateAccess),
		PublicAccessCidrs: slices.Clone(cfg.PublicAccessCidrs), AuthMode: string(mode), BootstrapAdmin: admin,
		Token:              aws.ToString(in.ClientRequestToken),
		Endpoint:           fmt.Sprintf("https://%s.gr7.%s.eks.amazonaws.com", oidcID, t.region),
		Issuer:             fmt.Sprintf("https://oidc.eks.%s.amazonaws.com/id/%s", t.region, oidcID),
		ServiceCIDR:        "172.20.0.0/16",
		DeletionProtection: aws.ToBool(in.DeletionProtection),
		Tags:               maps.Clone(in.Tags),
		Life:               newLifecycle(t.now, t.after(t.draw(eksCreateMin, eksCreateMax))),
	}
	if len(c.PublicAccessCidrs) == 0 && c.EndpointPublic {
		c.PublicAccessCidrs = []string{"0.0.0.0/0"}
	}
	if in.KubernetesNetworkConfig != nil && in.KubernetesNetworkConfig.ServiceIpv4Cidr != nil {
		c.ServiceCIDR = *in.KubernetesNetworkConfig.ServiceIpv4Cidr
	}
	pem := "-----BEGIN CERTIFICATE-----\n" + base64.StdEncoding.EncodeToString([]byte("instantstart-sim-ca/"+c.Arn+"/"+oidcID)) + "\n-----END CERTIFICATE-----\n"
	c.CAData = base64.StdEncoding.EncodeToString([]byte(pem))
	if k := t.w.kubeAPIServer; k != nil {
		c.Endpoint, c.CAData = k.Endpoint, base64.StdEncoding.EncodeToString(k.CAPEM)
	}
	c.init()
	sg := t.newSecurityGroup(vpcID, fmt.Sprintf("eks-cluster-sg-%s-%s", name, t.randString("0123456789", 10)),
		"EKS created security group applied to ENI that is attached to EKS Control Plane master nodes, as well as any managed workloads.")
	sg.EKSCluster = name
	t.setTags(sg.ID, map[string]string{"aws:eks:cluster-name": name, "kubernetes.io/cluster/" + name: "owned", "Name": sg.Name})
	c.ClusterSGID = sg.ID
	if msg, failed := t.failFault(svcEKS, "CreateCluster", "Simulated control plane failure"); failed {
		c.Life.FailMessage = msg
	}
	c.Life.HeldBy = t.holdFault(svcEKS, "CreateCluster")
	if admin && mode != ekstypes.AuthenticationModeConfigMap {
		e := t.newAccessEntry(c, t.callerArn(), "STANDARD", "", nil, nil)
		e.Policies = []accessPolicyRec{{
			PolicyArn: cloud.EKSClusterAdminPolicy, ScopeType: string(ekstypes.AccessScopeTypeCluster),
			AssociatedAt: t.now, ModifiedAt: t.now,
		}}
	}
	t.rs.EKS[name] = c
	return c
}

func (t *txn) eksClusterOut(c *eksClusterRec) *ekstypes.Cluster {
	status := c.status(t.now)
	out := &ekstypes.Cluster{
		Name: aws.String(c.Name), Arn: aws.String(c.Arn), Id: aws.String(c.ID), Status: status,
		CreatedAt: aws.Time(c.Life.CreatedAt), Version: aws.String(c.Version), PlatformVersion: aws.String("eks.1"),
		RoleArn:            aws.String(c.RoleArn),
		ClientRequestToken: optionalString(c.Token),
		ResourcesVpcConfig: &ekstypes.VpcConfigResponse{
			SubnetIds: slices.Clone(c.SubnetIDs), SecurityGroupIds: slices.Clone(c.SecurityGroupIDs), ClusterSecurityGroupId: aws.String(c.ClusterSGID),
			VpcId: aws.String(c.VpcID), EndpointPublicAccess: c.EndpointPublic, EndpointPrivateAccess: c.EndpointPrivate,
			PublicAccessCidrs: slices.Clone(c.PublicAccessCidrs),
		},
		AccessConfig: &ekstypes.AccessConfigResponse{
			AuthenticationMode: ekstypes.AuthenticationMode(c.AuthMode), BootstrapClusterCreatorAdminPermissions: aws.Bool(c.BootstrapAdmin),
		},
		Identity:                &ekstypes.Identity{Oidc: &ekstypes.OIDC{Issuer: aws.String(c.Issuer)}},
		KubernetesNetworkConfig: &ekstypes.KubernetesNetworkConfigResponse{ServiceIpv4Cidr: aws.String(c.ServiceCIDR), IpFamily: ekstypes.IpFamilyIpv4},
		DeletionProtection:      aws.Bool(c.DeletionProtection),
		Tags:                    maps.Clone(c.Tags),
		CertificateAuthority:    &ekstypes.Certificate{},
	}
	// Like EKS, the API server endpoint and its CA appear once the control
	// plane is up.
	if status == ekstypes.ClusterStatusActive || (status == ekstypes.ClusterStatusDeleting && c.Life.FailMessage == "") {
		out.Endpoint = aws.String(c.Endpoint)
		out.CertificateAuthority.Data = aws.String(c.CAData)
	}
	if status == ekstypes.ClusterStatusFailed {
		out.Health = &ekstypes.ClusterHealth{Issues: []ekstypes.ClusterIssue{{
			Code: ekstypes.ClusterIssueCodeInternalFailure, Message: aws.String(c.Life.FailMessage),
		}}}
	}
	return out
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

// DescribeCluster describes a control plane.
func (a *eksAPI) DescribeCluster(ctx context.Context, in *eks.DescribeClusterInput, _ ...func(*eks.Options)) (*eks.DescribeClusterOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DescribeCluster", func(t *txn) (*eks.DescribeClusterOutput, error) {
		in := orZero(in)
		if err := need("DescribeClusterInput", param{"Name", in.Name != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.Name)
		if err != nil {
			return nil, err
		}
		return &eks.DescribeClusterOutput{Cluster: t.eksClusterOut(c)}, nil
	})
}

// ListClusters lists the names of the region's control planes.
func (a *eksAPI) ListClusters(ctx context.Context, in *eks.ListClustersInput, _ ...func(*eks.Options)) (*eks.ListClustersOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "ListClusters", func(t *txn) (*eks.ListClustersOutput, error) {
		in := orZero(in)
		if err := eksMaxResults(in.MaxResults); err != nil {
			return nil, err
		}
		names, next, err := page(sortedKeys(t.rs.EKS), in.NextToken, t.pageSize(svcEKS, "ListClusters", in.MaxResults), 100)
		if err != nil {
			return nil, eksInvalidParameter("The pagination token is invalid.")
		}
		return &eks.ListClustersOutput{Clusters: names, NextToken: next}, nil
	})
}

func eksMaxResults(n *int32) error {
	if n != nil && (*n < 1 || *n > 100) {
		return eksInvalidParameter("maxResults must be between 1 and 100, got %d", *n)
	}
	return nil
}

// DeleteCluster starts deleting a control plane with its add-ons, access
// entries and pod identity associations: DELETING for about six minutes,
// then gone. A cluster still CREATING cannot be deleted.
func (a *eksAPI) DeleteCluster(ctx context.Context, in *eks.DeleteClusterInput, _ ...func(*eks.Options)) (*eks.DeleteClusterOutput, error) {
	return call(ctx, a.w, svcEKS, a.region, "DeleteCluster", func(t *txn) (*eks.DeleteClusterOutput, error) {
		in := orZero(in)
		if err := need("DeleteClusterInput", param{"Name", in.Name != nil}); err != nil {
			return nil, err
		}
		c, err := t.eksCluster(in.Name)
		if err != nil {
			return nil, err
		}
		switch c.status(t.now) {
		case ekstypes.ClusterStatusCreating:
			return nil, &ekstypes.ResourceInUseException{
				Message:     aws.String(fmt.Sprintf("Cluster %s is still CREATING; it can be deleted once it is ACTIVE or FAILED.", c.Name)),
				ClusterName: aws.String(c.Name),
			}
		case ekstypes.ClusterStatusDeleting:
			return &eks.DeleteClusterOutput{Cluster: t.eksClusterOut(c)}, nil
		}
		if c.DeletionProtection {
			return nil, eksInvalidRequest("Cluster %s has deletion protection enabled; disable it before deleting.", c.Name)
		}
		var names []string
		for _, name := range sortedKeys(c.Nodegroups) {
			if c.Nodegroups[name].Life.phase(t.now) != phaseGone {
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			return nil, &ekstypes.ResourceInUseException{
				Message:     aws.String(fmt.Sprintf("Cluster has nodegroups attached: %s. Delete them first.", strings.Join(names, ", "))),
				ClusterName: aws.String(c.Name),
			}
		}
		goneAt := t.after(eksDeleteTime)
		c.Life.startDeleting(t.now, goneAt)
		for _, ad := range c.Addons {
			if ad.Life.DeletingAt == nil {
				ad.Life.startDeleting(t.now, goneAt)
			}
		}
		return &eks.DeleteClusterOutput{Cluster: t.eksClusterOut(c)}, nil
	})
}
