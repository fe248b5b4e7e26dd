// Package imagepush pushes the container image this project builds (an OCI
// image layout, see package ociimage) to a registry, authenticated with
// the registry password ECR's GetAuthorizationToken hands out: what
// `aws ecr get-login-password | docker login` and `docker push` do,
// without a container engine.
package imagepush

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ecr"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// RefNameAnnotation names an image in an OCI layout's index; ociimage
// names the image by its version.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// AuthorizationTokens is the ECR call a push needs; *ecr.Client fits.
type AuthorizationTokens interface {
	GetAuthorizationToken(ctx context.Context, in *ecr.GetAuthorizationTokenInput, optFns ...func(*ecr.Options)) (*ecr.GetAuthorizationTokenOutput, error)
}

// TokenFunc is an AuthorizationTokens of one function, such as an ECR
// client's method value. Holding the client's method rather than the
// client in an interface keeps the binary from linking every ECR
// operation (see engine/cloud/awscloud/internal/portgen): a value held in
// an interface keeps all the methods of the types in it, a function none.
type TokenFunc func(ctx context.Context, in *ecr.GetAuthorizationTokenInput, optFns ...func(*ecr.Options)) (*ecr.GetAuthorizationTokenOutput, error)

// GetAuthorizationToken calls f.
func (f TokenFunc) GetAuthorizationToken(ctx context.Context, in *ecr.GetAuthorizationTokenInput, optFns ...func(*ecr.Options)) (*ecr.GetAuthorizationTokenOutput, error) {
	return f(ctx, in, optFns...)
}

// Options say what to push where.
type Options struct {
	// Layout is the directory of the OCI image layout to push from.
	Layout string
	// Repository is where to push: REGISTRY/REPOSITORY, with :TAG or
	// without (then the image's name in the layout is the tag).
	Repository string
	// RefName picks the image in a layout that holds several, by its
	// org.opencontainers.image.ref.name; "" takes the only one.
	RefName string
	// Tokens asks ECR for the registry password.
	Tokens AuthorizationTokens
	// Transport carries the registry requests; nil is remote's default.
	Transport http.RoundTripper
}

// Result is what was pushed.
type Result struct {
	// Tag is the reference pushed to, REGISTRY/REPOSITORY:TAG: the
	// stack's ImageUri.
	Tag string
	// Digest is the digest of the manifest (or index) pushed.
	Digest string
}

// ecrHostRE matches an ECR registry host: ACCOUNT.dkr.ecr[-fips].REGION.amazonaws.com[.cn].
var ecrHostRE = regexp.MustCompile(`^[0-9]{12}\.dkr\.ecr(-fips)?\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$`)

// RegionOf returns the region of an ECR registry host, or "" when host is
// not one.
func RegionOf(host string) string {
	if m := ecrHostRE.FindStringSubmatch(host); m != nil {
		return m[2]
	}
	return ""
}

// maxRepositoryLen bounds --repository: a registry host and ECR's
// 256-character repository name, and a 128-character tag.
const maxRepositoryLen = 512

// Target parses repository into the tag to push to; tag is used when
// repository names none.
func Target(repository, tag string) (name.Tag, error) {
	if repository == "" {
		return name.Tag{}, errors.New("the repository is empty: give REGISTRY/REPOSITORY[:TAG], such as 123456789012.dkr.ecr.us-east-1.amazonaws.com/instantstart")
	}
	if len(repository) > maxRepositoryLen {
		return name.Tag{}, fmt.Errorf("the repository is %d characters; at most %d", len(repository), maxRepositoryLen)
	}
	if strings.Contains(repository, "@") {
		return name.Tag{}, fmt.Errorf("the repository %q names a digest; a push needs a tag: give REGISTRY/REPOSITORY[:TAG]", repository)
	}
	if !strings.Contains(repository, "/") {
		return name.Tag{}, fmt.Errorf("the repository %q names no registry: give REGISTRY/REPOSITORY[:TAG], such as 123456789012.dkr.ecr.us-east-1.amazonaws.com/%s", repository, repository)
	}
	if t, err := name.NewTag(repository, name.StrictValidation); err == nil {
		return t, nil
	}
	repo, err := name.NewRepository(repository, name.StrictValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("the repository %q is not REGISTRY/REPOSITORY[:TAG]: %v", repository, err)
	}
	if tag == "" {
		return name.Tag{}, fmt.Errorf("the repository %q names no tag and the image in the layout has no name to tag it with: add :TAG", repository)
	}
	t, err := name.NewTag(repo.Name()+":"+tag, name.StrictValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("the image's name %q in the layout is not a tag: add :TAG to the repository (%v)", tag, err)
	}
	return t, nil
}

// pushable is the image or index a layout's manifest names.
type pushable struct {
	refName string
	image   v1.Image
	index   v1.ImageIndex
}

// open picks the image (or index) to push from the layout in dir.
func open(dir, refName string) (*pushable, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not an OCI image layout (build one with go run ./deploy/image --binary ... --out %s): %v", dir, dir, err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("read the layout's index in %s: %v", dir, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("read the layout's index in %s: %v", dir, err)
	}
	var names []string
	var picked []v1.Descriptor
	for _, d := range m.Manifests {
		n := d.Annotations[RefNameAnnotation]
		names = append(names, n)
		if refName == "" || n == refName {
			picked = append(picked, d)
		}
	}
	switch {
	case len(m.Manifests) == 0:
		return nil, fmt.Errorf("the layout in %s holds no image", dir)
	case len(picked) == 0:
		return nil, fmt.Errorf("the layout in %s holds no image named %q; it holds %s", dir, refName, quoted(names))
	case len(picked) > 1:
		return nil, fmt.Errorf("the layout in %s holds %d images (%s): pick one with --ref-name", dir, len(picked), quoted(names))
	}
	d := picked[0]
	out := &pushable{refName: d.Annotations[RefNameAnnotation]}
	switch {
	case d.MediaType.IsIndex():
		out.index, err = idx.ImageIndex(d.Digest)
	case d.MediaType.IsImage():
		out.image, err = idx.Image(d.Digest)
	default:
		return nil, fmt.Errorf("the layout's manifest %s is a %s, neither an image nor an index", d.Digest, d.MediaType)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s from the layout in %s: %v", d.Digest, dir, err)
	}
	return out, nil
}

func quoted(names []string) string {
	q := make([]string, 0, len(names))
	for _, n := range names {
		q = append(q, fmt.Sprintf("%q", n))
	}
	slices.Sort(q)
	return strings.Join(q, ", ")
}

// Login asks ECR for a registry password and returns it as the basic
// authentication a registry takes.
func Login(ctx context.Context, tokens AuthorizationTokens) (*authn.Basic, error) {
	out, err := tokens.GetAuthorizationToken(ctx, &ecr.GetAuthorizationTokenInput{})
	if err != nil {
		return nil, fmt.Errorf("ECR GetAuthorizationToken: %w", err)
	}
	if len(out.AuthorizationData) == 0 {
		return nil, errors.New("ECR GetAuthorizationToken answered no authorization data")
	}
	raw, err := base64.StdEncoding.DecodeString(aws.ToString(out.AuthorizationData[0].AuthorizationToken))
	if err != nil {
		return nil, fmt.Errorf("ECR's authorization token is not base64: %v", err)
	}
	user, password, ok := strings.Cut(string(raw), ":")
	if !ok || user == "" || password == "" {
		return nil, errors.New("ECR's authorization token is not USER:PASSWORD")
	}
	return &authn.Basic{Username: user, Password: password}, nil
}

// Push logs in to ECR and pushes the layout's image to o.Repository.
func Push(ctx context.Context, o Options) (*Result, error) {
	if o.Tokens == nil {
		return nil, errors.New("imagepush: no ECR client")
	}
	img, err := open(o.Layout, o.RefName)
	if err != nil {
		return nil, err
	}
	tag, err := Target(o.Repository, img.refName)
	if err != nil {
		return nil, err
	}
	auth, err := Login(ctx, o.Tokens)
	if err != nil {
		return nil, err
	}
	opts := []remote.Option{remote.WithAuth(auth), remote.WithContext(ctx)}
	if o.Transport != nil {
		opts = append(opts, remote.WithTransport(o.Transport))
	}
	var digest v1.Hash
	if img.index != nil {
		if err := remote.WriteIndex(tag, img.index, opts...); err != nil {
			return nil, fmt.Errorf("push %s: %w", tag, err)
		}
		digest, err = img.index.Digest()
	} else {
		if err := remote.Write(tag, img.image, opts...); err != nil {
			return nil, fmt.Errorf("push %s: %w", tag, err)
		}
		digest, err = img.image.Digest()
	}
	if err != nil {
		return nil, err
	}
	return &Result{Tag: tag.Name(), Digest: digest.String()}, nil
}
