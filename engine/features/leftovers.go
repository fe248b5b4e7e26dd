package features

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
)

// What the features leave behind when their cluster goes: a DeleteCluster
// removes the EKS cluster, and with it every add-on, pod identity
// association, Helm release and Kubernetes object a feature made, but not
// what a feature made outside it. Those are its IAM roles and policies
// (a policy of the S3 CSI driver grants the cluster's bucket), and the
// MLflow tracking server MLFLOW made. LeftoverStep removes them once the
// EKS cluster is gone.

// outsideKinds are the kinds of the links that outlive the EKS cluster,
// in the order they are removed: a server before the role it runs as,
// roles before the policies attached to them.
var outsideKinds = []string{"MLFLOW_TRACKING_SERVER", "IAM_ROLE", "IAM_POLICY"}

// LeftoverStep returns the phase that removes what the features made for
// cluster c outside its Kubernetes API, whether they are on or not: every
// feature's roles and policies by their names, with the settings each was
// last turned on with.
func (s *Service) LeftoverStep(c *hyperpod.Cluster) (ops.Step, error) {
	// Its reads are retried when throttled: it reads every feature's
	// links on each look, and one refused read would make it look again.
	_, p, err := s.clusters.Reach(c.ID, true)
	if err != nil {
		return ops.Step{}, err
	}
	recs, err := s.records(c.ID)
	if err != nil {
		return ops.Step{}, err
	}
	var links []link
	seen := map[string]bool{} // a link two features share is one
	for _, d := range catalog {
		e := &env{p: p, c: c}
		if r := recs[d.name]; r != nil && r.Settings != nil {
			e.settings = *r.Settings
		}
		for _, l := range d.links(e) {
			if id := l.kind + "/" + l.title; slices.Contains(outsideKinds, l.kind) && !seen[id] {
				seen[id] = true
				links = append(links, l)
			}
		}
	}
	// A server before its role, roles before their policies.
	slices.SortStableFunc(links, func(a, b link) int {
		return slices.Index(outsideKinds, a.kind) - slices.Index(outsideKinds, b.kind)
	})
	return ops.Step{Name: "feature-leftovers", Title: "Delete the IAM roles and policies (and the MLflow tracking server) the features made", Timeout: time.Hour,
		Observe: func(ctx context.Context, run *ops.Run) (ops.Observation, error) {
			var left []string
			changing := false
			for _, l := range links {
				st, err := l.state(ctx)
				if err != nil {
					return ops.Observation{}, err
				}
				if st.present {
					left = append(left, l.title)
					changing = changing || !st.settled
				}
			}
			switch {
			case len(left) == 0:
				return ops.Observation{State: ops.Done, Message: "nothing the features made is left"}, nil
			case changing || run.Applied:
				return ops.Observation{State: ops.Pending, Message: fmt.Sprintf("%d left, being removed: %s", len(left), strings.Join(left, "; "))}, nil
			}
			return ops.Observation{State: ops.Absent, Message: fmt.Sprintf("%d left: %s", len(left), strings.Join(left, "; "))}, nil
		},
		Apply: func(ctx context.Context, run *ops.Run) (any, error) {
			for _, l := range links {
				st, err := l.state(ctx)
				if err != nil {
					return nil, err
				}
				if !st.present {
					continue
				}
				if err := l.delete(ctx); err != nil {
					return nil, err
				}
			}
			return nil, nil
		},
	}, nil
}
