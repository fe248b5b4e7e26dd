package features_test

import (
	"context"
	"maps"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/instantstart/instantstart/engine/cloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud"
	"github.com/instantstart/instantstart/engine/cloud/awscloud/awsenv"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
	"github.com/instantstart/instantstart/engine/simwire"
	"github.com/instantstart/instantstart/engine/store"
)

// onTheWire gives the real provider's AWS clients (aws-sdk-go-v2, as
// --provider aws builds them) pointed at a simulator's AWS wire endpoint,
// and the simulator's own ports for what that endpoint does not serve: S3
// (REST-XML), the model hub and MLflow's REST API, and, unless realKube,
// Kubernetes and Helm, which the simulated EKS clusters answer in-process.
// With realKube, client-go and the Helm SDK reach the API server the
// simulated EKS cluster names as its endpoint.
type onTheWire struct {
	aws      *awscloud.Regions
	world    *sim.World
	realKube bool
}

func (r onTheWire) DefaultRegion() string { return r.aws.DefaultRegion() }

func (r onTheWire) Provider(region string) (*cloud.Provider, error) {
	a, err := r.aws.Provider(region)
	if err != nil {
		return nil, err
	}
	s, err := r.world.Provider(region)
	if err != nil {
		return nil, err
	}
	p := *a
	p.S3, p.Hub, p.MLflow = s.S3, s.Hub, s.MLflow
	if !r.realKube {
		p.Kubernetes, p.Helm = s.Kubernetes, s.Helm
	}
	return &p, nil
}

// flowStack is one control plane on its own simulated world.
type flowStack struct {
	world    *sim.World
	runner   *ops.Runner
	clusters *cluster.Service
	features *features.Service
}

// newFlowStack builds the stack on regions over a new world; tweaks change
// the world's options first (a Speed set there is the runner's too).
func newFlowStack(t *testing.T, regions func(*sim.World) cloud.Regions, tweaks ...func(*sim.Options)) *flowStack {
	t.Helper()
	st, err := store.Open("", store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := sim.Options{Speed: speed, DefaultRegion: "us-west-2", Seed: 7}
	for _, tweak := range tweaks {
		tweak(&opts)
	}
	world, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	runner := ops.NewRunner(st, ops.Options{Speed: opts.Speed}) // the runner keeps the world's pace
	r := regions(world)
	clusters := cluster.New(st, runner, r, cluster.Options{})
	svc := features.New(st, runner, r, cluster.FeaturesView{Service: clusters}, features.Options{})
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		runner.Shutdown(context.Background())
		st.Close()
	})
	return &flowStack{world: world, runner: runner, clusters: clusters, features: svc}
}

// run creates a cluster with a GPU group, turns features on and one off
// again, and deletes the cluster.
func (s *flowStack) run(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	op, err := s.clusters.Create(ctx, "tester", cluster.CreateInput{
		Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"},
		InstanceGroups: []compute.GroupSpec{{Name: "gpu", InstanceTypes: []string{"ml.p5.48xlarge"}, Count: 2, Zone: "us-west-2a"}},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := simtest.Succeeded(t, s.runner, op).Target.ID
	toggle := func(toggles ...features.Toggle) {
		op, err := s.features.Update(ctx, "tester", id, toggles, "")
		if err != nil {
			t.Fatal(err)
		}
		simtest.Succeeded(t, s.runner, op)
	}
	toggle(features.Toggle{Name: features.TrainingOperator, Enable: true}, features.Toggle{Name: features.S3CSIDriver, Enable: true, Settings: &features.Settings{Buckets: []string{"datasets-1"}}})
	toggle(features.Toggle{Name: features.FSxCSIDriver, Enable: true})
	toggle(features.Toggle{Name: features.S3CSIDriver, Enable: false})
	del, err := s.clusters.Delete(ctx, "tester", id, "")
	if err != nil {
		t.Fatal(err)
	}
	simtest.Succeeded(t, s.runner, del)
}

// TestWireRunMakesTheCallsOfTheEmbeddedRun runs one flow twice: on the
// simulator's ports in-process, and through the real SDK clients against
// the simulator's AWS wire endpoint (EKS REST-JSON, EC2 and IAM/STS query,
// SageMaker, FSx and Service Quotas JSON 1.1). Each world records the
// calls it answered; the mutating ones must be the same, call for call.
func TestWireRunMakesTheCallsOfTheEmbeddedRun(t *testing.T) {
	awsenv.Isolate(t) // the SDK reads nothing of the machine's AWS set-up

	embedded := newFlowStack(t, func(w *sim.World) cloud.Regions { return w })
	wire := newFlowStack(t, func(w *sim.World) cloud.Regions {
		srv := httptest.NewServer(&simwire.Handler{Providers: w.Provider, DefaultRegion: w.DefaultRegion()})
		t.Cleanup(srv.Close)
		a, err := awscloud.New(context.Background(), awscloud.Options{
			DefaultRegion: "us-west-2",
			BaseEndpoint:  srv.URL,
			Credentials:   credentials.NewStaticCredentialsProvider(awsenv.AccessKey, awsenv.SecretKey, ""),
		})
		if err != nil {
			t.Fatal(err)
		}
		return onTheWire{aws: a, world: w}
	})
	embedded.run(t)
	wire.run(t)

	want, got := simtest.Mutations(embedded.world), simtest.Mutations(wire.world)
	t.Logf("%d kinds of mutating call, %d calls in all", len(want), total(want))
	if !maps.Equal(want, got) {
		for _, k := range slices.Sorted(maps.Keys(joinKeys(want, got))) {
			if want[k] != got[k] {
				t.Errorf("%s: embedded %d, wire %d", k, want[k], got[k])
			}
		}
	}
	for _, svc := range []string{"sagemaker", "eks", "ec2", "iam"} {
		if wire.world.Calls()[svc] == nil {
			t.Errorf("no %s call reached the wire world", svc)
		}
	}
}

func joinKeys(a, b map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}
