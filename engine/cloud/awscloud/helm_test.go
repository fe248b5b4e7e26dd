package awscloud

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	kubefake "helm.sh/helm/v4/pkg/kube/fake"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/instantstart/instantstart/engine/cloud"
)

// demoTemplate renders the values "greeting" and "replicas" into a
// ConfigMap, so that a test can read from the manifest what was applied.
const demoTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
  namespace: {{ .Release.Namespace }}
data:
  greeting: {{ .Values.greeting | quote }}
  replicas: {{ .Values.replicas | quote }}
`

// chartArchive packages chart "demo" at version as Helm does: a gzipped
// tar of demo/Chart.yaml, demo/values.yaml (greeting "hello", replicas 1)
// and demo/templates/configmap.yaml.
func chartArchive(t *testing.T, version string) []byte {
	t.Helper()
	files := []struct{ name, body string }{
		{"demo/Chart.yaml", fmt.Sprintf("apiVersion: v2\nname: demo\nversion: %s\nappVersion: %q\n", version, version+"-app")},
		{"demo/values.yaml", "greeting: hello\nreplicas: 1\n"},
		{"demo/templates/configmap.yaml", demoTemplate},
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chartRepo is an https chart repository serving chart "demo": an
// index.yaml and one archive per version, under /charts.
type chartRepo struct {
	srv *httptest.Server
	url string // the repository URL, without a trailing slash

	mu        sync.Mutex
	archives  map[string][]byte // by file name
	downloads int               // archive requests served
}

func newChartRepo(t *testing.T, versions ...string) *chartRepo {
	t.Helper()
	r := &chartRepo{archives: make(map[string][]byte)}
	var index strings.Builder
	index.WriteString("apiVersion: v1\nentries:\n  demo:\n")
	for _, v := range versions {
		archive := chartArchive(t, v)
		file := "demo-" + v + ".tgz"
		r.archives[file] = archive
		fmt.Fprintf(&index, "  - apiVersion: v2\n    name: demo\n    version: %s\n    appVersion: %q\n    digest: %x\n    urls:\n    - %s\n",
			v, v+"-app", sha256.Sum256(archive), file)
	}
	index.WriteString("generated: \"2026-01-01T00:00:00Z\"\n")
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name, ok := strings.CutPrefix(req.URL.Path, "/charts/")
		if !ok {
			http.NotFound(w, req)
			return
		}
		if name == "index.yaml" {
			io.WriteString(w, index.String())
			return
		}
		r.mu.Lock()
		archive, ok := r.archives[name]
		if ok {
			r.downloads++
		}
		r.mu.Unlock()
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "application/gzip")
		w.Write(archive)
	}))
	t.Cleanup(r.srv.Close)
	r.url = r.srv.URL + "/charts"
	return r
}

// transport trusts the repository's certificate.
func (r *chartRepo) transport() *http.Transport {
	return r.srv.Client().Transport.(*http.Transport)
}

func (r *chartRepo) downloadCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.downloads
}

// replaceArchive serves other bytes than the index's digest describes.
func (r *chartRepo) replaceArchive(file string, archive []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.archives[file] = archive
}

func TestChartSourceLoadsTheExactVersionFromARepository(t *testing.T) {
	repo := newChartRepo(t, "1.3.0", "1.2.0")
	dir := t.TempDir()
	src := newChartSource(dir, repo.transport())
	spec := cloud.HelmChart{Repository: repo.url, Chart: "demo", Version: "1.2.0"}

	ch, err := src.Load(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if md := ch.Metadata; md.Name != "demo" || md.Version != "1.2.0" || md.AppVersion != "1.2.0-app" {
		t.Errorf("loaded chart %s %s (app %s); want demo 1.2.0 (app 1.2.0-app)", md.Name, md.Version, md.AppVersion)
	}
	if len(ch.Templates) != 1 || ch.Values["greeting"] != "hello" {
		t.Errorf("loaded chart has %d templates and values %v; want the packaged template and values", len(ch.Templates), ch.Values)
	}

	// The archive is cached by the digest the index gives: loading the
	// same version again reads the index but not the archive.
	if _, err := src.Load(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	if n := repo.downloadCount(); n != 1 {
		t.Errorf("archive downloads = %d; want 1, the second load from the cache", n)
	}
	for _, pattern := range []string{"repository/*-index.yaml", "content/*/*.chart"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) != 1 {
			t.Errorf("cache files %s = %v; want one", pattern, m)
		}
	}
}

func TestChartSourceRefusesWhatItCannotLoadExactly(t *testing.T) {
	repo := newChartRepo(t, "1.3.0", "1.2.0")
	src := newChartSource(t.TempDir(), repo.transport())
	tests := []struct {
		name string
		spec cloud.HelmChart
		want []string // substrings of the error
	}{
		{
			name: "missing version",
			spec: cloud.HelmChart{Repository: repo.url, Chart: "demo", Version: "1.4.0"},
			want: []string{`chart "demo" version "1.4.0"`, repo.url, "no such version", "1.3.0, 1.2.0"},
		},
		{
			// Helm's own lookup would pick 1.3.0 for a range.
			name: "version range",
			spec: cloud.HelmChart{Repository: repo.url, Chart: "demo", Version: "^1.2.0"},
			want: []string{`version "^1.2.0"`, "no such version"},
		},
		{
			name: "unknown chart",
			spec: cloud.HelmChart{Repository: repo.url, Chart: "other", Version: "1.2.0"},
			want: []string{`chart "other" version "1.2.0"`, "no chart of that name"},
		},
		{
			name: "no version",
			spec: cloud.HelmChart{Repository: repo.url, Chart: "demo"},
			want: []string{"exact version"},
		},
		{
			name: "plain http repository",
			spec: cloud.HelmChart{Repository: "http://charts.example.com", Chart: "demo", Version: "1.2.0"},
			want: []string{"https:// chart repository or an oci:// registry"},
		},
		{
			name: "unreachable repository",
			spec: cloud.HelmChart{Repository: repo.srv.URL + "/elsewhere", Chart: "demo", Version: "1.2.0"},
			want: []string{"download the repository index", "404"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { loadFails(t, src, tt.spec, tt.want...) })
	}
}

func TestChartSourceRejectsAnArchiveTheIndexDoesNotDescribe(t *testing.T) {
	repo := newChartRepo(t, "1.2.0")
	repo.replaceArchive("demo-1.2.0.tgz", chartArchive(t, "1.2.1"))
	src := newChartSource(t.TempDir(), repo.transport())

	_, err := src.Load(context.Background(), cloud.HelmChart{Repository: repo.url, Chart: "demo", Version: "1.2.0"})
	if err == nil || !strings.Contains(err.Error(), "the repository index says") {
		t.Errorf("Load error = %v; want a digest mismatch", err)
	}
}

// TestInstallRendersTheValuesInAClientDryRun runs the install action the
// adapter configures, in Helm's client-only dry run: the chart downloaded
// from the repository renders with the given values over its defaults.
func TestInstallRendersTheValuesInAClientDryRun(t *testing.T) {
	repo := newChartRepo(t, "1.2.0")
	src := newChartSource(t.TempDir(), repo.transport())
	spec := cloud.HelmChart{
		Release: "demo", Namespace: "team-a",
		Repository: repo.url, Chart: "demo", Version: "1.2.0",
		Values: map[string]any{"greeting": "hi"},
	}
	ctx := context.Background()
	ch, err := src.Load(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}

	install := newInstall(ctx, action.NewConfiguration(), spec)
	install.DryRunStrategy = action.DryRunClient
	res, err := install.RunWithContext(ctx, ch, spec.Values)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := asRelease(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"name: demo-settings", "namespace: team-a", `greeting: "hi"`, `replicas: "1"`} {
		if !strings.Contains(rel.Manifest, want) {
			t.Errorf("rendered manifest lacks %q:\n%s", want, rel.Manifest)
		}
	}
}

// memoryHelm returns a Helm adapter whose releases live in memory and whose
// Kubernetes client applies nothing, with charts from repo.
func memoryHelm(t *testing.T, repo *chartRepo) (*helmAdapter, *driver.Memory) {
	t.Helper()
	mem := driver.NewMemory()
	h := &helmAdapter{
		charts: newChartSource(t.TempDir(), repo.transport()),
		actionConfig: func(_ context.Context, _, namespace string) (*action.Configuration, error) {
			cfg := action.NewConfiguration()
			mem.SetNamespace(namespace)
			cfg.Releases = storage.Init(mem)
			cfg.KubeClient = &kubefake.PrintingKubeClient{Out: io.Discard}
			cfg.Capabilities = common.DefaultCapabilities.Copy()
			return cfg, nil
		},
	}
	return h, mem
}

func TestHelmInstallsUpgradesAndUninstalls(t *testing.T) {
	repo := newChartRepo(t, "1.3.0", "1.2.0")
	h, mem := memoryHelm(t, repo)
	ctx := context.Background()
	spec := cloud.HelmChart{
		Release: "demo", Namespace: "team-a",
		Repository: repo.url, Chart: "demo", Version: "1.2.0",
		Values: map[string]any{"greeting": "hi", "replicas": 3},
	}

	if rel, err := h.Release(ctx, "eks-1", "team-a", "demo"); err != nil || rel != nil {
		t.Fatalf("Release before install = %+v, %v; want nil, nil", rel, err)
	}

	rel, err := h.Install(ctx, "eks-1", spec)
	if err != nil {
		t.Fatal(err)
	}
	want := cloud.HelmRelease{
		Name: "demo", Namespace: "team-a", Chart: "demo", ChartVersion: "1.2.0", AppVersion: "1.2.0-app",
		Revision: 1, Status: cloud.HelmDeployed, Description: "Install complete", Values: spec.Values,
	}
	checkHelmRelease(t, "after install", rel, want)

	// Installing again upgrades: the new chart version, with the chart's
	// defaults and only the values given now.
	spec.Version = "1.3.0"
	spec.Values = map[string]any{"greeting": "bye"}
	rel, err = h.Install(ctx, "eks-1", spec)
	if err != nil {
		t.Fatal(err)
	}
	want.ChartVersion, want.AppVersion, want.Revision, want.Description, want.Values =
		"1.3.0", "1.3.0-app", 2, "Upgrade complete", spec.Values
	checkHelmRelease(t, "after upgrade", rel, want)
	mem.SetNamespace("team-a")
	applied, err := mem.Get("sh.helm.release.v1.demo.v2")
	if err != nil {
		t.Fatal(err)
	}
	manifest := applied.(*release.Release).Manifest
	if !strings.Contains(manifest, `greeting: "bye"`) || !strings.Contains(manifest, `replicas: "1"`) {
		t.Errorf("upgraded manifest does not hold the new values over the chart defaults:\n%s", manifest)
	}

	rel, err = h.Release(ctx, "eks-1", "team-a", "demo")
	if err != nil {
		t.Fatal(err)
	}
	checkHelmRelease(t, "Release", rel, want)

	if err := h.Uninstall(ctx, "eks-1", "team-a", "demo"); err != nil {
		t.Fatal(err)
	}
	if rel, err := h.Release(ctx, "eks-1", "team-a", "demo"); err != nil || rel != nil {
		t.Errorf("Release after uninstall = %+v, %v; want nil, nil", rel, err)
	}
	if err := h.Uninstall(ctx, "eks-1", "team-a", "demo"); err != nil {
		t.Errorf("second Uninstall = %v; want nil for a release that is not installed", err)
	}
}

func TestHelmInstallNamesTheChartThatCannotBeFound(t *testing.T) {
	repo := newChartRepo(t, "1.2.0")
	h, _ := memoryHelm(t, repo)
	_, err := h.Install(context.Background(), "eks-1", cloud.HelmChart{
		Release: "demo", Namespace: "team-a", Repository: repo.url, Chart: "demo", Version: "2.0.0",
	})
	errMentions(t, err, `team-a/demo`, `"eks-1"`, `chart "demo" version "2.0.0"`, "1.2.0")
}

func checkHelmRelease(t *testing.T, when string, got *cloud.HelmRelease, want cloud.HelmRelease) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: release is nil", when)
	}
	if got.Updated.IsZero() {
		t.Errorf("%s: Updated is zero", when)
	}
	g := *got
	g.Updated = time.Time{}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("%s: release = %+v\nwant %+v", when, g, want)
	}
}

// fakeHelmAPI is a Kubernetes API server that serves what Helm reads:
// the server version and the release Secrets of a namespace, filtered by
// label selector. It requires an EKS token and records each request.
type fakeHelmAPI struct {
	srv *httptest.Server

	mu       sync.Mutex
	secrets  map[string][]map[string]any // by namespace
	requests []string                    // "GET /path?query"
}

func newFakeHelmAPI(t *testing.T) *fakeHelmAPI {
	t.Helper()
	f := &fakeHelmAPI{secrets: make(map[string][]map[string]any)}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if err := checkEKSToken(token); !ok || err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401,"message":%q}`, fmt.Sprint(err))
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/version":
			io.WriteString(w, `{"major":"1","minor":"33","gitVersion":"v1.33.0"}`)
		case r.Method == http.MethodGet && len(parts) == 5 && parts[0] == "api" && parts[2] == "namespaces" && parts[4] == "secrets":
			sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			items := []map[string]any{}
			for _, s := range f.secrets[parts[3]] {
				if sel.Matches(labels.Set(s["metadata"].(map[string]any)["labels"].(map[string]string))) {
					items = append(items, s)
				}
			}
			json.NewEncoder(w).Encode(map[string]any{"kind": "SecretList", "apiVersion": "v1", "metadata": map[string]any{}, "items": items})
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// storeRelease keeps rel as Helm's secret driver does: a Secret whose
// "release" key holds the gzipped JSON, base64-encoded.
func (f *fakeHelmAPI) storeRelease(t *testing.T, rel *release.Release) {
	t.Helper()
	raw, err := json.Marshal(rel)
	if err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(raw)
	zw.Close()
	secret := map[string]any{
		"metadata": map[string]any{
			"name":      fmt.Sprintf("sh.helm.release.v1.%s.v%d", rel.Name, rel.Version),
			"namespace": rel.Namespace,
			"labels": map[string]string{
				"name": rel.Name, "owner": "helm", "status": string(rel.Info.Status), "version": fmt.Sprint(rel.Version),
			},
		},
		"type": "helm.sh/release.v1",
		"data": map[string][]byte{"release": []byte(base64.StdEncoding.EncodeToString(zipped.Bytes()))},
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.secrets[rel.Namespace] = append(f.secrets[rel.Namespace], secret)
}

func (f *fakeHelmAPI) seenRequests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// TestHelmReadsReleasesThroughTheEKSAuthenticatedAPI runs the real
// configuration: Helm's Kubernetes client and secret storage on the
// Kubernetes adapter's EKS-token client configuration.
func TestHelmReadsReleasesThroughTheEKSAuthenticatedAPI(t *testing.T) {
	isolateAWSEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	api := newFakeHelmAPI(t)
	deployed := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for v, status := range []rcommon.Status{rcommon.StatusSuperseded, rcommon.StatusDeployed} {
		api.storeRelease(t, &release.Release{
			Name: "kuberay-operator", Namespace: "kuberay", Version: v + 1,
			Chart:  &chartv2.Chart{Metadata: &chartv2.Metadata{APIVersion: "v2", Name: "kuberay-operator", Version: fmt.Sprintf("1.%d.0", v+3), AppVersion: "v1.4.0"}},
			Config: map[string]any{"image": map[string]any{"tag": "v1.4.0"}},
			Info:   &release.Info{Status: status, Description: "Upgrade complete", LastDeployed: deployed.Add(time.Duration(v) * time.Hour)},
		})
	}
	eksAPI := &fakeEKS{clusters: map[string]*ekstypes.Cluster{"demo": eksCluster("demo", api.srv)}}
	h := newHelm(newKubernetes(eksAPI, testSTSClient(), nil), "")
	ctx := context.Background()

	rel, err := h.Release(ctx, "demo", "kuberay", "kuberay-operator")
	if err != nil {
		t.Fatal(err)
	}
	checkHelmRelease(t, "Release", rel, cloud.HelmRelease{
		Name: "kuberay-operator", Namespace: "kuberay", Chart: "kuberay-operator", ChartVersion: "1.4.0", AppVersion: "v1.4.0",
		Revision: 2, Status: cloud.HelmDeployed, Description: "Upgrade complete",
		Values: map[string]any{"image": map[string]any{"tag": "v1.4.0"}},
	})
	if !rel.Updated.Equal(deployed.Add(time.Hour)) {
		t.Errorf("Updated = %v; want %v", rel.Updated, deployed.Add(time.Hour))
	}

	if rel, err := h.Release(ctx, "demo", "kuberay", "absent"); err != nil || rel != nil {
		t.Errorf("Release(absent) = %+v, %v; want nil, nil", rel, err)
	}
	if err := h.Uninstall(ctx, "demo", "kuberay", "absent"); err != nil {
		t.Errorf("Uninstall(absent) = %v; want nil", err)
	}
	var listed bool
	for _, r := range api.seenRequests() {
		if strings.HasPrefix(r, "GET /api/v1/namespaces/kuberay/secrets?") &&
			strings.Contains(r, "name%3Dkuberay-operator") && strings.Contains(r, "owner%3Dhelm") {
			listed = true
		}
	}
	if !listed {
		t.Errorf("requests = %v; want Helm's release Secrets listed in namespace kuberay", api.seenRequests())
	}

	_, err = h.Release(ctx, "gone", "kuberay", "kuberay-operator")
	var notFound *ekstypes.ResourceNotFoundException
	if !errors.As(err, &notFound) || !strings.Contains(err.Error(), `EKS cluster "gone"`) {
		t.Errorf("Release in a missing cluster: error = %v; want one naming the cluster and wrapping ResourceNotFoundException", err)
	}
}

// TestProviderHandsOutHelm checks the wiring in Regions: the region's Helm
// port reaches a cluster through the region's EKS client.
func TestProviderHandsOutHelm(t *testing.T) {
	isolateAWSEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	api := newFakeHelmAPI(t)
	c := eksCluster("demo", api.srv)
	srv, _ := fakeAWS(t, http.StatusOK, "application/json", fmt.Sprintf(
		`{"cluster":{"name":"demo","status":"ACTIVE","endpoint":%q,"certificateAuthority":{"data":%q}}}`,
		*c.Endpoint, *c.CertificateAuthority.Data))
	p, err := newTestRegions(t, srv.URL).Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	if p.Helm == nil {
		t.Fatal("Provider.Helm is nil")
	}
	if rel, err := p.Helm.Release(context.Background(), "demo", "keda", "keda"); err != nil || rel != nil {
		t.Errorf("Release = %+v, %v; want nil, nil", rel, err)
	}
}

// fakeOCIRegistry serves one chart as <repository>:<tag> with the parts of
// the OCI distribution API a pull uses: manifests by tag or digest, blobs.
func fakeOCIRegistry(t *testing.T, repository, tag string, archive []byte) *httptest.Server {
	t.Helper()
	digest := func(b []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(b)) }
	config := []byte(`{"apiVersion":"v2","name":"demo","version":"` + tag + `"}`)
	manifest := []byte(fmt.Sprintf(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",`+
		`"config":{"mediaType":"application/vnd.cncf.helm.config.v1+json","digest":%q,"size":%d},`+
		`"layers":[{"mediaType":"application/vnd.cncf.helm.chart.content.v1.tar+gzip","digest":%q,"size":%d}]}`,
		digest(config), len(config), digest(archive), len(archive)))
	blobs := map[string][]byte{digest(config): config, digest(archive): archive}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prefix := "/v2/" + repository + "/"
		rest, ok := strings.CutPrefix(r.URL.Path, prefix)
		switch {
		case ok && (rest == "manifests/"+tag || rest == "manifests/"+digest(manifest)):
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Docker-Content-Digest", digest(manifest))
			w.Header().Set("Content-Length", fmt.Sprint(len(manifest)))
			if r.Method == http.MethodGet {
				w.Write(manifest)
			}
		case ok && strings.HasPrefix(rest, "blobs/") && blobs[strings.TrimPrefix(rest, "blobs/")] != nil:
			b := blobs[strings.TrimPrefix(rest, "blobs/")]
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", fmt.Sprint(len(b)))
			w.Write(b)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestChartSourcePullsFromAnOCIRegistry(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	srv := fakeOCIRegistry(t, "charts/demo", "1.2.0", chartArchive(t, "1.2.0"))
	src := newChartSource(t.TempDir(), srv.Client().Transport.(*http.Transport))
	registry := "oci://" + strings.TrimPrefix(srv.URL, "https://") + "/charts"

	ch, err := src.Load(context.Background(), cloud.HelmChart{Repository: registry, Chart: "demo", Version: "1.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Metadata.Name != "demo" || ch.Metadata.Version != "1.2.0" {
		t.Errorf("loaded chart %s %s; want demo 1.2.0", ch.Metadata.Name, ch.Metadata.Version)
	}

	_, err = src.Load(context.Background(), cloud.HelmChart{Repository: registry, Chart: "demo", Version: "1.9.0"})
	if err == nil || !strings.Contains(err.Error(), `chart "demo" version "1.9.0"`) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("Load of a missing tag: error = %v; want one naming the chart, the version and not found", err)
	}
}

// TestRESTClientGetterKeepsWhatHelmResets checks the parts of the getter
// Helm relies on: the release namespace as the default namespace, one
// discovery client and a resettable REST mapper over it (Helm resets both
// after installing CRDs), and configurations callers may change without
// harm.
func TestRESTClientGetterKeepsWhatHelmResets(t *testing.T) {
	base := &rest.Config{Host: "https://eks.example.com", UserAgent: "instantstart"}
	g, err := newRESTClientGetter(base, "kuberay")
	if err != nil {
		t.Fatal(err)
	}
	if ns, _, err := g.ToRawKubeConfigLoader().Namespace(); err != nil || ns != "kuberay" {
		t.Errorf("default namespace = %q, %v; want kuberay", ns, err)
	}
	if m, _ := g.ToRESTMapper(); m == nil {
		t.Error("no REST mapper")
	} else if _, ok := m.(meta.ResettableRESTMapper); !ok {
		t.Errorf("REST mapper %T cannot be reset; Helm resets it to see new CRDs", m)
	}
	d1, _ := g.ToDiscoveryClient()
	d2, _ := g.ToDiscoveryClient()
	if d1 != d2 {
		t.Error("the getter hands out a new discovery client per call; want one")
	}
	cfg, _ := g.ToRESTConfig()
	cfg.Host = "https://elsewhere"
	if again, _ := g.ToRESTConfig(); again.Host != base.Host {
		t.Errorf("after a caller changed its copy, Host = %q; want %q", again.Host, base.Host)
	}
}

// saveChart packages chart "demo" at version with the Helm SDK into dir,
// under the name helm package and helm pull give it (demo-<version>.tgz),
// and returns the archive's path. Its values (greeting "offline",
// replicas 2) and app version ("offline") tell it from the repository's
// charts of chartArchive.
func saveChart(t *testing.T, dir, version string) string {
	t.Helper()
	ch := &chartv2.Chart{
		Metadata:  &chartv2.Metadata{APIVersion: chartv2.APIVersionV2, Name: "demo", Version: version, AppVersion: "offline"},
		Templates: []*common.File{{Name: "templates/configmap.yaml", Data: []byte(demoTemplate)}},
		Raw:       []*common.File{{Name: chartutil.ValuesfileName, Data: []byte("greeting: offline\nreplicas: 2\n")}},
	}
	path, err := chartutil.Save(ch, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "demo-"+version+".tgz"); path != want {
		t.Fatalf("the Helm SDK saved the chart as %s; want %s", path, want)
	}
	return path
}

// noNetworkRepository returns the URL of an https repository that fails
// the test on any request: a chart source with a chart folder must not
// download.
func noNetworkRepository(t *testing.T) string {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the chart repository got %s %s; with a chart folder nothing is downloaded", r.Method, r.URL)
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/charts"
}

func TestChartSourceLoadsFromTheChartFolderWithoutDownloading(t *testing.T) {
	chartDir, cacheDir := t.TempDir(), t.TempDir()
	saveChart(t, chartDir, "1.2.0")
	saveChart(t, chartDir, "1.3.0")
	repoURL := noNetworkRepository(t)
	// The loader the engine builds for a chart folder, with the user cache
	// directory (where charts are otherwise kept) in cacheDir.
	t.Setenv("XDG_CACHE_HOME", cacheDir)
	src := newHelm(nil, chartDir).charts

	for _, repository := range []string{repoURL, "oci://" + strings.TrimPrefix(repoURL, "https://")} {
		t.Run(repository, func(t *testing.T) {
			ch, err := src.Load(context.Background(), cloud.HelmChart{Repository: repository, Chart: "demo", Version: "1.2.0"})
			if err != nil {
				t.Fatal(err)
			}
			if md := ch.Metadata; md.Name != "demo" || md.Version != "1.2.0" || md.AppVersion != "offline" {
				t.Errorf("loaded chart %s %s (app %s); want demo 1.2.0 (app offline) from the chart folder", md.Name, md.Version, md.AppVersion)
			}
			if len(ch.Templates) != 1 || ch.Values["greeting"] != "offline" {
				t.Errorf("loaded chart has %d templates and values %v; want the folder's template and values", len(ch.Templates), ch.Values)
			}
		})
	}
	if entries, err := os.ReadDir(cacheDir); err != nil || len(entries) != 0 {
		t.Errorf("cache directory holds %v (%v); want nothing cached with a chart folder", entries, err)
	}
}

func TestChartSourceRefusesWhatTheChartFolderDoesNotHoldExactly(t *testing.T) {
	parent := t.TempDir()
	chartDir := filepath.Join(parent, "charts")
	saveChart(t, chartDir, "1.2.0")
	// demo-1.5.0.tgz holds version 1.2.1: a file renamed by hand.
	if err := os.Rename(saveChart(t, t.TempDir(), "1.2.1"), filepath.Join(chartDir, "demo-1.5.0.tgz")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(chartDir, "demo-1.6.0.tgz"), 0o755); err != nil {
		t.Fatal(err)
	}
	// An archive just outside the folder, for the names that would reach it.
	saveChart(t, parent, "1.2.0")
	repoURL := noNetworkRepository(t)
	ociURL := "oci://registry.example.com/charts/"
	src := chartFolder(chartDir)

	tests := []struct {
		name string
		spec cloud.HelmChart
		want []string // substrings of the error
	}{
		{
			name: "missing archive of an https repository",
			spec: cloud.HelmChart{Repository: repoURL, Chart: "demo", Version: "1.3.0"},
			want: []string{`chart "demo" version "1.3.0"`, "no archive " + filepath.Join(chartDir, "demo-1.3.0.tgz"),
				"helm pull demo --repo " + repoURL + " --version 1.3.0 --destination " + chartDir},
		},
		{
			name: "missing archive of an OCI registry",
			spec: cloud.HelmChart{Repository: ociURL, Chart: "demo", Version: "1.3.0"},
			want: []string{"no archive " + filepath.Join(chartDir, "demo-1.3.0.tgz"),
				"helm pull oci://registry.example.com/charts/demo --version 1.3.0 --destination " + chartDir},
		},
		{
			name: "archive of another version",
			spec: cloud.HelmChart{Repository: repoURL, Chart: "demo", Version: "1.5.0"},
			want: []string{filepath.Join(chartDir, "demo-1.5.0.tgz"), `the archive holds chart "demo" version "1.2.1"`, "helm pull demo"},
		},
		{
			name: "directory in place of the archive",
			spec: cloud.HelmChart{Repository: repoURL, Chart: "demo", Version: "1.6.0"},
			want: []string{filepath.Join(chartDir, "demo-1.6.0.tgz") + " is not a file"},
		},
		{
			name: "chart name leaving the folder",
			spec: cloud.HelmChart{Repository: repoURL, Chart: "../demo", Version: "1.2.0"},
			want: []string{`chart name "../demo" cannot name an archive in the chart folder`},
		},
		{
			name: "chart name with a slash",
			spec: cloud.HelmChart{Repository: repoURL, Chart: "sub/demo", Version: "1.2.0"},
			want: []string{`chart name "sub/demo" cannot name an archive`},
		},
		{
			name: "chart version with a backslash",
			spec: cloud.HelmChart{Repository: repoURL, Chart: "demo", Version: `1.2.0\x`},
			want: []string{`chart version "1.2.0\\x" cannot name an archive`},
		},
		{
			name: "chart version with dots",
			spec: cloud.HelmChart{Repository: repoURL, Chart: "demo", Version: "1.2.0..x"},
			want: []string{`chart version "1.2.0..x" cannot name an archive`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { loadFails(t, src, tt.spec, tt.want...) })
	}
}

// TestHelmInstallsFromTheChartFolder installs and upgrades with charts from
// the folder alone, the way tests and air-gapped hosts use it.
func TestHelmInstallsFromTheChartFolder(t *testing.T) {
	chartDir := t.TempDir()
	saveChart(t, chartDir, "1.2.0")
	saveChart(t, chartDir, "1.3.0")
	h, _ := memoryHelm(t, newChartRepo(t))
	h.charts = chartFolder(chartDir)
	ctx := context.Background()
	spec := cloud.HelmChart{
		Release: "demo", Namespace: "team-a",
		Repository: noNetworkRepository(t), Chart: "demo", Version: "1.2.0",
		Values: map[string]any{"greeting": "hi"},
	}

	rel, err := h.Install(ctx, "eks-1", spec)
	if err != nil {
		t.Fatal(err)
	}
	want := cloud.HelmRelease{
		Name: "demo", Namespace: "team-a", Chart: "demo", ChartVersion: "1.2.0", AppVersion: "offline",
		Revision: 1, Status: cloud.HelmDeployed, Description: "Install complete", Values: spec.Values,
	}
	checkHelmRelease(t, "after install", rel, want)

	spec.Version = "1.3.0"
	rel, err = h.Install(ctx, "eks-1", spec)
	if err != nil {
		t.Fatal(err)
	}
	want.ChartVersion, want.Revision, want.Description = "1.3.0", 2, "Upgrade complete"
	checkHelmRelease(t, "after upgrade", rel, want)

	spec.Version = "2.0.0"
	_, err = h.Install(ctx, "eks-1", spec)
	errMentions(t, err, "team-a/demo", `"eks-1"`, filepath.Join(chartDir, "demo-2.0.0.tgz"), "helm pull demo")
}

// newRegionsWithChartDir calls New with newTestRegions' options and
// chartDir.
func newRegionsWithChartDir(t *testing.T, chartDir string) (*Regions, error) {
	t.Helper()
	opts := testOptions("")
	opts.ChartDir = chartDir
	return New(context.Background(), opts)
}

func TestNewRefusesABadChartFolder(t *testing.T) {
	isolateAWSEnv(t)
	parent := t.TempDir()
	file := filepath.Join(parent, "charts.txt")
	if err := os.WriteFile(file, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, chartDir string
		want           []string
	}{
		{name: "missing", chartDir: filepath.Join(parent, "absent"), want: []string{filepath.Join(parent, "absent") + " does not exist", "helm pull"}},
		{name: "a file", chartDir: file, want: []string{file + " is not a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newRegionsWithChartDir(t, tt.chartDir)
			errMentions(t, err, tt.want...)
		})
	}
}

// TestProviderLoadsChartsFromTheChartFolder checks the wiring from Options
// to the region's Helm port, with a relative folder made absolute so that
// errors name the exact file.
func TestProviderLoadsChartsFromTheChartFolder(t *testing.T) {
	isolateAWSEnv(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	saveChart(t, "charts", "1.2.0")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRegionsWithChartDir(t, "charts")
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	h, ok := p.Helm.(*helmAdapter)
	if !ok {
		t.Fatalf("Provider.Helm is %T; want *helmAdapter", p.Helm)
	}
	repoURL := noNetworkRepository(t)
	ch, err := h.charts.Load(context.Background(), cloud.HelmChart{Repository: repoURL, Chart: "demo", Version: "1.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Metadata.AppVersion != "offline" {
		t.Errorf("loaded chart of app version %q; want the folder's (offline)", ch.Metadata.AppVersion)
	}
	_, err = h.charts.Load(context.Background(), cloud.HelmChart{Repository: repoURL, Chart: "demo", Version: "9.9.9"})
	if want := filepath.Join(wd, "charts", "demo-9.9.9.tgz"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load of a missing archive: error = %v; want it to name %s", err, want)
	}
}

// loadFails wants src.Load(spec) to fail with an error that mentions each
// of want.
func loadFails(t *testing.T, src chartLoader, spec cloud.HelmChart, want ...string) {
	t.Helper()
	_, err := src.Load(context.Background(), spec)
	errMentions(t, err, want...)
}

// errMentions fails the test unless err is an error that mentions each of
// want.
func errMentions(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error; want one that mentions %q", want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}
