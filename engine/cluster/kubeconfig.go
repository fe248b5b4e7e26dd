package cluster

import (
	"context"
	"encoding/base64"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/instantstart/instantstart/engine/errs"
)

// execAPIVersion is the client authentication API the aws CLI's
// get-token answers in.
const execAPIVersion = "client.authentication.k8s.io/v1beta1"

// Kubeconfig returns a kubeconfig that reaches cluster id with kubectl, as
// `aws eks update-kubeconfig` writes it: the cluster, user and context are
// named by the EKS cluster's ARN, and the user runs `aws eks get-token`,
// so that kubectl acts as whoever runs it. That principal needs an EKS
// access entry on the cluster; the identity that made the cluster has one.
func (s *Service) Kubeconfig(ctx context.Context, id string) (string, error) {
	c, p, err := s.Reach(id, true)
	if err != nil {
		return "", errs.NotFoundOn(err, "clusterId")
	}
	if err := c.RequireActive("clusterId", "a kubeconfig is given"); err != nil {
		return "", err
	}
	out, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(c.EKS.Name)})
	if err != nil {
		return "", errs.FromUpstream(err, "describe EKS cluster "+c.EKS.Name)
	}
	ec := out.Cluster
	if ec == nil || aws.ToString(ec.Endpoint) == "" || ec.CertificateAuthority == nil {
		return "", errs.New(errs.Precondition, "EKS cluster %s has no endpoint or certificate yet; wait until it is ACTIVE", c.EKS.Name).WithField("clusterId")
	}
	ca, err := base64.StdEncoding.DecodeString(aws.ToString(ec.CertificateAuthority.Data))
	if err != nil {
		return "", errs.New(errs.Upstream, "EKS cluster %s answered a certificate authority that is not base64: %v", c.EKS.Name, err)
	}
	name := aws.ToString(ec.Arn)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: aws.ToString(ec.Endpoint), CertificateAuthorityData: ca}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: execAPIVersion, Command: "aws",
		Args:            []string{"--region", c.Region, "eks", "get-token", "--cluster-name", c.EKS.Name, "--output", "json"},
		InteractiveMode: clientcmdapi.IfAvailableExecInteractiveMode,
	}}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return "", errs.Wrap(errs.Internal, err, "write the kubeconfig: %v", err)
	}
	return string(b), nil
}
