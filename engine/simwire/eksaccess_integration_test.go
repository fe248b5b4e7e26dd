//go:build integration

package simwire

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/instantstart/instantstart/engine/kubetest"
)

// TestIntegrationSecondPrincipalOnARealAPIServer: a second IAM principal
// (a role of the simulated account, assumed on the wire) reaches a real
// kube-apiserver with its own EKS token, through the EKS authenticator
// and authorizer webhooks, with exactly the rights of the access policy
// associated with its entry: none before it has one; with VIEW in
// team-a it lists pods there but cannot delete one, read a secret, or
// list pods elsewhere; with EDIT it deletes a pod; once its entry is
// deleted, its token no longer authenticates.
func TestIntegrationSecondPrincipalOnARealAPIServer(t *testing.T) {
	f := newAuthFixture(t)
	authz := &EKSAuthorizer{Providers: f.auth.Providers, Region: f.auth.Region, Cluster: "wire"}
	mux := http.NewServeMux()
	mux.Handle("/authenticate", f.auth)
	mux.Handle("/authorize", authz)
	hook := httptest.NewServer(mux)
	t.Cleanup(hook.Close)
	api := kubetest.Start(t, kubetest.Options{TokenWebhook: hook.URL + "/authenticate", AuthorizationWebhook: hook.URL + "/authorize"})
	ctx := kubetest.Context(t)

	admin, err := kubernetes.NewForConfig(api.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"team-a", "team-b"} {
		if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		for _, name := range []string{"trainer-0", "trainer-1"} {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}
			if _, err := admin.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hf-token"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	role, creds := f.assume(t, "alice")
	cfg := &rest.Config{Host: api.Host, TLSClientConfig: rest.TLSClientConfig{CAData: api.CAData}, BearerToken: f.tokenAs(t, creds)}
	alice, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	listPods := func(ns string) error {
		_, err := alice.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err
	}
	// eventually polls until check holds: the API server caches the
	// webhooks' answers for a few seconds.
	eventually := func(what string, check func() error) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := check()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %v", what, err)
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s: %v", what, ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	want := func(ok func(error) bool, name string) func(error) error {
		return func(err error) error {
			if ok(err) {
				return nil
			}
			if err == nil {
				return errString("allowed, want " + name)
			}
			return errString("got " + err.Error() + ", want " + name)
		}
	}
	unauthorized, forbidden := want(apierrors.IsUnauthorized, "Unauthorized"), want(apierrors.IsForbidden, "Forbidden")
	allowed := func(err error) error { return err }

	if err := unauthorized(listPods("team-a")); err != nil {
		t.Fatalf("no access entry: %v", err)
	}

	if _, err := f.p.EKS.CreateAccessEntry(ctx, &eks.CreateAccessEntryInput{ClusterName: aws.String("wire"), PrincipalArn: aws.String(role)}); err != nil {
		t.Fatal(err)
	}
	associate := func(policy string, scope *ekstypes.AccessScope) {
		t.Helper()
		if _, err := f.p.EKS.AssociateAccessPolicy(ctx, &eks.AssociateAccessPolicyInput{ClusterName: aws.String("wire"), PrincipalArn: aws.String(role),
			PolicyArn: aws.String(policy), AccessScope: scope}); err != nil {
			t.Fatal(err)
		}
	}
	associate(eksViewPolicy, &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeNamespace, Namespaces: []string{"team-a"}})
	eventually("VIEW in team-a lists its pods", func() error { return allowed(listPods("team-a")) })
	if err := forbidden(alice.CoreV1().Pods("team-a").Delete(ctx, "trainer-0", metav1.DeleteOptions{})); err != nil {
		t.Errorf("VIEW deletes a pod: %v", err)
	}
	if _, err := alice.CoreV1().Secrets("team-a").Get(ctx, "hf-token", metav1.GetOptions{}); forbidden(err) != nil {
		t.Errorf("VIEW reads a secret: %v", forbidden(err))
	}
	if err := forbidden(listPods("team-b")); err != nil {
		t.Errorf("VIEW in team-a lists team-b's pods: %v", err)
	}
	if _, err := admin.CoreV1().Pods("team-a").Get(ctx, "trainer-0", metav1.GetOptions{}); err != nil {
		t.Fatalf("the pod VIEW could not delete is gone: %v", err)
	}

	// Replaced by EDIT for the whole cluster, as grantClusterAccess does.
	associate(eksEditPolicy, &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster})
	if _, err := f.p.EKS.DisassociateAccessPolicy(ctx, &eks.DisassociateAccessPolicyInput{ClusterName: aws.String("wire"), PrincipalArn: aws.String(role),
		PolicyArn: aws.String(eksViewPolicy)}); err != nil {
		t.Fatal(err)
	}
	eventually("EDIT deletes a pod in team-b", func() error {
		return alice.CoreV1().Pods("team-b").Delete(ctx, "trainer-1", metav1.DeleteOptions{})
	})
	if err := forbidden(alice.CoreV1().Namespaces().Delete(ctx, "team-b", metav1.DeleteOptions{})); err != nil {
		t.Errorf("EDIT deletes a namespace: %v", err)
	}

	// Revoked: the token no longer authenticates.
	if _, err := f.p.EKS.DeleteAccessEntry(ctx, &eks.DeleteAccessEntryInput{ClusterName: aws.String("wire"), PrincipalArn: aws.String(role)}); err != nil {
		t.Fatal(err)
	}
	eventually("revoked, the token is refused", func() error { return unauthorized(listPods("team-a")) })
	if _, err := admin.CoreV1().Pods("team-a").Get(ctx, "trainer-1", metav1.GetOptions{}); err != nil {
		t.Errorf("a pod was lost: %v", err)
	}
	if strings.Contains(cfg.BearerToken, creds.SecretAccessKey) {
		t.Error("the token carries the secret key")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
