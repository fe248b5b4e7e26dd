package apptest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud/awsenv"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simwire"
)

// Wire is the real provider's AWS clients (aws-sdk-go-v2, as --provider
// aws builds them) pointed at a simulator's AWS wire endpoint, and the
// simulator's own ports for what that endpoint does not serve: S3
// (REST-XML), the model hub and MLflow's REST API, and, unless RealKube,
// Kubernetes and Helm, which the simulated EKS clusters answer in-process.
// With RealKube, client-go and the Helm SDK reach the API server the
// simulated EKS cluster names as its endpoint.
type Wire struct {
	AWS      *awscloud.Regions
	World    *sim.World
	RealKube bool
}

// DefaultRegion is the AWS clients' default region.
func (r Wire) DefaultRegion() string { return r.AWS.DefaultRegion() }

// Provider returns the ports of region.
func (r Wire) Provider(region string) (*cloud.Provider, error) {
	a, err := r.AWS.Provider(region)
	if err != nil {
		return nil, err
	}
	s, err := r.World.Provider(region)
	if err != nil {
		return nil, err
	}
	p := *a
	p.S3, p.Hub, p.MLflow = s.S3, s.Hub, s.MLflow
	if !r.RealKube {
		p.Kubernetes, p.Helm = s.Kubernetes, s.Helm
	}
	return &p, nil
}

// OnTheWire is Options.SimPorts for an engine that reaches its world
// through the wire: it serves the world's AWS services on a loopback
// endpoint for the test's life and calls them with the real SDK clients.
// It isolates the SDK from the machine's AWS set-up.
func OnTheWire(t testing.TB) func(*sim.World) cloud.Regions {
	awsenv.Isolate(t)
	return func(w *sim.World) cloud.Regions {
		srv := httptest.NewServer(&simwire.Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
		t.Cleanup(srv.Close)
		a, err := awscloud.New(context.Background(), awscloud.Options{
			DefaultRegion: Region,
			BaseEndpoint:  srv.URL,
			Credentials:   credentials.NewStaticCredentialsProvider(awsenv.AccessKey, awsenv.SecretKey, ""),
		})
		if err != nil {
			t.Fatal(err)
		}
		return Wire{AWS: a, World: w}
	}
}
