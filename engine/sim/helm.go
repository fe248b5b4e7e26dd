package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/instantstart/instantstart/engine/cloud"
)

// svcHelm names Helm in the call counters and faults. Its operations are
// "Install", "Uninstall" and "GetRelease" (the port's Release, named as a
// read so that counters of mutating calls leave it out).
const svcHelm = "helm"

// helmAPI is one region's view of Helm against the Kubernetes APIs of the
// simulated EKS clusters.
type helmAPI struct {
	w      *World
	region string
}

var _ cloud.Helm = (*helmAPI)(nil)

// helmErrPending is Helm's refusal to act on a release another action has
// not finished with.
var helmErrPending = errors.New("another operation (install/upgrade/rollback) is in progress")

// helmReleaseNamePattern is the shape Helm requires of a release name,
// which must also be at most 53 characters long.
var helmReleaseNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// helmDo runs one Helm call as World.do runs an AWS one: counted, subject
// to call faults, saved before it returns (rolled back when saving fails).
// Like a Kubernetes call, it first drops the APIs of deleted clusters.
// Helm's errors are plain errors, not AWS operation errors; a call fault's
// smithy error is wrapped, so errors.As still finds it.
func (w *World) helmDo(ctx context.Context, region, op string, fn func(t *txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.begin(region)
	t.sweepKube()
	t.st.count(svcHelm, op)
	err := t.callFault(svcHelm, op)
	if err == nil {
		err = fn(t)
	}
	if serr := w.save(); serr != nil {
		w.rollback()
		return serr
	}
	t.saved()
	return err
}

// helmTarget returns the EKS cluster a Helm call reaches, which must be
// ACTIVE for its Kubernetes API to answer, as for the Kubernetes port.
func (t *txn) helmTarget(eksCluster string) (*eksClusterRec, error) {
	if eksCluster == "" {
		return nil, errors.New("the EKS cluster name is empty")
	}
	c := t.rs.EKS[eksCluster]
	if c == nil {
		return nil, fmt.Errorf("kubernetes cluster unreachable: EKS cluster %q does not exist in %s: %w", eksCluster, t.region, eksNotFound(eksCluster))
	}
	switch st := c.status(t.now); st {
	case ekstypes.ClusterStatusActive:
		return c, nil
	case ekstypes.ClusterStatusFailed:
		return nil, fmt.Errorf("kubernetes cluster unreachable: EKS cluster %q is FAILED and has no Kubernetes API; delete it and create it again", eksCluster)
	default:
		return nil, fmt.Errorf("kubernetes cluster unreachable: EKS cluster %q is %s, not ACTIVE: its Kubernetes API is not available; retry once it is ACTIVE", eksCluster, st)
	}
}

// helmNamespace is the namespace Helm works in: "default" when none is
// given.
func helmNamespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// helmRelease returns the stored release name of namespace ns in cluster
// c, or nil.
func (t *txn) helmRelease(c *eksClusterRec, ns, name string) *helmReleaseRec {
	hc := t.st.Helm[kubeClusterKey(t.region, c.Name)]
	if hc == nil || hc.EKSID != c.ID {
		return nil
	}
	return hc.Releases[kubeObjectKey(ns, name)]
}

// Release returns the newest revision of a release, or nil when none is
// installed (or the last one has finished uninstalling).
func (a *helmAPI) Release(ctx context.Context, eksCluster, namespace, name string) (*cloud.HelmRelease, error) {
	ns := helmNamespace(namespace)
	var out *cloud.HelmRelease
	err := a.w.helmDo(ctx, a.region, "GetRelease", func(t *txn) error {
		c, err := t.helmTarget(eksCluster)
		if err != nil {
			return err
		}
		r := t.helmRelease(c, ns, name)
		if r == nil {
			return nil
		}
		out, err = r.out(t.now)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("helm: release %q in namespace %q of EKS cluster %q: %w", name, ns, eksCluster, err)
	}
	return out, nil
}

// Install installs chart as a new release (pending-install, revision 1)
// or upgrades the existing one (pending-upgrade, the next revision). It
// creates the namespace when missing and the chart's Deployments at once;
// tens of seconds later (divided by the speed) the revision is deployed
// and the Deployments available, or, under a fail fault on helm, failed
// with the fault's message.
func (a *helmAPI) Install(ctx context.Context, eksCluster string, chart cloud.HelmChart) (*cloud.HelmRelease, error) {
	ns := helmNamespace(chart.Namespace)
	var out *cloud.HelmRelease
	err := a.w.helmDo(ctx, a.region, "Install", func(t *txn) error {
		var err error
		out, err = t.helmInstall(eksCluster, ns, chart)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("helm: install release %q (chart %s %s from %s) in namespace %q of EKS cluster %q: %w",
			chart.Release, chart.Chart, chart.Version, chart.Repository, ns, eksCluster, err)
	}
	return out, nil
}

func (t *txn) helmInstall(eksCluster, ns string, chart cloud.HelmChart) (*cloud.HelmRelease, error) {
	name := chart.Release
	switch {
	case name == "":
		return nil, errors.New("must either provide a name or specify --generate-name")
	case len(name) > 53 || !helmReleaseNamePattern.MatchString(name):
		return nil, fmt.Errorf("release name %q: invalid release name, must match regex %s and the length must not be longer than 53", name, helmReleaseNamePattern)
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return nil, fmt.Errorf("namespace %q is invalid: %s", ns, errs[0])
	}
	c, err := t.helmTarget(eksCluster)
	if err != nil {
		return nil, err
	}
	spec, version, err := helmFindChart(chart.Repository, chart.Chart, chart.Version)
	if err != nil {
		return nil, err
	}
	values, err := json.Marshal(chart.Values)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	if chart.Values == nil {
		values = nil
	}
	prev := t.helmRelease(c, ns, name)
	if prev != nil {
		switch prev.status(t.now) {
		case cloud.HelmPendingInstall, cloud.HelmPendingUpgrade:
			return nil, helmErrPending
		case cloud.HelmUninstalling:
			return nil, fmt.Errorf("release %q is being uninstalled; install it again once it is gone", name)
		}
	}
	verb := "install"
	if prev != nil {
		verb = "update"
	}
	objs, err := helmRender(spec, version, name, ns, chart.Values)
	if err != nil {
		return nil, err
	}
	s := t.helmKube(t.region, c)
	if err := s.helmCheckOwnership(objs, name, ns, verb); err != nil {
		return nil, err
	}
	// Every check is done: from here on the call changes the cluster.
	if err := s.helmEnsureNamespace(ns); err != nil {
		return nil, err
	}
	r := &helmReleaseRec{Name: name, Namespace: ns, Revision: 1}
	for _, obj := range objs {
		if obj.GetKind() == "DaemonSet" {
			r.DaemonSets = append(r.DaemonSets, obj.GetName())
		} else {
			r.Workloads = append(r.Workloads, obj.GetName())
		}
	}
	latency, failure := helmInstallTime, fmt.Sprintf("Release %q failed: context deadline exceeded", name)
	if prev != nil {
		r.Revision = prev.Revision + 1
		latency, failure = helmUpgradeTime, fmt.Sprintf("Upgrade %q failed: context deadline exceeded", name)
		// Helm deletes what the previous revision made and this one
		// does not.
		gone := map[string][]string{}
		kept := r.workloads()
		for key, names := range prev.workloads() {
			for _, w := range names {
				if !slices.Contains(kept[key], w) {
					gone[key] = append(gone[key], w)
				}
			}
		}
		s.helmRemoveWorkloads(prev, gone)
	}
	if err := s.helmApply(objs); err != nil {
		return nil, err
	}
	r.Repository, r.Chart, r.ChartVersion, r.AppVersion = chart.Repository, spec.Name, version, spec.appVersion(version)
	r.Values = values
	for _, res := range spec.Advertises {
		r.Advertises = append(r.Advertises, string(res))
	}
	r.Life = newLifecycle(t.now, t.after(latency))
	if msg, failed := t.failFault(svcHelm, "Install", failure); failed {
		r.Life.FailMessage = msg
	}
	r.Life.HeldBy = t.holdFault(svcHelm, "Install")
	t.helmCluster(c).Releases[kubeObjectKey(ns, name)] = r
	return r.out(t.now)
}

// Uninstall starts removing a release: uninstalling for a few seconds
// (divided by the speed), then gone with its Deployments. The namespace
// stays, as with Helm. A release that is not installed is no error.
func (a *helmAPI) Uninstall(ctx context.Context, eksCluster, namespace, name string) error {
	ns := helmNamespace(namespace)
	err := a.w.helmDo(ctx, a.region, "Uninstall", func(t *txn) error {
		c, err := t.helmTarget(eksCluster)
		if err != nil {
			return err
		}
		r := t.helmRelease(c, ns, name)
		if r != nil && r.Life.DeletingAt == nil {
			r.Life.startDeleting(t.now, t.after(helmUninstallTime))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("helm: uninstall release %q in namespace %q of EKS cluster %q: %w", name, ns, eksCluster, err)
	}
	return nil
}
