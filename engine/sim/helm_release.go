package sim

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/instantstart/instantstart/engine/cloud"
)

// Real Helm latencies, divided by the world's speed: applying a chart's
// manifests and waiting for its workloads, and deleting them.
const (
	helmInstallTime   = 45 * time.Second
	helmUpgradeTime   = 30 * time.Second
	helmUninstallTime = 10 * time.Second
)

// helmClusterRec holds the Helm releases of one EKS cluster's Kubernetes
// API. Like the API's objects, they go with the cluster.
type helmClusterRec struct {
	Region, Name string
	// EKSID is the id of the EKS cluster: one deleted and created again
	// under the same name starts with no release.
	EKSID string
	// Releases holds the releases by "namespace/name".
	Releases map[string]*helmReleaseRec
}

// helmReleaseRec is the newest revision of a release. Its status is
// computed from Life: pending until ReadyAt, then deployed or, with a
// FailMessage, failed; uninstalling from DeletingAt, gone at GoneAt.
type helmReleaseRec struct {
	Name, Namespace string
	Repository      string
	Chart           string
	ChartVersion    string
	AppVersion      string
	Revision        int
	// Values are the values the client gave, as JSON: Helm keeps a
	// release's values as JSON too, so numbers read back as float64
	// whether or not the world was restarted in between.
	Values json.RawMessage `json:",omitempty"`
	// Workloads are the names of the Deployments the revision rendered,
	// DaemonSets those of its DaemonSets.
	Workloads  []string
	DaemonSets []string `json:",omitempty"`
	// Advertises are the extended resources the chart's device plugin
	// makes nodes advertise while the release is deployed.
	Advertises []string `json:",omitempty"`
	Life       lifecycle
	// Settled tells that the revision's end has reached the Kubernetes
	// API (its Deployments made available, unless it failed).
	Settled bool `json:",omitempty"`
}

// helm returns the Helm releases of the world, by kubeClusterKey, creating
// the map on first use.
func (st *state) helm() map[string]*helmClusterRec {
	if st.Helm == nil {
		st.Helm = map[string]*helmClusterRec{}
	}
	return st.Helm
}

// helmCluster returns the releases of the ACTIVE cluster c of the call's
// region, starting an empty set for a new cluster.
func (t *txn) helmCluster(c *eksClusterRec) *helmClusterRec {
	hs := t.st.helm()
	key := kubeClusterKey(t.region, c.Name)
	if hc := hs[key]; hc != nil && hc.EKSID == c.ID {
		return hc
	}
	hc := &helmClusterRec{Region: t.region, Name: c.Name, EKSID: c.ID, Releases: map[string]*helmReleaseRec{}}
	hs[key] = hc
	return hc
}

// workloads are the names of what the revision rendered, by resource key.
func (r *helmReleaseRec) workloads() map[string][]string {
	return map[string][]string{kubeDeploymentsKey: r.Workloads, kubeDaemonSetsKey: r.DaemonSets}
}

func (r *helmReleaseRec) status(now time.Time) string {
	switch r.Life.phase(now) {
	case phaseCreating:
		if r.Revision > 1 {
			return cloud.HelmPendingUpgrade
		}
		return cloud.HelmPendingInstall
	case phaseFailed:
		return cloud.HelmFailed
	case phaseDeleting, phaseGone:
		return cloud.HelmUninstalling
	}
	return cloud.HelmDeployed
}

// description is Helm's note on the release's last action, in Helm's words.
func (r *helmReleaseRec) description(status string) string {
	switch status {
	case cloud.HelmPendingInstall:
		return "Initial install underway"
	case cloud.HelmPendingUpgrade:
		return "Preparing upgrade"
	case cloud.HelmFailed:
		return r.Life.FailMessage
	case cloud.HelmUninstalling:
		return "Deletion in progress (or silently failed)"
	}
	if r.Revision > 1 {
		return "Upgrade complete"
	}
	return "Install complete"
}

// out is the release as the Helm port returns it.
func (r *helmReleaseRec) out(now time.Time) (*cloud.HelmRelease, error) {
	status := r.status(now)
	rel := &cloud.HelmRelease{
		Name: r.Name, Namespace: r.Namespace, Chart: r.Chart, ChartVersion: r.ChartVersion, AppVersion: r.AppVersion,
		Revision: r.Revision, Status: status, Description: r.description(status), Updated: r.Life.CreatedAt,
	}
	if len(r.Values) > 0 {
		if err := json.Unmarshal(r.Values, &rel.Values); err != nil {
			return nil, fmt.Errorf("decode the values of release %s: %w", r.Name, err)
		}
	}
	return rel, nil
}

// advanceHelm brings the Kubernetes side of every release up to the call's
// moment: the Deployments of a revision that ended become available (unless
// it failed), and an uninstalled release goes with its Deployments.
// Releases go with their EKS cluster. Every Kubernetes and Helm call runs
// it (through sweepKube) first, so that readers of either see the same.
func (t *txn) advanceHelm() {
	hs := t.st.Helm
	for _, key := range sortedKeys(hs) {
		hc := hs[key]
		if !t.kubeAlive(hc.Region, hc.Name, hc.EKSID) {
			delete(hs, key)
			continue
		}
		var s *kubeSession
		for _, rk := range sortedKeys(hc.Releases) {
			r := hc.Releases[rk]
			switch phase := r.Life.phase(t.now); {
			case phase == phaseGone:
				if s == nil {
					s = t.helmKube(hc.Region, t.st.Regions[hc.Region].EKS[hc.Name])
				}
				s.helmRemoveWorkloads(r, r.workloads())
				delete(hc.Releases, rk)
			case !r.Settled && (phase == phaseReady || phase == phaseFailed):
				if s == nil {
					s = t.helmKube(hc.Region, t.st.Regions[hc.Region].EKS[hc.Name])
				}
				if phase == phaseReady {
					s.helmMarkAvailable(r)
				}
				r.Settled = true
			}
		}
	}
}

// helmAdvertised returns the extended resources the device plugins of the
// deployed releases of cluster c make its nodes advertise.
func (t *txn) helmAdvertised(region string, c *eksClusterRec) map[string]bool {
	out := map[string]bool{}
	hc := t.st.Helm[kubeClusterKey(region, c.Name)]
	if hc == nil || hc.EKSID != c.ID {
		return out
	}
	for _, r := range hc.Releases {
		if r.status(t.now) == cloud.HelmDeployed {
			for _, name := range r.Advertises {
				out[name] = true
			}
		}
	}
	return out
}
