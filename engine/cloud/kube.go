package cloud

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/instantstart/instantstart/engine/errs"
)

// Kubernetes hands out API clients for the Kubernetes cluster of an EKS
// control plane. The real provider authenticates with an EKS token (a
// presigned STS GetCallerIdentity request); the simulator serves an
// in-memory API per simulated EKS cluster.
type Kubernetes interface {
	// Clients returns the clients for the EKS cluster named eksCluster. It
	// fails when the cluster does not exist or its API is not reachable yet
	// (the control plane is not ACTIVE). The clients are safe for concurrent
	// use and may be shared; callers should not cache them for longer than
	// an operation, as the provider refreshes what it must (credentials, a
	// changed endpoint) on the next call.
	Clients(ctx context.Context, eksCluster string) (*KubeClients, error)
}

// KubeClients are the API clients of one Kubernetes cluster.
type KubeClients struct {
	// Core is the typed client for the built-in API groups (pods, nodes,
	// deployments, services, secrets...).
	Core kubernetes.Interface
	// Dynamic reaches custom resources (HyperPodPyTorchJob, NodePool,
	// InferenceEndpointConfig, RayJob, ScaledObject...) as unstructured
	// objects.
	Dynamic dynamic.Interface
	// Logs streams pods' logs.
	Logs PodLogs
}

// KubeOf returns the clients of the Kubernetes cluster of EKS cluster eks,
// or an UPSTREAM error that names it when its API cannot be reached.
func (p *Provider) KubeOf(ctx context.Context, eks string) (*KubeClients, error) {
	kc, err := p.Kubernetes.Clients(ctx, eks)
	if err != nil {
		return nil, errs.Wrap(errs.Upstream, err, "reach the Kubernetes API of %s: %v", eks, err)
	}
	return kc, nil
}

// PodLogs streams the logs of pods' containers, as the kubelet serves them
// through the API server's pods/log subresource. client-go's fake
// clientset serves no logs, so the port stands apart from Core.
type PodLogs interface {
	// Stream returns the log of container (empty: the pod's only or first
	// container) of pod in namespace, from opts (Follow, SinceTime,
	// TailLines, LimitBytes, Timestamps). With Timestamps each line starts
	// with its RFC 3339 time (nanoseconds) and a space. A followed stream
	// ends when the container ends or ctx is done; the caller closes it.
	Stream(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error)
}

// CoreLogs serves PodLogs through a typed client's pods/log subresource.
type CoreLogs struct{ Core kubernetes.Interface }

// Stream opens the pod's log through the API server.
func (l CoreLogs) Stream(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	return l.Core.CoreV1().Pods(namespace).GetLogs(pod, opts).Stream(ctx)
}
