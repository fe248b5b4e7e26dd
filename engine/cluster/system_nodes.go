package cluster

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// The system node group's defaults and bounds. m5.large (2 vCPUs, 8 GiB)
// is offered in every zone of every commercial region, fits CoreDNS, the
// operators, KEDA, the load balancer controller and a few SGLang routers
// with room to spare, and runs the standard x86_64 EKS AMI; two nodes in
// two zones keep those pods up through the loss of one.
const (
	DefaultSystemInstanceType = "m5.large"
	DefaultSystemNodeCount    = 2
	MaxSystemNodes            = 10
)

// SystemNodesInput sizes a cluster's system node group. A nil Count means
// the default; 0 means no group.
type SystemNodesInput struct {
	InstanceType string `json:"instanceType,omitempty"`
	Count        *int   `json:"count,omitempty"`
}

// ec2InstanceType is the shape of an EC2 instance type name (m5.large,
// m7i-flex.xlarge); SageMaker's ml. names are not EC2's.
var ec2InstanceType = regexp.MustCompile(`^[a-z][a-z0-9-]{0,15}\.[a-z0-9]{1,16}$`)

// normalizeSystemNodes fills the defaults of in and checks its bounds,
// naming the fields with prefix.
func normalizeSystemNodes(in *SystemNodesInput, prefix string) errs.List {
	var bad errs.List
	in.InstanceType = strings.TrimSpace(in.InstanceType)
	if in.InstanceType == "" {
		in.InstanceType = DefaultSystemInstanceType
	}
	if strings.HasPrefix(in.InstanceType, "ml.") || !ec2InstanceType.MatchString(in.InstanceType) {
		bad = append(bad, errs.Field(prefix+"instanceType", "%q is not an EC2 instance type: give one such as %s (without the ml. prefix of HyperPod's types)", in.InstanceType, DefaultSystemInstanceType))
	}
	if in.Count == nil {
		n := DefaultSystemNodeCount
		in.Count = &n
	}
	if *in.Count < 0 || *in.Count > MaxSystemNodes {
		bad = append(bad, errs.Field(prefix+"count", "system node count %d is out of range: use 0 (no system node group) to %d", *in.Count, MaxSystemNodes))
	}
	return bad
}

// systemNodegroupName is the name of the system node group of the EKS
// cluster eksName (at most 40 + 7 characters, within EKS's 63).
func systemNodegroupName(eksName string) string { return eksName + "-system" }

// nodeRoleName is the IAM role the system node group's instances run as.
func nodeRoleName(cluster string) string { return "InstantStart-" + cluster + "-Node" }

// nodeRolePolicies are what a managed node needs: join the cluster, pull
// images from ECR, and run the VPC CNI.
var nodeRolePolicies = []string{
	"arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
	"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
	"arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
}

// systemNodes makes, scales or deletes the system node group of one EKS
// cluster.
type systemNodes struct {
	p            *cloud.Provider
	eksName      string
	instanceType string
	count        int
	tags         map[string]string
	// subnets returns the private subnets a new group goes in.
	subnets func(run *ops.Run) ([]string, error)
}

func (s *systemNodes) name() string { return systemNodegroupName(s.eksName) }

func (s *systemNodes) describe(ctx context.Context) (*ekstypes.Nodegroup, error) {
	out, err := s.p.EKS.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(s.eksName), NodegroupName: aws.String(s.name())})
	if errs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return out.Nodegroup, nil
}

func issuesOf(g *ekstypes.Nodegroup) string {
	var out []string
	if g.Health != nil {
		for _, i := range g.Health.Issues {
			out = append(out, string(i.Code)+": "+aws.ToString(i.Message))
		}
	}
	if len(out) == 0 {
		return "EKS gave no reason"
	}
	return strings.Join(out, "; ")
}

// observeScaled: the group exists, ACTIVE, at the asked size; with a count
// of 0 and no group, nothing is needed.
func (s *systemNodes) observeScaled(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	g, err := s.describe(ctx)
	if err != nil {
		return ops.Observation{}, err
	}
	if g == nil {
		if s.count == 0 {
			return ops.Observation{State: ops.NotNeeded, Message: "no system node group asked (count 0)"}, nil
		}
		return ops.Observation{State: ops.Absent}, nil
	}
	desired := int(aws.ToInt32(g.ScalingConfig.DesiredSize))
	msg := fmt.Sprintf("node group %s is %s with %d %s nodes", s.name(), g.Status, desired, strings.Join(g.InstanceTypes, ","))
	out := systemNodesOutput{Nodegroup: s.name(), Arn: aws.ToString(g.NodegroupArn)}
	switch g.Status {
	case ekstypes.NodegroupStatusActive:
		if desired == s.count {
			return ops.Observation{State: ops.Done, Message: msg, Output: out}, nil
		}
		return ops.Observation{State: ops.Absent, Message: msg, Output: out}, nil
	case ekstypes.NodegroupStatusCreateFailed, ekstypes.NodegroupStatusDegraded:
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Upstream, "system node group %s is %s (%s); fix the cause, delete the system nodes with deleteSystemNodes, and retry", s.name(), g.Status, issuesOf(g))}, nil
	case ekstypes.NodegroupStatusDeleting, ekstypes.NodegroupStatusDeleteFailed:
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Precondition, "system node group %s is %s; wait for the deletion to end, then retry", s.name(), g.Status)}, nil
	}
	return ops.Observation{State: ops.Pending, Message: msg, Output: out}, nil
}

// applyScaled creates the group, or changes its size.
func (s *systemNodes) applyScaled(ctx context.Context, run *ops.Run) (any, error) {
	g, err := s.describe(ctx)
	if err != nil {
		return nil, err
	}
	n := int32(s.count)
	scaling := &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(n), MaxSize: aws.Int32(max(n, 1)), DesiredSize: aws.Int32(n)}
	if g != nil {
		_, err := s.p.EKS.UpdateNodegroupConfig(ctx, &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(s.eksName), NodegroupName: aws.String(s.name()),
			ScalingConfig: scaling, ClientRequestToken: aws.String(run.ClientToken())})
		return nil, err
	}
	role, err := s.p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(nodeRoleName(s.eksName))})
	if err != nil {
		if errs.IsNotFound(err) {
			return nil, errs.New(errs.Precondition, "the node role %s is missing; retry the cluster's creation, which makes it", nodeRoleName(s.eksName))
		}
		return nil, err
	}
	subnets, err := s.subnets(run)
	if err != nil {
		return nil, err
	}
	out, err := s.p.EKS.CreateNodegroup(ctx, &eks.CreateNodegroupInput{
		ClusterName: aws.String(s.eksName), NodegroupName: aws.String(s.name()), NodeRole: role.Role.Arn, Subnets: subnets,
		InstanceTypes: []string{s.instanceType}, AmiType: ekstypes.AMITypesAl2023X8664Standard, CapacityType: ekstypes.CapacityTypesOnDemand,
		ScalingConfig: scaling, Labels: map[string]string{hyperpod.SystemNodeLabel: hyperpod.SystemNodeValue},
		Tags: s.tags, ClientRequestToken: aws.String(run.ClientToken()),
	})
	if err != nil {
		return nil, err
	}
	return systemNodesOutput{Nodegroup: s.name(), Arn: aws.ToString(out.Nodegroup.NodegroupArn)}, nil
}

// observeDeleted: the group is gone.
func (s *systemNodes) observeDeleted(ctx context.Context, _ *ops.Run) (ops.Observation, error) {
	g, err := s.describe(ctx)
	if err != nil {
		return ops.Observation{}, err
	}
	switch {
	case g == nil:
		return ops.Observation{State: ops.Done, Message: "no system node group"}, nil
	case g.Status == ekstypes.NodegroupStatusDeleting, g.Status == ekstypes.NodegroupStatusCreating, g.Status == ekstypes.NodegroupStatusUpdating:
		return ops.Observation{State: ops.Pending, Message: fmt.Sprintf("node group %s is %s", s.name(), g.Status)}, nil
	case g.Status == ekstypes.NodegroupStatusDeleteFailed:
		return ops.Observation{State: ops.Broken, Err: errs.New(errs.Upstream, "system node group %s is DELETE_FAILED (%s); fix the cause and retry", s.name(), issuesOf(g))}, nil
	}
	return ops.Observation{State: ops.Absent}, nil
}

func (s *systemNodes) applyDeleted(ctx context.Context, _ *ops.Run) (any, error) {
	_, err := s.p.EKS.DeleteNodegroup(ctx, &eks.DeleteNodegroupInput{ClusterName: aws.String(s.eksName), NodegroupName: aws.String(s.name())})
	if errs.IsNotFound(err) {
		return nil, nil
	}
	return nil, err
}

// systemNodesOutput is the output of phaseSystemNodes.
type systemNodesOutput struct {
	Nodegroup string `json:"nodegroup,omitempty"`
	Arn       string `json:"arn,omitempty"`
}

// SystemNodes reads cluster id's system node group: nil when it has none.
func (s *Service) SystemNodes(ctx context.Context, id string) (*hyperpod.SystemNodes, error) {
	c, p, err := s.Reach(id, true)
	if err != nil {
		return nil, err
	}
	if c.EKS.Name == "" || c.Status == hyperpod.ClusterDeleted {
		return nil, nil
	}
	sn := &systemNodes{p: p, eksName: c.EKS.Name}
	g, err := sn.describe(ctx)
	if err != nil {
		return nil, errs.FromUpstream(err, "read the system node group")
	}
	if g == nil {
		return nil, nil
	}
	out := &hyperpod.SystemNodes{Name: sn.name(), Arn: aws.ToString(g.NodegroupArn), Status: string(g.Status), Desired: int(aws.ToInt32(g.ScalingConfig.DesiredSize))}
	if len(g.InstanceTypes) > 0 {
		out.InstanceType = g.InstanceTypes[0]
	}
	if g.Health != nil {
		for _, i := range g.Health.Issues {
			out.Issues = append(out.Issues, string(i.Code)+": "+aws.ToString(i.Message))
		}
	}
	if out.Ready, err = readySystemNodes(ctx, p, c.EKS.Name, sn.name()); err != nil {
		return nil, err
	}
	return out, nil
}

// readySystemNodes counts the Ready Kubernetes nodes of node group name.
func readySystemNodes(ctx context.Context, p *cloud.Provider, eksName, name string) (int, error) {
	kc, err := p.Kubernetes.Clients(ctx, eksName)
	if err != nil {
		return 0, errs.FromUpstream(err, "reach the cluster's Kubernetes API")
	}
	list, err := kc.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "eks.amazonaws.com/nodegroup=" + name})
	if err != nil {
		return 0, errs.FromUpstream(err, "list the system nodes")
	}
	ready := 0
	for _, n := range list.Items {
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	return ready, nil
}
