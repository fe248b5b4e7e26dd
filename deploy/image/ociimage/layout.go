package ociimage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// refNameAnnotation names a manifest in a layout, so tools can say
// oci:DIR:VERSION (skopeo copy, crane push --index, podman load).
const refNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes img as an OCI image layout in dir: oci-layout,
// index.json naming the image by its version label and platform, and
// blobs/sha256/. dir must be empty or not exist yet, so that no blob of an
// earlier build is left beside this one.
func WriteLayout(dir string, img v1.Image) error {
	if err := ensureEmptyDir(dir); err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return fmt.Errorf("ociimage: read config: %w", err)
	}
	platform := cf.Platform()
	desc := v1.Descriptor{Platform: platform}
	if v := cf.Config.Labels[LabelVersion]; v != "" {
		desc.Annotations = map[string]string{refNameAnnotation: v}
	}
	idx := mutate.AppendManifests(empty.Index, mutate.IndexAddendum{Add: img, Descriptor: desc})
	if _, err := layout.Write(dir, idx); err != nil {
		return fmt.Errorf("ociimage: write layout %s: %w", dir, err)
	}
	return nil
}

func ensureEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("ociimage: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("ociimage: layout directory: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("ociimage: layout directory %s is not empty: remove it or choose another", dir)
	}
	return nil
}
