package cloud

import (
	"context"
	"errors"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// Proxy reaches the HTTP servers of services and pods through the API
	// server.
	Proxy ServiceProxy
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

// ProxyTarget is what a proxied request reaches: a Service, or a pod, in
// namespace, on a named or numbered port.
type ProxyTarget struct {
	Namespace string
	// Kind is "services" or "pods".
	Kind string
	Name string
	Port string
}

// ProxyResponse is what a proxied request got back.
type ProxyResponse struct {
	Status int
	Body   []byte
	// Truncated says the body was longer than the limit asked and was cut
	// there.
	Truncated bool
	// Elapsed is how long the request took: measured by the real adapter,
	// the simulated serving time in the simulator (whose clock is not the
	// wall's).
	Elapsed time.Duration
}

// ServiceProxy sends HTTP requests to services and pods through the API
// server's proxy subresource (/api/v1/namespaces/<ns>/services/<name>:<port>/proxy/<path>),
// as kubectl proxy does. The address is the API server's: nothing is
// dialled that the caller named, and it reaches a ClusterIP service or a pod
// from outside the cluster's network. client-go's fake clientset has no
// REST client, so the port stands apart from Core.
type ServiceProxy interface {
	// Post sends body (JSON) to path on target and reads at most limit
	// bytes of the response. A response of any status is returned, not an
	// error; an error is a request that got no response.
	Post(ctx context.Context, target ProxyTarget, path string, body []byte, limit int64) (*ProxyResponse, error)
}

// CoreProxy serves ServiceProxy through a typed client's REST client.
type CoreProxy struct{ Core kubernetes.Interface }

// Post sends the request through the API server's proxy subresource.
func (p CoreProxy) Post(ctx context.Context, target ProxyTarget, path string, body []byte, limit int64) (*ProxyResponse, error) {
	start := time.Now()
	rc, err := p.Core.CoreV1().RESTClient().Post().
		Namespace(target.Namespace).Resource(target.Kind).Name(target.Name+":"+target.Port).
		SubResource("proxy").Suffix(path).SetHeader("Content-Type", "application/json").
		Body(body).Stream(ctx)
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			// The API server passes the backend's error status through;
			// its body is in the error's message.
			st := status.Status()
			return &ProxyResponse{Status: int(st.Code), Body: []byte(st.Message), Elapsed: time.Since(start)}, nil
		}
		return nil, err
	}
	defer rc.Close()
	out, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	resp := &ProxyResponse{Status: 200, Body: out, Elapsed: time.Since(start)}
	if int64(len(out)) > limit {
		resp.Body, resp.Truncated = out[:limit], true
	}
	return resp, nil
}
