package features

import (
	"fmt"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// The AWS Load Balancer Controller, as InstantStart installs it: its Helm
// chart in kube-system, running as a service account whose pod identity
// role may manage load balancers and their security groups.
const (
	lbcNamespace      = "kube-system"
	lbcServiceAccount = "aws-load-balancer-controller"
	// lbcChartVersion ships the controller v2.13.4.
	lbcChartVersion = "1.13.4"
)

var loadBalancerControllerFeature = &definition{
	name: hyperpod.LoadBalancerController, title: "AWS Load Balancer Controller", field: "input.loadBalancerController",
	description: "The AWS Load Balancer Controller (Helm chart aws-load-balancer-controller " + lbcChartVersion + " in namespace " + lbcNamespace + "), with an IAM role given by pod identity that may manage Elastic Load Balancing and the security groups of its load balancers: makes a Network Load Balancer for each LoadBalancer Service, as internet-facing inference endpoints use.",
	dependsOn:   []string{"EKS add-on eks-pod-identity-agent"},
	links: func(e *env) []link {
		name := iamName(e.c, "load-balancer-controller")
		return []link{
			addonLink(e, "eks-pod-identity-agent", true),
			policyLink(e, "policy", "IAM policy of the load balancer controller", name, loadBalancerControllerPolicy()),
			roleLink(e, "role", "IAM role of the load balancer controller", name, podsTrust(),
				[]string{fmt.Sprintf("arn:aws:iam::%s:policy%s%s", e.c.AccountID(), iamPath, name)}),
			podIdentityLink(e, lbcNamespace, lbcServiceAccount, name),
			helmLink(e, loadBalancerControllerChart(e)),
		}
	},
}

// loadBalancerControllerChart is the controller's release for the cluster.
func loadBalancerControllerChart(e *env) cloud.HelmChart {
	return cloud.HelmChart{Release: "aws-load-balancer-controller", Namespace: lbcNamespace, Repository: "https://aws.github.io/eks-charts",
		Chart: "aws-load-balancer-controller", Version: lbcChartVersion,
		Values: map[string]any{
			"clusterName":    e.c.EKS.Name,
			"region":         e.c.Region,
			"serviceAccount": map[string]any{"create": true, "name": lbcServiceAccount},
			"affinity":       hyperpod.SystemAffinity(),
		}}
}

// loadBalancerControllerPolicy allows what the controller does for
// Network Load Balancers with IP targets: read the network, make and tag
// load balancers, target groups, listeners and their security groups, and
// change or delete only those it tagged as its own.
func loadBalancerControllerPolicy() policyDocument {
	owned := map[string]map[string]string{"Null": {"aws:ResourceTag/elbv2.k8s.aws/cluster": "false"}}
	return policyDocument{Version: "2012-10-17", Statement: []statement{
		{Effect: "Allow", Action: []string{"iam:CreateServiceLinkedRole"}, Resource: []string{"*"},
			Condition: map[string]map[string]string{"StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}}},
		{Effect: "Allow", Resource: []string{"*"}, Action: []string{
			"ec2:DescribeAccountAttributes", "ec2:DescribeAddresses", "ec2:DescribeAvailabilityZones", "ec2:DescribeInternetGateways",
			"ec2:DescribeVpcs", "ec2:DescribeSubnets", "ec2:DescribeSecurityGroups", "ec2:DescribeInstances",
			"ec2:DescribeNetworkInterfaces", "ec2:DescribeTags", "ec2:DescribeRouteTables",
			"elasticloadbalancing:DescribeLoadBalancers", "elasticloadbalancing:DescribeLoadBalancerAttributes",
			"elasticloadbalancing:DescribeListeners", "elasticloadbalancing:DescribeListenerAttributes",
			"elasticloadbalancing:DescribeTargetGroups", "elasticloadbalancing:DescribeTargetGroupAttributes",
			"elasticloadbalancing:DescribeTargetHealth", "elasticloadbalancing:DescribeTags",
		}},
		{Effect: "Allow", Resource: []string{"*"}, Action: []string{
			"ec2:CreateSecurityGroup", "ec2:CreateTags",
			"elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup",
			"elasticloadbalancing:CreateListener", "elasticloadbalancing:AddTags",
		}, Condition: map[string]map[string]string{"Null": {"aws:RequestTag/elbv2.k8s.aws/cluster": "false"}}},
		{Effect: "Allow", Resource: []string{"*"}, Condition: owned, Action: []string{
			"ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress", "ec2:DeleteSecurityGroup",
			"elasticloadbalancing:ModifyLoadBalancerAttributes", "elasticloadbalancing:SetSecurityGroups",
			"elasticloadbalancing:SetSubnets", "elasticloadbalancing:DeleteLoadBalancer",
			"elasticloadbalancing:ModifyTargetGroup", "elasticloadbalancing:ModifyTargetGroupAttributes",
			"elasticloadbalancing:DeleteTargetGroup", "elasticloadbalancing:RegisterTargets",
			"elasticloadbalancing:DeregisterTargets", "elasticloadbalancing:ModifyListener",
			"elasticloadbalancing:DeleteListener", "elasticloadbalancing:RemoveTags",
		}},
	}}
}
