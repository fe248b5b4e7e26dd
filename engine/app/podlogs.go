package app

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/podlogs"
)

// openPodLog opens a pod's log for the shared hub; k.Cluster is the
// cluster's id.
func openPodLog(clusters *cluster.Service) podlogs.Opener {
	return func(ctx context.Context, k podlogs.Key, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
		c, p, err := clusters.Reach(k.Cluster, false)
		if err != nil {
			return nil, err
		}
		kc, err := p.KubeOf(ctx, c.EKS.Name)
		if err != nil {
			return nil, err
		}
		if kc.Logs == nil {
			return nil, errs.New(errs.Unavailable, "the Kubernetes API of %s serves no logs here", c.Name)
		}
		o := *opts
		o.Container = k.Container
		r, err := kc.Logs.Stream(ctx, k.Namespace, k.Pod, &o)
		if err != nil {
			return nil, errs.Wrap(errs.Upstream, err, "read the log of pod %s/%s: %v", k.Namespace, k.Pod, err)
		}
		return r, nil
	}
}
