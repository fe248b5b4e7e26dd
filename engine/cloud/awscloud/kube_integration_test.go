//go:build integration

package awscloud

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/kubecrds"
	"github.com/instantstart/instantstart/engine/kubetest"
)

// engineUser is who the control plane's IAM identity is in the cluster:
// create_eks gives it the AmazonEKSClusterAdminPolicy access policy, which
// EKS authorizes as a member of system:masters.
const engineUser = "arn:aws:iam::123456789012:role/instantstart"

// realCluster is a real API server reached the way the engine reaches an
// EKS cluster: the Kubernetes adapter describes the cluster and signs an
// EKS token, which the server accepts from its token file.
type realCluster struct {
	server  *kubetest.Server
	adapter *kubeAdapter
	name    string
	// strangerToken authenticates a user with no access entry.
	strangerToken string
}

func startRealCluster(t *testing.T) *realCluster {
	t.Helper()
	const name = "demo"
	clock := newTestClock() // fixed: the token signed now is the one the adapter sends
	fe := &fakeEKS{clusters: map[string]*ekstypes.Cluster{}}
	k := newKubernetes(fe, testSTSClient(), clock.Now)
	token, err := eksToken(context.Background(), k.presign, name)
	if err != nil {
		t.Fatal(err)
	}
	all, err := kubecrds.All()
	if err != nil {
		t.Fatal(err)
	}
	var crds [][]byte
	for _, c := range all {
		crds = append(crds, c.Manifest)
	}
	const stranger = "stranger-token"
	srv := kubetest.Start(t, kubetest.Options{
		CRDs: crds,
		Tokens: []kubetest.Token{
			{Token: token, User: engineUser, Groups: []string{"system:masters"}},
			{Token: stranger, User: "arn:aws:iam::123456789012:role/someone-else"},
		},
	})
	fe.clusters[name] = &ekstypes.Cluster{
		Name:                 aws.String(name),
		Status:               ekstypes.ClusterStatusActive,
		Endpoint:             aws.String(srv.Host),
		CertificateAuthority: &ekstypes.Certificate{Data: aws.String(base64.StdEncoding.EncodeToString(srv.CAData))},
	}
	return &realCluster{server: srv, adapter: k, name: name, strangerToken: stranger}
}

func (c *realCluster) clients(t *testing.T) *cloud.KubeClients {
	t.Helper()
	kc, err := c.adapter.Clients(kubetest.Context(t), c.name)
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func newNamespace(t *testing.T, kc *cloud.KubeClients, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := kc.Core.CoreV1().Namespaces().Create(kubetest.Context(t), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

func TestIntegrationKubernetesAdapter(t *testing.T) {
	rc := startRealCluster(t)
	kc := rc.clients(t)

	t.Run("the EKS token authenticates as the engine's identity", func(t *testing.T) {
		ctx := kubetest.Context(t)
		review, err := kc.Core.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := review.Status.UserInfo.Username; got != engineUser {
			t.Fatalf("the adapter's clients are %q, want %q", got, engineUser)
		}
	})

	t.Run("every engine CRD is served", func(t *testing.T) {
		ctx := kubetest.Context(t)
		all, err := kubecrds.All()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range all {
			for _, v := range c.Versions {
				if !v.Served {
					continue
				}
				var err error
				if c.Namespaced {
					_, err = kc.Dynamic.Resource(c.GroupVersionResource(v.Name)).Namespace("default").List(ctx, metav1.ListOptions{})
				} else {
					_, err = kc.Dynamic.Resource(c.GroupVersionResource(v.Name)).List(ctx, metav1.ListOptions{})
				}
				if err != nil {
					t.Errorf("list %s %s: %v", c.Name, v.Name, err)
				}
			}
		}
	})

	t.Run("generateName gives each object its own name", func(t *testing.T) {
		ctx := kubetest.Context(t)
		newNamespace(t, kc, "generate")
		names := map[string]bool{}
		for range 3 {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "run-"}}
			got, err := kc.Core.CoreV1().ConfigMaps("generate").Create(ctx, cm, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Name) <= len("run-") || got.Name[:4] != "run-" || names[got.Name] {
				t.Fatalf("generated name %q: want a new name starting run-", got.Name)
			}
			names[got.Name] = true
		}
	})

	t.Run("an update from a stale read is a conflict", func(t *testing.T) {
		ctx := kubetest.Context(t)
		newNamespace(t, kc, "conflict")
		cms := kc.Dynamic.Resource(configMapsGVR).Namespace("conflict")
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "settings"},
			"data":     map[string]any{"replicas": "1"},
		}}
		first, err := cms.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stale := first.DeepCopy()
		first.Object["data"] = map[string]any{"replicas": "2"}
		if _, err := cms.Update(ctx, first, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		stale.Object["data"] = map[string]any{"replicas": "3"}
		_, err = cms.Update(ctx, stale, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			t.Fatalf("update from a stale read: %v, want a conflict (the engine retries on it)", err)
		}
		live, err := cms.Get(ctx, "settings", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := unstructured.NestedString(live.Object, "data", "replicas"); got != "2" {
			t.Fatalf("replicas %q after the refused update, want 2", got)
		}
	})

	t.Run("a watch sees a finalizer hold a deletion until it is removed", func(t *testing.T) {
		ctx := kubetest.Context(t)
		newNamespace(t, kc, "finalize")
		cms := kc.Dynamic.Resource(configMapsGVR).Namespace("finalize")
		w, err := cms.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=held"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "held", "finalizers": []any{"instantstart.io/test"}},
		}}
		if _, err := cms.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		next(t, w, watch.Added)
		if err := cms.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// The deletion only marks it while the finalizer stands.
		marked := next(t, w, watch.Modified)
		if marked.GetDeletionTimestamp() == nil {
			t.Fatal("a deleted object with a finalizer has no deletionTimestamp")
		}
		live, err := cms.Get(ctx, "held", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("an object held by a finalizer should still be readable: %v", err)
		}
		live.SetFinalizers(nil)
		if _, err := cms.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		next(t, w, watch.Modified, watch.Deleted)
		if _, err := cms.Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("after the finalizer went: %v, want not found", err)
		}
	})

	t.Run("events are found by the involved object, as training reads restarts", func(t *testing.T) {
		ctx := kubetest.Context(t)
		newNamespace(t, kc, "events")
		for i, involved := range []corev1.ObjectReference{
			{Kind: "HyperPodPyTorchJob", Name: "llama", Namespace: "events"},
			{Kind: "HyperPodPyTorchJob", Name: "other", Namespace: "events"},
			{Kind: "RayJob", Name: "llama", Namespace: "events"},
		} {
			ev := &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("ev-%d", i)},
				InvolvedObject: involved, Reason: "Restarted", Message: "restart", Type: corev1.EventTypeNormal,
			}
			if _, err := kc.Core.CoreV1().Events("events").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		list, err := kc.Core.CoreV1().Events("events").List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=llama,involvedObject.kind=HyperPodPyTorchJob", Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Name != "ev-0" {
			t.Fatalf("events of llama: %d items %v, want only ev-0", len(list.Items), eventNames(list.Items))
		}
	})

	t.Run("an identity without an access entry is refused", func(t *testing.T) {
		ctx := kubetest.Context(t)
		cfg, err := rc.adapter.restConfig(ctx, rc.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg.WrapTransport = nil
		cfg.BearerToken = rc.strangerToken
		stranger, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = stranger.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("a stranger listing secrets: %v, want forbidden", err)
		}
		_, err = stranger.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "intruder"}}, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("a stranger creating a namespace: %v, want forbidden", err)
		}
	})
}

// next waits for the next event of w, which must be one of types.
func next(t *testing.T, w watch.Interface, types ...watch.EventType) *unstructured.Unstructured {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		for _, want := range types {
			if ev.Type == want {
				u, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					t.Fatalf("%s event carries %T", ev.Type, ev.Object)
				}
				return u
			}
		}
		t.Fatalf("watch event %s (%v), want one of %v", ev.Type, apierrors.FromObject(ev.Object), types)
	case <-time.After(30 * time.Second):
		t.Fatalf("no watch event in 30s, want one of %v", types)
	}
	return nil
}

func eventNames(items []corev1.Event) []string {
	var out []string
	for _, e := range items {
		out = append(out, e.Name)
	}
	return out
}
