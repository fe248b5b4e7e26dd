package awscloud

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/action"
	ci "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/loader"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/downloader"
	"helm.sh/helm/v4/pkg/getter"
	"helm.sh/helm/v4/pkg/kube"
	"helm.sh/helm/v4/pkg/registry"
	ri "helm.sh/helm/v4/pkg/release"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"
	repo "helm.sh/helm/v4/pkg/repo/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/instantstart/instantstart/engine/cloud"
)

const (
	// helmStorageDriver keeps release records as Secrets in the release's
	// namespace, Helm's default, so that the helm CLI sees the same
	// releases.
	helmStorageDriver = "secret"
	// helmHookTimeout bounds each chart hook Helm runs (the CLI default).
	// Helm does not wait for the chart's workloads: callers follow them.
	helmHookTimeout = 5 * time.Minute
	// helmMaxHistory is how many revisions an upgrade keeps (the default of
	// helm upgrade), so that release Secrets do not pile up.
	helmMaxHistory = 10
)

// helmAdapter implements cloud.Helm for real EKS clusters with the Helm Go
// SDK. Charts come from chartSource, below the Kubernetes API; each call
// gets a Helm configuration for the release's namespace from actionConfig.
type helmAdapter struct {
	charts chartLoader
	// actionConfig returns a Helm configuration whose Kubernetes client and
	// release storage work in namespace of eksCluster's Kubernetes API.
	actionConfig func(ctx context.Context, eksCluster, namespace string) (*action.Configuration, error)
}

var _ cloud.Helm = (*helmAdapter)(nil)

// newHelm builds the Helm adapter on the Kubernetes adapter's client
// configuration (endpoint, certificate authority, EKS token), with charts
// cached in the user's cache directory or, when chartDir is not empty,
// read from the archives in chartDir alone (see Options.ChartDir).
func newHelm(k *kubeAdapter, chartDir string) *helmAdapter {
	var charts chartLoader = newChartSource(helmCacheDir(), nil)
	if chartDir != "" {
		charts = chartFolder(chartDir)
	}
	return &helmAdapter{
		charts: charts,
		actionConfig: func(ctx context.Context, eksCluster, namespace string) (*action.Configuration, error) {
			cfg, err := k.restConfig(ctx, eksCluster)
			if err != nil {
				return nil, err
			}
			return newActionConfig(cfg, namespace)
		},
	}
}

// helmCacheDir is where downloaded repository indexes and charts are kept:
// InstantStart's own directory, never the helm CLI's.
func helmCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "instantstart", "helm")
	}
	return filepath.Join(os.TempDir(), "instantstart-helm")
}

// Release returns the newest revision of the release, or nil when there is
// none.
func (h *helmAdapter) Release(ctx context.Context, eksCluster, namespace, name string) (*cloud.HelmRelease, error) {
	cfg, err := h.actionConfig(ctx, eksCluster, namespace)
	if err != nil {
		return nil, fmt.Errorf("read helm release %s/%s in EKS cluster %q: %w", namespace, name, eksCluster, err)
	}
	rel, err := latestRelease(cfg, name)
	if err != nil {
		return nil, fmt.Errorf("read helm release %s/%s in EKS cluster %q: %w", namespace, name, eksCluster, err)
	}
	if rel == nil {
		return nil, nil
	}
	return toHelmRelease(rel), nil
}

// Install loads the chart (from the chart folder, or downloading it), then
// installs it, or upgrades the release when it exists.
func (h *helmAdapter) Install(ctx context.Context, eksCluster string, chart cloud.HelmChart) (*cloud.HelmRelease, error) {
	what := fmt.Sprintf("helm release %s/%s in EKS cluster %q", chart.Namespace, chart.Release, eksCluster)
	if chart.Release == "" || chart.Namespace == "" {
		return nil, fmt.Errorf("install %s: the release name and namespace are required", what)
	}
	ch, err := h.charts.Load(ctx, chart) // the error names the chart and version
	if err != nil {
		return nil, fmt.Errorf("install %s: %w", what, err)
	}
	cfg, err := h.actionConfig(ctx, eksCluster, chart.Namespace)
	if err != nil {
		return nil, fmt.Errorf("install %s: %w", what, err)
	}
	rel, err := installOrUpgrade(ctx, cfg, ch, chart)
	if err != nil {
		return nil, fmt.Errorf("install %s with chart %s %s: %w", what, chart.Chart, chart.Version, err)
	}
	return toHelmRelease(rel), nil
}

// Uninstall removes the release; a release that is not installed is not an
// error.
func (h *helmAdapter) Uninstall(ctx context.Context, eksCluster, namespace, name string) error {
	cfg, err := h.actionConfig(ctx, eksCluster, namespace)
	if err != nil {
		return fmt.Errorf("uninstall helm release %s/%s in EKS cluster %q: %w", namespace, name, eksCluster, err)
	}
	if err := uninstallRelease(cfg, name); err != nil {
		return fmt.Errorf("uninstall helm release %s/%s in EKS cluster %q: %w", namespace, name, eksCluster, err)
	}
	return nil
}

// latestRelease returns the newest revision of release name, whatever its
// status, or nil when Helm has no record of it.
func latestRelease(cfg *action.Configuration, name string) (*release.Release, error) {
	history, err := action.NewHistory(cfg).Run(name)
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var newest *release.Release
	for _, r := range history {
		rel, err := asRelease(r)
		if err != nil {
			return nil, err
		}
		if newest == nil || rel.Version > newest.Version {
			newest = rel
		}
	}
	return newest, nil
}

// installOrUpgrade installs ch as a new release, or upgrades the release
// when Helm has one of that name, and returns once the manifests are
// applied.
func installOrUpgrade(ctx context.Context, cfg *action.Configuration, ch *chartv2.Chart, spec cloud.HelmChart) (*release.Release, error) {
	current, err := latestRelease(cfg, spec.Release)
	if err != nil {
		return nil, fmt.Errorf("read the release history: %w", err)
	}
	values := spec.Values
	if values == nil {
		values = map[string]any{}
	}
	var res ri.Releaser
	if current == nil || current.Info.Status == rcommon.StatusUninstalled {
		install := newInstall(ctx, cfg, spec)
		// A release uninstalled with its history kept still holds the name.
		install.Replace = current != nil
		res, err = install.RunWithContext(ctx, ch, values)
	} else {
		res, err = newUpgrade(ctx, cfg, spec).RunWithContext(ctx, spec.Release, ch, values)
	}
	if err != nil {
		return nil, err
	}
	return asRelease(res)
}

// newInstall configures Helm's install of spec: create the namespace,
// apply the manifests and run the hooks, without waiting for the workloads.
func newInstall(ctx context.Context, cfg *action.Configuration, spec cloud.HelmChart) *action.Install {
	install := action.NewInstall(cfg)
	install.ReleaseName = spec.Release
	install.Namespace = spec.Namespace
	install.CreateNamespace = true
	install.WaitStrategy = kube.HookOnlyStrategy
	install.WaitOptions = []kube.WaitOption{kube.WithWaitContext(ctx)}
	install.Timeout = helmHookTimeout
	return install
}

// newUpgrade configures Helm's upgrade of spec's release: the chart's
// defaults and spec's values, nothing reused from the previous revision.
func newUpgrade(ctx context.Context, cfg *action.Configuration, spec cloud.HelmChart) *action.Upgrade {
	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = spec.Namespace
	upgrade.ResetValues = true
	upgrade.MaxHistory = helmMaxHistory
	upgrade.WaitStrategy = kube.HookOnlyStrategy
	upgrade.WaitOptions = []kube.WaitOption{kube.WithWaitContext(ctx)}
	upgrade.Timeout = helmHookTimeout
	return upgrade
}

// uninstallRelease uninstalls release name and purges its history. Helm's
// own IgnoreNotFound also swallows errors reading the history (an
// unreachable API, say), so not-found is recognised here instead.
func uninstallRelease(cfg *action.Configuration, name string) error {
	uninstall := action.NewUninstall(cfg)
	uninstall.WaitStrategy = kube.HookOnlyStrategy
	uninstall.Timeout = helmHookTimeout
	uninstall.DeletionPropagation = "background"
	_, err := uninstall.Run(name)
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return nil
	}
	return err
}

// asRelease unwraps the release records of Helm's v2 chart API, the only
// ones Helm 4 installs.
func asRelease(r ri.Releaser) (*release.Release, error) {
	switch rel := r.(type) {
	case *release.Release:
		return rel, nil
	case release.Release:
		return &rel, nil
	default:
		return nil, fmt.Errorf("unsupported helm release record %T", r)
	}
}

// toHelmRelease maps a Helm release record to the port's type.
func toHelmRelease(rel *release.Release) *cloud.HelmRelease {
	out := &cloud.HelmRelease{
		Name:      rel.Name,
		Namespace: rel.Namespace,
		Revision:  rel.Version,
		Values:    rel.Config,
	}
	if md := chartMetadata(rel.Chart); md != nil {
		out.Chart, out.ChartVersion, out.AppVersion = md.Name, md.Version, md.AppVersion
	}
	if rel.Info != nil {
		out.Status = string(rel.Info.Status)
		out.Description = rel.Info.Description
		out.Updated = rel.Info.LastDeployed
	}
	return out
}

func chartMetadata(ch *chartv2.Chart) *chartv2.Metadata {
	if ch == nil {
		return nil
	}
	return ch.Metadata
}

// newActionConfig returns a Helm configuration for namespace of the
// cluster cfg reaches, with release records in Secrets there.
func newActionConfig(cfg *rest.Config, namespace string) (*action.Configuration, error) {
	getter, err := newRESTClientGetter(cfg, namespace)
	if err != nil {
		return nil, err
	}
	ac := action.NewConfiguration()
	if err := ac.Init(getter, namespace, helmStorageDriver); err != nil {
		return nil, fmt.Errorf("helm configuration for namespace %q: %w", namespace, err)
	}
	return ac, nil
}

// restClientGetter hands Helm the Kubernetes adapter's client
// configuration in place of a kubeconfig file. The discovery client and
// REST mapper are made once, as Helm resets them after installing CRDs and
// expects to see the reset on the next call.
type restClientGetter struct {
	config    *rest.Config
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
	loader    clientcmd.ClientConfig
}

func newRESTClientGetter(cfg *rest.Config, namespace string) (*restClientGetter, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes discovery client: %w", err)
	}
	cached := memory.NewMemCacheClient(dc)
	return &restClientGetter{
		config:    cfg,
		discovery: cached,
		mapper:    restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(cached), cached, nil),
		// Only the namespace is read from it: Helm's Kubernetes client
		// takes it as the default namespace of the manifests it applies.
		loader: clientcmd.NewDefaultClientConfig(*clientcmdapi.NewConfig(), &clientcmd.ConfigOverrides{
			Context: clientcmdapi.Context{Namespace: namespace},
		}),
	}, nil
}

// ToRESTConfig returns a copy, as callers may change what they get.
func (g *restClientGetter) ToRESTConfig() (*rest.Config, error) {
	return rest.CopyConfig(g.config), nil
}

func (g *restClientGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.discovery, nil
}

func (g *restClientGetter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper, nil }

func (g *restClientGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig { return g.loader }

// chartLoader loads the chart a spec names, at exactly its version; every
// error begins with the chart, the version and the repository.
type chartLoader interface {
	Load(ctx context.Context, spec cloud.HelmChart) (*chartv2.Chart, error)
}

// chartSource finds an exact chart version in an https chart repository
// or an OCI registry, keeps the archive in a cache and loads it. It works
// below the Kubernetes API. Its cache directory holds:
//
//	repository/  downloaded repository indexes
//	content/     chart archives, by sha256
//	registry/    an OCI credentials file (Helm falls back to Docker's)
type chartSource struct {
	dir       string
	getters   getter.Providers
	transport *http.Transport // nil means Helm's default
}

// newChartSource returns a chart source caching under dir. transport, when
// not nil, carries every download (tests use it to trust a local server).
func newChartSource(dir string, transport *http.Transport) *chartSource {
	var opts []getter.Option
	if transport != nil {
		opts = append(opts, getter.WithTransport(transport))
	}
	return &chartSource{dir: dir, getters: getter.Getters(opts...), transport: transport}
}

// Load returns the chart spec names, at exactly its version. Helm's
// downloads do not take a context: ctx is checked before each step, and
// each download is bounded by Helm's HTTP timeout.
func (s *chartSource) Load(ctx context.Context, spec cloud.HelmChart) (*chartv2.Chart, error) {
	what, err := checkChartSpec(ctx, spec)
	if err != nil {
		return nil, err
	}
	var path string
	switch {
	case registry.IsOCI(spec.Repository):
		path, err = s.pullOCI(spec)
	case strings.HasPrefix(spec.Repository, "https://"):
		path, err = s.fetchFromIndex(ctx, spec)
	default:
		return nil, fmt.Errorf("%s: the repository must be an https:// chart repository or an oci:// registry", what)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ch, err := loadChart(path, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ch, nil
}

// checkChartSpec returns how errors name spec's chart, and fails when spec
// lacks the chart or its exact version, or ctx is done.
func checkChartSpec(ctx context.Context, spec cloud.HelmChart) (what string, err error) {
	what = fmt.Sprintf("chart %q version %q from %s", spec.Chart, spec.Version, spec.Repository)
	if spec.Chart == "" || spec.Version == "" {
		return "", fmt.Errorf("%s: the chart name and an exact version are required", what)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return what, nil
}

// chartFolder is a directory of chart archives named
// <chart>-<version>.tgz, as helm pull writes them (Options.ChartDir):
// every chart is loaded from there, and nothing is downloaded. A missing
// archive is an error naming the file and the helm pull command that
// writes it.
type chartFolder string

func (f chartFolder) Load(ctx context.Context, spec cloud.HelmChart) (*chartv2.Chart, error) {
	what, err := checkChartSpec(ctx, spec)
	if err != nil {
		return nil, err
	}
	dir := string(f)
	path, err := chartDirArchive(dir, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: the chart folder has no archive %s (charts are not downloaded with a chart folder); "+
			"fetch it on a host that reaches the repository with: %s", what, path, helmPullCommand(spec, dir))
	case err != nil:
		return nil, fmt.Errorf("%s: read the chart archive: %w", what, err)
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s: %s is not a file; replace it with the chart archive that \"%s\" writes",
			what, path, helmPullCommand(spec, dir))
	}
	ch, err := loadChart(path, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w; replace it with the archive that \"%s\" writes",
			what, path, err, helmPullCommand(spec, dir))
	}
	return ch, nil
}

// chartDirArchive is the path of spec's archive in chartDir:
// <chart>-<version>.tgz, the name helm pull gives it. The chart name and
// version come from the engine's pinned list, yet each is refused if it
// could name a file outside chartDir.
func chartDirArchive(chartDir string, spec cloud.HelmChart) (string, error) {
	for _, part := range []struct{ field, value string }{{"chart name", spec.Chart}, {"chart version", spec.Version}} {
		if strings.ContainsAny(part.value, `/\`) || strings.Contains(part.value, "..") {
			return "", fmt.Errorf("the %s %q cannot name an archive in the chart folder: it must not hold '/', '\\' or '..'",
				part.field, part.value)
		}
	}
	return filepath.Join(chartDir, spec.Chart+"-"+spec.Version+".tgz"), nil
}

// helmPullCommand is the helm CLI command that writes spec's archive into
// dir under the name the chart folder expects.
func helmPullCommand(spec cloud.HelmChart, dir string) string {
	if registry.IsOCI(spec.Repository) {
		return fmt.Sprintf("helm pull %s/%s --version %s --destination %s",
			strings.TrimSuffix(spec.Repository, "/"), spec.Chart, spec.Version, dir)
	}
	return fmt.Sprintf("helm pull %s --repo %s --version %s --destination %s", spec.Chart, spec.Repository, spec.Version, dir)
}

// fetchFromIndex reads the repository's index, finds the exact version and
// returns the path of its archive in the cache, downloading it when the
// cache has no archive with the digest the index gives.
func (s *chartSource) fetchFromIndex(ctx context.Context, spec cloud.HelmChart) (string, error) {
	sum := sha256.Sum256([]byte(spec.Repository))
	r, err := repo.NewChartRepository(&repo.Entry{Name: "repo-" + hex.EncodeToString(sum[:8]), URL: spec.Repository}, s.getters)
	if err != nil {
		return "", err
	}
	r.CachePath = filepath.Join(s.dir, "repository")
	indexFile, err := r.DownloadIndexFile()
	if err != nil {
		return "", fmt.Errorf("download the repository index: %w", err)
	}
	index, err := repo.LoadIndexFile(indexFile)
	if err != nil {
		return "", fmt.Errorf("read the repository index: %w", err)
	}
	cv, err := exactVersion(index, spec.Chart, spec.Version)
	if err != nil {
		return "", err
	}
	if len(cv.URLs) == 0 {
		return "", errors.New("the repository index lists no download URL for it")
	}
	chartURL, err := repo.ResolveReferenceURL(spec.Repository, cv.URLs[0])
	if err != nil {
		return "", fmt.Errorf("chart URL %q in the repository index: %w", cv.URLs[0], err)
	}

	cache := &downloader.DiskCache{Root: filepath.Join(s.dir, "content")}
	want, hasDigest := parseSHA256(cv.Digest)
	if hasDigest {
		if path, err := cache.Get(want, downloader.CacheChart); err == nil {
			return path, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	u, err := url.Parse(chartURL)
	if err != nil {
		return "", fmt.Errorf("chart URL %q: %w", chartURL, err)
	}
	g, err := s.getters.ByScheme(u.Scheme)
	if err != nil {
		return "", fmt.Errorf("chart URL %q: %w", chartURL, err)
	}
	data, err := g.Get(chartURL,
		getter.WithURL(spec.Repository),
		getter.WithAcceptHeader("application/gzip,application/octet-stream"))
	if err != nil {
		return "", fmt.Errorf("download %s: %w", chartURL, err)
	}
	got := sha256.Sum256(data.Bytes())
	if hasDigest && got != want {
		return "", fmt.Errorf("download %s: the archive's sha256 is %x, the repository index says %s", chartURL, got, cv.Digest)
	}
	path, err := cache.Put(got, data, downloader.CacheChart)
	if err != nil {
		return "", fmt.Errorf("cache the chart archive: %w", err)
	}
	return path, nil
}

// exactVersion finds version of chart in index. Helm's own lookup falls back
// to the closest version when the exact one is missing; installs here must
// be repeatable, so only an exact match will do.
func exactVersion(index *repo.IndexFile, chart, version string) (*repo.ChartVersion, error) {
	versions, ok := index.Entries[chart]
	if !ok {
		return nil, errors.New("the repository index has no chart of that name")
	}
	var available []string
	for _, cv := range versions {
		if cv.Version == version {
			return cv, nil
		}
		available = append(available, cv.Version)
	}
	const shown = 10
	more := ""
	if len(available) > shown {
		more = fmt.Sprintf(" and %d more", len(available)-shown)
		available = available[:shown]
	}
	return nil, fmt.Errorf("the repository index has no such version (newest available: %s%s); name an exact version it lists",
		strings.Join(available, ", "), more)
}

// parseSHA256 reads an index digest ("sha256:<hex>" or "<hex>").
func parseSHA256(digest string) ([sha256.Size]byte, bool) {
	var sum [sha256.Size]byte
	b, err := hex.DecodeString(strings.TrimPrefix(digest, "sha256:"))
	if err != nil || len(b) != sha256.Size {
		return sum, false
	}
	copy(sum[:], b)
	return sum, true
}

// pullOCI pulls <repository>/<chart>:<version> from an OCI registry and
// returns the archive's path in the cache; a manifest digest already
// cached is not pulled again.
func (s *chartSource) pullOCI(spec cloud.HelmChart) (string, error) {
	opts := []registry.ClientOption{
		registry.ClientOptCredentialsFile(filepath.Join(s.dir, "registry", "config.json")),
		registry.ClientOptWriter(io.Discard),
	}
	if s.transport != nil {
		opts = append(opts, registry.ClientOptHTTPClient(&http.Client{Transport: s.transport}))
	}
	client, err := registry.NewClient(opts...)
	if err != nil {
		return "", fmt.Errorf("OCI registry client: %w", err)
	}
	dl := downloader.ChartDownloader{
		Out:            io.Discard,
		Verify:         downloader.VerifyNever,
		Getters:        s.getters,
		Options:        []getter.Option{getter.WithRegistryClient(client)},
		RegistryClient: client,
		ContentCache:   filepath.Join(s.dir, "content"),
	}
	ref := strings.TrimSuffix(spec.Repository, "/") + "/" + spec.Chart
	path, _, err := dl.DownloadToCache(ref, spec.Version)
	if err != nil {
		return "", fmt.Errorf("pull %s:%s: %w", ref, spec.Version, err)
	}
	return path, nil
}

// loadChart loads the archive at path and checks it is the chart spec
// asked for, with every dependency it declares packaged in it.
func loadChart(path string, spec cloud.HelmChart) (*chartv2.Chart, error) {
	loaded, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load the chart archive: %w", err)
	}
	ch, ok := loaded.(*chartv2.Chart)
	if !ok {
		return nil, errors.New("the archive is not a chart of API version v1 or v2, the only ones Helm installs")
	}
	if md := ch.Metadata; md.Name != spec.Chart || md.Version != spec.Version {
		return nil, fmt.Errorf("the archive holds chart %q version %q", md.Name, md.Version)
	}
	ac, err := ci.NewAccessor(ch)
	if err != nil {
		return nil, err
	}
	if deps := ac.MetaDependencies(); len(deps) > 0 {
		if err := action.CheckDependencies(ch, deps); err != nil {
			return nil, fmt.Errorf("the chart archive is incomplete: %w", err)
		}
	}
	return ch, nil
}
