package awscloud

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/instantstart/instantstart/engine/cloud"
)

// The EKS authentication token, as aws-iam-authenticator makes and checks
// it: cloud.EKSTokenPrefix followed by the unpadded base64url encoding of
// a presigned STS GetCallerIdentity URL whose signature covers the
// cloud.EKSClusterIDHeader header naming the cluster.
const (
	// eksPresignExpiry is the X-Amz-Expires of the presigned URL. The EKS
	// authenticator ignores it and accepts a token for
	// cloud.EKSTokenLifetime after it was signed; 60 is the value
	// aws-iam-authenticator sends.
	eksPresignExpiry = "60"
	// eksTokenRefresh is the age at which a token is replaced, a minute
	// before EKS stops accepting it.
	eksTokenRefresh = cloud.EKSTokenLifetime - time.Minute
	// eksEndpointRecheck is how often Clients describes the cluster again
	// to notice a new endpoint or certificate (a cluster deleted and
	// created again under the same name).
	eksEndpointRecheck = 14 * time.Minute
)

// Client-side rate limits of the Kubernetes clients. client-go's defaults
// (5 QPS, burst 10) are meant for controllers inside the cluster; the
// control plane drives many clusters' objects from one process.
const (
	kubeQPS   = 50
	kubeBurst = 100
)

// clusterDescriber is the part of the EKS port the Kubernetes adapter uses.
type clusterDescriber interface {
	DescribeCluster(ctx context.Context, in *eks.DescribeClusterInput, opts ...func(*eks.Options)) (*eks.DescribeClusterOutput, error)
}

// kubeAdapter implements cloud.Kubernetes for real EKS clusters. Clients
// are built once per cluster and shared; each request carries a bearer
// token that is minted locally (presigning needs no AWS call) and replaced
// before EKS stops accepting it, so long-lived clients keep working.
type kubeAdapter struct {
	eks     clusterDescriber
	presign presignIdentity
	now     func() time.Time

	mu       sync.Mutex
	clusters map[string]*kubeCluster
}

var _ cloud.Kubernetes = (*kubeAdapter)(nil)

// kubeCluster is the cached state of one EKS cluster's API.
type kubeCluster struct {
	endpoint  string
	caData    string // base64 PEM as DescribeCluster returns it
	checkedAt time.Time
	config    *rest.Config // what clients are built on; shared, never modified
	clients   *cloud.KubeClients
}

// newKubernetes builds the Kubernetes adapter over an EKS port and the STS
// client of the same account and region. now is the clock (nil means
// time.Now); it also dates the token signatures, so that a token's age is
// measured on the clock that signed it.
func newKubernetes(eksAPI clusterDescriber, stsClient *sts.Client, now func() time.Time) *kubeAdapter {
	if now == nil {
		now = time.Now
	}
	presign := sts.NewPresignClient(stsClient, func(o *sts.PresignOptions) {
		o.Presigner = clockedPresigner{signer: v4.NewSigner(), now: now}
	})
	return &kubeAdapter{eks: eksAPI, presign: presign.PresignGetCallerIdentity, now: now, clusters: make(map[string]*kubeCluster)}
}

// Clients returns the clients for eksCluster. It describes the cluster on
// first use and again every eksEndpointRecheck, and fails when the cluster
// does not exist, is still being created, or has no endpoint yet.
func (k *kubeAdapter) Clients(ctx context.Context, eksCluster string) (*cloud.KubeClients, error) {
	c, err := k.cluster(ctx, eksCluster)
	if err != nil {
		return nil, err
	}
	return c.clients, nil
}

// restConfig returns a copy of the configuration the clients of eksCluster
// are built on (endpoint, certificate authority, EKS token), for other
// Kubernetes clients such as Helm's. It describes the cluster as Clients
// does.
func (k *kubeAdapter) restConfig(ctx context.Context, eksCluster string) (*rest.Config, error) {
	c, err := k.cluster(ctx, eksCluster)
	if err != nil {
		return nil, err
	}
	return rest.CopyConfig(c.config), nil
}

// cluster returns the cached state of eksCluster, describing the cluster
// on first use and again every eksEndpointRecheck.
func (k *kubeAdapter) cluster(ctx context.Context, eksCluster string) (*kubeCluster, error) {
	if eksCluster == "" {
		return nil, fmt.Errorf("kubernetes clients: EKS cluster name is empty")
	}
	now := k.now()
	k.mu.Lock()
	c, ok := k.clusters[eksCluster]
	fresh := ok && now.Sub(c.checkedAt) < eksEndpointRecheck // checkedAt is written under mu
	k.mu.Unlock()
	if fresh {
		return c, nil
	}

	endpoint, caData, err := k.describe(ctx, eksCluster)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if c, ok := k.clusters[eksCluster]; ok && c.endpoint == endpoint && c.caData == caData {
		c.checkedAt = now
		return c, nil
	}
	cfg, clients, err := k.newClients(eksCluster, endpoint, caData)
	if err != nil {
		return nil, err
	}
	c = &kubeCluster{endpoint: endpoint, caData: caData, checkedAt: now, config: cfg, clients: clients}
	k.clusters[eksCluster] = c
	return c, nil
}

// describe returns the API endpoint and certificate authority of an EKS
// cluster whose API can be reached.
func (k *kubeAdapter) describe(ctx context.Context, eksCluster string) (endpoint, caData string, err error) {
	out, err := k.eks.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(eksCluster)})
	if err != nil {
		return "", "", fmt.Errorf("kubernetes clients: describe EKS cluster %q: %w", eksCluster, err)
	}
	c := out.Cluster
	if c == nil {
		return "", "", fmt.Errorf("kubernetes clients: EKS cluster %q: DescribeCluster returned no cluster", eksCluster)
	}
	switch c.Status {
	case ekstypes.ClusterStatusCreating, ekstypes.ClusterStatusFailed, ekstypes.ClusterStatusDeleting:
		return "", "", fmt.Errorf("kubernetes clients: EKS cluster %q is %s, not ACTIVE: its Kubernetes API is not available", eksCluster, c.Status)
	}
	endpoint = aws.ToString(c.Endpoint)
	if c.CertificateAuthority != nil {
		caData = aws.ToString(c.CertificateAuthority.Data)
	}
	if endpoint == "" || caData == "" {
		return "", "", fmt.Errorf("kubernetes clients: EKS cluster %q (status %s) has no API endpoint or certificate authority yet; retry when it is ACTIVE", eksCluster, c.Status)
	}
	return endpoint, caData, nil
}

// newClients builds the configuration and the typed and dynamic clients
// for one API endpoint.
func (k *kubeAdapter) newClients(eksCluster, endpoint, caData string) (*rest.Config, *cloud.KubeClients, error) {
	ca, err := base64.StdEncoding.DecodeString(caData)
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes clients: EKS cluster %q: certificate authority is not base64: %w", eksCluster, err)
	}
	tokens := &eksTokenSource{cluster: eksCluster, presign: k.presign, now: k.now}
	cfg := &rest.Config{
		Host:            endpoint,
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
		UserAgent:       "instantstart",
		QPS:             kubeQPS,
		Burst:           kubeBurst,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return &bearerRoundTripper{tokens: tokens, next: rt}
		},
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes clients: EKS cluster %q: %w", eksCluster, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("kubernetes clients: EKS cluster %q: %w", eksCluster, err)
	}
	return cfg, &cloud.KubeClients{Core: core, Dynamic: dyn, Logs: cloud.CoreLogs{Core: core}, Proxy: cloud.CoreProxy{Core: core}}, nil
}

// presignIdentity presigns an STS GetCallerIdentity request: the method
// value of an sts.PresignClient, held instead of the client so that no STS
// client is kept in a struct that is stored in an interface (see
// internal/portgen for why that matters).
type presignIdentity func(ctx context.Context, in *sts.GetCallerIdentityInput, optFns ...func(*sts.PresignOptions)) (*v4.PresignedHTTPRequest, error)

// eksTokenSource mints EKS tokens for one cluster and reuses each until it
// is eksTokenRefresh old.
type eksTokenSource struct {
	cluster string
	presign presignIdentity
	now     func() time.Time

	mu       sync.Mutex
	token    string
	signedAt time.Time
}

// Token returns a token EKS accepts for at least another minute.
func (s *eksTokenSource) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.token != "" && now.Sub(s.signedAt) < eksTokenRefresh {
		return s.token, nil
	}
	token, err := eksToken(ctx, s.presign, s.cluster)
	if err != nil {
		return "", err
	}
	s.token, s.signedAt = token, now
	return token, nil
}

// eksToken presigns an STS GetCallerIdentity request that names cluster in
// the signed x-k8s-aws-id header, and encodes its URL as an EKS token.
func eksToken(ctx context.Context, presign presignIdentity, cluster string) (string, error) {
	req, err := presign(ctx, &sts.GetCallerIdentityInput{}, func(o *sts.PresignOptions) {
		o.ClientOptions = append(o.ClientOptions, func(so *sts.Options) {
			so.APIOptions = append(so.APIOptions,
				smithyhttp.SetHeaderValue(cloud.EKSClusterIDHeader, cluster),
				// An X-Amz-* header is hoisted into the presigned query.
				smithyhttp.SetHeaderValue("X-Amz-Expires", eksPresignExpiry),
			)
		})
	})
	if err != nil {
		return "", fmt.Errorf("EKS token for cluster %q: presign sts:GetCallerIdentity: %w", cluster, err)
	}
	return cloud.EKSTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(req.URL)), nil
}

// clockedPresigner signs with the adapter's clock, so that a token's
// signing time and the age the adapter gives it agree (and tests can move
// time).
type clockedPresigner struct {
	signer *v4.Signer
	now    func() time.Time
}

func (p clockedPresigner) PresignHTTP(ctx context.Context, credentials aws.Credentials, r *http.Request, payloadHash, service, region string, _ time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	return p.signer.PresignHTTP(ctx, credentials, r, payloadHash, service, region, p.now(), optFns...)
}

// bearerRoundTripper adds the current EKS token to every request.
type bearerRoundTripper struct {
	tokens *eksTokenSource
	next   http.RoundTripper
}

func (rt *bearerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	token, err := rt.tokens.Token(req.Context())
	if err != nil {
		return nil, err
	}
	// A RoundTripper must not modify the caller's request.
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+token)
	return rt.next.RoundTrip(req)
}

// WrappedRoundTripper lets client-go's debugging and connection tracking
// see the transport underneath.
func (rt *bearerRoundTripper) WrappedRoundTripper() http.RoundTripper { return rt.next }
