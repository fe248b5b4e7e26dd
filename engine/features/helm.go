package features

import (
	"context"
	"fmt"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
)

// Charts InstantStart installs with Helm, at versions pinned so that every
// cluster gets the same operator. Their pods prefer the system node group
// (hyperpod.SystemAffinity), so they keep running when every HyperPod
// group is at zero.
var (
	kubeRayChart = cloud.HelmChart{Release: "kuberay-operator", Namespace: "kuberay", Repository: "https://ray-project.github.io/kuberay-helm/",
		Chart: "kuberay-operator", Version: "1.4.2", Values: map[string]any{"affinity": hyperpod.SystemAffinity()}}
	kedaChart = cloud.HelmChart{Release: "keda", Namespace: "keda", Repository: "https://kedacore.github.io/charts",
		Chart: "keda", Version: "2.17.2", Values: map[string]any{"affinity": hyperpod.SystemAffinity()}}
)

// helmLink is a Helm release of chart.
func helmLink(e *env, chart cloud.HelmChart) link {
	ref := fmt.Sprintf("helm release %s/%s", chart.Namespace, chart.Release)
	port := func() (cloud.Helm, error) {
		if e.p.Helm == nil {
			return nil, errs.New(errs.Internal, "the %s provider cannot install Helm charts", e.p.Name)
		}
		return e.p.Helm, nil
	}
	return link{key: "helm-" + chart.Release, title: "Helm chart " + chart.Chart + " " + chart.Version, kind: "HELM_RELEASE", timeout: 15 * time.Minute, retryFailed: true,
		state: func(ctx context.Context) (linkState, error) {
			h, err := port()
			if err != nil {
				return linkState{}, err
			}
			r, err := h.Release(ctx, e.c.EKS.Name, chart.Namespace, chart.Release)
			if err != nil {
				return linkState{}, errs.Wrap(errs.Upstream, err, "read %s: %v", ref, err)
			}
			if r == nil {
				return linkState{}, nil
			}
			st := linkState{present: true, ref: ref, detail: fmt.Sprintf("%s %s revision %d %s", r.Chart, r.ChartVersion, r.Revision, r.Status),
				matches: r.Chart == chart.Chart && r.ChartVersion == chart.Version && sameJSON(r.Values, chart.Values)}
			switch r.Status {
			case cloud.HelmDeployed:
				st.settled = true
			case cloud.HelmFailed:
				st.settled, st.failed = true, fmt.Sprintf("%s failed: %s", ref, cmpOr(r.Description, "Helm gave no reason"))
			}
			return st, nil
		},
		create: func(ctx context.Context) error {
			h, err := port()
			if err != nil {
				return err
			}
			if _, err := h.Install(ctx, e.c.EKS.Name, chart); err != nil {
				return errs.Wrap(errs.Upstream, err, "install %s: %v", ref, err)
			}
			return nil
		},
		delete: func(ctx context.Context) error {
			h, err := port()
			if err != nil {
				return err
			}
			if err := h.Uninstall(ctx, e.c.EKS.Name, chart.Namespace, chart.Release); err != nil {
				return errs.Wrap(errs.Upstream, err, "uninstall %s: %v", ref, err)
			}
			return nil
		},
	}
}
