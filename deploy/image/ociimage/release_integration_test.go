//go:build integration

package ociimage

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/instantstart/instantstart/deploy/image/imagepush"
	"github.com/instantstart/instantstart/deploy/image/imagepush/imagepushtest"
)

// releaseBudget is the most the release binary may weigh (README.md,
// Release build).
const releaseBudget = 125_000_000

// releaseBin is the path of the release binary, which .ci/release builds
// and INSTANTSTART_RELEASE_BIN names.
func releaseBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("INSTANTSTART_RELEASE_BIN")
	if bin == "" {
		t.Fatal("INSTANTSTART_RELEASE_BIN is not set: run .ci/release and export INSTANTSTART_RELEASE_BIN=\"$(.ci/release | tail -n 1)\"")
	}
	return bin
}

// TestReleaseImageRuns puts the release binary (.ci/release builds it;
// INSTANTSTART_RELEASE_BIN names it) in an image layout, takes
// /instantstart back out of the layout's layer and runs it.
func TestReleaseImageRuns(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image's binary runs only on linux")
	}
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	bin := releaseBin(t)
	work := t.TempDir()
	if err := CheckBinary(bin, "linux/"+runtime.GOARCH); err != nil {
		t.Errorf("CheckBinary on the release build: %v", err)
	}

	// Build reads the layer through as WriteLayout does, so the two are
	// timed together.
	start := time.Now()
	img, err := Build(Options{Binary: bin, Version: "integration", Platform: "linux/" + runtime.GOARCH})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	dir := filepath.Join(work, "layout")
	if err := WriteLayout(dir, img); err != nil {
		t.Fatalf("WriteLayout: %v", err)
	}
	t.Logf("building the image and writing the layout took %s", time.Since(start).Round(time.Millisecond))

	// The layout is what instantstart image push sends: to a registry
	// behind the simulated ECR's passwords, as deploy/README.md's first step.
	reg := imagepushtest.New(t)
	pushed, err := imagepush.Push(ctx, imagepush.Options{Layout: dir, Repository: reg.Host + "/instantstart", Tokens: reg.ECR})
	if err != nil {
		t.Fatalf("push the layout: %v", err)
	}
	if want, _ := img.Digest(); pushed.Digest != want.String() || pushed.Tag != reg.Host+"/instantstart:integration" {
		t.Errorf("pushed %+v; want %s:integration at %s", pushed, reg.Host+"/instantstart", want)
	}

	extracted := extractFromLayout(t, dir, strings.TrimPrefix(BinaryPath, "/"), filepath.Join(work, "rootfs"))
	if got, want := fileSHA256(t, extracted), fileSHA256(t, bin); got != want {
		t.Fatalf("/instantstart in the layout has sha256 %x, the built binary %x", got, want)
	}

	f, err := elf.Open(extracted)
	if err != nil {
		t.Fatalf("extracted binary: %v", err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("extracted binary has a PT_INTERP program header: it is dynamically linked and cannot run from scratch")
		}
	}
	f.Close()

	runCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	help := exec.CommandContext(runCtx, extracted, "help")
	help.Dir = work
	out, err := help.CombinedOutput()
	if err != nil {
		t.Fatalf("instantstart help: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "serve") {
		t.Errorf("instantstart help printed no mention of serve:\n%s", out)
	}
	version := exec.CommandContext(runCtx, extracted, "version")
	out, err = version.Output()
	if err != nil {
		t.Fatalf("instantstart version: %v", err)
	}
	if line := string(out); !strings.HasPrefix(line, "instantstart ") || strings.HasPrefix(line, "instantstart dev ") {
		t.Errorf("instantstart version printed %q: the release build stamps a version", line)
	}
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the release binary is %.1f MB", float64(info.Size())/1e6)
	if info.Size() > releaseBudget {
		t.Errorf("the release binary is %.1f MB, over its budget of %d MB: find what grew (go tool nm -size -sort size on a build without -s -w) before raising the budget in README.md and here",
			float64(info.Size())/1e6, releaseBudget/1_000_000)
	}
}

// TestReleaseLinksOnlyTheOperationsCalled reads the release binary for the
// type names of SDK operations' inputs, which are in it when the
// operation's code is. Operations the engine calls must be there (the
// control that shows the names can be seen at all); operations it never
// calls must not be, which they all are when an SDK client is held behind
// an interface (engine/cloud/awscloud/internal/portgen says why).
//
// S3's and STS's unused operations stay: S3's client binds itself into its
// S3 Express credentials provider, and the shared config's assume-role
// credentials hold an STS client, both behind interfaces in the SDK.
func TestReleaseLinksOnlyTheOperationsCalled(t *testing.T) {
	data, err := os.ReadFile(releaseBin(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ called, never string }{
		{"ec2.DescribeVpcsInput", "ec2.AcceptAddressTransferInput"},
		{"sagemaker.CreateClusterInput", "sagemaker.CreateTrainingJobInput"},
		{"eks.CreateAddonInput", "eks.CreateFargateProfileInput"},
		{"ecr.GetAuthorizationTokenInput", "ecr.PutImageInput"},
		{"iam.CreateRoleInput", "iam.CreateUserInput"},
		{"fsx.CreateFileSystemInput", "fsx.CreateBackupInput"},
		{"servicequotas.ListServiceQuotasInput", "servicequotas.RequestServiceQuotaIncreaseInput"},
	} {
		if !bytes.Contains(data, []byte(tt.called)) {
			t.Errorf("the release binary has no %s, an operation the engine calls: the names this test looks for are not where it looks", tt.called)
		}
		if bytes.Contains(data, []byte(tt.never)) {
			t.Errorf("the release binary has %s, an operation the engine never calls: an SDK client is held behind an interface, so all its operations are linked", tt.never)
		}
	}
}

// extractFromLayout reads the one image of the layout at dir and writes the
// file name of its layer under root, with the mode the layer gives it.
func extractFromLayout(t *testing.T, dir, name, root string) string {
	t.Helper()
	_, img := readLayout(t, dir)
	rc, err := onlyLayer(t, img).Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatalf("layer has no %s", name)
		}
		if err != nil {
			t.Fatalf("read layer: %v", err)
		}
		if hdr.Name != name {
			continue
		}
		if hdr.Mode&0o111 == 0 {
			t.Fatalf("%s has mode %#o: not executable", name, hdr.Mode)
		}
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, filepath.FromSlash(name))
		out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, os.FileMode(hdr.Mode&0o777))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			t.Fatalf("extract %s: %v", name, err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

func fileSHA256(t *testing.T, path string) [sha256.Size]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return [sha256.Size]byte(h.Sum(nil))
}
