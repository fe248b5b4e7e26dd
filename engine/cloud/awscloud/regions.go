// Package awscloud is the real AWS provider: it hands the engine the
// aws-sdk-go-v2 clients themselves as its cloud ports, one set per region,
// configured by the standard credential chain, AWS_REGION and
// AWS_ENDPOINT_URL* so that it can also be pointed at an emulator.
package awscloud

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/fsx"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cloud/hfhub"
)

// providerName is the cloud.Provider name of every provider made here.
const providerName = "aws"

// Options configures New. The zero value uses the standard AWS
// configuration: the region from AWS_REGION or the shared config, endpoints
// from AWS_ENDPOINT_URL* or the shared config, and the standard credential
// chain.
type Options struct {
	// DefaultRegion is the region used when a request names none; it also
	// overrides AWS_REGION while loading the configuration.
	DefaultRegion string
	// BaseEndpoint, when set, sends every client to this URL (an emulator,
	// say) and overrides AWS_ENDPOINT_URL* and the shared config.
	BaseEndpoint string
	// Credentials, when set, signs every request; nil means the standard
	// credential chain.
	Credentials aws.CredentialsProvider
	// ChartDir, when set, is an existing directory from which every Helm
	// chart is loaded instead of from its repository, for accounts that
	// cannot reach the public chart repositories: the archive
	// ChartDir/<chart>-<version>.tgz, the file
	// "helm pull <chart> --repo <repository> --version <version>" writes.
	// Nothing is downloaded; a missing archive fails the install with the
	// file it expects and the command that fetches it.
	ChartDir string
}

// Regions hands out the real AWS clients for each region; it implements
// cloud.Regions. Clients are built once per region and shared, as the SDK
// clients are safe for concurrent use.
type Regions struct {
	cfg           aws.Config
	defaultRegion string
	chartDir      string // Options.ChartDir, absolute; empty for none

	mu        sync.Mutex
	providers map[string]*cloud.Provider
}

var _ cloud.Regions = (*Regions)(nil)

// New loads the AWS configuration once and returns the regions it serves.
// It makes no AWS call; bad credentials show up on the first request. It
// fails when no region is known from opts, AWS_REGION or the shared config,
// or when opts.ChartDir is set but is not an existing directory.
func New(ctx context.Context, opts Options) (*Regions, error) {
	var chartDir string
	if opts.ChartDir != "" {
		var err error
		if chartDir, err = checkChartDir(opts.ChartDir); err != nil {
			return nil, err
		}
	}
	var load []func(*config.LoadOptions) error
	if opts.DefaultRegion != "" {
		if err := checkRegion(opts.DefaultRegion); err != nil {
			return nil, fmt.Errorf("default region: %w", err)
		}
		load = append(load, config.WithRegion(opts.DefaultRegion))
	}
	if opts.BaseEndpoint != "" {
		load = append(load, config.WithBaseEndpoint(opts.BaseEndpoint))
	}
	if opts.Credentials != nil {
		load = append(load, config.WithCredentialsProvider(opts.Credentials))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration (environment, shared config and credential chain): %w", err)
	}
	// An error answer the SDK cannot read is quoted in its error.
	cfg.APIOptions = append(cfg.APIOptions, addReadableErrors)
	if cfg.Region == "" {
		return nil, fmt.Errorf("no AWS region configured: set --region or AWS_REGION")
	}
	if err := checkRegion(cfg.Region); err != nil {
		return nil, fmt.Errorf("region from AWS_REGION or the shared config: %w", err)
	}
	return &Regions{cfg: cfg, defaultRegion: cfg.Region, chartDir: chartDir, providers: make(map[string]*cloud.Provider)}, nil
}

// checkChartDir returns dir as an absolute path, so that errors name the
// exact archive expected, once it is sure dir is an existing directory.
func checkChartDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("chart folder %q: %w", dir, err)
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("chart folder %s does not exist: create it and put the chart archives in it "+
			"(helm pull <chart> --repo <repository> --version <version> --destination %s), or unset it to download charts from their repositories", abs, abs)
	case err != nil:
		return "", fmt.Errorf("chart folder %s: %w", abs, err)
	case !info.IsDir():
		return "", fmt.Errorf("chart folder %s is not a directory: name the directory that holds the chart archives", abs)
	}
	return abs, nil
}

// DefaultRegion is the region used when a request names none: the one given
// in Options, else the one from AWS_REGION or the shared config.
func (r *Regions) DefaultRegion() string {
	return r.defaultRegion
}

// Provider returns the AWS clients for region, building them on first use.
// It fails when region is empty or not shaped like an AWS region code.
func (r *Regions) Provider(region string) (*cloud.Provider, error) {
	if err := checkRegion(region); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.providers[region]; ok {
		return p, nil
	}
	cfg := r.cfg.Copy()
	cfg.Region = region
	stsClient := sts.NewFromConfig(cfg)
	eksPort := newEKSPort(eks.NewFromConfig(cfg))
	kube := newKubernetes(eksPort, stsClient, nil)
	sageMaker := newSageMakerPort(sagemaker.NewFromConfig(cfg))
	// An endpoint of one's own (an emulator, the simulator's wire
	// endpoint) has no bucket subdomains: address buckets by path there.
	s3Client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = cfg.BaseEndpoint != nil })
	p := &cloud.Provider{
		Name:          providerName,
		Region:        region,
		SageMaker:     sageMaker,
		EKS:           eksPort,
		EC2:           newEC2Port(ec2.NewFromConfig(cfg)),
		IAM:           newIAMPort(iam.NewFromConfig(cfg)),
		STS:           newSTSPort(stsClient),
		ServiceQuotas: newServiceQuotasPort(servicequotas.NewFromConfig(cfg)),
		S3:            newS3Port(s3Client),
		S3Presign:     newS3PresignPort(s3.NewPresignClient(s3Client)),
		FSx:           newFSxPort(fsx.NewFromConfig(cfg)),
		Hub:           &hfhub.Client{},
		MLflow:        newMLflowTracking(sageMaker, cfg),
		Prometheus:    newPromWorkspaces(cfg),
		Kubernetes:    kube,
		Helm:          newHelm(kube, r.chartDir),
		SDKRetries:    true, // LoadDefaultConfig's standard retryer
	}
	r.providers[region] = p
	return p, nil
}
