package cluster_test

import (
	"context"
	"encoding/base64"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/instantstart/instantstart/engine/errs"
)

// TestKubeconfigIsWhatUpdateKubeconfigWrites: the kubeconfig of an ACTIVE
// cluster loads with client-go, names its cluster, user and context by the
// EKS cluster's ARN, points at the EKS endpoint with its certificate
// authority, and authenticates with aws eks get-token for the cluster's
// name and region. An unknown id is NOT_FOUND on clusterId.
func TestKubeconfigIsWhatUpdateKubeconfigWrites(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	op, err := f.svc.Create(ctx, "tester", validInput(), "")
	if err != nil {
		t.Fatal(err)
	}
	id := f.succeeded(t, op).Target.ID
	c, err := f.svc.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	text, err := f.svc.Kubeconfig(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load([]byte(text))
	if err != nil {
		t.Fatalf("the kubeconfig does not load: %v\n%s", err, text)
	}
	p, err := f.world.Provider(c.Region)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.EKS.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(c.EKS.Name)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.Cluster.Arn)
	ca, _ := base64.StdEncoding.DecodeString(aws.ToString(out.Cluster.CertificateAuthority.Data))
	cl, user, cx := cfg.Clusters[arn], cfg.AuthInfos[arn], cfg.Contexts[arn]
	if cfg.CurrentContext != arn || cl == nil || user == nil || cx == nil || cx.Cluster != arn || cx.AuthInfo != arn {
		t.Fatalf("names: current %q, clusters %v, users %v, contexts %v; want all %q", cfg.CurrentContext, cfg.Clusters, cfg.AuthInfos, cfg.Contexts, arn)
	}
	if cl.Server != aws.ToString(out.Cluster.Endpoint) || len(ca) == 0 || string(cl.CertificateAuthorityData) != string(ca) {
		t.Fatalf("cluster %s with %d bytes of CA; want %s and EKS's CA", cl.Server, len(cl.CertificateAuthorityData), aws.ToString(out.Cluster.Endpoint))
	}
	want := []string{"--region", c.Region, "eks", "get-token", "--cluster-name", c.EKS.Name, "--output", "json"}
	if user.Exec == nil || user.Exec.Command != "aws" || user.Exec.APIVersion != "client.authentication.k8s.io/v1beta1" || !slices.Equal(user.Exec.Args, want) {
		t.Fatalf("user %+v; want aws %v", user.Exec, want)
	}

	_, err = f.svc.Kubeconfig(ctx, "01NOSUCHCLUSTER0000000000")
	if e := errs.As(err); e == nil || e.Code != errs.NotFound || e.Field != "clusterId" {
		t.Fatalf("unknown cluster: %v; want NOT_FOUND on clusterId", err)
	}
}
