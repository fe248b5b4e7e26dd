package simwire

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	authv1 "k8s.io/api/authentication/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/sim"
)

// authFixture is a world with an ACTIVE EKS cluster "wire", its wire
// endpoint, and an authenticator for that cluster.
type authFixture struct {
	now time.Time
	// later moves the authenticator's clock on from the real time the
	// SDK signs tokens at.
	later  time.Duration
	cfg    aws.Config
	p      *cloud.Provider
	auth   *EKSAuthenticator
	server *httptest.Server
}

func newAuthFixture(t *testing.T) *authFixture {
	t.Helper()
	f := &authFixture{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	w, err := sim.New(sim.Options{Seed: 1, Clock: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()}
	f.server = httptest.NewServer(h)
	t.Cleanup(f.server.Close)
	f.cfg = aws.Config{
		Region:       w.DefaultRegion(),
		Credentials:  credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		BaseEndpoint: aws.String(f.server.URL),
	}
	f.p = &cloud.Provider{EC2: ec2.NewFromConfig(f.cfg), EKS: eks.NewFromConfig(f.cfg), IAM: iam.NewFromConfig(f.cfg), STS: sts.NewFromConfig(f.cfg)}
	st := map[string]string{}
	setup := append(append(ec2Steps()[:11], iamSteps()[:2]...), eksSteps()[:7]...) // up to "the control plane comes up"
	for _, s := range setup {
		f.now = f.now.Add(s.advance)
		_, _ = s.call(context.Background(), f.p, st) // some steps are refusals on purpose
	}
	c, err := f.p.EKS.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String("wire")})
	if err != nil || c.Cluster.Status != ekstypes.ClusterStatusActive {
		t.Fatalf("the EKS cluster wire did not come up: %v", err)
	}
	f.auth = &EKSAuthenticator{Wire: h, STSEndpoint: f.server.URL, Providers: w.Provider, Region: w.DefaultRegion(), Cluster: "wire",
		Now: func() time.Time { return time.Now().Add(f.later) }}
	return f
}

// token presigns GetCallerIdentity as the real provider does for an EKS
// token, against endpoint.
func (f *authFixture) token(t *testing.T, endpoint string) string {
	t.Helper()
	cfg := f.cfg.Copy()
	cfg.BaseEndpoint = aws.String(endpoint)
	presign := sts.NewPresignClient(sts.NewFromConfig(cfg))
	req, err := presign.PresignGetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{}, func(o *sts.PresignOptions) {
		o.ClientOptions = append(o.ClientOptions, func(so *sts.Options) {
			so.APIOptions = append(so.APIOptions, smithyhttp.SetHeaderValue("x-k8s-aws-id", "wire"))
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return "k8s-aws-v1." + base64.RawURLEncoding.EncodeToString([]byte(req.URL))
}

// review posts a TokenReview of token as the API server does.
func (f *authFixture) review(t *testing.T, token string) authv1.TokenReviewStatus {
	t.Helper()
	body, _ := json.Marshal(authv1.TokenReview{Spec: authv1.TokenReviewSpec{Token: token}})
	rec := httptest.NewRecorder()
	f.auth.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/authenticate", bytes.NewReader(body)))
	if rec.Code != http.StatusOK {
		t.Fatalf("TokenReview answered HTTP %d: %s", rec.Code, rec.Body)
	}
	var out authv1.TokenReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out.Status
}

func TestEKSAuthenticatorTakesTheCreatorsToken(t *testing.T) {
	f := newAuthFixture(t)
	got := f.review(t, f.token(t, f.server.URL))
	if !got.Authenticated {
		t.Fatalf("the cluster creator's token was refused: %s", got.Error)
	}
	role := "arn:aws:iam::" + sim.DefaultAccountID + ":role/" + sim.ManagementRoleName
	if want := "arn:aws:sts::" + sim.DefaultAccountID + ":assumed-role/" + sim.ManagementRoleName + "/instantstart"; got.User.Username != want {
		t.Errorf("username %q, want the entry's template filled in: %q", got.User.Username, want)
	}
	if !slices.Contains(got.User.Groups, "system:masters") {
		t.Errorf("groups %v: the creator's AmazonEKSClusterAdminPolicy should make it system:masters", got.User.Groups)
	}
	if c := got.User.Extra["canonicalArn"]; len(c) != 1 || c[0] != role {
		t.Errorf("canonicalArn %v, want %s", c, role)
	}
}

func TestEKSAuthenticatorRefuses(t *testing.T) {
	f := newAuthFixture(t)
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	good := f.token(t, f.server.URL)
	cases := []struct {
		name, token, want string
		before            func()
	}{
		{name: "not an EKS token", token: "abc", want: "does not start with"},
		{name: "not base64", token: "k8s-aws-v1.%%%", want: "not base64url"},
		{name: "too long", token: "k8s-aws-v1." + strings.Repeat("a", maxTokenBytes), want: "more than"},
		{name: "another host", token: f.token(t, other.URL), want: "not for this cluster's STS endpoint"},
		{name: "another action", token: "k8s-aws-v1." + base64.RawURLEncoding.EncodeToString([]byte(f.server.URL+"/?Action=AssumeRole")), want: "not GetCallerIdentity"},
		{name: "expired", token: good, before: func() { f.later = 16 * time.Minute }, want: "make a new one"},
		{name: "signed in the future", token: good, before: func() { f.later = -6 * time.Minute }, want: "in the future"},
		{name: "no access entry", token: "", before: func() {
			f.later = 0
			_, err := f.p.EKS.DeleteAccessEntry(context.Background(), &eks.DeleteAccessEntryInput{ClusterName: aws.String("wire"),
				PrincipalArn: aws.String("arn:aws:iam::" + sim.DefaultAccountID + ":role/" + sim.ManagementRoleName)})
			if err != nil {
				t.Fatal(err)
			}
		}, want: "has no access entry"},
	}
	for _, c := range cases {
		if c.before != nil {
			c.before()
		}
		if c.token == "" {
			c.token = f.token(t, f.server.URL)
		}
		got := f.review(t, c.token)
		if got.Authenticated || !strings.Contains(got.Error, c.want) {
			t.Errorf("%s: authenticated %v, error %q; want refused with %q", c.name, got.Authenticated, got.Error, c.want)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("a token naming another host made the authenticator call it %d times", n)
	}
}

func TestEKSAuthenticatorBoundsTheReview(t *testing.T) {
	f := newAuthFixture(t)
	rec := httptest.NewRecorder()
	f.auth.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/authenticate", strings.NewReader(strings.Repeat(" ", maxReviewBytes+1))))
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized review: HTTP %d, want 413", rec.Code)
	}
	rec = httptest.NewRecorder()
	f.auth.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/authenticate", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("a GET: HTTP %d, want 405", rec.Code)
	}
}

func TestPrincipalOfAnAssumedRole(t *testing.T) {
	for in, want := range map[string]string{
		"arn:aws:sts::123456789012:assumed-role/Admin/alice": "arn:aws:iam::123456789012:role/Admin",
		"arn:aws:iam::123456789012:role/Admin":               "arn:aws:iam::123456789012:role/Admin",
		"arn:aws:iam::123456789012:user/bob":                 "arn:aws:iam::123456789012:user/bob",
		"arn:aws-cn:sts::123456789012:assumed-role/R/s":      "arn:aws-cn:iam::123456789012:role/R",
		// Every segment before the session name is the role's.
		"arn:aws:sts::123456789012:assumed-role/teams/R/s": "arn:aws:iam::123456789012:role/teams/R",
		// A session name may hold "@", "=", "," and ".".
		"arn:aws:sts::123456789012:assumed-role/R/a@b.c=d,e": "arn:aws:iam::123456789012:role/R",
		// No session, no role: not an assumed role's session.
		"arn:aws:sts::123456789012:assumed-role/R":     "arn:aws:sts::123456789012:assumed-role/R",
		"arn:aws:sts::123456789012:assumed-role//s":    "arn:aws:sts::123456789012:assumed-role//s",
		"arn:aws:sts::123456789012:federated-user/bob": "arn:aws:sts::123456789012:federated-user/bob",
		"not an arn": "not an arn",
	} {
		if got := cloud.PrincipalARN(in); got != want {
			t.Errorf("PrincipalARN(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestEKSAuthenticatorRefusesASpaceInTheTokensURL(t *testing.T) {
	f := newAuthFixture(t)
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(f.token(t, f.server.URL), cloud.EKSTokenPrefix))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := url.Parse(string(raw) + "&z=a b")
	if err != nil {
		t.Fatalf("a space in a query value should parse as a URL, as it does in a token: %v", err)
	}
	got := f.review(t, cloud.EKSTokenPrefix+base64.RawURLEncoding.EncodeToString([]byte(signed.String())))
	if got.Authenticated || !strings.Contains(got.Error, "space") {
		t.Errorf("authenticated %v, error %q; want the token refused for the space in its URL", got.Authenticated, got.Error)
	}
}

func TestEKSAuthenticatorRefusesAMisconfiguredSTSEndpoint(t *testing.T) {
	f := newAuthFixture(t)
	token := f.token(t, f.server.URL)
	for endpoint, want := range map[string]string{
		"127.0.0.1:1":    `STS endpoint "127.0.0.1:1" is not a URL`,
		"localhost:8080": `STS endpoint "localhost:8080" is not an http(s) URL with a host`,
		"http://":        `STS endpoint "http://" is not an http(s) URL with a host`,
	} {
		auth := &EKSAuthenticator{Wire: f.auth.Wire, STSEndpoint: endpoint, Providers: f.auth.Providers, Region: f.auth.Region, Cluster: f.auth.Cluster}
		for range 2 {
			_, err := auth.Authenticate(context.Background(), token)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("STS endpoint %q: error %v; want every token refused with %q", endpoint, err, want)
			}
		}
	}
}

func TestExpandUsername(t *testing.T) {
	role := caller{Arn: "arn:aws:sts::123456789012:assumed-role/Dev/alice@example.com", Account: "123456789012", UserID: "AROAEXAMPLE:alice@example.com"}
	viaUserID := caller{Arn: "arn:aws:iam::123456789012:user/bob", Account: "123456789012", UserID: "AROAEXAMPLE:bob@example.com"}
	for _, c := range []struct {
		template string
		caller   caller
		want     string
	}{
		{"{{SessionName}}", role, "alice-example.com"},
		{"{{SessionNameRaw}}", role, "alice@example.com"},
		{"u:{{AccountID}}:{{SessionName}}:{{SessionNameRaw}}", role, "u:123456789012:alice-example.com:alice@example.com"},
		{"{{SessionName}}", viaUserID, "bob-example.com"},
		{"{{SessionNameRaw}}", viaUserID, "bob@example.com"},
		{"fixed", role, "fixed"},
	} {
		if got := expandUsername(c.template, c.caller); got != c.want {
			t.Errorf("expandUsername(%q, %s) = %q, want %q", c.template, c.caller.Arn, got, c.want)
		}
	}
}
