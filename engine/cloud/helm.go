package cloud

import (
	"context"
	"time"
)

// Helm installs, reads and removes Helm charts in the Kubernetes cluster of
// an EKS control plane: the dependencies AWS offers no EKS add-on for
// (KubeRay, KEDA). The real provider uses the Helm Go SDK with the same
// credentials as the Kubernetes port; the simulator keeps releases in its
// world and makes the charts' workloads in its Kubernetes API.
type Helm interface {
	// Release returns the newest revision of release name in namespace, or
	// nil (and no error) when no such release is installed.
	Release(ctx context.Context, eksCluster, namespace, name string) (*HelmRelease, error)
	// Install installs chart as a release, or upgrades the release when it
	// exists, and returns once Helm has applied the manifests (without
	// waiting for the workloads to become ready: callers follow the
	// release and its workloads). It creates the namespace when missing.
	Install(ctx context.Context, eksCluster string, chart HelmChart) (*HelmRelease, error)
	// Uninstall removes the release and what it made. Removing a release
	// that is not installed is not an error.
	Uninstall(ctx context.Context, eksCluster, namespace, name string) error
}

// HelmChart is a chart to install, and where from.
type HelmChart struct {
	Release   string // the release name
	Namespace string
	// Repository is the chart repository's URL (an https index or an
	// oci:// registry); Chart the chart's name in it; Version the exact
	// chart version (never a range, so that installs are repeatable).
	Repository string
	Chart      string
	Version    string
	// Values override the chart's defaults.
	Values map[string]any
}

// Helm release statuses, as Helm names them.
const (
	HelmDeployed       = "deployed"
	HelmFailed         = "failed"
	HelmPendingInstall = "pending-install"
	HelmPendingUpgrade = "pending-upgrade"
	HelmUninstalling   = "uninstalling"
)

// HelmRelease is one installed release.
type HelmRelease struct {
	Name         string
	Namespace    string
	Chart        string // the chart's name
	ChartVersion string
	AppVersion   string
	Revision     int
	Status       string // deployed, failed, pending-install, pending-upgrade, uninstalling...
	Description  string // Helm's note on the last action ("Install complete", the error of a failed one)
	Values       map[string]any
	Updated      time.Time
}
