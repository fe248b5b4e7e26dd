package awscloud

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	testAccessKey = "AKIDTESTTESTTEST"
	testSecretKey = "test-secret"
)

// testClock is a clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fakeEKS answers DescribeCluster from a table of clusters.
type fakeEKS struct {
	mu        sync.Mutex
	clusters  map[string]*ekstypes.Cluster
	describes int
}

func (f *fakeEKS) DescribeCluster(_ context.Context, in *eks.DescribeClusterInput, _ ...func(*eks.Options)) (*eks.DescribeClusterOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.describes++
	c, ok := f.clusters[aws.ToString(in.Name)]
	if !ok {
		return nil, &ekstypes.ResourceNotFoundException{Message: aws.String("No cluster found for name: " + aws.ToString(in.Name) + ".")}
	}
	cp := *c
	return &eks.DescribeClusterOutput{Cluster: &cp}, nil
}

func (f *fakeEKS) describeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.describes
}

func testSTSClient() *sts.Client {
	return sts.New(sts.Options{
		Region:      "us-west-2",
		Credentials: credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
	})
}

// decodeEKSToken checks the token's envelope and returns the presigned URL.
func decodeEKSToken(t *testing.T, token string) *url.URL {
	t.Helper()
	body, ok := strings.CutPrefix(token, "k8s-aws-v1.")
	if !ok {
		t.Fatalf("token %q does not start with k8s-aws-v1.", token)
	}
	if strings.ContainsAny(body, "=+/") {
		t.Errorf("token body %q is not unpadded base64url", body)
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		t.Fatalf("token body is not base64url: %v", err)
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		t.Fatalf("token does not hold a URL: %v", err)
	}
	return u
}

func TestEKSTokenIsAPresignedGetCallerIdentity(t *testing.T) {
	isolateAWSEnv(t)
	clock := newTestClock()
	k := newKubernetes(&fakeEKS{}, testSTSClient(), clock.Now)

	token, err := eksToken(context.Background(), k.presign, "demo")
	if err != nil {
		t.Fatal(err)
	}

	u := decodeEKSToken(t, token)
	if u.Scheme != "https" || u.Host != "sts.us-west-2.amazonaws.com" || (u.Path != "/" && u.Path != "") {
		t.Errorf("presigned URL = %s; want https://sts.us-west-2.amazonaws.com/", u)
	}
	q := u.Query()
	want := map[string]string{
		"Action":          "GetCallerIdentity",
		"Version":         "2011-06-15",
		"X-Amz-Algorithm": "AWS4-HMAC-SHA256",
		"X-Amz-Expires":   "60",
		"X-Amz-Date":      clock.Now().Format("20060102T150405Z"),
		"X-Amz-Credential": testAccessKey + "/" + clock.Now().Format("20060102") +
			"/us-west-2/sts/aws4_request",
	}
	for k, v := range want {
		if got := q.Get(k); got != v {
			t.Errorf("query %s = %q; want %q", k, got, v)
		}
	}
	signed := strings.Split(q.Get("X-Amz-SignedHeaders"), ";")
	if !contains(signed, "host") || !contains(signed, "x-k8s-aws-id") {
		t.Errorf("X-Amz-SignedHeaders = %v; want host and x-k8s-aws-id", signed)
	}
	if q.Get("X-Amz-Signature") == "" {
		t.Error("presigned URL has no X-Amz-Signature")
	}

	// Verify the signature as STS would, with the header the EKS
	// authenticator adds from the URL's signed header list: the same
	// cluster name reproduces it, another name does not.
	if got := resign(t, u, "demo", clock.Now()); got != q.Get("X-Amz-Signature") {
		t.Errorf("signature does not cover x-k8s-aws-id: demo; recomputed %s, token has %s", got, q.Get("X-Amz-Signature"))
	}
	if got := resign(t, u, "other", clock.Now()); got == q.Get("X-Amz-Signature") {
		t.Error("the signature is the same for another cluster name; x-k8s-aws-id is not signed")
	}
}

// resign presigns u again (without its signature) with x-k8s-aws-id set to
// cluster and returns the signature.
func resign(t *testing.T, u *url.URL, cluster string, at time.Time) string {
	t.Helper()
	q := u.Query()
	for _, k := range []string{"X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Credential", "X-Amz-Algorithm", "X-Amz-Date"} {
		q.Del(k)
	}
	unsigned := *u
	unsigned.RawQuery = q.Encode()
	req, err := http.NewRequest(http.MethodGet, unsigned.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-k8s-aws-id", cluster)
	const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	signedURL, _, err := v4.NewSigner().PresignHTTP(context.Background(),
		aws.Credentials{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey}, req, emptySHA256, "sts", "us-west-2", at)
	if err != nil {
		t.Fatal(err)
	}
	again, err := url.Parse(signedURL)
	if err != nil {
		t.Fatal(err)
	}
	return again.Query().Get("X-Amz-Signature")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// fakeKubeAPI is a TLS server that answers GET /api/v1/namespaces for
// requests that carry an EKS token, and records the tokens it accepted. The
// cluster name in a token is only known to STS, through the signature.
type fakeKubeAPI struct {
	srv *httptest.Server

	mu     sync.Mutex
	tokens []string
}

func newFakeKubeAPI(t *testing.T) *fakeKubeAPI {
	t.Helper()
	f := &fakeKubeAPI{}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if err := checkEKSToken(token); !ok || err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized: %v","reason":"Unauthorized","code":401}`, err)
			return
		}
		f.mu.Lock()
		f.tokens = append(f.tokens, token)
		f.mu.Unlock()
		if r.Method != http.MethodGet || r.URL.Path != "/api/v1/namespaces" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`+
			`{"metadata":{"name":"default"}},{"metadata":{"name":"kube-system"}}]}`)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// checkEKSToken does what the EKS authenticator checks before it calls STS:
// the envelope, the action, and that the cluster header is signed.
func checkEKSToken(token string) error {
	body, ok := strings.CutPrefix(token, "k8s-aws-v1.")
	if !ok {
		return errors.New("not an EKS token")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return err
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		return err
	}
	q := u.Query()
	if q.Get("Action") != "GetCallerIdentity" {
		return fmt.Errorf("action %q", q.Get("Action"))
	}
	if !contains(strings.Split(q.Get("X-Amz-SignedHeaders"), ";"), "x-k8s-aws-id") {
		return errors.New("x-k8s-aws-id is not signed")
	}
	return nil
}

func (f *fakeKubeAPI) seenTokens() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokens...)
}

// eksCluster describes an ACTIVE cluster whose API is srv.
func eksCluster(name string, srv *httptest.Server) *ekstypes.Cluster {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return &ekstypes.Cluster{
		Name:                 aws.String(name),
		Status:               ekstypes.ClusterStatusActive,
		Endpoint:             aws.String(srv.URL),
		CertificateAuthority: &ekstypes.Certificate{Data: aws.String(base64.StdEncoding.EncodeToString(ca))},
	}
}

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

func TestKubernetesClientsReachTheClusterWithAnEKSToken(t *testing.T) {
	isolateAWSEnv(t)
	api := newFakeKubeAPI(t)
	eksAPI := &fakeEKS{clusters: map[string]*ekstypes.Cluster{"demo": eksCluster("demo", api.srv)}}
	clock := newTestClock()
	k := newKubernetes(eksAPI, testSTSClient(), clock.Now)
	ctx := context.Background()

	clients, err := k.Clients(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	nss, err := clients.Core.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("typed list namespaces: %v", err)
	}
	if len(nss.Items) != 2 || nss.Items[0].Name != "default" {
		t.Errorf("typed namespaces = %+v; want default and kube-system", nss.Items)
	}
	unss, err := clients.Dynamic.Resource(namespacesGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("dynamic list namespaces: %v", err)
	}
	if len(unss.Items) != 2 || unss.Items[1].GetName() != "kube-system" {
		t.Errorf("dynamic namespaces = %+v; want default and kube-system", unss.Items)
	}

	// The clients and the token are reused while the token is fresh.
	again, err := k.Clients(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if again != clients {
		t.Error("a second Clients call built new clients; want the cached ones")
	}
	if n := eksAPI.describeCount(); n != 1 {
		t.Errorf("DescribeCluster calls = %d; want 1 while the cache is fresh", n)
	}
	tokens := api.seenTokens()
	if len(tokens) != 2 || tokens[0] != tokens[1] {
		t.Fatalf("tokens seen = %d distinct of %d; want one token reused", len(distinct(tokens)), len(tokens))
	}

	// Past the refresh age, the same clients sign a new token.
	clock.Advance(14*time.Minute + time.Second)
	if _, err := clients.Core.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("list after refresh: %v", err)
	}
	tokens = api.seenTokens()
	last := decodeEKSToken(t, tokens[len(tokens)-1]).Query().Get("X-Amz-Date")
	if tokens[len(tokens)-1] == tokens[0] || last != clock.Now().Format("20060102T150405Z") {
		t.Errorf("token after 14 minutes was signed at %s; want a new token signed at %s", last, clock.Now().Format("20060102T150405Z"))
	}
	// The cluster is described again, and the unchanged endpoint keeps the
	// same clients.
	again, err = k.Clients(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if again != clients || eksAPI.describeCount() != 2 {
		t.Errorf("after the recheck: same clients = %v, DescribeCluster calls = %d; want true, 2", again == clients, eksAPI.describeCount())
	}
}

func distinct(list []string) map[string]bool {
	m := make(map[string]bool)
	for _, s := range list {
		m[s] = true
	}
	return m
}

func TestKubernetesClientsRefusesClustersWithoutAnAPI(t *testing.T) {
	isolateAWSEnv(t)
	eksAPI := &fakeEKS{clusters: map[string]*ekstypes.Cluster{
		"creating": {Name: aws.String("creating"), Status: ekstypes.ClusterStatusCreating},
	}}
	k := newKubernetes(eksAPI, testSTSClient(), nil)

	_, err := k.Clients(context.Background(), "missing")
	var notFound *ekstypes.ResourceNotFoundException
	if !errors.As(err, &notFound) {
		t.Errorf("Clients(missing) error = %v; want it to wrap EKS ResourceNotFoundException", err)
	}

	_, err = k.Clients(context.Background(), "creating")
	if err == nil || !strings.Contains(err.Error(), "not ACTIVE") {
		t.Errorf("Clients(creating) error = %v; want one saying the cluster is not ACTIVE", err)
	}
}

// TestProviderHandsOutKubernetes checks the wiring in Regions: the EKS
// client of the region describes the cluster, and the clients reach it.
func TestProviderHandsOutKubernetes(t *testing.T) {
	isolateAWSEnv(t)
	api := newFakeKubeAPI(t)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.srv.Certificate().Raw})
	srv, seen := fakeAWS(t, http.StatusOK, "application/json", fmt.Sprintf(
		`{"cluster":{"name":"demo","status":"ACTIVE","endpoint":%q,"certificateAuthority":{"data":%q}}}`,
		api.srv.URL, base64.StdEncoding.EncodeToString(ca)))
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if p.Kubernetes == nil {
		t.Fatal("Provider.Kubernetes is nil")
	}

	clients, err := p.Kubernetes.Clients(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if req := lastRequest(t, seen); req.method != http.MethodGet || req.path != "/clusters/demo" {
		t.Errorf("EKS request = %s %s; want GET /clusters/demo", req.method, req.path)
	}
	if _, err := clients.Core.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("list namespaces: %v", err)
	}
}
