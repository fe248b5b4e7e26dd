package simwire

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	authv1 "k8s.io/api/authentication/v1"

	"github.com/instantstart/instantstart/engine/cloud"
)

// Bounds and rules of EKS tokens, as EKS's authenticator
// (aws-iam-authenticator) applies them, beside those in package cloud
// (cloud.EKSTokenPrefix, cloud.EKSClusterIDHeader, cloud.EKSTokenLifetime).
const (
	// maxTokenBytes bounds a token before it is decoded; a presigned URL
	// is well under 2 KiB.
	maxTokenBytes = 8 << 10
	// maxReviewBytes bounds a TokenReview request body.
	maxReviewBytes = 64 << 10
	// tokenSkew is how far in the future a token's signing time may be.
	tokenSkew = 5 * time.Minute
	// maxCallerBytes bounds what Wire may answer a presigned
	// GetCallerIdentity; its answer is well under 1 KiB.
	maxCallerBytes = 64 << 10
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
// server has RBAC, where system:masters is what that policy grants). The
// user's extra "canonicalArn" names the principal, for EKSAuthorizer,
// which applies the other access policies as EKS's authorizer does.
//
// Calls signed with a role session's credentials (the simulator's STS
// AssumeRole, on the wire) are that session's: a second principal gets
// tokens of its own.
//
// Like the wire endpoint, it checks no signatures: whoever can reach
// Wire can act as the simulated account's caller anyway.
type EKSAuthenticator struct {
	// Wire serves the presigned STS requests: the simulator's Handler.
	Wire http.Handler
	// STSEndpoint is the URL the SDK presigns against (the wire
	// endpoint's, http://ADDR); only tokens naming its host are taken. It
	// is read on the first review: one that is not an http(s) URL with a
	// host refuses every token, saying so.
	STSEndpoint string
	// Providers gives the EKS port the access entries are read from.
	Providers Providers
	// Region and Cluster name the EKS cluster whose API server asks.
	Region, Cluster string
	// Now is the clock tokens are dated against; nil means time.Now.
	Now func() time.Time

	endpointOnce sync.Once
	endpoint     *url.URL // STSEndpoint, parsed
	endpointErr  error    // why STSEndpoint is not usable
}

// stsEndpoint returns STSEndpoint parsed, reading it once.
func (a *EKSAuthenticator) stsEndpoint() (*url.URL, error) {
	a.endpointOnce.Do(func() {
		u, err := url.Parse(a.STSEndpoint)
		switch {
		case err != nil:
			a.endpointErr = fmt.Errorf("the authenticator's STS endpoint %q is not a URL: %v", a.STSEndpoint, err)
		case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
			a.endpointErr = fmt.Errorf("the authenticator's STS endpoint %q is not an http(s) URL with a host, such as http://127.0.0.1:8080", a.STSEndpoint)
		default:
			a.endpoint = u
		}
	})
	return a.endpoint, a.endpointErr
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
	caller, err := a.callerIdentity(ctx, signed)
	if err != nil {
		return none, err
	}
	p, err := a.Providers(a.Region)
	if err != nil {
		return none, fmt.Errorf("EKS cluster %q: %w", a.Cluster, err)
	}
	principal := cloud.PrincipalARN(caller.Arn)
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
		if aws.ToString(pol.PolicyArn) == cloud.EKSClusterAdminPolicy && pol.AccessScope != nil && pol.AccessScope.Type == ekstypes.AccessScopeTypeCluster {
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
	enc, ok := strings.CutPrefix(token, cloud.EKSTokenPrefix)
	if !ok {
		return nil, fmt.Errorf("not an EKS token: it does not start with %q", cloud.EKSTokenPrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil {
		return nil, fmt.Errorf("the EKS token is not base64url: %v", err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("the EKS token holds no URL: %v", err)
	}
	want, err := a.stsEndpoint()
	if err != nil {
		return nil, err
	}
	if u.Scheme != want.Scheme || u.Host != want.Host || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("the EKS token is presigned for %s://%s%s, not for this cluster's STS endpoint %s", u.Scheme, u.Host, u.Path, a.STSEndpoint)
	}
	// A request line cannot carry a space: STS would refuse the request
	// as malformed.
	if strings.Contains(u.RawQuery, " ") {
		return nil, errors.New("the EKS token's URL holds a space in its query, which no HTTP request can carry")
	}
	q := u.Query()
	if q.Get("Action") != "GetCallerIdentity" {
		return nil, fmt.Errorf("the EKS token presigns action %q, not GetCallerIdentity", q.Get("Action"))
	}
	if _, svc := credentialScope(q.Get("X-Amz-Credential")); svc != "sts" {
		return nil, errors.New("the EKS token's X-Amz-Credential has no sts scope")
	}
	if !slices.Contains(strings.Split(q.Get("X-Amz-SignedHeaders"), ";"), cloud.EKSClusterIDHeader) {
		return nil, fmt.Errorf("the EKS token's signature does not cover the %s header naming the cluster", cloud.EKSClusterIDHeader)
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
	case age > cloud.EKSTokenLifetime:
		return nil, fmt.Errorf("the EKS token was signed %s ago; tokens are accepted for %s: make a new one", age.Round(time.Second), cloud.EKSTokenLifetime)
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
func (a *EKSAuthenticator) callerIdentity(ctx context.Context, signed *url.URL) (caller, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, signed.String(), http.NoBody)
	if err != nil {
		return caller{}, fmt.Errorf("the EKS token's URL is not a request STS takes: %v", err)
	}
	req.Host = signed.Host
	req.Header.Set(cloud.EKSClusterIDHeader, a.Cluster)
	rec := &stsAnswer{header: http.Header{}}
	a.Wire.ServeHTTP(rec, req)
	body := rec.body.Bytes()
	if rec.overflow {
		return caller{}, fmt.Errorf("STS answered the EKS token with more than %d bytes: %.300s", maxCallerBytes, body)
	}
	if code := rec.status(); code != http.StatusOK {
		return caller{}, fmt.Errorf("STS refused the EKS token: HTTP %d: %.300s", code, body)
	}
	var c caller
	if err := xml.Unmarshal(body, &c); err != nil || c.Arn == "" {
		return caller{}, fmt.Errorf("STS answered the EKS token with no caller: %.300s", body)
	}
	return c, nil
}

// stsAnswer keeps what Wire answers a presigned request, at most
// maxCallerBytes of its body.
type stsAnswer struct {
	header   http.Header
	code     int
	body     bytes.Buffer
	overflow bool
}

func (r *stsAnswer) Header() http.Header { return r.header }

func (r *stsAnswer) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *stsAnswer) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	if room := maxCallerBytes - r.body.Len(); len(p) > room {
		r.body.Write(p[:room])
		r.overflow = true
		return room, errors.New("the STS answer is too large")
	}
	return r.body.Write(p)
}

// status is the answer's HTTP status: 200 when Wire set none.
func (r *stsAnswer) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
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
	// As in aws-iam-authenticator, {{SessionName}} has each "@" of the
	// session name made "-"; {{SessionNameRaw}} is the name as it is.
	return strings.NewReplacer("{{AccountID}}", c.Account,
		"{{SessionName}}", strings.ReplaceAll(session, "@", "-"),
		"{{SessionNameRaw}}", session).Replace(name)
}
