package inference

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/kubecrds"
)

// Managed endpoints are objects of the HyperPod inference operator, which
// makes their Deployment (named as the object) and Service.

// The worker the operator runs for models of S3 and FSx when the user
// names no image: AWS's Large Model Inference container, which serves
// OpenAI-style chat requests on /invocations at port 8080.
const (
	lmiImage   = "763104351884.dkr.ecr.%s.amazonaws.com/djl-inference:0.32.0-lmi14.0.0-cu124"
	workerPort = 8080
	modelMount = "/opt/ml/model"
)

// routingStrategies are the operator's words for the schema's.
var routingStrategies = map[string]string{"PREFIX_AWARE": "prefixaware", "KV_AWARE": "kvaware", "SESSION": "session", "ROUND_ROBIN": "roundrobin"}

// kvCacheSpec is the operator's kvCacheSpec of a KV cache.
func kvCacheSpec(kv *KVCache) map[string]any {
	spec := map[string]any{"enableL1Cache": kv.L1, "enableL2Cache": kv.L2}
	if kv.L2 {
		l2 := map[string]any{"l2CacheBackend": strings.ReplaceAll(strings.ToLower(kv.L2Backend), "_", "")}
		if kv.L2URL != "" {
			l2["l2CacheLocalUrl"] = kv.L2URL
		}
		spec["l2CacheSpec"] = l2
	}
	return spec
}

func routingSpec(r *Routing) map[string]any {
	spec := map[string]any{"enabled": r.Enabled}
	if r.Enabled {
		spec["routingStrategy"] = routingStrategies[r.Strategy]
	}
	return spec
}

func scalingSpec(b *Bounds) map[string]any {
	return map[string]any{"minReplicaCount": int64(b.Min), "maxReplicaCount": int64(b.Max)}
}

// managedObject is a managed endpoint's InferenceEndpointConfig or
// JumpStartModel.
func managedObject(e *Endpoint, b *hyperpod.Bucket, region string) *unstructured.Unstructured {
	spec := map[string]any{
		"replicas":    int64(e.Replicas),
		"kvCacheSpec": kvCacheSpec(e.KVCache),
	}
	if e.Routing.Enabled {
		spec["intelligentRoutingSpec"] = routingSpec(e.Routing)
	}
	if e.ManagedScaling != nil {
		spec["autoScalingSpec"] = scalingSpec(e.ManagedScaling)
	}
	if e.TLSBucket != "" {
		spec["tlsConfig"] = map[string]any{"tlsCertificateOutputS3Uri": "s3://" + e.TLSBucket + "/certificates/" + e.Name + "/"}
	}
	kind := "InferenceEndpointConfig"
	if e.Source == FromJumpStart {
		kind = "JumpStartModel"
		spec["model"] = map[string]any{"modelId": e.Model, "acceptEula": e.AcceptEula, "modelHubName": "SageMakerPublicHub"}
		spec["server"] = map[string]any{"instanceType": e.InstanceType}
		spec["sageMakerEndpoint"] = map[string]any{"name": e.Name}
	} else {
		spec["modelName"] = e.Name
		spec["endpointName"] = e.Name
		spec["instanceType"] = e.InstanceType
		source := map[string]any{"modelSourceType": "s3", "s3Storage": map[string]any{"bucketName": b.Name, "region": region}, "modelLocation": "models/" + e.Model}
		if e.Source == FromFSx {
			source = map[string]any{"modelSourceType": "fsx", "fsxStorage": map[string]any{"fileSystemId": e.FSxFileSystemID}, "modelLocation": strings.TrimPrefix(e.Model, "/")}
		}
		spec["modelSourceConfig"] = source
		gpus := fmt.Sprint(e.GPUsPerReplica)
		spec["worker"] = map[string]any{
			"image": e.Image,
			"resources": map[string]any{
				"requests": map[string]any{"nvidia.com/gpu": gpus},
				"limits":   map[string]any{"nvidia.com/gpu": gpus},
			},
			"modelInvocationPort": map[string]any{"containerPort": int64(workerPort), "name": portName},
			"modelVolumeMount":    map[string]any{"name": "model-weights", "mountPath": modelMount},
			"environmentVariables": []any{
				map[string]any{"name": "OPTION_MODEL_ID", "value": modelMount},
				map[string]any{"name": "OPTION_TENSOR_PARALLEL_DEGREE", "value": gpus},
				map[string]any{"name": "SERVING_FAIL_FAST", "value": "true"},
			},
		}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "inference.sagemaker.aws.amazon.com/v1",
		"kind":       kind,
		"metadata":   map[string]any{"name": e.Name, "namespace": e.Namespace},
		"spec":       spec,
	}}
	obj.SetLabels(labels(e))
	return obj
}

// managedActions make a managed endpoint's object.
func managedActions(e *Endpoint, b *hyperpod.Bucket, _ string, region string) ([]action, error) {
	if e.Image == managedWorkerImage {
		e.Image = fmt.Sprintf(lmiImage, region)
	}
	obj := managedObject(e, b, region)
	// A server prunes what its schema does not know: refuse it here
	// instead, as a bug of this code, never the user's.
	if err := kubecrds.Validate(obj); err != nil {
		return nil, errs.New(errs.Internal, "the %s built does not pass its CRD: %v", obj.GetKind(), err)
	}
	r := endpointConfigs
	if e.Source == FromJumpStart {
		r = jumpStartModels
	}
	a, err := newAction(verbEnsure, r, "object", "Make "+objectTitle(obj.GetKind(), e.Namespace, e.Name), obj)
	if err != nil {
		return nil, err
	}
	return []action{a}, nil
}
