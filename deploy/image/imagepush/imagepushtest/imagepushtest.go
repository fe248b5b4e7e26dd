// Package imagepushtest stands up what a push talks to, for tests: a
// simulated account whose ECR API is served on the wire, and
// go-containerregistry's in-memory registry that takes only the passwords
// that ECR API handed out, as ECR's registry does.
package imagepushtest

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ecr"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/random"

	"github.com/instantstart/instantstart/engine/cloud/awscloud/awsenv"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simwire"
)

// Region is the simulated account's region.
const Region = "us-east-1"

// Fixture is the simulated account and the registry.
type Fixture struct {
	World  *sim.World
	ECRAPI *sim.ECRAPI
	// ECRURL is the wire endpoint serving the ECR API; ECR is an SDK
	// client of it.
	ECRURL string
	ECR    *ecr.Client
	// Host is the registry's host:port; it speaks plain HTTP, which
	// go-containerregistry uses for loopback hosts.
	Host string

	mu      sync.Mutex
	now     time.Time
	refused int
}

// New starts both for the test's life. It isolates the SDK from the
// machine's AWS set-up (awsenv.Isolate), so the test may not run in
// parallel.
func New(t testing.TB) *Fixture {
	t.Helper()
	awsenv.Isolate(t)
	f := &Fixture{now: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)}
	w, err := sim.New(sim.Options{DefaultRegion: Region, Speed: 1, Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	f.World = w
	if f.ECRAPI, err = w.ECR(Region); err != nil {
		t.Fatal(err)
	}
	wire := httptest.NewServer(&simwire.Handler{Providers: w.Provider, DefaultRegion: Region,
		ECR: func(r string) (any, error) { return w.ECR(r) }})
	t.Cleanup(wire.Close)
	f.ECRURL = wire.URL
	f.ECR = ecr.New(ecr.Options{
		Region:       Region,
		BaseEndpoint: aws.String(wire.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(awsenv.AccessKey, awsenv.SecretKey, ""),
	})
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		user, password, ok := r.BasicAuth()
		if !ok || !f.ECRAPI.Authorized(user, password) {
			f.mu.Lock()
			f.refused++
			f.mu.Unlock()
			rw.Header().Set("WWW-Authenticate", `Basic realm="ecr"`)
			http.Error(rw, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	f.Host = strings.TrimPrefix(srv.URL, "http://")
	return f
}

func (f *Fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the simulated account's clock.
func (f *Fixture) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// Refused is how many registry requests were refused for their
// authentication (the first request of a push is one: it learns the
// registry wants basic authentication).
func (f *Fixture) Refused() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

// WriteLayout writes an OCI layout in a new directory holding one random
// image per name, each named by its ref name annotation.
func WriteLayout(t testing.TB, refNameAnnotation string, names ...string) (string, map[string]v1.Image) {
	t.Helper()
	dir := t.TempDir()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	images := map[string]v1.Image{}
	for _, n := range names {
		img, err := random.Image(2048, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{refNameAnnotation: n})); err != nil {
			t.Fatal(err)
		}
		images[n] = img
	}
	return dir, images
}
