//go:build integration

package awscloud

import (
	"context"
	"slices"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/kubetest"
)

func TestIntegrationHelmReleasesLiveInSecrets(t *testing.T) {
	rc := startRealCluster(t)
	kc := rc.clients(t)
	repo := newChartRepo(t, "1.3.0", "1.2.0")
	h := &helmAdapter{
		charts: newChartSource(t.TempDir(), repo.transport()),
		actionConfig: func(ctx context.Context, eksCluster, namespace string) (*action.Configuration, error) {
			cfg, err := rc.adapter.restConfig(ctx, eksCluster)
			if err != nil {
				return nil, err
			}
			return newActionConfig(cfg, namespace)
		},
	}
	ctx := kubetest.Context(t)
	const ns = "addons"

	// releaseSecrets lists the names of the release's records.
	releaseSecrets := func() []string {
		t.Helper()
		list, err := kc.Core.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=demo"})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range list.Items {
			names = append(names, s.Name)
		}
		slices.Sort(names)
		return names
	}
	greeting := func() string {
		t.Helper()
		cm, err := kc.Core.CoreV1().ConfigMaps(ns).Get(ctx, "demo-settings", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the chart's ConfigMap: %v", err)
		}
		return cm.Data["greeting"]
	}

	// Install: Helm makes the namespace, applies the manifest and keeps
	// revision 1 as a Secret.
	rel, err := h.Install(ctx, rc.name, cloud.HelmChart{
		Release: "demo", Namespace: ns, Repository: repo.url, Chart: "demo", Version: "1.2.0",
		Values: map[string]any{"greeting": "hi"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Status != cloud.HelmDeployed || rel.Revision != 1 || rel.ChartVersion != "1.2.0" {
		t.Fatalf("installed release: status %s revision %d chart %s, want deployed 1 1.2.0", rel.Status, rel.Revision, rel.ChartVersion)
	}
	if got := greeting(); got != "hi" {
		t.Errorf("greeting %q after install, want the value given, hi", got)
	}
	if got := releaseSecrets(); !slices.Equal(got, []string{"sh.helm.release.v1.demo.v1"}) {
		t.Errorf("release Secrets after install: %v, want sh.helm.release.v1.demo.v1", got)
	}

	// Upgrade: a new revision, values reset to the chart's defaults.
	rel, err = h.Install(ctx, rc.name, cloud.HelmChart{
		Release: "demo", Namespace: ns, Repository: repo.url, Chart: "demo", Version: "1.3.0",
	})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Status != cloud.HelmDeployed || rel.Revision != 2 || rel.ChartVersion != "1.3.0" {
		t.Fatalf("upgraded release: status %s revision %d chart %s, want deployed 2 1.3.0", rel.Status, rel.Revision, rel.ChartVersion)
	}
	if got := greeting(); got != "hello" {
		t.Errorf("greeting %q after upgrade, want the chart's default, hello", got)
	}
	if got := releaseSecrets(); !slices.Equal(got, []string{"sh.helm.release.v1.demo.v1", "sh.helm.release.v1.demo.v2"}) {
		t.Errorf("release Secrets after upgrade: %v, want revisions 1 and 2", got)
	}
	read, err := h.Release(ctx, rc.name, ns, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if read == nil || read.Revision != 2 || read.AppVersion != "1.3.0-app" {
		t.Fatalf("Release read back %+v, want revision 2 of app 1.3.0-app", read)
	}

	// Uninstall: what the chart made and the history go.
	if err := h.Uninstall(ctx, rc.name, ns, "demo"); err != nil {
		t.Fatal(err)
	}
	if got := releaseSecrets(); len(got) != 0 {
		t.Errorf("release Secrets after uninstall: %v, want none", got)
	}
	if _, err := kc.Core.CoreV1().ConfigMaps(ns).Get(ctx, "demo-settings", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the chart's ConfigMap after uninstall: %v, want not found", err)
	}
	if read, err := h.Release(ctx, rc.name, ns, "demo"); err != nil || read != nil {
		t.Errorf("Release after uninstall: %+v, %v; want nil, nil", read, err)
	}
	if err := h.Uninstall(ctx, rc.name, ns, "demo"); err != nil {
		t.Errorf("uninstalling a release that is gone: %v, want no error", err)
	}
}
