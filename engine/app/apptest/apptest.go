// Package apptest builds the whole engine for tests the way the server
// builds it (app.New), on a simulator held in memory, so that every area's
// tests run on the same wiring as the product and none rebuilds it.
package apptest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/storage"
)

// Speed is how much faster than AWS the simulator answers, and the runner
// waits, unless Options says otherwise.
const Speed = 5000

// Region is the simulated world's default region.
const Region = "us-west-2"

// Options change the engine New builds; the zero value is the default
// simulator at Speed.
type Options struct {
	// Speed replaces Speed when set.
	Speed float64
	// Sim tunes the simulated world (its clock, seed, catalog); its speed
	// and region are the fixture's.
	Sim sim.Options
	// SimPorts makes from the world the ports the engine calls, in place
	// of the world's own (see app.Config.SimPorts).
	SimPorts func(*sim.World) cloud.Regions
	// Faults are injected into the simulator before the engine starts.
	Faults []sim.Fault
	// Logger receives the engine's logs; nil discards them.
	Logger *slog.Logger
}

// New builds the engine and closes it when the test ends.
func New(t testing.TB, opts Options) *app.App {
	t.Helper()
	if opts.Speed == 0 {
		opts.Speed = Speed
	}
	a, err := app.New(app.Config{
		DataDir: t.TempDir(), InMemory: true, SimSpeed: opts.Speed, Region: Region,
		Sim: opts.Sim, SimPorts: opts.SimPorts, SimFaults: opts.Faults, Logger: opts.Logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return a
}

// Cluster creates the cluster in asks for, waits until it is ACTIVE and
// reads its instance groups and nodes once, as the refresher would.
func Cluster(t testing.TB, a *app.App, in cluster.CreateInput) *hyperpod.Cluster {
	t.Helper()
	ctx := context.Background()
	op, err := a.Clusters.Create(ctx, "tester", in, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, a.Runner, op)
	if _, err := a.Compute.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := a.Clusters.Get(op.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// SharedBucket makes bucket and adds it to the cluster as its shared
// bucket, and waits until pods can mount it.
func SharedBucket(t testing.TB, a *app.App, clusterID, bucket string) *storage.Storage {
	t.Helper()
	op, err := a.Storage.Add(context.Background(), "tester", storage.AddInput{ClusterID: clusterID, Kind: storage.KindS3, S3: &storage.S3Input{Bucket: bucket, Create: true}}, "")
	if err != nil {
		t.Fatal(err)
	}
	end := simtest.Succeeded(t, a.Runner, op)
	st, err := a.Storage.Get(end.Target.ID)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
