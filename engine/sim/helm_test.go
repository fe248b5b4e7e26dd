package sim

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/smithy-go"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/instantstart/instantstart/engine/cloud"
)

func kubeRayChart() cloud.HelmChart {
	return cloud.HelmChart{
		Release: "kuberay-operator", Namespace: "kuberay-system",
		Repository: "https://ray-project.github.io/kuberay-helm/", Chart: "kuberay-operator", Version: "1.4.2",
	}
}

func kedaChart() cloud.HelmChart {
	return cloud.HelmChart{
		Release: "keda", Namespace: "keda",
		Repository: "https://kedacore.github.io/charts", Chart: "keda", Version: "2.17.2",
	}
}

// release reads a release of the fixture's EKS cluster "eks".
func (f *fixture) release(ns, name string) *cloud.HelmRelease {
	f.t.Helper()
	return ok(f.p.Helm.Release(f.ctx, "eks", ns, name)).must(f.t)
}

// deployments returns the Deployments of namespace ns, by name.
func deployments(f *fixture, kc *cloud.KubeClients, ns string) map[string]appsv1.Deployment {
	f.t.Helper()
	out := map[string]appsv1.Deployment{}
	for _, d := range ok(kc.Core.AppsV1().Deployments(ns).List(f.ctx, metav1.ListOptions{})).must(f.t).Items {
		out[d.Name] = d
	}
	return out
}

func available(d appsv1.Deployment) bool {
	return d.Status.Replicas == 1 && d.Status.ReadyReplicas == 1 && d.Status.AvailableReplicas == 1 && d.Status.UpdatedReplicas == 1 &&
		d.Status.ObservedGeneration == d.Generation
}

func TestHelmInstallDeploys(t *testing.T) {
	cases := []struct {
		chart       cloud.HelmChart
		deployments []string
	}{
		{kubeRayChart(), []string{"kuberay-operator"}},
		{kedaChart(), []string{"keda-admission-webhooks", "keda-operator", "keda-operator-metrics-apiserver"}},
	}
	for _, tc := range cases {
		t.Run(tc.chart.Chart, func(t *testing.T) {
			f, kc := kubeAPIFixture(t)
			ns, name := tc.chart.Namespace, tc.chart.Release
			if f.release(ns, name) != nil {
				t.Fatal("a release before any install")
			}
			w := ok(kc.Core.AppsV1().Deployments(ns).Watch(f.ctx, metav1.ListOptions{})).must(t)
			defer w.Stop()

			tc.chart.Values = map[string]any{"metricsServer": map[string]any{"enabled": true}}
			got := ok(f.p.Helm.Install(f.ctx, "eks", tc.chart)).must(t)
			if got.Status != cloud.HelmPendingInstall || got.Revision != 1 || got.Name != name || got.Namespace != ns ||
				got.Chart != tc.chart.Chart || got.ChartVersion != tc.chart.Version || got.AppVersion != tc.chart.Version ||
				!reflect.DeepEqual(got.Values, tc.chart.Values) || !got.Updated.Equal(f.clock.Now()) {
				t.Errorf("install returned %+v", got)
			}
			if _, err := kc.Core.CoreV1().Namespaces().Get(f.ctx, ns, metav1.GetOptions{}); err != nil {
				t.Errorf("the release's namespace was not created: %v", err)
			}
			deps := deployments(f, kc, ns)
			if names := slices.Sorted(maps.Keys(deps)); !slices.Equal(names, tc.deployments) {
				t.Fatalf("deployments %v, want %v", names, tc.deployments)
			}
			for _, d := range deps {
				l := d.Labels
				if l["app.kubernetes.io/managed-by"] != "Helm" || l["app.kubernetes.io/instance"] != name ||
					l["helm.sh/chart"] != tc.chart.Chart+"-"+tc.chart.Version || d.Annotations["meta.helm.sh/release-name"] != name {
					t.Errorf("deployment %s: labels %v, annotations %v", d.Name, l, d.Annotations)
				}
				if d.Status.AvailableReplicas != 0 || d.Status.UnavailableReplicas != 1 {
					t.Errorf("deployment %s is available while the release is pending: %+v", d.Name, d.Status)
				}
			}
			for range tc.deployments {
				if ev, _ := nextEvent(t, w); ev.Type != watch.Added {
					t.Errorf("watch event %s, want ADDED", ev.Type)
				}
			}

			f.clock.Advance(scaled(helmInstallTime) - 1)
			if got := f.release(ns, name); got.Status != cloud.HelmPendingInstall || got.Description != "Initial install underway" {
				t.Errorf("just before the end of the install: %s %q", got.Status, got.Description)
			}
			f.clock.Advance(1)
			got = f.release(ns, name)
			if got.Status != cloud.HelmDeployed || got.Description != "Install complete" || got.Revision != 1 {
				t.Errorf("after the install: %s %q revision %d", got.Status, got.Description, got.Revision)
			}
			for range tc.deployments {
				ev, _ := nextEvent(t, w)
				if d, ok := ev.Object.(*appsv1.Deployment); ev.Type != watch.Modified || !ok || !available(*d) {
					t.Errorf("watch event %s %v, want a MODIFIED available deployment", ev.Type, ev.Object)
				}
			}
			for _, d := range deployments(f, kc, ns) {
				if !available(d) {
					t.Errorf("deployment %s is not available once deployed: %+v", d.Name, d.Status)
				}
			}

			f.w = f.world() // a restarted process on the same storage
			if again := f.release(ns, name); !reflect.DeepEqual(again, got) {
				t.Errorf("release after a restart: %+v, want %+v", again, got)
			}
			calls := f.w.Calls()["helm"]
			if calls["Install"] != 1 || calls["GetRelease"] < 4 || calls["Uninstall"] != 0 {
				t.Errorf("helm calls %v", calls)
			}
		})
	}
}

func TestHelmUpgrade(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	chart := kubeRayChart()
	chart.Values = map[string]any{"replicas": 1}
	ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t)
	if _, err := f.p.Helm.Install(f.ctx, "eks", chart); err == nil || !strings.Contains(err.Error(), "another operation") {
		t.Errorf("install over a pending install: %v", err)
	}
	f.clock.Advance(scaled(helmInstallTime))
	before := deployments(f, kc, chart.Namespace)["kuberay-operator"]

	chart.Version = "1.3.2"
	chart.Values = map[string]any{"image": map[string]any{"tag": "v1.3.2"}, "batchScheduler": map[string]any{"name": "volcano"}}
	got := ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t)
	if got.Status != cloud.HelmPendingUpgrade || got.Revision != 2 || got.Description != "Preparing upgrade" ||
		got.ChartVersion != "1.3.2" || !reflect.DeepEqual(got.Values, chart.Values) {
		t.Errorf("upgrade returned %+v", got)
	}
	d := deployments(f, kc, chart.Namespace)["kuberay-operator"]
	if d.UID != before.UID || d.Generation != before.Generation+1 || d.Labels["helm.sh/chart"] != "kuberay-operator-1.3.2" ||
		d.Spec.Template.Spec.Containers[0].Image != "quay.io/kuberay/operator:v1.3.2" {
		t.Errorf("deployment during the upgrade: uid %s gen %d labels %v", d.UID, d.Generation, d.Labels)
	}
	if d.Status.AvailableReplicas != 1 || d.Status.UpdatedReplicas != 0 {
		t.Errorf("the old pod should serve while the upgrade rolls out: %+v", d.Status)
	}

	f.clock.Advance(scaled(helmUpgradeTime))
	got = f.release(chart.Namespace, chart.Release)
	if got.Status != cloud.HelmDeployed || got.Description != "Upgrade complete" || got.Revision != 2 {
		t.Errorf("after the upgrade: %+v", got)
	}
	if d := deployments(f, kc, chart.Namespace)["kuberay-operator"]; !available(d) {
		t.Errorf("deployment after the upgrade: %+v", d.Status)
	}

	// Values read back as Helm stores them, as JSON: numbers are float64.
	chart.Values = map[string]any{"replicas": 2}
	ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t)
	got = f.release(chart.Namespace, chart.Release)
	if got.Revision != 3 || !reflect.DeepEqual(got.Values, map[string]any{"replicas": float64(2)}) {
		t.Errorf("third revision: %d %#v", got.Revision, got.Values)
	}
	if d := deployments(f, kc, chart.Namespace)["kuberay-operator"]; d.Generation != before.Generation+1 {
		t.Errorf("values the chart does not render changed the deployment: generation %d", d.Generation)
	}
	// Empty values stay empty values, not none.
	f.clock.Advance(scaled(helmUpgradeTime))
	chart.Values = map[string]any{}
	if got := ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t); got.Values == nil || len(got.Values) != 0 {
		t.Errorf("empty values read back as %#v", got.Values)
	}
}

func TestHelmInstallRefused(t *testing.T) {
	f, _ := kubeAPIFixture(t)
	f.role("creating-eks-role")
	n := f.network("10.1.0.0/16", "us-west-2a", "us-west-2b")
	ok(f.p.EKS.CreateCluster(f.ctx, &eks.CreateClusterInput{
		Name: aws.String("creating"), RoleArn: aws.String("arn:aws:iam::123456789012:role/creating-eks-role"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: n.subnets},
	})).must(t)
	with := func(edit func(c *cloud.HelmChart)) cloud.HelmChart {
		c := kedaChart()
		edit(&c)
		return c
	}
	cases := []struct {
		name, cluster string
		chart         cloud.HelmChart
		want          []string
	}{
		{"unknown version", "eks", with(func(c *cloud.HelmChart) { c.Version = "9.9.9" }),
			[]string{`chart "keda" version "9.9.9" not found in https://kedacore.github.io/charts repository`}},
		{"unknown chart", "eks", with(func(c *cloud.HelmChart) { c.Chart = "kedda" }),
			[]string{`chart "kedda" version "2.17.2" not found`, "https://kedacore.github.io/charts"}},
		{"unknown repository", "eks", with(func(c *cloud.HelmChart) { c.Repository = "https://example.com/charts" }),
			[]string{`chart "keda" version "2.17.2"`, `"https://example.com/charts" is not a valid chart repository`}},
		{"chart of another repository", "eks", with(func(c *cloud.HelmChart) { c.Chart, c.Version = "kuberay-operator", "1.4.2" }),
			[]string{`chart "kuberay-operator" version "1.4.2" not found in https://kedacore.github.io/charts`}},
		{"bad release name", "eks", with(func(c *cloud.HelmChart) { c.Release = "KEDA" }), []string{"invalid release name"}},
		{"bad namespace", "eks", with(func(c *cloud.HelmChart) { c.Namespace = "keda_system" }), []string{`namespace "keda_system" is invalid`}},
		{"missing cluster", "nope", kedaChart(), []string{"unreachable", `"nope" does not exist`}},
		{"cluster not ACTIVE", "creating", kedaChart(), []string{"unreachable", "CREATING"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.p.Helm.Install(f.ctx, tc.cluster, tc.chart)
			if err == nil {
				t.Fatal("install succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	var notFound *ekstypes.ResourceNotFoundException
	if _, err := f.p.Helm.Release(f.ctx, "nope", "keda", "keda"); !errors.As(err, &notFound) {
		t.Errorf("release of a missing cluster: %v", err)
	}
	if _, err := f.p.Helm.Release(f.ctx, "creating", "keda", "keda"); err == nil || !strings.Contains(err.Error(), "CREATING") {
		t.Errorf("release of a cluster not ACTIVE: %v", err)
	}
	if got := f.release("keda", "keda"); got != nil {
		t.Errorf("a refused install left a release: %+v", got)
	}
	if n := f.w.Calls()["helm"]["Install"]; n != len(cases) {
		t.Errorf("%d installs counted, want %d", n, len(cases))
	}

	// A chart's Deployments belong to one release: another release of the
	// chart in the same namespace cannot take them over.
	ok(f.p.Helm.Install(f.ctx, "eks", kedaChart())).must(t)
	other := with(func(c *cloud.HelmChart) { c.Release = "keda-two" })
	if _, err := f.p.Helm.Install(f.ctx, "eks", other); err == nil || !strings.Contains(err.Error(), "invalid ownership metadata") {
		t.Errorf("a second release over the first's deployments: %v", err)
	}
}

func TestHelmUninstall(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	chart := kedaChart()
	ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t)
	f.clock.Advance(scaled(helmInstallTime))
	ok(kc.Core.AppsV1().Deployments(chart.Namespace).Create(f.ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "mine"},
	}, metav1.CreateOptions{})).must(t)

	if err := f.p.Helm.Uninstall(f.ctx, "eks", chart.Namespace, chart.Release); err != nil {
		t.Fatal(err)
	}
	if got := f.release(chart.Namespace, chart.Release); got == nil || got.Status != cloud.HelmUninstalling {
		t.Errorf("release being uninstalled: %+v", got)
	}
	if err := f.p.Helm.Uninstall(f.ctx, "eks", chart.Namespace, chart.Release); err != nil {
		t.Errorf("uninstall of a release being uninstalled: %v", err)
	}
	if _, err := f.p.Helm.Install(f.ctx, "eks", chart); err == nil {
		t.Errorf("install over a release being uninstalled succeeded")
	}

	f.clock.Advance(scaled(helmUninstallTime))
	if got := f.release(chart.Namespace, chart.Release); got != nil {
		t.Errorf("release after its uninstall: %+v", got)
	}
	if names := slices.Sorted(maps.Keys(deployments(f, kc, chart.Namespace))); !slices.Equal(names, []string{"mine"}) {
		t.Errorf("deployments after the uninstall: %v, want only the one Helm does not own", names)
	}
	if _, err := kc.Core.CoreV1().Namespaces().Get(f.ctx, chart.Namespace, metav1.GetOptions{}); err != nil {
		t.Errorf("the namespace went with the release: %v", err)
	}
	if err := f.p.Helm.Uninstall(f.ctx, "eks", chart.Namespace, chart.Release); err != nil {
		t.Errorf("uninstall of a missing release: %v", err)
	}

	// Installed again, it starts over at revision 1.
	if got := ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t); got.Revision != 1 || got.Status != cloud.HelmPendingInstall {
		t.Errorf("install after an uninstall: %+v", got)
	}
}

func TestHelmFaults(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	chart := kubeRayChart()

	fault, err := ParseFault("error:service=helm,operation=Install,code=InternalError,message=tiller is gone,count=1")
	if err != nil {
		t.Fatal(err)
	}
	ok(f.w.InjectFault(fault)).must(t)
	_, err = f.p.Helm.Install(f.ctx, "eks", chart)
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InternalError" || !strings.Contains(err.Error(), "tiller is gone") {
		t.Errorf("install under an error fault: %v", err)
	}
	if got := f.release(chart.Namespace, chart.Release); got != nil {
		t.Errorf("a failed install left a release: %+v", got)
	}

	fault, err = ParseFault("fail:service=helm,message=Release \"kuberay-operator\" failed: pods not ready")
	if err != nil {
		t.Fatal(err)
	}
	ok(f.w.InjectFault(fault)).must(t)
	ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t)
	f.clock.Advance(scaled(helmInstallTime))
	got := f.release(chart.Namespace, chart.Release)
	if got.Status != cloud.HelmFailed || got.Description != `Release "kuberay-operator" failed: pods not ready` {
		t.Errorf("release under a fail fault: %s %q", got.Status, got.Description)
	}
	if d := deployments(f, kc, chart.Namespace)["kuberay-operator"]; d.Status.AvailableReplicas != 0 {
		t.Errorf("deployment of a failed release is available: %+v", d.Status)
	}

	// The fault stays until cleared; once it is, an upgrade fixes the release.
	f.w.ClearFaults()
	got = ok(f.p.Helm.Install(f.ctx, "eks", chart)).must(t)
	if got.Revision != 2 || got.Status != cloud.HelmPendingUpgrade {
		t.Errorf("upgrade of a failed release: %+v", got)
	}
	f.clock.Advance(scaled(helmUpgradeTime))
	if got := f.release(chart.Namespace, chart.Release); got.Status != cloud.HelmDeployed {
		t.Errorf("after the upgrade: %+v", got)
	}
}

func TestHelmChartKinds(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	ok(f.p.Helm.Install(f.ctx, "eks", kubeRayChart())).must(t)
	ok(f.p.Helm.Install(f.ctx, "eks", kedaChart())).must(t)
	f.clock.Advance(scaled(helmInstallTime))
	cases := []struct {
		apiVersion, kind, resource, ns string
	}{
		{"ray.io/v1", "RayCluster", "rayclusters", "default"},
		{"ray.io/v1", "RayJob", "rayjobs", "default"},
		{"ray.io/v1", "RayService", "rayservices", "default"},
		{"keda.sh/v1alpha1", "ScaledObject", "scaledobjects", "default"},
		{"keda.sh/v1alpha1", "ScaledJob", "scaledjobs", "default"},
		{"keda.sh/v1alpha1", "TriggerAuthentication", "triggerauthentications", "default"},
		{"keda.sh/v1alpha1", "ClusterTriggerAuthentication", "clustertriggerauthentications", ""},
		{"elbv2.k8s.aws/v1beta1", "TargetGroupBinding", "targetgroupbindings", "default"},
		{"elbv2.k8s.aws/v1beta1", "IngressClassParams", "ingressclassparams", ""},
	}
	if n := len(helmChartKinds()); n != len(cases) {
		t.Errorf("%d chart kinds, %d tested", n, len(cases))
	}
	for _, tc := range cases {
		gv, err := schema.ParseGroupVersion(tc.apiVersion)
		if err != nil {
			t.Fatal(err)
		}
		r := kc.Dynamic.Resource(gv.WithResource(tc.resource)).Namespace(tc.ns)
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": tc.apiVersion, "kind": tc.kind,
			"metadata": map[string]any{"name": "one"}, "spec": map[string]any{"entrypoint": "python train.py"},
		}}
		ok(r.Create(f.ctx, obj, metav1.CreateOptions{})).must(t)
		list, err := r.List(f.ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 1 || list.Items[0].GetKind() != tc.kind {
			t.Errorf("%s: list after a create: %v %+v", tc.resource, err, list)
		}
	}
	// The simulated API serves no apiextensions.k8s.io: the charts' kinds
	// are served without CustomResourceDefinition objects.
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := kc.Dynamic.Resource(crds).List(f.ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list of CRDs: %v; if the API serves them now, register the charts' CRDs on install", err)
	}
}

func TestHelmReleasesGoWithTheirCluster(t *testing.T) {
	f, _ := kubeAPIFixture(t)
	ok(f.p.Helm.Install(f.ctx, "eks", kedaChart())).must(t)
	ok(f.p.EKS.DeleteCluster(f.ctx, &eks.DeleteClusterInput{Name: aws.String("eks")})).must(t)
	if _, err := f.p.Helm.Release(f.ctx, "eks", "keda", "keda"); err == nil || !strings.Contains(err.Error(), "DELETING") {
		t.Errorf("release of a cluster being deleted: %v", err)
	}
	if err := f.p.Helm.Uninstall(f.ctx, "eks", "keda", "keda"); err == nil {
		t.Errorf("uninstall from a cluster being deleted succeeded")
	}
	if strings.Contains(string(f.store.data), "keda-operator") {
		t.Errorf("the saved world still holds the release's deployments")
	}
	f.clock.Advance(scaled(eksDeleteTime))
	f.eksCluster("eks", f.network("10.1.0.0/16", "us-west-2a", "us-west-2b"))
	if got := f.release("keda", "keda"); got != nil {
		t.Errorf("a new cluster of the same name has the old release: %+v", got)
	}
}

// devicePlugins installs the device plugins of the chart catalog in EKS
// cluster eks and waits (on the test clock) until they are deployed, so
// that its nodes advertise their GPUs, EFA interfaces and Neuron devices.
func (f *fixture) devicePlugins(eks string) {
	f.t.Helper()
	for _, c := range helmCharts {
		if len(c.Advertises) == 0 {
			continue
		}
		chart := cloud.HelmChart{Release: c.Name, Namespace: "kube-system", Repository: c.Repository, Chart: c.Name, Version: c.Versions[0]}
		ok(f.p.Helm.Install(f.ctx, eks, chart)).must(f.t)
	}
	f.advance(helmInstallTime)
}
