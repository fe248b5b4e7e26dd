package inference_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/engine/store"
)

var endpointConfigs = schema.GroupVersionResource{Group: "inference.sagemaker.aws.amazon.com", Version: "v1", Resource: "inferenceendpointconfigs"}

func (f *fixture) managed(name string) inference.DeployInput {
	return inference.DeployInput{ClusterID: f.cluster, Name: name, Path: inference.Managed, Model: "qwen3-8b", InstanceType: "ml.g5.12xlarge",
		Replicas: 1, GPUsPerReplica: 4, Routing: &inference.Routing{Enabled: true, Strategy: "SESSION"},
		KVCache: &inference.KVCacheInput{L2: ptr(true)}}
}

// TestManagedEndpointRoutingIsFixed deploys a managed endpoint through the
// inference operator: its InferenceEndpointConfig carries the KV cache and
// routing asked, the TLS bucket is the feature's, and a change of the
// routing strategy is refused with IMMUTABLE_FIELD while the same routing,
// and a KV cache change, are accepted.
func TestManagedEndpointRoutingIsFixed(t *testing.T) {
	f := newFixture(t)
	f.enable(t, features.Toggle{Name: hyperpod.InferenceOperator, Enable: true, Settings: &features.Settings{Bucket: "infer-1-certs"}})
	e := f.deploy(t, f.managed("chat"))
	ctx := context.Background()
	obj, err := f.kube(t).Dynamic.Resource(endpointConfigs).Namespace("default").Get(ctx, "chat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	strategy, _, _ := unstructured.NestedString(obj.Object, "spec", "intelligentRoutingSpec", "routingStrategy")
	backend, _, _ := unstructured.NestedString(obj.Object, "spec", "kvCacheSpec", "l2CacheSpec", "l2CacheBackend")
	tls, _, _ := unstructured.NestedString(obj.Object, "spec", "tlsConfig", "tlsCertificateOutputS3Uri")
	if strategy != "session" || backend != "tieredstorage" || tls != "s3://infer-1-certs/certificates/chat/" {
		t.Fatalf("routing %q, L2 backend %q, TLS %q", strategy, backend, tls)
	}
	_, err = f.svc.Update(ctx, "tester", e.ID, inference.UpdateInput{Routing: &inference.Routing{Enabled: true, Strategy: "ROUND_ROBIN"}}, "")
	wantCode(t, err, errs.ImmutableField, "input.intelligentRouting", "fixed")
	_, err = f.svc.Update(ctx, "tester", e.ID, inference.UpdateInput{Routing: &inference.Routing{Enabled: false}}, "")
	wantCode(t, err, errs.ImmutableField, "input.intelligentRouting")
	op, err := f.svc.Update(ctx, "tester", e.ID, inference.UpdateInput{Routing: &inference.Routing{Enabled: true, Strategy: "SESSION"}}, "")
	if err != nil || !op.Noop {
		t.Fatalf("the same routing: %v, noop %v", err, op != nil && op.Noop)
	}
}
func ptr[T any](v T) *T { return &v }

// TestManagedEndpointAnswers deploys a managed endpoint from the bucket and
// calls it end to end: through the inference operator's Service (named as
// the object, owned by it, port http) on the worker's /invocations, with
// the model the endpoint serves in the answer.
func TestManagedEndpointAnswers(t *testing.T) {
	f := newFixture(t)
	f.enable(t, features.Toggle{Name: hyperpod.InferenceOperator, Enable: true, Settings: &features.Settings{Bucket: "infer-1-certs"}})
	e := f.ready(t, f.deploy(t, f.managed("chat")).ID)
	if e.Address == nil || e.Address.Host != "chat.default.svc.cluster.local" || len(e.Pods) != 1 || !e.Pods[0].Ready {
		t.Fatalf("address %+v, pods %+v", e.Address, e.Pods)
	}
	ctx := context.Background()
	svc, err := f.kube(t).Core.CoreV1().Services("default").Get(ctx, "chat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.OwnerReferences) != 1 || svc.OwnerReferences[0].Kind != "InferenceEndpointConfig" || len(svc.Spec.Ports) != 1 ||
		svc.Spec.Ports[0].Name != "http" || svc.Spec.Ports[0].Port != 8080 {
		t.Fatalf("the operator's Service: owners %+v, ports %+v", svc.OwnerReferences, svc.Spec.Ports)
	}
	a, err := f.svc.Invoke(ctx, e.ID, hello("What is HyperPod?"), "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Target != "services/chat" || a.Model != "qwen3-8b" || a.Text == "" || a.PromptTokens != 8 || a.TotalTokens != a.PromptTokens+a.CompletionTokens {
		t.Fatalf("answer %+v", a)
	}
	if n := f.world.ServedBy("default", e.Pods[0].Name); n != 1 {
		t.Fatalf("the worker served %d requests, want 1", n)
	}
}

// TestManagedEndpointFromFSx serves a model from one of the cluster's FSx
// for Lustre file systems: the operator mounts the file system through the
// FSx CSI driver with the model's path as subPath, the endpoint comes up
// and answers. A file system the cluster does not have is refused before
// anything is made, naming the fix.
func TestManagedEndpointFromFSx(t *testing.T) {
	f := newFixture(t)
	f.enable(t, features.Toggle{Name: hyperpod.InferenceOperator, Enable: true, Settings: &features.Settings{Bucket: "infer-1-certs"}})
	ctx := context.Background()
	add, err := f.storage.Add(ctx, "tester", storage.AddInput{ClusterID: f.cluster, Kind: storage.KindFSxLustre,
		FSx: &storage.FSxInput{Name: "models", DeploymentType: storage.Persistent2, CapacityGiB: 1200, ThroughputPerTiB: 250}}, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, f.runner, add)
	fs := ""
	page, err := f.storage.Page(f.cluster, store.PageRequest{First: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range page.Items {
		if st.FSx != nil {
			fs = st.FSx.FileSystemID
		}
	}
	in := f.managed("lustre")
	in.Source, in.Model, in.FSxFileSystemID = inference.FromFSx, "/models/qwen3-8b", "fs-0123456789abcdef0"
	_, err = f.svc.Deploy(ctx, "tester", in, "")
	wantCode(t, err, errs.Precondition, "input.fsxFileSystemId", "no FSx for Lustre file system fs-0123456789abcdef0", "addStorage")

	in.FSxFileSystemID = fs
	e := f.ready(t, f.deploy(t, in).ID)
	kc := f.kube(t)
	pv, err := kc.Core.CoreV1().PersistentVolumes().Get(ctx, "lustre-default-model", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pv.Spec.CSI == nil || pv.Spec.CSI.Driver != "fsx.csi.aws.com" || pv.Spec.CSI.VolumeHandle != fs {
		t.Fatalf("the model's volume: %+v", pv.Spec.CSI)
	}
	pod, err := kc.Core.CoreV1().Pods("default").Get(ctx, e.Pods[0].Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mounted := false
	for _, m := range pod.Spec.Containers[0].VolumeMounts {
		mounted = mounted || (m.ReadOnly && m.MountPath == "/opt/ml/model" && m.SubPath == "models/qwen3-8b")
	}
	if !mounted {
		t.Fatalf("the worker's mounts %+v, want the model's path read-only at /opt/ml/model", pod.Spec.Containers[0].VolumeMounts)
	}
	if _, err := f.svc.Invoke(ctx, e.ID, hello("hi"), ""); err != nil {
		t.Fatal(err)
	}
}
