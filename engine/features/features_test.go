package features_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/instantstart/instantstart/engine/app"
	"github.com/instantstart/instantstart/engine/app/apptest"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/sim"
	"github.com/instantstart/instantstart/engine/simtest"
)

type fixture struct {
	app     *app.App
	world   *sim.World
	runner  *ops.Runner
	svc     *features.Service
	cluster *hyperpod.Cluster
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, nil)
}

// newFixtureWith is newFixture with the cluster's initial instance groups.
func newFixtureWith(t *testing.T, groups []hyperpod.GroupSpec) *fixture {
	t.Helper()
	a := apptest.New(t, apptest.Options{})
	c := apptest.Cluster(t, a, cluster.CreateInput{Name: "train-1", Zones: []string{"us-west-2a", "us-west-2b"}, InstanceGroups: groups})
	return &fixture{app: a, world: a.World, runner: a.Runner, svc: a.Features, cluster: c}
}

func (f *fixture) succeeded(t *testing.T, op *ops.Operation) *ops.Operation {
	t.Helper()
	return simtest.Succeeded(t, f.runner, op)
}

func (f *fixture) mutations() map[string]int { return simtest.Mutations(f.world) }

// made returns the calls whose counts grew since before.
func (f *fixture) made(before map[string]int) []string { return simtest.MadeSince(f.world, before) }

func (f *fixture) feature(t *testing.T, name hyperpod.Feature) *features.Feature {
	t.Helper()
	list, err := f.svc.List(context.Background(), f.cluster.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("no feature %s", name)
	return nil
}

func (f *fixture) update(t *testing.T, toggles ...features.Toggle) *ops.Operation {
	t.Helper()
	op, err := f.svc.Update(context.Background(), "tester", f.cluster.ID, toggles, "")
	if err != nil {
		t.Fatal(err)
	}
	return f.succeeded(t, op)
}

func TestTieredCheckpointingMakesAndRemovesExactlyItsChain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if got := f.feature(t, hyperpod.TieredCheckpointing); got.Status != features.Disabled || len(got.Resources) != 0 {
		t.Fatalf("before: %+v", got)
	}
	on := features.Toggle{Name: hyperpod.TieredCheckpointing, Enable: true, Settings: &features.Settings{Bucket: "ckpt-bucket", MemoryPercentage: 40}}

	before := f.mutations()
	op := f.update(t, on)
	if op.Noop {
		t.Fatal("enabling was a no-op")
	}
	want := []string{"iam.AttachRolePolicy", "iam.CreatePolicy", "iam.CreateRole", "kubernetes.create serviceaccounts", "sagemaker.UpdateCluster"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("enabling made %v, want %v", got, want)
	}
	var phases []string
	for _, p := range op.Phases {
		phases = append(phases, p.Name)
	}
	if !slices.Equal(phases, []string{"tiered-checkpointing/policy", "tiered-checkpointing/role", "tiered-checkpointing/service-account", "tiered-checkpointing/tiered-storage"}) {
		t.Fatalf("phases %v", phases)
	}

	// The chain: the policy names the bucket, the role trusts exactly the
	// one service account, the account is annotated with the role, and the
	// cluster setting is on.
	p, _ := f.world.Provider("us-west-2")
	role, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("instantstart-train-1-checkpointing")})
	if err != nil {
		t.Fatal(err)
	}
	trust := aws.ToString(role.Role.AssumeRolePolicyDocument)
	if !strings.Contains(trust, "system%3Aserviceaccount%3Adefault%3Atiered-checkpointing") || !strings.Contains(trust, "sts.amazonaws.com") ||
		!strings.Contains(trust, "AssumeRoleWithWebIdentity") {
		t.Fatalf("trust policy %s", trust)
	}
	kc, err := p.Kubernetes.Clients(ctx, "train-1")
	if err != nil {
		t.Fatal(err)
	}
	sa, err := kc.Core.CoreV1().ServiceAccounts("default").Get(ctx, "tiered-checkpointing", metav1.GetOptions{})
	if err != nil || sa.Annotations["eks.amazonaws.com/role-arn"] != aws.ToString(role.Role.Arn) {
		t.Fatalf("service account %+v, %v", sa, err)
	}
	hp, err := p.SageMaker.DescribeCluster(ctx, &sagemaker.DescribeClusterInput{ClusterName: aws.String(f.cluster.HyperPod.Name)})
	if err != nil || hp.TieredStorageConfig == nil || hp.TieredStorageConfig.Mode != smtypes.ClusterConfigModeEnable || aws.ToInt32(hp.TieredStorageConfig.InstanceMemoryAllocationPercentage) != 40 {
		t.Fatalf("cluster setting %+v, %v", hp.TieredStorageConfig, err)
	}
	got := f.feature(t, hyperpod.TieredCheckpointing)
	var kinds []string
	for _, r := range got.Resources {
		kinds = append(kinds, r.Kind)
	}
	if got.Status != features.Enabled || !slices.Equal(kinds, []string{"IAM_POLICY", "IAM_ROLE", "KUBERNETES_OBJECT", "CLUSTER_SETTING"}) ||
		got.Settings == nil || got.Settings.Bucket != "ckpt-bucket" || got.Settings.MemoryPercentage != 40 || got.LastOperationID != op.ID {
		t.Fatalf("after enabling: %+v", got)
	}

	// Enabling again changes nothing.
	before = f.mutations()
	if op := f.update(t, on); !op.Noop {
		t.Fatal("enabling twice was not a no-op")
	}
	if got := f.made(before); len(got) != 0 {
		t.Fatalf("enabling twice made %v", got)
	}

	// Another bucket is refused until it is disabled.
	other := on
	other.Settings = &features.Settings{Bucket: "other-bucket"}
	_, err = f.svc.Update(ctx, "tester", f.cluster.ID, []features.Toggle{other}, "")
	if !strings.Contains(codesOf(err), string(errs.Precondition)) || !strings.Contains(err.Error(), "disable it first") {
		t.Fatalf("another bucket: %v", err)
	}

	// Disabling removes exactly the chain, in reverse.
	before = f.mutations()
	op = f.update(t, features.Toggle{Name: hyperpod.TieredCheckpointing})
	want = []string{"iam.DeletePolicy", "iam.DeleteRole", "iam.DetachRolePolicy", "kubernetes.delete serviceaccounts", "sagemaker.UpdateCluster"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("disabling made %v, want %v", got, want)
	}
	if op.Phases[0].Name != "tiered-checkpointing/tiered-storage" || op.Phases[3].Name != "tiered-checkpointing/policy" {
		t.Fatalf("disable phases start %s, end %s", op.Phases[0].Name, op.Phases[3].Name)
	}
	if got := f.feature(t, hyperpod.TieredCheckpointing); got.Status != features.Disabled || len(got.Resources) != 0 {
		t.Fatalf("after disabling: %+v", got)
	}
	before = f.mutations()
	if op := f.update(t, features.Toggle{Name: hyperpod.TieredCheckpointing}); !op.Noop || len(f.made(before)) != 0 {
		t.Fatal("disabling twice was not a no-op")
	}
}

func TestTieredCheckpointingRefusals(t *testing.T) {
	f := newFixture(t)
	before := f.mutations()
	for _, tc := range []struct {
		settings features.Settings
		field    string
	}{
		{features.Settings{}, "input.tieredCheckpointing.bucket"},
		{features.Settings{Bucket: "Bad_Bucket"}, "input.tieredCheckpointing.bucket"},
		{features.Settings{Bucket: "ok-bucket", MemoryPercentage: 150}, "input.tieredCheckpointing.memoryPercentage"},
		{features.Settings{Bucket: "ok-bucket", ServiceAccount: "Not OK"}, "input.tieredCheckpointing.serviceAccount"},
	} {
		s := tc.settings
		_, err := f.svc.Update(context.Background(), "tester", f.cluster.ID, []features.Toggle{{Name: hyperpod.TieredCheckpointing, Enable: true, Settings: &s}}, "")
		if !strings.Contains(codesOf(err), string(errs.Validation)) || !strings.Contains(fieldsOf(err), tc.field) {
			t.Errorf("%+v: %v", tc.settings, err)
		}
	}
	if got := f.made(before); len(got) != 0 {
		t.Fatalf("refusals made %v", got)
	}
}

// listOf returns the errors err carries.
func listOf(err error) errs.List {
	if list, ok := err.(errs.List); ok {
		return list
	}
	if err != nil {
		return errs.List{errs.As(err)}
	}
	return nil
}

func fieldsOf(err error) string {
	var out []string
	for _, e := range listOf(err) {
		out = append(out, e.Field)
	}
	return strings.Join(out, ",")
}

func codesOf(err error) string {
	var out []string
	for _, e := range listOf(err) {
		out = append(out, string(e.Code))
	}
	return strings.Join(out, ",")
}

func TestTrainingOperatorInstallsPrerequisitesFirst(t *testing.T) {
	f := newFixture(t)
	before := f.mutations()
	op := f.update(t, features.Toggle{Name: hyperpod.TrainingOperator, Enable: true})
	var phases []string
	for _, p := range op.Phases {
		phases = append(phases, p.Name)
	}
	if !slices.Equal(phases, []string{"training-operator/addon-eks-pod-identity-agent", "training-operator/addon-cert-manager", "training-operator/role",
		"training-operator/pod-identity", "training-operator/addon-amazon-sagemaker-hyperpod-training-operator"}) {
		t.Fatalf("phases %v", phases)
	}
	want := []string{"eks.CreateAddon", "eks.CreatePodIdentityAssociation", "iam.AttachRolePolicy", "iam.CreateRole"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("enabling made %v, want %v (the base add-ons exist already)", got, want)
	}
	got := f.feature(t, hyperpod.TrainingOperator)
	if got.Status != features.Enabled || len(got.Resources) != 5 {
		t.Fatalf("after enabling: %+v", got)
	}
	before = f.mutations()
	f.update(t, features.Toggle{Name: hyperpod.TrainingOperator})
	want = []string{"eks.DeleteAddon", "eks.DeletePodIdentityAssociation", "iam.DeleteRole", "iam.DetachRolePolicy"}
	if got := f.made(before); !slices.Equal(got, want) {
		t.Fatalf("disabling made %v, want %v (the shared add-ons stay)", got, want)
	}
	got = f.feature(t, hyperpod.TrainingOperator)
	if got.Status != features.Disabled || len(got.Resources) != 2 || !got.Resources[0].Shared {
		t.Fatalf("after disabling: %+v", got)
	}
}

func TestNodeAutoRecoveryToggles(t *testing.T) {
	f := newFixture(t)
	described := f.world.Calls()["sagemaker"]["DescribeCluster"]
	if got := f.feature(t, hyperpod.NodeAutoRecovery); got.Status != features.Enabled {
		t.Fatalf("a new cluster's auto-recovery: %+v", got)
	}
	if n := f.world.Calls()["sagemaker"]["DescribeCluster"] - described; n != 1 {
		t.Fatalf("reading the feature table described the cluster %d times, want once", n)
	}
	before := f.mutations()
	if op := f.update(t, features.Toggle{Name: hyperpod.NodeAutoRecovery, Enable: true}); !op.Noop || len(f.made(before)) != 0 {
		t.Fatal("enabling what is on was not a no-op")
	}
	f.update(t, features.Toggle{Name: hyperpod.NodeAutoRecovery})
	if got := f.feature(t, hyperpod.NodeAutoRecovery); got.Status != features.Disabled {
		t.Fatalf("after disabling: %+v", got)
	}
	if got := f.made(before); !maps.Equal(map[string]bool{"sagemaker.UpdateCluster": true}, setOf(got)) {
		t.Fatalf("disabling made %v", got)
	}
}

func setOf(s []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range s {
		out[x] = true
	}
	return out
}

func TestDisablingUsesTheSettingsItWasEnabledWith(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.update(t, features.Toggle{Name: hyperpod.TieredCheckpointing, Enable: true,
		Settings: &features.Settings{Bucket: "ckpt-bucket", Namespace: "team-a", ServiceAccount: "trainer"}})
	got := f.feature(t, hyperpod.TieredCheckpointing)
	if got.Status != features.Enabled || got.Settings.Namespace != "team-a" || got.Settings.ServiceAccount != "trainer" {
		t.Fatalf("after enabling: %+v", got)
	}
	// Off, naming nothing: the chain it was enabled with goes.
	f.update(t, features.Toggle{Name: hyperpod.TieredCheckpointing})
	p, _ := f.world.Provider("us-west-2")
	kc, err := p.Kubernetes.Clients(ctx, f.cluster.EKS.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Core.CoreV1().ServiceAccounts("team-a").Get(ctx, "trainer", metav1.GetOptions{}); err == nil {
		t.Fatal("the custom service account is still there")
	}
	if got := f.feature(t, hyperpod.TieredCheckpointing); got.Status != features.Disabled {
		t.Fatalf("after disabling: %+v", got)
	}
}
