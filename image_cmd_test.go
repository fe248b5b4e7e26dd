package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/instantstart/instantstart/deploy/image/imagepush"
	"github.com/instantstart/instantstart/deploy/image/imagepush/imagepushtest"
)

func TestImagePushLogsInWithECRAndPushesTheLayout(t *testing.T) {
	f := imagepushtest.New(t)
	dir, images := imagepushtest.WriteLayout(t, imagepush.RefNameAnnotation, "v1.4.0")
	var stdout, stderr bytes.Buffer
	code := run([]string{"image", "push", "--repository", f.Host + "/instantstart", "--layout", dir,
		"--region", imagepushtest.Region, "--endpoint-url", f.ECRURL}, nil, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want, _ := images["v1.4.0"].Digest()
	if got := strings.TrimSpace(stdout.String()); got != f.Host+"/instantstart:v1.4.0 "+want.String() {
		t.Fatalf("printed %q; want the tag pushed and %s", got, want)
	}
	auth, err := imagepush.Login(t.Context(), f.ECR)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(f.Host + "/instantstart:v1.4.0")
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(ref, remote.WithAuth(auth))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := img.Digest(); d != want {
		t.Fatalf("the registry holds %s; want %s", d, want)
	}
}

func TestImagePushNeedsARegionForAnotherRegistry(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{
		{"image"},
		{"image", "pull"},
		{"image", "push", "--layout", "image"},
		{"image", "push", "--repository", "ghcr.io/acme/instantstart", "--layout", "image"},
	} {
		stderr.Reset()
		if code := run(args, nil, &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d; want %d (%s)", args, code, exitUsage, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "give --region") {
		t.Errorf("a registry that is not ECR's: %q; want it to ask for --region", stderr.String())
	}
}
