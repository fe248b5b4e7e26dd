// Package kubetest starts a real Kubernetes API server (kube-apiserver and
// etcd, run by controller-runtime's envtest) for the integration tier of
// tests, with the CustomResourceDefinitions a test gives installed (the
// engine's are engine/kubecrds'; the package does not import it, so that
// kubecrds' own tests can use it). The
// binaries come from .ci/kube-assets, whose folder KUBEBUILDER_ASSETS
// names; without them a test fails and says how to get them.
package kubetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// Token is a bearer token the API server accepts, and the user it
// authenticates as.
type Token struct {
	Token  string
	User   string
	Groups []string
}

// Options change how the server is started.
type Options struct {
	// Tokens are accepted as bearer tokens (the server's static token
	// file), so that a client that authenticates as the engine does, with
	// a token of its own making, can be tested.
	Tokens []Token
	// TokenWebhook, when set, is the URL of a token authentication
	// webhook (TokenReview, authentication.k8s.io/v1) the server asks
	// about bearer tokens it does not know, as EKS's API servers ask
	// EKS's authenticator; simwire.EKSAuthenticator is one.
	TokenWebhook string
	// AuthorizationWebhook, when set, is the URL of an authorization
	// webhook (SubjectAccessReview, authorization.k8s.io/v1) the server
	// asks after RBAC, as EKS's API servers ask EKS's authorizer about
	// access policies; simwire.EKSAuthorizer is one.
	AuthorizationWebhook string
	// CRDs are CustomResourceDefinition manifests (YAML) to install before
	// Start returns; kubecrds.CRD.Manifest for the engine's.
	CRDs [][]byte
}

// Server is a running API server.
type Server struct {
	// Config reaches the server as a cluster administrator (a client
	// certificate).
	Config *rest.Config
	// Host and CAData are the server's address and certificate authority
	// (PEM), for clients built without Config's credentials.
	Host   string
	CAData []byte
}

// Start starts an API server with opts.CRDs installed and
// stops it when t ends. It fails t when the binaries are missing.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run .ci/kube-assets and export KUBEBUILDER_ASSETS=\"$(.ci/kube-assets | tail -n 1)\"")
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if fi, err := os.Stat(filepath.Join(assets, bin)); err != nil || fi.IsDir() {
			t.Fatalf("KUBEBUILDER_ASSETS=%s has no %s: run .ci/kube-assets to build it", assets, bin)
		}
	}
	// envtest keeps lock files under the user's cache folder.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	crds, err := crdObjects(opts.CRDs)
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDs:                     crds,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// The API server's watch cache serves a watch from "now" only once it
	// has seen etcd reach the revision it read; without etcd's progress
	// notifications (every 10 minutes by default) a quiet server answers
	// such a watch with "Too large resource version".
	progress, err := progressNotifyFlag(filepath.Join(assets, "etcd"))
	if err != nil {
		t.Fatal(err)
	}
	env.ControlPlane.Etcd = &envtest.Etcd{}
	env.ControlPlane.Etcd.Configure().Append(progress, "100ms")
	if len(opts.Tokens) > 0 {
		file := filepath.Join(t.TempDir(), "tokens.csv")
		if err := os.WriteFile(file, tokenFile(opts.Tokens), 0o600); err != nil {
			t.Fatal(err)
		}
		env.ControlPlane.GetAPIServer().Configure().Append("token-auth-file", file)
	}
	if opts.TokenWebhook != "" {
		file := filepath.Join(t.TempDir(), "token-webhook.kubeconfig")
		if err := os.WriteFile(file, webhookKubeconfig(opts.TokenWebhook), 0o600); err != nil {
			t.Fatal(err)
		}
		api := env.ControlPlane.GetAPIServer().Configure()
		api.Append("authentication-token-webhook-config-file", file)
		api.Append("authentication-token-webhook-version", "v1")
		// A token's answer is cached for this long (2 minutes by default),
		// so a refused identity is seen as refused soon.
		api.Append("authentication-token-webhook-cache-ttl", "5s")
	}
	if opts.AuthorizationWebhook != "" {
		file := filepath.Join(t.TempDir(), "authz-webhook.kubeconfig")
		if err := os.WriteFile(file, webhookKubeconfig(opts.AuthorizationWebhook), 0o600); err != nil {
			t.Fatal(err)
		}
		api := env.ControlPlane.GetAPIServer().Configure()
		api.Set("authorization-mode", "RBAC,Webhook")
		api.Append("authorization-webhook-config-file", file)
		api.Append("authorization-webhook-version", "v1")
		// Answers are cached (5 minutes when allowed by default): a
		// revoked right is seen as revoked soon.
		api.Append("authorization-webhook-cache-authorized-ttl", "1s")
		api.Append("authorization-webhook-cache-unauthorized-ttl", "1s")
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start kube-apiserver and etcd from KUBEBUILDER_ASSETS=%s: %v (run .ci/kube-assets if they are missing or stale)", assets, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop the API server: %v", err)
		}
	})
	return &Server{Config: cfg, Host: cfg.Host, CAData: cfg.CAData}
}

// progressNotifyFlag names etcd's watch progress interval flag, which lost
// its experimental- prefix in etcd 3.6.
func progressNotifyFlag(etcd string) (string, error) {
	out, err := exec.Command(etcd, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", etcd, err)
	}
	var major, minor int
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(line, "etcd Version: "); ok {
			fmt.Sscanf(v, "%d.%d", &major, &minor)
		}
	}
	if major == 0 {
		return "", fmt.Errorf("%s --version printed no version: %q", etcd, out)
	}
	if major == 3 && minor < 6 {
		return "experimental-watch-progress-notify-interval", nil
	}
	return "watch-progress-notify-interval", nil
}

// tokenFile writes tokens in the API server's static token file format:
// token,user,uid,"group1,group2".
func tokenFile(tokens []Token) []byte {
	var b strings.Builder
	for i, tk := range tokens {
		fmt.Fprintf(&b, "%s,%s,uid-%d", tk.Token, tk.User, i)
		if len(tk.Groups) > 0 {
			fmt.Fprintf(&b, ",%q", strings.Join(tk.Groups, ","))
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// webhookKubeconfig is the kubeconfig the API server reaches a token
// webhook at url with.
func webhookKubeconfig(url string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: token-webhook
  cluster:
    server: %q
users:
- name: kube-apiserver
contexts:
- name: token-webhook
  context:
    cluster: token-webhook
    user: kube-apiserver
current-context: token-webhook
`, url))
}

// crdObjects parses CRD manifests.
func crdObjects(manifests [][]byte) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(manifests))
	for i, m := range manifests {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(m, &crd); err != nil {
			return nil, fmt.Errorf("CRD manifest %d: %w", i, err)
		}
		out = append(out, &crd)
	}
	return out, nil
}

// Context returns a context that ends with t or after a minute, whichever
// is first: no call against the server may hang a test.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
