// Command image builds the instantstart container image as an OCI image
// layout, without a container engine:
//
//	GOOS=linux VERSION=$V .ci/release bin/instantstart
//	go run ./deploy/image --binary bin/instantstart --out image --version $V
//
// It prints the image's digest. SOURCE_DATE_EPOCH, when set, stamps the
// image; otherwise every time in it is the Unix epoch, so the same binary
// gives the same digest.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/instantstart/instantstart/deploy/image/ociimage"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts ociimage.Options
	var out string
	fs.StringVar(&opts.Binary, "binary", "", "the instantstart binary to put in the image: linux, for --platform, built with CGO_ENABLED=0 (required)")
	fs.StringVar(&out, "out", "", "directory to write the OCI image layout to; must be empty or absent (required)")
	fs.StringVar(&opts.Version, "version", ociimage.DefaultVersion, "version to label the image with and name it by in the layout")
	fs.StringVar(&opts.Platform, "platform", ociimage.DefaultPlatform, "the image's os/arch[/variant]")
	fs.StringVar(&opts.CACertificates, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of root certificates to put at "+ociimage.CACertificatesPath+" so the server can call AWS over TLS; empty leaves it out (the digest depends on this file)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if opts.Binary == "" || out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: go run ./deploy/image --binary PATH --out DIR [--version V] [--platform linux/amd64] [--ca-certs PATH]")
		return 2
	}
	created, err := ociimage.SourceDateEpoch(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	opts.Created = created

	if err := ociimage.CheckBinary(opts.Binary, opts.Platform); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	img, err := ociimage.Build(opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if err := ociimage.WriteLayout(out, img); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	digest, err := img.Digest()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s %s\n", out, digest)
	return 0
}
