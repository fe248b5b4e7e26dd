package simwire

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	authv1 "k8s.io/api/authentication/v1"

	"github.com/instantstart/instantstart/engine/cloud"
)

// Bounds and rules of EKS tokens, as EKS's authenticator
// (aws-iam-authenticator) applies them.
const (
	eksTokenPrefix = "k8s-aws-v1."
	// maxTokenBytes bounds a token before it is decoded; a presigned URL
	// is well under 2 KiB.
	maxTokenBytes = 8 << 10
	// maxReviewBytes bounds a TokenReview request body.
	maxReviewBytes = 64 << 10
	// tokenLifetime is how long after signing a token is accepted.
	tokenLifetime = 15 * time.Minute
	// tokenSkew is how far in the future a token's signing time may be.
	tokenSkew = 5 * time.Minute
	// clusterIDHeader is the signed header that names the cluster.
	clusterIDHeader = "x-k8s-aws-id"
	// clusterAdminPolicy is the EKS access policy that makes a principal
	// a cluster administrator.
	clusterAdminPolicy = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
)

// EKSAuthenticator answers a kube-apiserver's webhook token authentication
// (a TokenReview of authentication.k8s.io/v1, the API server's
// --authentication-token-webhook-config-file) for one simulated EKS
// cluster, as EKS authenticates callers of its clusters' API servers: a
// real API server then stands in for the cluster's, and the real
// provider's tokens work against it unchanged.
//
// A token is "k8s-aws-v1." and the base64url encoding of a presigned STS
// GetCallerIdentity URL. The URL must point at STSEndpoint, the wire
// endpoint's own address, and is then served by Wire in-process: a token
// never makes the authenticator reach another host. The caller STS names
// must have an access entry in Cluster; the entry's Kubernetes groups are
// the user's groups, and AmazonEKSClusterAdminPolicy adds system:masters
// (EKS enforces access policies with an authorizer of its own; a stock API
// server has RBAC, where system:masters is what that policy grants).
//
// Like the wire endpoint, it checks no signatures: whoever can reach
// Wire can act as the simulated account's caller anyway.
type EKSAuthenticator struct {
	// Wire serves the presigned STS requests: the simulator's Handler.
	Wire http.Handler
	// STSEndpoint is the URL the SDK presigns against (the wire
	// endpoint's, http://ADDR); only tokens naming its host are taken.
	STSEndpoint string
	// Providers gives the EKS port the access entries are read from.
	Providers Providers
	// Region and Cluster name the EKS cluster whose API server asks.
	Region, Cluster string
	// Now is the clock tokens are dated against; nil means time.Now.
	Now func() time.Time
}

func (a *EKSAuthenticator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "a TokenReview is POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxReviewBytes))
	if err != nil {
		http.Error(w, fmt.Sprintf("read the TokenReview (at most %d bytes): %v", maxReviewBytes, err), http.StatusRequestEntityTooLarge)
		return
	}
	var review authv1.TokenReview
	if err := json.Unmarshal(body, &review); err != nil {
		http.Error(w, "the body is not a TokenReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	out := authv1.TokenReview{TypeMeta: review.TypeMeta}
	if out.APIVersion == "" {
		out.APIVersion, out.Kind = "authentication.k8s.io/v1", "TokenReview"
	}
	user, err := a.Authenticate(r.Context(), review.Spec.Token)
	if err != nil {
		out.Status.Error = err.Error()
	} else {
		out.Status.Authenticated = true
		out.Status.User = user
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// Authenticate returns the Kubernetes user token authenticates as, or why
// it does not.
func (a *EKSAuthenticator) Authenticate(ctx context.Context, token string) (authv1.UserInfo, error) {
	var none authv1.UserInfo
	signed, err := a.presignedURL(token)
	if err != nil {
		return none, err
	}
	caller, err := a.callerIdentity(signed)
	if err != nil {
		return none, err
	}
	p, err := a.Providers(a.Region)
	if err != nil {
		return none, fmt.Errorf("EKS cluster %q: %w", a.Cluster, err)
	}
	principal := principalOf(caller.Arn)
	entry, err := p.EKS.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(a.Cluster), PrincipalArn: aws.String(principal)})
	if err != nil {
		var nf *ekstypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return none, fmt.Errorf("%s has no access entry in EKS cluster %q", principal, a.Cluster)
		}
		return none, fmt.Errorf("read the access entry of %s in EKS cluster %q: %w", principal, a.Cluster, err)
	}
	groups := slices.Clone(entry.AccessEntry.KubernetesGroups)
	policies, err := cloud.AllAssociatedAccessPolicies(ctx, p.EKS, eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String(a.Cluster), PrincipalArn: aws.String(principal)})
	if err != nil {
		return none, fmt.Errorf("read the access policies of %s in EKS cluster %q: %w", principal, a.Cluster, err)
	}
	for _, pol := range policies {
		if aws.ToString(pol.PolicyArn) == clusterAdminPolicy && pol.AccessScope != nil && pol.AccessScope.Type == ekstypes.AccessScopeTypeCluster {
			groups = append(groups, "system:masters")
		}
	}
	name := expandUsername(aws.ToString(entry.AccessEntry.Username), caller)
	if name == "" {
		name = caller.Arn
	}
	return authv1.UserInfo{
		Username: name,
		UID:      "aws-iam-authenticator:" + caller.Account + ":" + caller.UserID,
		Groups:   groups,
		Extra: map[string]authv1.ExtraValue{
			"arn":          {caller.Arn},
			"canonicalArn": {principal},
		},
	}, nil
}

// presignedURL decodes token and checks the URL it holds is an unexpired
// STS GetCallerIdentity at STSEndpoint, signed over the cluster header.
func (a *EKSAuthenticator) presignedURL(token string) (*url.URL, error) {
	if len(token) > maxTokenBytes {
		return nil, fmt.Errorf("the token is %d bytes, more than the %d an EKS token may have", len(token), maxTokenBytes)
	}
	enc, ok := strings.CutPrefix(token, eksTokenPrefix)
	if !ok {
		return nil, fmt.Errorf("not an EKS token: it does not start with %q", eksTokenPrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil {
		return nil, fmt.Errorf("the EKS token is not base64url: %v", err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("the EKS token holds no URL: %v", err)
	}
	want, err := url.Parse(a.STSEndpoint)
	if err != nil {
		return nil, fmt.Errorf("the authenticator's STS endpoint %q: %v", a.STSEndpoint, err)
	}
	if u.Scheme != want.Scheme || u.Host != want.Host || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("the EKS token is presigned for %s://%s%s, not for this cluster's STS endpoint %s", u.Scheme, u.Host, u.Path, a.STSEndpoint)
	}
	q := u.Query()
	if q.Get("Action") != "GetCallerIdentity" {
		return nil, fmt.Errorf("the EKS token presigns action %q, not GetCallerIdentity", q.Get("Action"))
	}
	if _, svc := scope(&http.Request{Header: http.Header{}, URL: u}); svc != "sts" {
		return nil, errors.New("the EKS token's X-Amz-Credential has no sts scope")
	}
	if !slices.Contains(strings.Split(q.Get("X-Amz-SignedHeaders"), ";"), clusterIDHeader) {
		return nil, fmt.Errorf("the EKS token's signature does not cover the %s header naming the cluster", clusterIDHeader)
	}
	signedAt, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return nil, fmt.Errorf("the EKS token's X-Amz-Date %q is not a SigV4 time", q.Get("X-Amz-Date"))
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	switch age := now().Sub(signedAt); {
	case age > tokenLifetime:
		return nil, fmt.Errorf("the EKS token was signed %s ago; tokens are accepted for %s: make a new one", age.Round(time.Second), tokenLifetime)
	case age < -tokenSkew:
		return nil, fmt.Errorf("the EKS token is signed %s in the future: check the signer's clock", (-age).Round(time.Second))
	}
	return u, nil
}

// caller is who STS says signed a token.
type caller struct {
	Arn     string `xml:"GetCallerIdentityResult>Arn"`
	Account string `xml:"GetCallerIdentityResult>Account"`
	UserID  string `xml:"GetCallerIdentityResult>UserId"`
}

// callerIdentity sends the presigned request to Wire, with the cluster
// header it was signed over, and reads who it names.
func (a *EKSAuthenticator) callerIdentity(signed *url.URL) (caller, error) {
	req := httptest.NewRequest(http.MethodGet, signed.RequestURI(), nil)
	req.Host = signed.Host
	req.Header.Set(clusterIDHeader, a.Cluster)
	rec := httptest.NewRecorder()
	a.Wire.ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	if rec.Code != http.StatusOK {
		return caller{}, fmt.Errorf("STS refused the EKS token: HTTP %d: %.300s", rec.Code, body)
	}
	var c caller
	if err := xml.Unmarshal(body, &c); err != nil || c.Arn == "" {
		return caller{}, fmt.Errorf("STS answered the EKS token with no caller: %.300s", body)
	}
	return c, nil
}

// principalOf is the IAM principal an access entry names for arn: an
// assumed role's session is its role.
func principalOf(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[2] != "sts" {
		return arn
	}
	res := strings.Split(parts[5], "/")
	if len(res) < 3 || res[0] != "assumed-role" {
		return arn
	}
	return fmt.Sprintf("arn:%s:iam::%s:role/%s", parts[1], parts[4], res[1])
}

// expandUsername fills in the templates EKS allows in an access entry's
// username: the account, and the session name of the caller's role
// session (from its assumed-role ARN, else from its user id,
// "ROLEID:session").
func expandUsername(name string, c caller) string {
	session := ""
	if i := strings.LastIndex(c.Arn, ":assumed-role/"); i >= 0 {
		if parts := strings.Split(c.Arn[i:], "/"); len(parts) == 3 {
			session = parts[2]
		}
	}
	if session == "" {
		_, session, _ = strings.Cut(c.UserID, ":")
	}
	return strings.NewReplacer("{{AccountID}}", c.Account, "{{SessionName}}", session, "{{SessionNameRaw}}", session).Replace(name)
}
