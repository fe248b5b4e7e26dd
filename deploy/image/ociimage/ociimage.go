// Package ociimage builds the instantstart container image, the one
// deploy/Dockerfile describes, without a container engine: a single layer
// from scratch holding the static binary, a nonroot user and the data
// directory, written as an OCI image layout. The build is deterministic: the
// same binary and options give the same digest.
package ociimage

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the image runs and how; deploy/Dockerfile states the same values and
// a test keeps the two in step.
const (
	// BinaryPath is where the binary sits in the image.
	BinaryPath = "/instantstart"
	// DataDir is the volume the server keeps its store in.
	DataDir = "/data"
	// Port is the port the server listens on.
	Port = 3099
	// NonrootUID is the user (and group) the server runs as, distroless's
	// "nonroot".
	NonrootUID = 65532
	// Source is the repository the image is built from.
	Source = "https://github.com/instantstart/instantstart"
	// Title names the image.
	Title = "instantstart"
	// DefaultVersion labels an image built without a version, as the binary
	// calls itself when built without one.
	DefaultVersion = "dev"
	// DefaultPlatform is the platform of an image built without one.
	DefaultPlatform = "linux/amd64"
	// CACertificatesPath is where the CA bundle goes, the first place Go's
	// crypto/x509 looks on Linux.
	CACertificatesPath = "/etc/ssl/certs/ca-certificates.crt"
)

// Label keys, from the OCI image spec's annotations.
const (
	LabelVersion = "org.opencontainers.image.version"
	LabelSource  = "org.opencontainers.image.source"
	LabelTitle   = "org.opencontainers.image.title"
)

// Options say what goes into the image.
type Options struct {
	// Binary is the path of the instantstart binary on this machine: built
	// for the image's platform with CGO_ENABLED=0, since the image has no C
	// library (CheckBinary says whether it is).
	Binary string
	// Version labels the image and names it in the layout; empty means
	// DefaultVersion.
	Version string
	// Platform is os/arch[/variant]; empty means DefaultPlatform. Only linux.
	Platform string
	// Created stamps the config, the history and every file in the layer;
	// the zero value means the Unix epoch. SourceDateEpoch reads the usual
	// variable.
	Created time.Time
	// CACertificates is the path of a PEM bundle of root certificates to
	// place at CACertificatesPath, so the server can reach AWS over TLS;
	// empty leaves it out.
	CACertificates string
}

// Build assembles the image from opts. It reads the layer in full:
// tarball.LayerFromOpener opens the layer's tar stream once to see whether
// it is compressed, then reads it through twice, once gzipped for the
// layer's digest and size and once as it is for its diffID, so the binary
// and the CA bundle are read twice here, and a file that cannot be read
// fails Build. Writing the image (WriteLayout) reads and gzips the layer
// once more.
func Build(opts Options) (v1.Image, error) {
	opts = withDefaults(opts)
	platform, err := parsePlatform(opts.Platform)
	if err != nil {
		return nil, err
	}
	rootfs, err := newRootFS(opts)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(rootfs.open, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("ociimage: layer: %w", err)
	}

	created := v1.Time{Time: opts.Created}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	base, err = mutate.ConfigFile(base, &v1.ConfigFile{
		Architecture: platform.Architecture,
		OS:           platform.OS,
		Variant:      platform.Variant,
		Created:      created,
		Config:       runConfig(opts.Version),
	})
	if err != nil {
		return nil, fmt.Errorf("ociimage: config: %w", err)
	}
	img, err := mutate.Append(base, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   created,
			CreatedBy: "go run ./deploy/image",
			Comment:   "instantstart " + opts.Version + ", a nonroot user, " + DataDir,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("ociimage: append layer: %w", err)
	}
	return img, nil
}

// runConfig is how a container of the image runs.
func runConfig(version string) v1.Config {
	return v1.Config{
		Entrypoint:   []string{BinaryPath},
		Cmd:          []string{"serve", "--listen", "0.0.0.0:" + strconv.Itoa(Port), "--data-dir", DataDir},
		User:         fmt.Sprintf("%d:%d", NonrootUID, NonrootUID),
		ExposedPorts: map[string]struct{}{strconv.Itoa(Port) + "/tcp": {}},
		Volumes:      map[string]struct{}{DataDir: {}},
		WorkingDir:   "/",
		Env:          []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		Labels: map[string]string{
			LabelVersion: version,
			LabelSource:  Source,
			LabelTitle:   Title,
		},
		// The binary checks itself: the image has no shell, curl or wget.
		Healthcheck: &v1.HealthConfig{
			Test:     []string{"CMD", BinaryPath, "healthcheck"},
			Interval: 30 * time.Second,
			Timeout:  5 * time.Second,
			Retries:  3,
		},
	}
}

func withDefaults(opts Options) Options {
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	if opts.Platform == "" {
		opts.Platform = DefaultPlatform
	}
	if opts.Created.IsZero() {
		opts.Created = time.Unix(0, 0)
	}
	opts.Created = opts.Created.UTC().Truncate(time.Second)
	return opts
}

func parsePlatform(s string) (*v1.Platform, error) {
	p, err := v1.ParsePlatform(s)
	if err != nil {
		return nil, fmt.Errorf("ociimage: platform %q: %w", s, err)
	}
	if p.OS != "linux" || p.Architecture == "" || p.OSVersion != "" {
		return nil, fmt.Errorf("ociimage: platform %q: want linux/ARCH[/VARIANT], for example %s", s, DefaultPlatform)
	}
	return p, nil
}

// SourceDateEpoch reads a SOURCE_DATE_EPOCH value (seconds since the Unix
// epoch, https://reproducible-builds.org/specs/source-date-epoch/); empty
// gives the zero time, which Build takes as the epoch.
func SourceDateEpoch(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	secs, err := strconv.ParseInt(s, 10, 64)
	if err != nil || secs < 0 {
		return time.Time{}, fmt.Errorf("ociimage: SOURCE_DATE_EPOCH %q: want a whole number of seconds since 1970-01-01 UTC", s)
	}
	return time.Unix(secs, 0).UTC(), nil
}
