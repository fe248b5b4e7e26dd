//go:build integration

package features_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"helm.sh/helm/v4/pkg/chart/common"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud/awsenv"
	"github.com/instantstart/instantstart/engine/kubetest"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/simwire"
)

// realKubeSpeed is the pace of the run whose Kubernetes half is real.
const realKubeSpeed = 100

// dependencyCharts are the charts createCluster installs for a GPU group
// (engine/cluster's hyperPodDependencies, less the Trainium one), by name
// and pinned version. A pin that moves without this list fails the run:
// the chart folder then has no archive of that version.
var dependencyCharts = [][2]string{
	{"health-monitoring-agent", "1.0.742"},
	{"nvidia-device-plugin", "0.17.1"},
	{"aws-efa-k8s-device-plugin", "v0.5.6"},
}

// chartFolder writes, for each dependency, a chart of that name and
// version whose one template is a DaemonSet, as the device plugins and
// the health agent are: what the real API server must accept from Helm.
func chartFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  labels:
    app.kubernetes.io/name: {{ .Chart.Name }}
    app.kubernetes.io/instance: {{ .Release.Name }}
spec:
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
    spec:
      containers:
      - name: agent
        image: "registry.example/{{ .Chart.Name }}:{{ .Chart.Version }}"
`
	for _, c := range dependencyCharts {
		ch := &chartv2.Chart{
			Metadata:  &chartv2.Metadata{APIVersion: chartv2.APIVersionV2, Name: c[0], Version: c[1], AppVersion: c[1]},
			Templates: []*common.File{{Name: "templates/daemonset.yaml", Data: []byte(daemonSet)}},
		}
		file, err := chartutil.Save(ch, dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%s/%s-%s.tgz", dir, c[0], c[1]); file != want {
			t.Fatalf("the chart was saved as %s, want %s", file, want)
		}
	}
	return dir
}

// TestIntegrationWireRunOnARealAPIServer runs the flow of
// TestWireRunMakesTheCallsOfTheEmbeddedRun with nothing of the real
// provider left out but S3: the simulated EKS cluster's endpoint and
// certificate authority are a real kube-apiserver's, which authenticates
// the engine's EKS tokens through simwire.EKSAuthenticator (the token's
// presigned STS call, then the cluster's access entries), and the Helm SDK
// installs the cluster dependencies there from a chart folder. The AWS
// calls must equal the embedded run's, and the Helm releases on the real
// server the installs the embedded run made.
func TestIntegrationWireRunOnARealAPIServer(t *testing.T) {
	awsenv.Isolate(t)

	// The API server asks the webhook from its start; the authenticator
	// needs the world, which needs the API server's address: it is set
	// once the world is built.
	var auth atomic.Pointer[simwire.EKSAuthenticator]
	var accepted, refused atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := auth.Load()
		if a == nil {
			http.Error(w, "no EKS cluster is served yet", http.StatusServiceUnavailable)
			return
		}
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, r)
		if strings.Contains(rec.Body.String(), `"authenticated":true`) {
			accepted.Add(1)
		} else {
			refused.Add(1)
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(hook.Close)
	api := kubetest.Start(t, kubetest.Options{TokenWebhook: hook.URL + "/authenticate"})
	endpoint := api.Host
	if !strings.HasPrefix(endpoint, "https://") {
		endpoint = "https://" + endpoint
	}
	charts := chartFolder(t)

	embedded := newFlowApp(t, nil)
	wire := newFlowApp(t, func(w *sim.World) cloud.Regions {
		h := &simwire.Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		auth.Store(&simwire.EKSAuthenticator{Wire: h, STSEndpoint: srv.URL, Providers: w.Provider, Region: "us-west-2", Cluster: "train-1"})
		a, err := awscloud.New(context.Background(), awscloud.Options{
			DefaultRegion: "us-west-2",
			BaseEndpoint:  srv.URL,
			Credentials:   credentials.NewStaticCredentialsProvider(awsenv.AccessKey, awsenv.SecretKey, ""),
			ChartDir:      charts,
		})
		if err != nil {
			t.Fatal(err)
		}
		return apptest.Wire{AWS: a, World: w, RealKube: true}
	}, func(o *apptest.Options) {
		o.Sim.KubeAPIServer = &sim.KubeAPIServer{Endpoint: endpoint, CAPEM: api.CAData}
		// Real Helm installs against a real server take real seconds: at
		// this pace the dependencies phase has 12 s, not the 2 s floor.
		o.Speed = realKubeSpeed
	})
	runFlow(t, embedded)
	runFlow(t, wire)

	// The Kubernetes half of the wire run is on the real server: each
	// install or upgrade is one revision of a release, kept in a Secret.
	kc, err := kubernetes.NewForConfig(api.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := kubetest.Context(t)
	secrets, err := kc.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: "owner=helm"})
	if err != nil {
		t.Fatal(err)
	}
	var releases []string
	for _, s := range secrets.Items {
		l := s.Labels
		releases = append(releases, s.Namespace+"/"+l["name"]+" revision "+l["version"]+" "+l["status"])
	}
	slices.Sort(releases)
	wantReleases := []string{
		"aws-hyperpod/health-monitoring-agent revision 1 deployed",
		"kube-system/aws-efa-k8s-device-plugin revision 1 deployed",
		"kube-system/nvidia-device-plugin revision 1 deployed",
	}
	if !slices.Equal(releases, wantReleases) {
		t.Errorf("Helm releases on the real API server:\n %s\nwant\n %s", strings.Join(releases, "\n "), strings.Join(wantReleases, "\n "))
	}
	for _, c := range [][2]string{{"aws-hyperpod", "health-monitoring-agent"}, {"kube-system", "nvidia-device-plugin"}, {"kube-system", "aws-efa-k8s-device-plugin"}} {
		if _, err := kc.AppsV1().DaemonSets(c[0]).Get(ctx, c[1], metav1.GetOptions{}); err != nil {
			t.Errorf("the DaemonSet of release %s/%s is not on the real API server: %v", c[0], c[1], err)
		}
	}
	if accepted.Load() == 0 {
		t.Error("the API server never had an EKS token authenticated: the engine did not reach it as EKS clients do")
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("%d of the engine's EKS tokens were refused", n)
	}

	want, got := simtest.Mutations(embedded.World), simtest.Mutations(wire.World)
	if got["helm.Install"] != 0 {
		t.Errorf("the wire run installed %d releases on the simulator's Helm, not on the real server", got["helm.Install"])
	}
	got["helm.Install"] = len(secrets.Items)
	t.Logf("%d kinds of mutating call, %d calls in all; %d token reviews", len(want), total(want), accepted.Load())
	if !maps.Equal(want, got) {
		for _, k := range slices.Sorted(maps.Keys(joinKeys(want, got))) {
			if want[k] != got[k] {
				t.Errorf("%s: embedded %d, wire %d", k, want[k], got[k])
			}
		}
	}
	for svc := range wire.World.Calls() {
		if svc == "kubernetes" || svc == "helm" {
			t.Errorf("the wire run called the simulator's own %s: %v", svc, wire.World.Calls()[svc])
		}
	}
}
