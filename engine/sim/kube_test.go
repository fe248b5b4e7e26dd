package sim

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/instantstart/instantstart/engine/cloud"
)

// kubeClients returns the clients of the fixture's EKS cluster eks.
func (f *fixture) kubeClients(eks string) *cloud.KubeClients {
	f.t.Helper()
	return ok(f.p.Kubernetes.Clients(f.ctx, eks)).must(f.t)
}

// kubeAPIFixture is a fixture with an ACTIVE EKS cluster "eks" and its
// clients.
func kubeAPIFixture(t *testing.T) (*fixture, *cloud.KubeClients) {
	f := newFixture(t)
	f.eksCluster("eks", f.network("10.0.0.0/16", "us-west-2a", "us-west-2b"))
	return f, f.kubeClients("eks")
}

var hyperPodJobs = schema.GroupVersionResource{Group: "sagemaker.amazonaws.com", Version: "v1", Resource: "hyperpodpytorchjobs"}

func hyperPodJob(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "sagemaker.amazonaws.com/v1", "kind": "HyperPodPyTorchJob",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"nprocPerNode": "auto", "replicaSpecs": []any{map[string]any{"name": "pods", "replicas": int64(2)}}},
	}}
}

func TestKubeClientsNeedAnActiveEKSCluster(t *testing.T) {
	f := newFixture(t)
	n := f.network("10.0.0.0/16", "us-west-2a", "us-west-2b")
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.Kubernetes.Clients(f.ctx, "eks"); !errors.As(err, &notFound) {
		t.Errorf("unknown cluster: %v", err)
	}
	f.role("eks-role")
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("eks"), RoleArn: aws.String("arn:aws:iam::123456789012:role/eks-role"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	})).must(t)
	if _, err := f.p.Kubernetes.Clients(f.ctx, "eks"); err == nil || !strings.Contains(err.Error(), "CREATING") {
		t.Errorf("creating cluster: %v", err)
	}
	f.clock.Advance(eksActiveAfter)
	kc := f.kubeClients("eks")
	other, err := f.w.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if again := ok(other.Kubernetes.Clients(f.ctx, "eks")).must(t); again != kc {
		t.Errorf("two providers got two APIs for one cluster")
	}
	east, err := f.w.Provider("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := east.Kubernetes.Clients(f.ctx, "eks"); !errors.As(err, &notFound) {
		t.Errorf("the cluster was found in another region: %v", err)
	}
	got := ok(kc.Core.CoreV1().Namespaces().List(f.ctx, metav1.ListOptions{})).must(t)
	var names []string
	for _, ns := range got.Items {
		names = append(names, ns.Name)
		if ns.Status.Phase != corev1.NamespaceActive || ns.Labels["kubernetes.io/metadata.name"] != ns.Name {
			t.Errorf("namespace %s: %+v", ns.Name, ns)
		}
	}
	if !slices.Equal(names, kubeDefaultNamespaces) {
		t.Errorf("namespaces of a new cluster: %v", names)
	}
}

func TestKubeObjectsSurviveARestart(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	sa := ok(kc.Core.CoreV1().ServiceAccounts("default").Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "runner"}}, metav1.CreateOptions{})).must(t)
	job := ok(kc.Dynamic.Resource(hyperPodJobs).Namespace("default").Create(f.ctx, hyperPodJob("train"), metav1.CreateOptions{})).must(t)

	f.w = f.world() // a restarted process on the same storage
	kc = f.kubeClients("eks")
	if got, err := kc.Core.CoreV1().ServiceAccounts("default").Get(f.ctx, "runner", metav1.GetOptions{}); err != nil || got.UID != sa.UID || got.ResourceVersion != sa.ResourceVersion {
		t.Errorf("service account after a restart: %v %+v", err, got)
	}
	got, err := kc.Dynamic.Resource(hyperPodJobs).Namespace("default").Get(f.ctx, "train", metav1.GetOptions{})
	if err != nil || got.GetUID() != job.GetUID() {
		t.Fatalf("job after a restart: %v %+v", err, got)
	}
	if replicas, _, _ := unstructured.NestedSlice(got.Object, "spec", "replicaSpecs"); len(replicas) != 1 {
		t.Errorf("job spec after a restart: %v", got.Object["spec"])
	}
	// Versions go on from where they were.
	next := ok(kc.Core.CoreV1().ConfigMaps("default").Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})).must(t)
	if before, _ := strconv.Atoi(job.GetResourceVersion()); ok(strconv.Atoi(next.ResourceVersion)).must(t) <= before {
		t.Errorf("version after a restart %s, before %s", next.ResourceVersion, job.GetResourceVersion())
	}
}

func TestKubeObjectsGoWithTheirEKSCluster(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	ok(kc.Core.CoreV1().ServiceAccounts("default").Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "runner"}}, metav1.CreateOptions{})).must(t)
	ok(kc.Dynamic.Resource(hyperPodJobs).Namespace("default").Create(f.ctx, hyperPodJob("train"), metav1.CreateOptions{})).must(t)
	w := ok(kc.Core.CoreV1().ServiceAccounts("default").Watch(f.ctx, metav1.ListOptions{})).must(t)
	drain(w.ResultChan())

	ok(f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: aws.String("eks")})).must(t)
	if _, err := kc.Core.CoreV1().ServiceAccounts("default").Get(f.ctx, "runner", metav1.GetOptions{}); err == nil || !strings.Contains(err.Error(), "DELETING") {
		t.Errorf("get from a cluster being deleted: %v", err)
	}
	if _, open := nextEvent(t, w); open {
		t.Errorf("a watch of a deleted cluster is still open")
	}
	if _, err := f.p.Kubernetes.Clients(f.ctx, "eks"); err == nil {
		t.Errorf("clients of a cluster being deleted")
	}
	for _, name := range []string{"runner", "train"} {
		if bytes.Contains(f.store.data, []byte(`"`+name+`"`)) {
			t.Errorf("the saved world still holds %s", name)
		}
	}

	f.clock.Advance(scaled(eksDeleteTime))
	f.eksCluster("eks", f.network("10.1.0.0/16", "us-west-2a", "us-west-2b"))
	if _, err := kc.Core.CoreV1().ServiceAccounts("default").Get(f.ctx, "runner", metav1.GetOptions{}); err == nil {
		t.Errorf("old clients reach the new cluster of the same name")
	}
	fresh := f.kubeClients("eks")
	if _, err := fresh.Core.CoreV1().ServiceAccounts("default").Get(f.ctx, "runner", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a new cluster of the same name has the old service account: %v", err)
	}
	if got := ok(fresh.Core.CoreV1().Namespaces().List(f.ctx, metav1.ListOptions{})).must(t); len(got.Items) != len(kubeDefaultNamespaces) {
		t.Errorf("namespaces of the new cluster: %d", len(got.Items))
	}
}

func TestKubeFailedSaveChangesNothing(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	cms := kc.Core.CoreV1().ConfigMaps("default")
	w := ok(cms.Watch(f.ctx, metav1.ListOptions{})).must(t)
	defer w.Stop()

	f.store.fail = errors.New("disk full")
	if _, err := cms.Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "lost"}}, metav1.CreateOptions{}); !apierrors.IsInternalError(err) {
		t.Errorf("create while saving fails: %v", err)
	}
	noEvent(t, w)
	f.store.fail = nil
	if _, err := cms.Get(f.ctx, "lost", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("an unsaved object is there: %v", err)
	}
	// The rollback dropped the in-memory half of the API server; the
	// clients and their watch carry on.
	ok(cms.Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, metav1.CreateOptions{})).must(t)
	if ev, _ := nextEvent(t, w); ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "kept" {
		t.Errorf("event %s %v", ev.Type, ev.Object)
	}
	if again := f.kubeClients("eks"); again != kc {
		t.Errorf("new clients after the rollback")
	}
}

// drain empties a channel without waiting.
func drain[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// TestKubeConcurrentUse runs clients of one cluster from many goroutines
// next to HyperPod calls and the clock; go test -race checks it.
func TestKubeConcurrentUse(t *testing.T) {
	f := newFixture(t)
	h := f.hyperPod()
	f.createReady(h.input("hp", "ml.g5.xlarge", 2, 0))
	const workers, rounds = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range rounds {
				kc, err := f.p.Kubernetes.Clients(f.ctx, "eks")
				if err == nil {
					switch j % 4 {
					case 0:
						_, err = kc.Core.CoreV1().ConfigMaps("default").Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d-%d", i, j)}}, metav1.CreateOptions{})
					case 1:
						_, err = kc.Core.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{})
					case 2:
						_, err = kc.Dynamic.Resource(hyperPodJobs).Namespace("default").Create(f.ctx, hyperPodJob(fmt.Sprintf("job-%d-%d", i, j)), metav1.CreateOptions{})
					case 3:
						f.advance(time.Minute)
						_, err = kc.Dynamic.Resource(kubeNodesResource).List(f.ctx, metav1.ListOptions{})
					}
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	kc := f.kubeClients("eks")
	cms := ok(kc.Core.CoreV1().ConfigMaps("default").List(f.ctx, metav1.ListOptions{})).must(t)
	jobs := ok(kc.Dynamic.Resource(hyperPodJobs).Namespace("default").List(f.ctx, metav1.ListOptions{})).must(t)
	perKind := workers * ((rounds + 3) / 4) // rounds 0, 4, 8... create config maps; 2, 6, 10... jobs
	if len(cms.Items) != perKind || len(jobs.Items) != perKind {
		t.Errorf("%d config maps and %d jobs after the run", len(cms.Items), len(jobs.Items))
	}
	if nodes := ok(kc.Core.CoreV1().Nodes().List(f.ctx, metav1.ListOptions{})).must(t); len(nodes.Items) != 2 {
		t.Errorf("%d nodes after the run", len(nodes.Items))
	}
}
