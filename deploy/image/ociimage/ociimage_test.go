package ociimage

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	fakeBinary = "\x7fELF not really, but bytes the image must carry unchanged\n"
	fakeCAs    = "-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n"
)

// fixture writes a fake binary and CA bundle and returns options naming them.
func fixture(t *testing.T) Options {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "instantstart")
	cas := filepath.Join(dir, "ca-certificates.crt")
	if err := os.WriteFile(bin, []byte(fakeBinary), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cas, []byte(fakeCAs), 0o600); err != nil {
		t.Fatal(err)
	}
	return Options{Binary: bin, Version: "1.2.3", CACertificates: cas}
}

// buildAndReadBack builds the image, writes it as a layout and returns the
// layout's index manifest and the image as read from the layout.
func buildAndReadBack(t *testing.T, opts Options) (*v1.IndexManifest, v1.Image) {
	t.Helper()
	img, err := Build(opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "layout")
	if err := WriteLayout(dir, img); err != nil {
		t.Fatalf("WriteLayout: %v", err)
	}
	return readLayout(t, dir)
}

// readLayout opens the OCI image layout at dir, which must hold one image,
// and returns its index manifest and that image.
func readLayout(t *testing.T, dir string) (*v1.IndexManifest, v1.Image) {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatalf("layout.FromPath: %v", err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatalf("ImageIndex: %v", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatalf("IndexManifest: %v", err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("index has %d manifests, want 1", len(im.Manifests))
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatalf("Image(%s): %v", im.Manifests[0].Digest, err)
	}
	return im, img
}

// onlyLayer is the one layer of img.
func onlyLayer(t *testing.T, img v1.Image) v1.Layer {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("image has %d layers, want 1", len(layers))
	}
	return layers[0]
}

// layerFile is one entry of the image's layer, with its content.
type layerFile struct {
	hdr     *tar.Header
	content string
}

// readLayer reads the one layer of img: its media type and its entries by
// name.
func readLayer(t *testing.T, img v1.Image) (types.MediaType, map[string]layerFile) {
	t.Helper()
	layer := onlyLayer(t, img)
	mt, err := layer.MediaType()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layer.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]layerFile{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read layer: %v", err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("read %s: %v", hdr.Name, err)
		}
		if _, dup := files[hdr.Name]; dup {
			t.Errorf("layer has %s twice", hdr.Name)
		}
		files[hdr.Name] = layerFile{hdr: hdr, content: string(b)}
	}
	return mt, files
}

func TestBuildConfig(t *testing.T) {
	im, img := buildAndReadBack(t, fixture(t))

	desc := im.Manifests[0]
	if desc.MediaType != types.OCIManifestSchema1 {
		t.Errorf("manifest media type = %s, want %s", desc.MediaType, types.OCIManifestSchema1)
	}
	if desc.Platform == nil || desc.Platform.OS != "linux" || desc.Platform.Architecture != "amd64" {
		t.Errorf("index platform = %+v, want linux/amd64", desc.Platform)
	}
	if got := desc.Annotations["org.opencontainers.image.ref.name"]; got != "1.2.3" {
		t.Errorf("ref name = %q, want 1.2.3", got)
	}

	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("config platform = %s/%s, want linux/amd64", cf.OS, cf.Architecture)
	}
	if !cf.Created.Time.Equal(time.Unix(0, 0)) {
		t.Errorf("created = %s, want the Unix epoch", cf.Created.Time)
	}
	c := cf.Config
	checks := []struct {
		name      string
		got, want any
	}{
		{"Entrypoint", c.Entrypoint, []string{"/instantstart"}},
		{"Cmd", c.Cmd, []string{"serve", "--listen", "0.0.0.0:3099", "--data-dir", "/data"}},
		{"User", c.User, "65532:65532"},
		{"ExposedPorts", c.ExposedPorts, map[string]struct{}{"3099/tcp": {}}},
		{"Volumes", c.Volumes, map[string]struct{}{"/data": {}}},
		{"WorkingDir", c.WorkingDir, "/"},
		{"Labels", c.Labels, map[string]string{
			"org.opencontainers.image.version": "1.2.3",
			"org.opencontainers.image.source":  "https://github.com/instantstart/instantstart",
			"org.opencontainers.image.title":   "instantstart",
		}},
		{"Healthcheck", c.Healthcheck, &v1.HealthConfig{
			Test:     []string{"CMD", "/instantstart", "healthcheck"},
			Interval: 30 * time.Second,
			Timeout:  5 * time.Second,
			Retries:  3,
		}},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s = %#v, want %#v", ch.name, ch.got, ch.want)
		}
	}
	if len(c.Env) != 1 || !strings.HasPrefix(c.Env[0], "PATH=/") {
		t.Errorf("Env = %q, want only PATH", c.Env)
	}
	if len(cf.History) != 1 || !cf.History[0].Created.Time.Equal(time.Unix(0, 0)) {
		t.Errorf("history = %+v, want one entry at the epoch", cf.History)
	}
}

func TestBuildLayer(t *testing.T) {
	_, img := buildAndReadBack(t, fixture(t))
	mt, files := readLayer(t, img)
	if mt != types.OCILayer {
		t.Errorf("layer media type = %s, want %s", mt, types.OCILayer)
	}

	want := []struct {
		name     string
		typ      byte
		mode     int64
		uid, gid int
	}{
		{"instantstart", tar.TypeReg, 0o755, 0, 0},
		{"etc/", tar.TypeDir, 0o755, 0, 0},
		{"etc/passwd", tar.TypeReg, 0o644, 0, 0},
		{"etc/group", tar.TypeReg, 0o644, 0, 0},
		{"etc/ssl/certs/ca-certificates.crt", tar.TypeReg, 0o644, 0, 0},
		{"data/", tar.TypeDir, 0o750, 65532, 65532},
		{"home/nonroot/", tar.TypeDir, 0o700, 65532, 65532},
		{"tmp/", tar.TypeDir, 0o1777, 0, 0},
	}
	for _, w := range want {
		f, ok := files[w.name]
		if !ok {
			t.Errorf("layer has no %s", w.name)
			continue
		}
		h := f.hdr
		if h.Typeflag != w.typ || h.Mode&0o7777 != w.mode || h.Uid != w.uid || h.Gid != w.gid {
			t.Errorf("%s: type %q mode %#o owner %d:%d, want type %q mode %#o owner %d:%d",
				w.name, h.Typeflag, h.Mode&0o7777, h.Uid, h.Gid, w.typ, w.mode, w.uid, w.gid)
		}
	}
	for name, f := range files {
		if !f.hdr.ModTime.Equal(time.Unix(0, 0)) {
			t.Errorf("%s: mtime %s, want the Unix epoch", name, f.hdr.ModTime)
		}
		if strings.HasPrefix(name, "/") || strings.HasPrefix(name, "./") {
			t.Errorf("%s: names in a layer are relative to its root", name)
		}
	}

	if got := files["instantstart"].content; got != fakeBinary {
		t.Errorf("/instantstart = %q, want the binary's bytes %q", got, fakeBinary)
	}
	if got := files["etc/ssl/certs/ca-certificates.crt"].content; got != fakeCAs {
		t.Errorf("CA bundle = %q, want %q", got, fakeCAs)
	}
	if !strings.Contains(files["etc/passwd"].content, "\nnonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no nonroot user 65532:\n%s", files["etc/passwd"].content)
	}
	if !strings.Contains(files["etc/group"].content, "\nnonroot:x:65532:") {
		t.Errorf("/etc/group has no nonroot group 65532:\n%s", files["etc/group"].content)
	}
}

func TestBuildWithoutCACertificates(t *testing.T) {
	opts := fixture(t)
	opts.CACertificates = ""
	_, img := buildAndReadBack(t, opts)
	_, files := readLayer(t, img)
	for name := range files {
		if strings.HasPrefix(name, "etc/ssl/") {
			t.Errorf("layer has %s, want no CA bundle", name)
		}
	}
	if _, ok := files["instantstart"]; !ok {
		t.Error("layer has no instantstart")
	}
}

func digestOf(t *testing.T, opts Options) v1.Hash {
	t.Helper()
	img, err := Build(opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatalf("Digest: %v", err)
	}
	return d
}

func TestBuildIsDeterministic(t *testing.T) {
	opts := fixture(t)
	first := digestOf(t, opts)

	// The same content at another path and with another mtime is the same image.
	copied := opts
	copied.Binary = filepath.Join(t.TempDir(), "other-name")
	if err := os.WriteFile(copied.Binary, []byte(fakeBinary), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(copied.Binary, time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if again := digestOf(t, copied); again != first {
		t.Errorf("second build of the same binary: digest %s, first %s", again, first)
	}

	// And the layouts written from two builds are byte for byte the same.
	im1, _ := buildAndReadBack(t, opts)
	im2, _ := buildAndReadBack(t, copied)
	if im1.Manifests[0].Digest != first || im2.Manifests[0].Digest != first {
		t.Errorf("layout digests %s and %s, want %s", im1.Manifests[0].Digest, im2.Manifests[0].Digest, first)
	}

	// What does go in changes the digest, so the equality above means something.
	changed := []struct {
		name   string
		mutate func(o *Options)
	}{
		{"binary", func(o *Options) {
			o.Binary = filepath.Join(t.TempDir(), "instantstart")
			if err := os.WriteFile(o.Binary, []byte(fakeBinary+"!"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"version", func(o *Options) { o.Version = "1.2.4" }},
		{"created", func(o *Options) { o.Created = time.Unix(1700000000, 0) }},
		{"platform", func(o *Options) { o.Platform = "linux/arm64" }},
	}
	for _, c := range changed {
		o := opts
		c.mutate(&o)
		if d := digestOf(t, o); d == first {
			t.Errorf("another %s gave the same digest %s", c.name, d)
		}
	}
}

func TestBuildPlatformAndCreated(t *testing.T) {
	opts := fixture(t)
	opts.Platform = "linux/arm64/v8"
	opts.Created = time.Unix(1700000000, 123456789)
	im, img := buildAndReadBack(t, opts)
	p := im.Manifests[0].Platform
	if p == nil || p.OS != "linux" || p.Architecture != "arm64" || p.Variant != "v8" {
		t.Errorf("index platform = %+v, want linux/arm64/v8", p)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := time.Unix(1700000000, 0)
	if cf.Architecture != "arm64" || cf.Variant != "v8" {
		t.Errorf("config platform = %s/%s/%s, want linux/arm64/v8", cf.OS, cf.Architecture, cf.Variant)
	}
	if !cf.Created.Time.Equal(want) {
		t.Errorf("created = %s, want %s (whole seconds)", cf.Created.Time, want)
	}
	_, files := readLayer(t, img)
	if mt := files["instantstart"].hdr.ModTime; !mt.Equal(want) {
		t.Errorf("/instantstart mtime = %s, want %s", mt, want)
	}
}

func TestBuildRejects(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(o *Options)
		want   string
	}{
		{"no binary", func(o *Options) { o.Binary = "" }, "no binary"},
		{"missing binary", func(o *Options) { o.Binary = filepath.Join(t.TempDir(), "absent") }, "binary"},
		{"binary is a directory", func(o *Options) { o.Binary = t.TempDir() }, "not a regular file"},
		{"missing CA bundle", func(o *Options) { o.CACertificates = filepath.Join(t.TempDir(), "absent") }, "CA certificates"},
		{"windows", func(o *Options) { o.Platform = "windows/amd64" }, "want linux"},
		{"no architecture", func(o *Options) { o.Platform = "linux" }, "want linux"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := fixture(t)
			c.mutate(&o)
			_, err := Build(o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Build: error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func TestWriteLayoutRefusesNonEmptyDir(t *testing.T) {
	img, err := Build(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "left-over"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, img); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("WriteLayout into a non-empty directory: error %v, want one saying so", err)
	}
	// An existing empty directory is fine.
	empty := t.TempDir()
	if err := WriteLayout(empty, img); err != nil {
		t.Errorf("WriteLayout into an empty directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "oci-layout")); err != nil {
		t.Errorf("no oci-layout file: %v", err)
	}
}

func TestSourceDateEpoch(t *testing.T) {
	cases := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"0", time.Unix(0, 0), false},
		{" 1700000000\n", time.Unix(1700000000, 0), false},
		{"-1", time.Time{}, true},
		{"1.5", time.Time{}, true},
		{"yesterday", time.Time{}, true},
	}
	for _, c := range cases {
		got, err := SourceDateEpoch(c.in)
		if (err != nil) != c.wantErr || !got.Equal(c.want) {
			t.Errorf("SourceDateEpoch(%q) = %s, %v; want %s, error %v", c.in, got, err, c.want, c.wantErr)
		}
	}
}
