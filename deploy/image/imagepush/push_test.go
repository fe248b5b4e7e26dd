package imagepush_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/instantstart/instantstart/deploy/image/imagepush"
	"github.com/instantstart/instantstart/deploy/image/imagepush/imagepushtest"
	"github.com/instantstart/instantstart/engine/sim"
)

func TestPushSendsTheLayoutsImageWithECRsPassword(t *testing.T) {
	f := imagepushtest.New(t)
	dir, images := imagepushtest.WriteLayout(t, imagepush.RefNameAnnotation, "v1.2.3")
	res, err := imagepush.Push(context.Background(), imagepush.Options{
		Layout: dir, Repository: f.Host + "/instantstart", Tokens: f.ECR,
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := images["v1.2.3"].Digest()
	if res.Tag != f.Host+"/instantstart:v1.2.3" || res.Digest != want.String() {
		t.Fatalf("pushed %+v; want tag %s/instantstart:v1.2.3 and digest %s", res, f.Host, want)
	}

	// The registry holds it, and gives it only to a caller with a password.
	ref, err := name.ParseReference(res.Tag)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Get(ref); err == nil {
		t.Fatal("the registry served the image without a password")
	}
	auth, err := imagepush.Login(context.Background(), f.ECR)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Image(ref, remote.WithAuth(auth))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := got.Digest(); d != want {
		t.Fatalf("the registry holds %s; want %s", d, want)
	}
	if n := f.World.Calls()["ecr"]["GetAuthorizationToken"]; n != 2 {
		t.Errorf("ECR GetAuthorizationToken was called %d times; want 2 (the push, the check)", n)
	}
}

func TestPushTakesTheRepositorysTagAndPicksAnImageByName(t *testing.T) {
	f := imagepushtest.New(t)
	dir, images := imagepushtest.WriteLayout(t, imagepush.RefNameAnnotation, "v1", "v2")
	o := imagepush.Options{Layout: dir, Repository: f.Host + "/team/instantstart:prod", Tokens: f.ECR}
	if _, err := imagepush.Push(context.Background(), o); err == nil || !strings.Contains(err.Error(), `"v1", "v2"`) || !strings.Contains(err.Error(), "--ref-name") {
		t.Fatalf("a layout of two images without a ref name: %v; want an error naming both and --ref-name", err)
	}
	o.RefName = "v3"
	if _, err := imagepush.Push(context.Background(), o); err == nil || !strings.Contains(err.Error(), `no image named "v3"`) {
		t.Fatalf("an unknown ref name: %v; want an error naming it", err)
	}
	o.RefName = "v2"
	res, err := imagepush.Push(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := images["v2"].Digest()
	if res.Tag != f.Host+"/team/instantstart:prod" || res.Digest != want.String() {
		t.Fatalf("pushed %+v; want tag prod and %s", res, want)
	}
}

func TestAnExpiredPasswordIsRefused(t *testing.T) {
	f := imagepushtest.New(t)
	auth, err := imagepush.Login(context.Background(), f.ECR)
	if err != nil {
		t.Fatal(err)
	}
	if auth.Username != sim.ECRUser || !f.ECRAPI.Authorized(auth.Username, auth.Password) {
		t.Fatalf("a fresh login %q is not authorized", auth.Username)
	}
	f.Advance(12*time.Hour + time.Second)
	if f.ECRAPI.Authorized(auth.Username, auth.Password) {
		t.Fatal("a password 12 hours old is still authorized")
	}
	img, _ := random.Image(1024, 1)
	ref, _ := name.NewTag(f.Host + "/instantstart:old")
	err = remote.Write(ref, img, remote.WithAuth(authn.FromConfig(authn.AuthConfig{Username: auth.Username, Password: auth.Password})))
	if err == nil || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Fatalf("a push with an expired password: %v; want 401 Unauthorized", err)
	}
}

func TestPushSaysWhatIsWrong(t *testing.T) {
	f := imagepushtest.New(t)
	dir, _ := imagepushtest.WriteLayout(t, imagepush.RefNameAnnotation, "v1")
	for _, c := range []struct {
		name, layout, repository, want string
	}{
		{"no layout", t.TempDir(), f.Host + "/instantstart", "is not an OCI image layout"},
		{"a digest", dir, f.Host + "/instantstart@sha256:" + strings.Repeat("a", 64), "needs a tag"},
		{"no registry", dir, "instantstart", "names no registry"},
		{"not a name", dir, f.Host + "/Insta nt", "is not REGISTRY/REPOSITORY"},
		{"too long", dir, f.Host + "/" + strings.Repeat("a", 600), "at most 512"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := imagepush.Push(context.Background(), imagepush.Options{Layout: c.layout, Repository: c.repository, Tokens: f.ECR})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v; want an error saying %q", err, c.want)
			}
		})
	}
	if f.Refused() != 0 {
		t.Errorf("bad input reached the registry %d times", f.Refused())
	}
}

func TestAnECRFaultStopsThePushBeforeTheRegistry(t *testing.T) {
	f := imagepushtest.New(t)
	if _, err := f.World.InjectFault(sim.Fault{Service: "ecr", Operation: "GetAuthorizationToken", Kind: sim.FaultError, Code: "AccessDeniedException", Message: "not allowed to ecr:GetAuthorizationToken"}); err != nil {
		t.Fatal(err)
	}
	dir, _ := imagepushtest.WriteLayout(t, imagepush.RefNameAnnotation, "v1")
	_, err := imagepush.Push(context.Background(), imagepush.Options{Layout: dir, Repository: f.Host + "/instantstart", Tokens: f.ECR})
	if err == nil || !strings.Contains(err.Error(), "AccessDeniedException") {
		t.Fatalf("got %v; want ECR's AccessDeniedException", err)
	}
	if f.Refused() != 0 {
		t.Errorf("the push reached the registry %d times without a password", f.Refused())
	}
}

func TestRegionOfAnECRHost(t *testing.T) {
	for host, want := range map[string]string{
		"123456789012.dkr.ecr.us-east-1.amazonaws.com":          "us-east-1",
		"123456789012.dkr.ecr-fips.us-gov-west-1.amazonaws.com": "us-gov-west-1",
		"123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn":      "cn-north-1",
		"ghcr.io":                      "",
		"127.0.0.1:5000":               "",
		"1234.dkr.ecr.x.amazonaws.com": "",
	} {
		if got := imagepush.RegionOf(host); got != want {
			t.Errorf("RegionOf(%q) = %q; want %q", host, got, want)
		}
	}
}
