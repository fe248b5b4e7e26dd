package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ecr"

	"github.com/instantstart/instantstart/deploy/image/imagepush"
)

// pushTimeout bounds a whole push: the image is about 40 MB compressed.
const pushTimeout = 30 * time.Minute

// imageCmd runs "instantstart image push".
func imageCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "push" {
		fmt.Fprintln(stderr, `usage: instantstart image push --repository REGISTRY/REPOSITORY[:TAG] --layout DIR [flags]`)
		return exitUsage
	}
	fs := flag.NewFlagSet("image push", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repository := fs.String("repository", "", "where to push: ACCOUNT.dkr.ecr.REGION.amazonaws.com/REPOSITORY[:TAG]; without a tag, the image's version in the layout is the tag (required)")
	dir := fs.String("layout", "", "the OCI image layout to push, as go run ./deploy/image --out DIR writes it (required)")
	refName := fs.String("ref-name", "", "the image to push when the layout holds several, by its name (its version)")
	region := fs.String("region", "", "the region of the ECR API to log in with; default: the repository's, from its ECR host")
	endpoint := fs.String("endpoint-url", "", "the ECR API endpoint; default: the region's (AWS_ENDPOINT_URL_ECR is honoured too)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: instantstart image push --repository REGISTRY/REPOSITORY[:TAG] --layout DIR [flags]

Logs in to the registry with the password ECR's GetAuthorizationToken hands out (as
aws ecr get-login-password does, with the AWS credentials of the environment) and
pushes the image in the layout. It prints the image URI to give the stack as ImageUri,
and its digest. The credentials need ecr:GetAuthorizationToken and, on the repository,
ecr:BatchCheckLayerAvailability, ecr:InitiateLayerUpload, ecr:UploadLayerPart,
ecr:CompleteLayerUpload and ecr:PutImage.

flags:`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	if *repository == "" || *dir == "" || fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	host, _, _ := strings.Cut(*repository, "/")
	if *region == "" {
		*region = imagepush.RegionOf(host)
	}
	if *region == "" {
		fmt.Fprintf(stderr, "instantstart image push: %s is not an ECR registry host (ACCOUNT.dkr.ecr.REGION.amazonaws.com): give --region to log in with that region's ECR\n", host)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(*region))
	if err != nil {
		fmt.Fprintf(stderr, "instantstart image push: AWS configuration: %v\n", err)
		return exitError
	}
	client := ecr.NewFromConfig(cfg, func(o *ecr.Options) {
		if *endpoint != "" {
			o.BaseEndpoint = aws.String(*endpoint)
		}
	})
	res, err := imagepush.Push(ctx, imagepush.Options{Layout: *dir, Repository: *repository, RefName: *refName, Tokens: imagepush.TokenFunc(client.GetAuthorizationToken)})
	if err != nil {
		fmt.Fprintf(stderr, "instantstart image push: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s %s\n", res.Tag, res.Digest)
	return exitOK
}
