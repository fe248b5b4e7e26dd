package inference_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/inference"
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
	f.enable(t, features.Toggle{Name: features.InferenceOperator, Enable: true, Settings: &features.Settings{Bucket: "infer-1-certs"}})
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
